"""Memory: values are freed after their last use, kernels write into dying buffers the
program owns and never into inputs, constants or what a view or an If/Loop output may
share, and the peak memory of a chain and a layernorm is no more than numpy's."""
import re
import tracemalloc
import weakref

import numpy as np

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, TensorType, dtypes as dt, verify
from graphjit.ir.builders import if_, loop
from graphjit.ir.registry import register_op

F32, BOOL, I64 = dt.float32, dt.bool_, dt.int64

_made = []        # weak references to the arrays TestMemMake returned
_seen = []        # at each TestMemLook, whether each of them was still alive


def _make_factory(in_types, out_types, attrs):
    def k(x):
        r = x + 1
        _made.append(weakref.ref(r))
        return r
    return k


def _look_factory(in_types, out_types, attrs):
    def k(x):
        _seen.append([w() is not None for w in _made])
        return x
    return k


register_op("TestMemMake", ("x",), infer=lambda ts, a: ts[0], kernel_factory=_make_factory,
            family="extern", replace=True, doc="x + 1, remembered by a weak reference")
register_op("TestMemLook", ("x",), infer=lambda ts, a: ts[0], kernel_factory=_look_factory,
            family="extern", replace=True, doc="x; notes which TestMemMake results live")


def compiled(g):
    verify(g)
    return compile_graph(g)


def T(dtype, *shape):
    return TensorType(dtype, shape)


def test_a_value_is_freed_after_its_last_use_not_when_the_graph_returns():
    g = Graph("f")
    x = g.add_param(T(F32, 1000), "x")
    a = g.apply("TestMemMake", x)           # last read by the fused Exp/Neg
    b = g.apply("TestMemMake", x)           # read again after the look
    c = g.apply("Neg", g.apply("Exp", a))
    d = g.apply("TestMemLook", c)
    g.set_results([g.apply("Add", d, b)])
    cg = compiled(g)
    _made.clear()
    _seen.clear()
    xv = np.ones(1000, np.float32)
    (out,) = cg(xv)
    assert _seen == [[False, True]]
    np.testing.assert_array_equal(out, -np.exp(xv + 1) + (xv + 1))


def test_a_loop_body_frees_its_own_values_each_iteration():
    g = Graph("f")
    x = g.add_param(T(F32, 100), "x")

    def step(b, i, carried, sliced, invariant):
        t = b.apply("TestMemMake", carried[0])
        u = b.apply("TestMemLook", b.apply("Sin", t))
        return True, [u], []

    g.set_results(loop(g, step, trip_count=3, carried=[x]))
    cg = compiled(g)
    _made.clear()
    _seen.clear()
    cg(np.zeros(100, np.float32))
    assert _seen == [[False], [False, False], [False, False, False]]


# -- never writing into what someone else holds -----------------------------------------------------
def _run_keeping_inputs(g, *args):
    kept = [np.array(a, copy=True) for a in args]
    outs = compiled(g)(*args)
    for a, k in zip(args, kept):
        np.testing.assert_array_equal(a, k)
    return outs


def test_inputs_constants_and_their_views_are_never_written():
    g = Graph("f")
    x = g.add_param(T(F32, 2, 3), "x")
    c = g.const(np.arange(6, dtype=np.float32).reshape(2, 3))
    v = g.apply("Reshape", x, shape=(3, 2))              # a view of the input
    w = g.apply("Identity", c)                           # the constant itself
    y = g.apply("Add", g.apply("Reshape", v, shape=(2, 3)), w)
    g.set_results([g.apply("Mul", y, x), g.apply("Exp", w), g.apply("Neg", x)])
    xv = np.ones((2, 3), np.float32)
    outs = _run_keeping_inputs(g, xv)
    np.testing.assert_array_equal(outs[0], (xv + np.arange(6).reshape(2, 3)) * xv)
    np.testing.assert_array_equal(c.producer.attrs["value"], np.arange(6).reshape(2, 3))
    outs = _run_keeping_inputs(g, xv)           # a second call sees the same constant
    np.testing.assert_array_equal(outs[1], np.exp(np.arange(6, dtype=np.float32).reshape(2, 3)))


def test_a_buffer_a_view_still_shares_is_not_overwritten():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    a = g.apply("Exp", x)                                # ours, but Reshape views it
    r = g.apply("Reshape", a, shape=(2, 4))
    b = g.apply("Add", a, g.const(np.float32(1)))        # a dies here
    g.set_results([r, b])
    xv = np.linspace(0, 1, 8).astype(np.float32)
    r_out, b_out = _run_keeping_inputs(g, xv)
    np.testing.assert_array_equal(r_out, np.exp(xv).reshape(2, 4))
    np.testing.assert_array_equal(b_out, np.exp(xv) + 1)


