"""Lowering with kernel boxes (the GE seed): which nodes each kernel holds, where boxes
are realized, the printed program, and the memory plan (frees, reusable buffers)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.backend.executor import compile_graph
from graphjit.backend.lowering import lower
from graphjit.backend.recipes import power_step
from graphjit.ir.defs.integer_pow import integer_power
from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.builders import if_, loop

F32, I64, BOOL = dt.float32, dt.int64, dt.bool_


def T(dtype, *shape):
    return TensorType(dtype, shape)


def lowered(g):
    verify(g)
    return lower(g)


# -- the seed's chain ----------------------------------------------------------------------------
class ConvAbsExpConv(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1)
        self.conv2 = nn.Conv2d(4, 2, 3, stride=2)

    def construct(self, x):
        return self.conv2(ops.exp(ops.abs(self.conv1(x))))


def test_the_seeds_conv_abs_exp_conv_lowers_to_extern_fused_extern():
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32))
    model = ms.compile(ConvAbsExpConv(), x)
    # (the weights are Parameters: the graph reads them with Load, an extern of its own)
    assert [k for k in model.lowered.summary() if k != "extern(Load)"] == \
        ["extern(Conv2D)", "fused(Abs, Exp)", "extern(Conv2D)"]
    text = str(model.lowered)
    assert "fused(%" in text and "= Abs(" in text and "= Exp(" in text
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        eager = model.source(x)          # the same Cell (the same weights), run eagerly
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(model(x).asnumpy(), eager.asnumpy())


def test_a_chain_between_two_extern_ops_is_one_fused_kernel():
    g = Graph("f")
    x = g.add_param(T(F32, 4, 4), "x")
    w = g.add_param(T(F32, 4, 4), "w")
    m = g.apply("MatMul", x, w)
    e = g.apply("Exp", g.apply("Abs", m))
    g.set_results([g.apply("MatMul", e, w)])
    assert lowered(g).summary() == ["extern(MatMul)", "fused(Abs, Exp)", "extern(MatMul)"]


# -- realization ------------------------------------------------------------------------------------
def test_a_value_with_several_users_is_realized():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    a = g.apply("Abs", x)
    b = g.apply("Exp", a)
    c = g.apply("Neg", a)
    g.set_results([g.apply("Add", b, c)])
    # Abs is read twice: its own kernel; Exp and Neg are absorbed by Add
    assert lowered(g).summary() == ["fused(Abs)", "fused(Exp, Neg, Add)"]


def test_a_graph_result_is_realized_even_if_another_node_reads_it():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    a = g.apply("Abs", x)
    b = g.apply("Exp", a)
    g.set_results([a, b])
    assert lowered(g).summary() == ["fused(Abs)", "fused(Exp)"]


def test_a_value_feeding_a_node_of_another_shape_is_realized():
    g = Graph("f")
    x = g.add_param(T(F32, 4, 8), "x")
    v = g.add_param(T(F32, 8), "v")
    e = g.apply("Exp", v)                       # f32[8]
    g.set_results([g.apply("Mul", g.apply("Sin", x), e)])      # f32[4,8]
    assert lowered(g).summary() == ["fused(Exp)", "fused(Sin, Mul)"]


def test_values_crossing_if_and_loop_edges_are_realized():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    c = g.add_param(T(BOOL), "c")
    a = g.apply("Exp", g.apply("Abs", x))
    (y,) = if_(g, c, lambda b, p: b.apply("Neg", b.apply("Sin", p)),
               lambda b, p: b.apply("Cos", p), [a])

    def step(b, i, carried, sliced, invariant):
        h = b.apply("Add", b.apply("Mul", carried[0], b.const(np.float32(0.5))), invariant[0])
        return True, [h], []

    (z,) = loop(g, step, trip_count=3, carried=[y], invariant=[a])
    g.set_results([g.apply("Sqrt", g.apply("Abs", z))])
    prog = lowered(g)
    assert prog.summary() == ["fused(Abs, Exp)", "If", "Loop", "fused(Abs, Sqrt)"]
    if_kernel, loop_kernel = prog.kernels[1], prog.kernels[2]
    assert if_kernel.bodies["then_graph"].summary() == ["fused(Sin, Neg)"]
    assert if_kernel.bodies["else_graph"].summary() == ["fused(Cos)"]
    assert loop_kernel.bodies["body"].summary() == ["fused(Mul, Add)"]
    cg = compile_graph(g)
    xv = np.linspace(-2, 2, 8).astype(np.float32)
    for cv in (True, False):
        a_ = np.exp(np.abs(xv))
        h = -np.sin(a_) if cv else np.cos(a_)
        for _ in range(3):
            h = h * np.float32(0.5) + a_
        np.testing.assert_array_equal(cg(xv, np.bool_(cv))[0], np.sqrt(np.abs(h)))


def test_identity_and_a_cast_to_the_same_dtype_are_aliases_not_kernels():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    a = g.apply("Identity", g.apply("Abs", x))
    b = g.apply("Cast", a, dtype=F32)
    g.set_results([g.apply("Exp", b)])
    prog = lowered(g)
    assert prog.summary() == ["fused(Abs)", "fused(Exp)"]
    assert prog.root(b) is a.producer.inputs[0]


def test_ops_without_a_recipe_run_their_own_kernel():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    i = g.add_param(T(dt.int32, 8), "i")
    e = g.apply("Erf", g.apply("Abs", x))              # Erf: a Python function per element
    p = g.apply("Pow", i, i)                           # an integer power checks its signs
    g.set_results([g.apply("Exp", e), g.apply("Neg", p)])
    assert lowered(g).summary() == ["fused(Abs)", "extern(Erf)", "extern(Pow)", "fused(Exp)",
                                    "fused(Neg)"]


# -- the printed program ------------------------------------------------------------------------------
def test_printed_program():
    loc = SourceLoc("/src/net.py", 7, 4)
    g = Graph("net")
    x = g.add_param(T(F32, 2, 3), "x")
    w = g.add_param(T(F32, 3, 3), "w")
    m = g.apply("MatMul", x, w, loc=loc)
    y = g.apply("Mul", g.apply("Exp", m, loc=loc), g.const(np.float32(0.5)), loc=loc)
    g.set_results([y])
    assert str(lowered(g)) == """\
