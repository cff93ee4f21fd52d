"""The executor: If and Loop run as inline nested plans, built once; inline numpy
expressions agree with the kernels they replace; run-time errors name the node."""
import re
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphjit.backend.executor import compile_graph, make_node_kernel
from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.builders import if_, loop
from graphjit.ir.errors import GraphRuntimeError
from graphjit.ir.registry import OpDef, get_op

F32, I32, I64, BOOL = dt.float32, dt.int32, dt.int64, dt.bool_


def T(dtype, *shape):
    return TensorType(dtype, shape)


def compiled(g):
    verify(g)
    return compile_graph(g)


def _counter_loop():
    """s = sum over i < n of (i * 3 + x), with an If picking +1/-1 on odd i."""
    g = Graph("counter")
    n = g.add_param(T(I64), "n")
    x = g.add_param(T(I64), "x")

    def step(b, i, carried, sliced, invariant):
        odd = b.apply("Equal", b.apply("FloorMod", i, b.const(np.int64(2))),
                      b.const(np.int64(1)))
        (sign,) = if_(b, odd, lambda t: t.const(np.int64(1)), lambda e: e.const(np.int64(-1)))
        term = b.apply("Add", b.apply("Mul", i, b.const(np.int64(3))), invariant[0])
        return True, [b.apply("Add", carried[0], b.apply("Mul", term, sign))], []

    g.set_results(loop(g, step, trip_count=n, carried=[g.const(np.int64(0))], invariant=[x]))
    return g


def _counter_ref(n, x):
    return sum((i * 3 + x) * (1 if i % 2 else -1) for i in range(n))


def test_kernels_are_made_once_when_compiling_never_while_running(monkeypatch):
    g = _counter_loop()
    cg = compiled(g)
    made = []
    original = OpDef.make_kernel
    monkeypatch.setattr(OpDef, "make_kernel",
                        lambda self, *a: made.append(self.name) or original(self, *a))
    assert int(cg(np.int64(1000), np.int64(5))[0]) == _counter_ref(1000, 5)
    assert made == []


def test_if_and_loop_are_generated_inline_in_one_function():
    cg = compiled(_counter_loop())
    assert cg.source.count("def ") == 1
    assert "while " in cg.source and "if " in cg.source and "else:" in cg.source


def test_unused_iteration_and_constant_conditions_cost_nothing_per_iteration():
    g = Graph("f")
    x0 = g.add_param(T(F32), "x0")

    def step(b, i, carried, sliced, invariant):
        return True, [b.apply("Mul", carried[0], b.const(2.0))], []

    g.set_results(loop(g, step, trip_count=10, carried=[x0]))
    src = compiled(g).source
    loop_lines = src[src.index("while"):].splitlines()
    assert loop_lines[0].strip().startswith("while ") and " and " not in loop_lines[0]
    assert "_iteration" not in src and "_truth" not in src.split("while")[1]
    assert compiled(g)(np.float32(1.5))[0] == 1.5 * 2 ** 10


@pytest.mark.parametrize("n,x", [(0, 3), (1, 3), (7, -2), (100, 11)])
def test_counter_loop_matches_python(n, x):
    assert int(compiled(_counter_loop())(np.int64(n), np.int64(x))[0]) == _counter_ref(n, x)


# -- inline numpy expressions agree with the kernels -----------------------------------------
BINARY = ["Add", "Sub", "Mul", "RealDiv", "Less", "LessEqual", "Greater", "GreaterEqual",
          "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalXor"]
DTYPES = [dt.bool_, dt.int8, dt.int32, dt.int64, dt.uint8, dt.float16, dt.float32, dt.float64]


def _sample(dtype, shape):
    rng = np.random.default_rng(1)
    if dtype.is_bool:
        return rng.random(shape) < 0.5
    if dtype.is_integer:
        lo = 0 if dtype.kind == "u" else -50
        return rng.integers(lo, 50, shape).astype(dtype.np)
    return (rng.standard_normal(shape) * 10).astype(dtype.np)


@pytest.mark.parametrize("op,dtype", [(op, d) for op in BINARY for d in DTYPES
                                      if not (op == "Sub" and d.is_bool)],   # refused
                         ids=lambda x: getattr(x, "name", x))