def test_a_buffer_an_if_or_a_zero_trip_loop_may_return_is_not_overwritten():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    c = g.add_param(T(BOOL), "c")
    n = g.add_param(T(I64), "n")
    a = g.apply("Exp", x)
    (kept,) = if_(g, c, lambda b, p: p, lambda b, p: b.apply("Neg", p), [a])

    def step(b, i, carried, sliced, invariant):
        return True, [b.apply("Mul", carried[0], b.const(np.float32(2)))], []

    (looped,) = loop(g, step, trip_count=n, carried=[a])
    after = g.apply("Sin", g.apply("Add", a, g.const(np.float32(1))))   # a dies here
    g.set_results([kept, looped, after])
    xv = np.linspace(0, 1, 8).astype(np.float32)
    kept_out, looped_out, after_out = _run_keeping_inputs(g, xv, np.bool_(True), np.int64(0))
    np.testing.assert_array_equal(kept_out, np.exp(xv))
    np.testing.assert_array_equal(looped_out, np.exp(xv))
    np.testing.assert_array_equal(after_out, np.sin(np.exp(xv) + 1))


def test_a_dying_buffer_of_our_own_is_written_in_place():
    g = Graph("f")
    x = g.add_param(T(F32, 64), "x")
    a = g.apply("Exp", x)
    b = g.apply("Sin", a)                 # a has two users: realized
    g.set_results([g.apply("Mul", g.apply("Cos", a), b)])
    cg = compiled(g)
    # Cos(a) writes into a (a dies there); Mul writes into that buffer too
    assert re.search(r"_cos\((\w+), \1\)\n\s+_multiply\(\1, \w+, \1\)", cg.source)
    xv = np.linspace(0, 1, 64).astype(np.float32)
    np.testing.assert_array_equal(cg(xv)[0], np.cos(np.exp(xv)) * np.sin(np.exp(xv)))


# -- peak memory against numpy ---------------------------------------------------------------------
def _peak(fn, calls=3) -> int:
    fn()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(calls):
        fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def test_peak_memory_of_a_long_chain_is_no_more_than_numpys():
    g = Graph("chain")
    x = g.add_param(T(F32, 1 << 20), "x")
    e = g.apply("Mul", g.apply("Exp", g.apply("Neg", g.apply("Abs", x))),
                g.const(np.float32(0.5)))
    s = g.apply("Mul", g.apply("Sin", x), x)
    g.set_results([g.apply("Sub", g.apply("Add", e, s), g.const(np.float32(1)))])
    cg = compiled(g)
    xv = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    graph = _peak(lambda: cg(xv))
    numpy = _peak(lambda: np.exp(-np.abs(xv)) * np.float32(0.5) + np.sin(xv) * xv -
                  np.float32(1))
    assert graph <= numpy, (graph, numpy)
    assert graph < xv.nbytes * 1.25           # the result and a few blocks


def test_peak_memory_of_a_layernorm_is_no_more_than_numpys():
    g = Graph("layernorm")
    x = g.add_param(T(F32, 256, 1024), "x")
    gain = g.const(np.full(1024, 1.5, np.float32))
    mu = g.apply("ReduceMean", x, axis=-1, keep_dims=True)
    d = g.apply("Sub", x, mu)
    var = g.apply("ReduceMean", g.apply("Mul", d, d), axis=-1, keep_dims=True)
    s = g.apply("Sqrt", g.apply("Add", var, g.const(np.float32(1e-5))))
    g.set_results([g.apply("Mul", g.apply("RealDiv", d, s), gain)])
    cg = compiled(g)
    xv = np.random.default_rng(0).standard_normal((256, 1024)).astype(np.float32)
    gv = np.full(1024, 1.5, np.float32)

    def by_hand():
        m = xv.mean(axis=-1, keepdims=True)
        dv = xv - m
        v = (dv * dv).mean(axis=-1, keepdims=True)
        return dv / np.sqrt(v + np.float32(1e-5)) * gv

    np.testing.assert_allclose(cg(xv)[0], by_hand(), rtol=1e-5, atol=1e-5)
    assert _peak(lambda: cg(xv)) <= _peak(by_hand)


def test_two_outputs_of_one_loop_value_are_freed_separately():
    g = Graph("f")
    x = g.add_param(T(F32, 4), "x")
    n = g.add_param(T(I64), "n")

    def step(b, i, carried, sliced, invariant):
        return True, [b.apply("Add", carried[0], b.const(np.float32(1)))], []

    (first,) = loop(g, step, trip_count=n, carried=[x])
    node = first.producer
    node.attrs["output_map"] = list(node.attrs["output_map"]) * 2     # the last value twice
    node.outputs = node.outputs + (type(first)(first.type, g, node, 1),)
    second = node.outputs[1]
    g.set_results([g.apply("Exp", first), second])   # `first` dies at Exp, `second` lives
    xv = np.zeros(4, np.float32)
    a, b = compile_graph(g)(xv, np.int64(2))
    np.testing.assert_array_equal(a, np.exp(xv + 2))
    np.testing.assert_array_equal(b, xv + 2)