lowered net(%x: f32[2,3], %w: f32[3,3]) {
  %0: f32[2,3] = extern MatMul(%x, %w) transpose_a=False transpose_b=False  # net.py:7
  free %x, %w
  %3: f32[2,3] = fused(%0, 0.5:float32) {  may reuse %0
    %1 = Exp(%0)                                              # net.py:7
    %3 = Mul(%1, 0.5:float32)                                 # net.py:7
  }
  free %0
  return %3
}"""


def test_printed_program_nests_if_and_loop_bodies():
    g = Graph("f")
    n = g.add_param(T(I64), "n")
    x = g.add_param(T(F32, 4), "x")

    def step(b, i, carried, sliced, invariant):
        return True, [b.apply("Tanh", b.apply("Add", carried[0], b.const(np.float32(1))))], []

    g.set_results(loop(g, step, trip_count=n, carried=[x]))
    text = str(lowered(g))
    assert "= Loop(%n, True:bool, %x)" in text
    assert "  body body(%i: i64[], %x_1: f32[4]) {" in text
    assert "= fused(%" in text and "Add(%" in text and "Tanh(%" in text
    assert text.count("return") == 2


# -- the memory plan ----------------------------------------------------------------------------------
def test_each_value_is_freed_after_the_kernel_that_reads_it_last():
    g = Graph("f")
    x = g.add_param(T(F32, 4, 4), "x")
    w = g.add_param(T(F32, 4, 4), "w")
    m1 = g.apply("MatMul", x, w)
    m2 = g.apply("MatMul", m1, w)
    g.set_results([g.apply("MatMul", m2, x)])
    frees = [{id(v) for v in k.frees} for k in lowered(g).kernels]
    assert frees == [set(), {id(m1), id(w)}, {id(m2), id(x)}]


def test_a_body_never_frees_its_parameters_or_results():
    g = Graph("f")
    x = g.add_param(T(F32, 4), "x")

    def step(b, i, carried, sliced, invariant):
        t = b.apply("MatMul", b.apply("ExpandDims", carried[0], axis=0),
                    b.apply("ExpandDims", invariant[0], axis=1))
        return True, [b.apply("Add", carried[0], b.apply("Squeeze", t, axis=0))], []

    g.set_results(loop(g, step, trip_count=2, carried=[x], invariant=[x]))
    body = lowered(g).kernels[0].bodies["body"]
    freed = {id(v) for k in body.kernels for v in k.frees}
    assert not freed & {id(p) for p in body.graph.params}
    assert not freed & {id(r) for r in body.graph.results}


def test_reusable_buffers_are_only_those_the_program_allocated():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    a = g.apply("Exp", x)                             # fused: a new array
    r = g.apply("Reshape", a, shape=(2, 4))           # a view of it: `a` is shared now
    b = g.apply("Add", a, g.const(np.float32(1)))     # a dies here, but r still sees it
    s = g.apply("Sin", g.apply("MatMul", g.apply("Reshape", x, shape=(1, 8)),
                               g.apply("Reshape", x, shape=(8, 1))))
    c = g.apply("Cos", x)                             # a new array, read twice
    d = g.apply("Mul", c, g.apply("Exp", c))          # fused(Exp, Mul): c dies there
    g.set_results([r, b, s, d, g.apply("Abs", x)])
    prog = lowered(g)
    by_store = {k.stores[0].producer.op: k for k in prog.kernels if k.kind == "fused"}
    assert by_store["Add"].reusable == ()            # a is read by Reshape
    assert by_store["Sin"].reusable != ()            # MatMul's result is its own
    assert by_store["Mul"].reusable == (c,)
    assert by_store["Abs"].reusable == ()            # a graph input is never written


def test_pow_is_fused_only_where_its_kernels_case_is_known():
    g = Graph("f")
    x = g.add_param(T(F32, 8), "x")
    e = g.add_param(T(F32), "e")                       # 2 or not: known when it runs
    sq = g.apply("Pow", g.apply("Abs", x), g.const(np.float32(2)))        # x * x
    rt = g.apply("Pow", g.apply("Abs", x), g.const(np.float32(0.5)))      # sqrt(x)
    cu = g.apply("Pow", g.apply("Abs", x), g.const(np.float32(3)))        # x * x * x
    dyn = g.apply("Pow", g.apply("Abs", x), e)
    g.set_results([sq, rt, cu, dyn])
    prog = lowered(g)
    assert prog.summary() == ["fused(Abs, Pow)", "fused(Abs, Pow)", "fused(Abs, Pow)",
                              "fused(Abs)", "extern(Pow)"]
    steps = [k.recipes[-1].steps[0].fn for k in prog.kernels[:3]]
    assert steps == [np.multiply, np.sqrt, power_step(3)]
    cg = compile_graph(g)
    xv = np.array([-0.0, 2.0, -3.5, np.inf, np.nan, 1e-30, 0.25, -1.0], np.float32)
    for ev in (np.float32(2), np.float32(0.5), np.float32(1.5)):
        got = cg(xv, ev)
        want = [np.abs(xv) ** np.float32(2), np.sqrt(np.abs(xv)),
                integer_power(np.abs(xv), 3), np.abs(xv) ** ev]
        for a, b in zip(got, want):
            assert a.tobytes() == b.tobytes()