@pytest.mark.parametrize("shapes", [((), ()), ((3,), ()), ((2, 3), (3,))])
def test_inline_binary_operators_match_the_op_kernel(op, dtype, shapes):
    g = Graph("f")
    a = g.add_param(T(dtype, *shapes[0]), "a")
    b = g.add_param(T(dtype, *shapes[1]), "b")
    node = g.add_node(op, [a, b])
    g.set_results(node.outputs)
    av, bv = _sample(dtype, shapes[0]), _sample(dtype, shapes[1])
    if not shapes[0]:
        av, bv = av[()], bv[()]          # numpy scalars, as kernels return them
    if op == "RealDiv" and not dtype.is_bool:
        bv = np.where(bv == 0, 1, bv).astype(dtype.np)[()] if not shapes[1] else \
            np.where(bv == 0, 1, bv).astype(dtype.np)
    (got,) = compiled(g)(av, bv)
    kernel = make_node_kernel(node)
    with np.errstate(all="ignore"):
        want = kernel(av, bv)
    assert np.asarray(got).dtype == np.asarray(want).dtype == node.outputs[0].type.dtype.np
    np.testing.assert_array_equal(got, want)


def test_inline_shape_ops_and_matmul_match_the_kernels():
    g = Graph("f")
    x = g.add_param(T(F32, 1, 4, 3), "x")
    w = g.add_param(T(F32, 3, 2), "w")
    sq = g.apply("Squeeze", x, axis=0)
    mid = g.apply("ExpandDims", sq, axis=1)
    last = g.apply("ExpandDims", sq, axis=-1)
    mm = g.apply("MatMul", sq, w)
    g.set_results([sq, mid, last, mm])
    xv = np.arange(12, dtype=np.float32).reshape(1, 4, 3)
    wv = np.arange(6, dtype=np.float32).reshape(3, 2)
    cg = compiled(g)
    assert "_dot(" in cg.source and "[0]" in cg.source and "None]" in cg.source
    got = cg(xv, wv)
    want = (np.squeeze(xv, 0), np.expand_dims(xv[0], 1), np.expand_dims(xv[0], -1),
            xv[0] @ wv)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("index", [(0,), (-1,), (("slice", 1, None, None),),
                                   (1, ("slice", None, None, -1)), ("...", 0), (None, 2),
                                   (("slice", 0, 3, 2), None, "...")])
def test_inline_indexing_matches_the_kernel(index):
    g = Graph("f")
    x = g.add_param(T(F32, 3, 4), "x")
    node = g.add_node("Index", [x], {"index": index})
    g.set_results(node.outputs)
    cg = compiled(g)
    assert "= v0[" in cg.source                   # written as x[...], not a kernel call
    xv = np.arange(12, dtype=np.float32).reshape(3, 4)
    got, want = cg(xv)[0], make_node_kernel(node)(xv)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("i", [0, 2, -3, 3, -4])
@pytest.mark.parametrize("itype", [dt.int32, dt.int64, dt.uint8])
def test_gather_of_one_index_matches_the_kernel_and_its_error(axis, i, itype):
    if itype is dt.uint8 and i < 0:
        return
    g = Graph("f")
    x = g.add_param(T(F32, 3, 3), "x")
    k = g.add_param(TensorType(itype, ()), "k")
    node = g.add_node("Gather", [x, k], {"axis": axis})
    g.set_results(node.outputs)
    cg = compiled(g)
    assert "if -v0.shape[" in cg.source
    xv = np.arange(9, dtype=np.float32).reshape(3, 3)
    try:
        want = make_node_kernel(node)(xv, np.asarray(i, itype.np))
    except IndexError as e:
        with pytest.raises(GraphRuntimeError, match=re.escape(str(e))) as info:
            cg(xv, np.asarray(i, itype.np))    # a 0-d array, as a graph value is
        assert isinstance(info.value, IndexError)
        return
    got = cg(xv, np.asarray(i, itype.np))[0]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_squeeze_of_an_unknown_dim_is_checked_at_run_time():
    g = Graph("f")
    x = g.add_param(T(F32, None, 3), "x")
    g.set_results([g.apply("Squeeze", x, axis=0)])
    cg = compiled(g)
    np.testing.assert_array_equal(cg(np.ones((1, 3), np.float32))[0], np.ones(3))
    with pytest.raises(GraphRuntimeError, match="Squeeze failed"):
        cg(np.ones((2, 3), np.float32))


def test_scalar_constants_and_parameters_returned_as_they_are():
    g = Graph("f")
    x = g.add_param(T(F32, 2), "x")
    c = g.const(np.float32(2.5))
    v = g.const(np.array([1, 2], np.int32))
    g.set_results([x, c, v, g.apply("Identity", x)])
    xv = np.ones(2, np.float32)
    got = compiled(g)(xv)
    assert got[0] is xv and got[3] is xv
    assert got[1] == 2.5 and np.asarray(got[1]).dtype == np.float32
    np.testing.assert_array_equal(got[2], [1, 2])


# -- make_node_kernel for control nodes ------------------------------------------------------
def test_if_and_loop_kernels_return_tuples():
    g = _counter_loop()
    loop_node = next(n for n in g.nodes if n.op == "Loop")
    k = make_node_kernel(loop_node)
    out = k(np.int64(6), np.bool_(True), np.int64(0), np.int64(2))
    assert isinstance(out, tuple) and int(out[0]) == _counter_ref(6, 2)
    body = loop_node.attrs["body"]
    if_node = next(n for n in body.nodes if n.op == "If")
    k = make_node_kernel(if_node)
    assert k(np.bool_(True)) == (1,) and k(np.bool_(False)) == (-1,)


def test_a_node_kernel_taking_one_value_twice():
    g = Graph("f")
    x = g.add_param(T(F32), "x")
    (y,) = if_(g, True, lambda b, p, q: b.apply("Sub", p, q), lambda b, p, q: p, [x, x])
    k = make_node_kernel(y.producer)
    assert k(np.bool_(True), np.float32(3), np.float32(1)) == (2.0,)


# -- run-time errors ----------------------------------------------------------------------------
def test_a_failing_kernel_inside_a_body_names_its_node_and_line():
    g = Graph("f")
    xs = g.add_param(T(F32, 4, None), "xs")
    loc = SourceLoc("/src/model.py", 33, 12, function="construct",
                    text="            y = row.reshape(2, 2)\n")

    def step(b, i, carried, sliced, invariant):
        row = b.apply("Reshape", sliced[0], shape=(2, -1), loc=loc)
        return True, [], [(b.apply("ExpandDims", row, axis=0), 0)]

    g.set_results(loop(g, step, sliced=[xs]))
    cg = compiled(g)
    assert cg(np.ones((4, 4), np.float32))[0].shape == (4, 2, 2)
    with pytest.raises(GraphRuntimeError) as info:
        cg(np.ones((4, 3), np.float32))
    assert "Reshape failed while the graph ran" in str(info.value)
    assert info.value.loc is loc and "row.reshape(2, 2)" in str(info.value)


@pytest.mark.parametrize("trip, msg", [
    (np.array([1, 2], np.int64), "trip count must have one element, got shape \\(2,\\)"),
    (np.int64(-2), "trip count must be -1 \\(no limit\\) or at least 0, got -2"),
])
def test_bad_trip_counts(trip, msg):
    g = _counter_loop()
    with pytest.raises(GraphRuntimeError, match=msg):
        compiled(g)(trip, np.int64(1))


def test_empty_concatenation_of_unknown_rank_is_a_runtime_error():
    g = Graph("f")
    n = g.add_param(T(I64), "n")
    x = g.add_param(TensorType(F32, None), "x")

    def step(b, i, carried, sliced, invariant):
        return True, [], [(invariant[0], 0)]

    g.set_results(loop(g, step, trip_count=n, invariant=[x]))
    cg = compiled(g)
    np.testing.assert_array_equal(cg(np.int64(2), np.ones((1, 2), np.float32))[0],
                                  np.ones((2, 2)))
    with pytest.raises(GraphRuntimeError, match="unknown rank, so its empty value is unknown"):
        cg(np.int64(0), np.ones((1, 2), np.float32))


def test_effects_in_a_body_run_once_per_iteration(capsys):
    g = Graph("f")
    n = g.add_param(T(I64), "n")

    def step(b, i, carried, sliced, invariant):
        b.add_node("Print", [i], {"template": ("step", 0)})
        return True, [], []

    g.set_results(loop(g, step, trip_count=n))
    assert compiled(g)(np.int64(3)) == ()
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\n"


# -- concurrency ------------------------------------------------------------------------------
def test_one_compiled_loop_runs_in_many_threads_at_once():
    cg = compiled(_counter_loop())
    results, errors = {}, []

    def work(k):
        try:
            for r in range(20):
                n = 50 + k * 7 + r
                results[(k, r)] = (int(cg(np.int64(n), np.int64(k))[0]), _counter_ref(n, k))
        except Exception as e:      # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 120 and all(a == b for a, b in results.values())


def test_python_numbers_as_inputs_take_the_parameter_dtype():
    g = Graph("f")
    a = g.add_param(T(F32), "a")
    b = g.add_param(T(dt.int32), "b")
    g.set_results([g.apply("Add", a, a), g.apply("Mul", b, b)])
    x, y = compiled(g)(1.5, 70000)
    assert x == 3.0 and np.asarray(x).dtype == np.float32
    with np.errstate(over="ignore"):
        wrapped = np.int32(70000) * np.int32(70000)     # int32 arithmetic wraps around
    assert np.asarray(y).dtype == np.int32 and y == wrapped


@pytest.mark.parametrize("ta, tb", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("dtype", [F32, dt.float64])
def test_transposed_float_matmuls_run_inline_as_the_kernel_computes_them(ta, tb, dtype):
    g = Graph("f")
    a = g.add_param(T(dtype, 5, 3) if ta else T(dtype, 3, 5), "a")
    b = g.add_param(T(dtype, 4, 5) if tb else T(dtype, 5, 4), "b")
    mm = g.apply("MatMul", a, b, transpose_a=ta, transpose_b=tb)
    g.set_results([mm])
    cg = compiled(g)
    assert "_dot(" in cg.source and ".T" in cg.source
    rng = np.random.default_rng(0)
    av = rng.standard_normal((5, 3) if ta else (3, 5)).astype(dtype.np)
    bv = rng.standard_normal((4, 5) if tb else (5, 4)).astype(dtype.np)
    kernel = make_node_kernel(mm.producer)
    want = (av.T if ta else av) @ (bv.T if tb else bv)
    got = cg(av, bv)[0]
    assert got.tobytes() == kernel(av, bv).tobytes() == want.tobytes()


def test_a_loops_row_read_only_through_squeeze_is_one_index():
    """`for row in xs` slices xs[i:i+1] and squeezes it; read only that way, the
    generated loop reads xs[i] (one index), with the bits of eager mode."""
    import graphjit as ms
    from graphjit.jit.cache import cache_of

    def rows(xs, h):
        for row in xs:
            h = h * 0.5 + row
        return h

    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = rows(ms.Tensor(xs), ms.Tensor(np.zeros(3, np.float32))).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    jf = ms.jit(rows)
    got = jf(ms.Tensor(xs), ms.Tensor(np.zeros(3, np.float32))).asnumpy()
    assert got.tobytes() == want.tobytes()
    src = cache_of(jf)[0].plan.source
    loop = src[src.index("while"):]
    assert re.search(r"= v\d+\[i\d+\]\n", loop) and ":j" not in loop, src


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]),
       shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       seed=st.integers(0, 2 ** 32 - 1), scale=st.sampled_from([1e-30, 1.0, 1e6, 1e37]),
       special=st.sampled_from([None, np.inf, -np.inf, np.nan]))
def test_inline_mean_of_all_elements_matches_the_kernel(dtype, shape, seed, scale, special):
    """ReduceMean over every element, written as the sum divided by an intp count,
    gives np.mean's bits (the kernel eager mode runs)."""
    g = Graph("f")
    x = g.add_param(TensorType(dt.from_numpy(np.dtype(dtype)), tuple(shape)), "x")
    node = g.add_node("ReduceMean", [x], {"axis": None, "keep_dims": False})
    g.set_results(node.outputs)
    cg = compiled(g)
    assert "_add_reduce(" in cg.source and "mean" not in cg.source
    xv = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)
    if special is not None:
        xv.reshape(-1)[seed % xv.size] = special
    with np.errstate(all="ignore"):
        want = make_node_kernel(node)(xv)
    got = cg(xv)[0]
    assert np.asarray(got).dtype == np.asarray(want).dtype == dtype
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
