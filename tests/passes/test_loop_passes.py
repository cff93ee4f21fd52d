"""hoist_loop_invariants and batch_sliced_matmuls (golden IR), and the numpy facts the
batched products rest on."""
import numpy as np
import pytest

from graphjit.ir import Graph
from graphjit.ir.verifier import verify
from graphjit.ir.builders import loop
from graphjit.passes import (batch_sliced_matmuls, eliminate_dead_values, hoist_loop_invariants,
                             slice_loop_gathers)
from pass_helpers import F32, F64, I64, T, check_pass, run, same_bits

RNG = np.random.default_rng(0)


def _invariants(trip):
    g = Graph("licm")
    h0 = g.add_param(T(F32, 2, 3), "h0")
    w = g.add_param(T(F32, 3, 3), "w")
    idx = g.add_param(T(I64, 2), "idx")
    n = g.add_param(T(I64), "n") if trip is None else trip

    def body(b, i, carried, sliced, invariant):
        (h,), (wv, ix) = carried, invariant
        wt = b.apply("Mul", b.apply("Transpose", wv, perm=(1, 0)), b.const(np.float32(0.5)))
        rows = b.apply("Gather", wv, ix)     # may fail: moves only if the Loop surely runs
        b.add_node("Print", [b.apply("ReduceSum", wv)], {"template": (0,)})
        h2 = b.apply("Tanh", b.apply("Add", b.apply("MatMul", h, wt), rows))
        return True, [h2], []
    (h,) = loop(g, body, trip_count=n, carried=[h0], invariant=[w, idx], iteration_type=None,
                names=["h"])
    g.set_results([h])
    return g


LICM = """\
graph licm(%h0: f32[2,3], %w: f32[3,3], %idx: i64[2], %n: i64[]) {
  %0: bool[] = Const(True:bool)
  %1: f32[3,3] = Transpose(%w) perm=(1,0)
  %2: f32[] = Const(0.5:float32)
  %3: f32[3,3] = Mul(%1, %2)
  %4: f32[] = ReduceSum(%w) axis=None keep_dims=False
  %h: f32[2,3] = Loop(%n, %0, %h0, %w, %idx, %3, %4) body=@body
    subgraph body(%h0_1: f32[2,3], %w_1: f32[3,3], %idx_1: i64[2], %5: f32[3,3], %6: f32[]) {
      %7: f32[2,3] = Gather(%w_1, %idx_1) axis=0
      Print(%6) template=(0,) sep=' ' end='\\n'
      %8: f32[2,3] = MatMul(%h0_1, %5) transpose_a=False transpose_b=False
      %9: f32[2,3] = Add(%8, %7)
      %10: f32[2,3] = Tanh(%9)
      %11: bool[] = Const(True:bool)
      return %11, %10
    }
    port_map {
      execution_condition %11
      input %h0 -> %h0_1
      input %w -> %w_1
      input %idx -> %idx_1
      input %3 -> %5
      input %4 -> %6
      back_edge %10 -> %h0_1
      output %h <- %10
    }
  return %h
}"""

LICM_RUNS = """\
graph licm(%h0: f32[2,3], %w: f32[3,3], %idx: i64[2]) {
  %0: i64[] = Const(3:int64)
  %1: bool[] = Const(True:bool)
  %2: f32[3,3] = Transpose(%w) perm=(1,0)
  %3: f32[] = Const(0.5:float32)
  %4: f32[3,3] = Mul(%2, %3)
  %5: f32[2,3] = Gather(%w, %idx) axis=0
  %6: f32[] = ReduceSum(%w) axis=None keep_dims=False
  %h: f32[2,3] = Loop(%0, %1, %h0, %4, %5, %6) body=@body
    subgraph body(%h0_1: f32[2,3], %7: f32[3,3], %8: f32[2,3], %9: f32[]) {
      Print(%9) template=(0,) sep=' ' end='\\n'
      %10: f32[2,3] = MatMul(%h0_1, %7) transpose_a=False transpose_b=False
      %11: f32[2,3] = Add(%10, %8)
      %12: f32[2,3] = Tanh(%11)
      %13: bool[] = Const(True:bool)
      return %13, %12
    }
    port_map {
      execution_condition %13
      input %h0 -> %h0_1
      input %4 -> %7
      input %5 -> %8
      input %6 -> %9
      back_edge %12 -> %h0_1
      output %h <- %12
    }
  return %h
}"""


def test_hoist_invariants_but_not_effects_nor_failures_of_a_loop_that_may_not_run(capsys):
    h0 = RNG.standard_normal((2, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3)).astype(np.float32)
    idx = np.array([2, 0])
    check_pass(lambda g: eliminate_dead_values(hoist_loop_invariants(g)), _invariants(None),
               LICM, (h0, w, idx, np.int64(0)), (h0, w, idx, np.int64(3)))
    check_pass(lambda g: eliminate_dead_values(hoist_loop_invariants(g)), _invariants(3),
               LICM_RUNS, (h0, w, idx))
    capsys.readouterr()


def test_a_hoisted_failure_cannot_happen_where_the_loop_does_not_run():
    g = _invariants(None)
    hoist_loop_invariants(g)
    h0 = np.zeros((2, 3), np.float32)
    bad = np.array([7, 0])              # out of range: fails only if the body runs
    (h,) = run(g, h0, np.eye(3, dtype=np.float32), bad, np.int64(0))
    assert same_bits(h, h0)
    with pytest.raises(IndexError):
        run(g, h0, np.eye(3, dtype=np.float32), bad, np.int64(1))


def _rolled():
    g = Graph("rnn")
    xs = g.add_param(T(F32, 5, 2, 3), "xs")
    h0 = g.add_param(T(F32, 2, 4), "h0")
    w = g.add_param(T(F32, 3, 4), "w")

    def body(b, i, carried, sliced, invariant):
        (h,), (s,), (wv,) = carried, sliced, invariant
        x = b.apply("Squeeze", s, axis=0)
        u = b.const(np.full((4, 4), 0.1, np.float32))
        h2 = b.apply("Tanh", b.apply("Add", b.apply("MatMul", x, wv), b.apply("MatMul", h, u)))
        return True, [h2], [b.apply("ExpandDims", h2, axis=0)]
    h, hs = loop(g, body, carried=[h0], sliced=[xs], invariant=[w], iteration_type=None,
                 names=["h", "hs"])
    g.set_results([hs])
    return g


ROLLED = """\
graph rnn(%xs: f32[5,2,3], %h0: f32[2,4], %w: f32[3,4]) {
  %0: i64[] = Const(-1:int64)
  %1: bool[] = Const(True:bool)
  %2: f32[5,2,4] = MatMul(%xs, %w) transpose_a=False transpose_b=False
  %hs: f32[5,2,4] = Loop(%0, %1, %h0, %2) body=@body
    subgraph body(%h0_1: f32[2,4], %3: f32[1,2,4]) {
      %4: f32[4,4] = Const(<float32[4, 4]>)
      %5: f32[2,4] = Squeeze(%3) axis=0
      %6: f32[2,4] = MatMul(%h0_1, %4) transpose_a=False transpose_b=False
      %7: f32[2,4] = Add(%5, %6)
      %8: f32[2,4] = Tanh(%7)
      %9: f32[1,2,4] = ExpandDims(%8) axis=0
      %10: bool[] = Const(True:bool)
      return %10, %8, %9
    }
    port_map {
      execution_condition %10
      input %h0 -> %h0_1
      input %2 -> %3 slice axis=0
      back_edge %8 -> %h0_1
      output %hs <- %9 concat axis=0
    }
  return %hs
}"""


def _gathered():
    g = Graph("rnn2")
    x = g.add_param(T(F32, 5, 2, 3), "x")
    h0 = g.add_param(T(F32, 2, 4), "h0")
    w = g.add_param(T(F32, 3, 4), "w")

    def body(b, i, carried, sliced, invariant):
        (h,), (xv, wv) = carried, invariant
        xt = b.apply("Gather", xv, i, axis=0)
        return True, [b.apply("Add", b.apply("MatMul", xt, wv), h)], []
    (h,) = loop(g, body, trip_count=5, carried=[h0], invariant=[x, w], names=["h"])
    g.set_results([h])
    return g


GATHERED = """\
graph rnn2(%x: f32[5,2,3], %h0: f32[2,4], %w: f32[3,4]) {
  %0: i64[] = Const(5:int64)
  %1: bool[] = Const(True:bool)
  %2: f32[5,2,4] = MatMul(%x, %w) transpose_a=False transpose_b=False
  %h: f32[2,4] = Loop(%0, %1, %h0, %2) body=@body
    subgraph body(%i: i64[], %h0_1: f32[2,4], %3: f32[5,2,4]) {
      %4: f32[2,4] = Gather(%3, %i) axis=0
      %5: f32[2,4] = Add(%4, %h0_1)
      %6: bool[] = Const(True:bool)
      return %6, %5
    }
    port_map {
      current_iteration %i
      execution_condition %6
      input %h0 -> %h0_1
      input %2 -> %3
      back_edge %5 -> %h0_1
      output %h <- %5
    }
  return %h
}"""


def _unrolled():
    g = Graph("unrolled")
    x = g.add_param(T(F32, 3, 2, 3), "x")
    w = g.add_param(T(F32, 3, 4), "w")
    h = g.add_param(T(F32, 2, 4), "h")
    for t in range(3):
        h = g.apply("Add", g.apply("MatMul", g.apply("Index", x, index=(t,)), w), h)
    g.set_results([h])
    return g


UNROLLED = """\
graph unrolled(%x: f32[3,2,3], %w: f32[3,4], %h: f32[2,4]) {
  %0: f32[3,2,4] = MatMul(%x, %w) transpose_a=False transpose_b=False
  %1: f32[2,4] = Index(%0) index=(0,)
  %2: f32[2,4] = Add(%1, %h)
  %3: f32[2,4] = Index(%0) index=(1,)
  %4: f32[2,4] = Add(%3, %2)
  %5: f32[2,4] = Index(%0) index=(2,)
  %6: f32[2,4] = Add(%5, %4)
  return %6
}"""


def test_batch_sliced_matmuls():
    xs = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    h0 = RNG.standard_normal((2, 4)).astype(np.float32)
    w = RNG.standard_normal((3, 4)).astype(np.float32)
    passes = lambda g: eliminate_dead_values(batch_sliced_matmuls(g))  # noqa: E731
    check_pass(passes, _rolled(), ROLLED, (xs, h0, w))
    check_pass(passes, _gathered(), GATHERED, (xs, h0, w))
    check_pass(passes, _unrolled(), UNROLLED, (xs[:3], w, h0))


def test_products_of_vectors_or_a_loop_that_may_stop_early_are_not_batched():
    g = Graph("vectors")
    x = g.add_param(T(F32, 3, 4), "x")               # x[t] is a vector: gemv, not gemm
    w = g.add_param(T(F32, 4, 4), "w")
    g.set_results([g.apply("MatMul", g.apply("Index", x, index=(t,)), w) for t in range(3)])
    text = str(g)
    batch_sliced_matmuls(g)
    assert str(g) == text

    g = Graph("early")
    xs = g.add_param(T(F32, 5, 2, 3), "xs")
    w = g.add_param(T(F32, 3, 4), "w")

    def body(b, i, carried, sliced, invariant):
        (s,), (wv,) = sliced, invariant
        y = b.apply("MatMul", b.apply("Squeeze", s, axis=0), wv)
        return b.apply("Less", b.apply("ReduceSum", y), b.const(np.float32(0))), [], [y]
    g.set_results(loop(g, body, sliced=[xs], invariant=[w]))
    text = str(g)
    batch_sliced_matmuls(g)
    assert str(g) == text


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(200, 16, 32, 64), (10, 1, 32, 64), (50, 3, 7, 5),
                                   (8, 100, 300, 17), (6, 2, 3, 4, 5)])
def test_numpy_batched_matmul_is_the_per_slice_matmul(dtype, shape):
    """The fact batch_sliced_matmuls rests on, for the installed numpy and BLAS: the
    slices of x @ w are the products x[t] @ w bit for bit, for either operand sliced
    (a [T*B, K] @ [K, N] product, by contrast, is often not)."""
    *lead, k, n = shape
    x = RNG.standard_normal((*lead, k)).astype(dtype)
    w = RNG.standard_normal((k, n)).astype(dtype)
    batched = x @ w
    for t in range(lead[0]):
        assert same_bits(batched[t], x[t] @ w)
    v = RNG.standard_normal((n, lead[-1])).astype(dtype)
    left = v @ x
    for t in range(lead[0]):
        assert same_bits(left[t], v @ x[t])


SLICED = """\
graph rnn2(%x: f32[5,2,3], %h0: f32[2,4], %w: f32[3,4]) {
  %0: i64[] = Const(5:int64)
  %1: bool[] = Const(True:bool)
  %h: f32[2,4] = Loop(%0, %1, %h0, %w, %x) body=@body
    subgraph body(%h0_1: f32[2,4], %w_1: f32[3,4], %x_t: f32[1,2,3]) {
      %2: f32[2,3] = Squeeze(%x_t) axis=0
      %3: f32[2,4] = MatMul(%2, %w_1) transpose_a=False transpose_b=False
      %4: f32[2,4] = Add(%3, %h0_1)
      %5: bool[] = Const(True:bool)
      return %5, %4
    }
    port_map {
      execution_condition %5
      input %h0 -> %h0_1
      input %w -> %w_1
      input %x -> %x_t slice axis=0
      back_edge %4 -> %h0_1
      output %h <- %4
    }
  return %h
}"""


def test_slice_loop_gathers():
    """Gather(x, iteration) becomes a slice of x where the Loop stops within x; with
    more iterations than x has rows the Gather (and its error) stays."""
    xs = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    h0 = RNG.standard_normal((2, 4)).astype(np.float32)
    w = RNG.standard_normal((3, 4)).astype(np.float32)
    check_pass(lambda g: eliminate_dead_values(slice_loop_gathers(g)), _gathered(), SLICED,
               (xs, h0, w))
    g = _gathered()
    g.nodes[0].attrs["value"] = np.array(6, np.int64)     # a trip count beyond x's rows
    text = str(g)
    slice_loop_gathers(g)
    assert str(g) == text
    with pytest.raises(IndexError):
        run(g, xs, h0, w)


def _passed_on(trip):
    """A carried scale whose back edge is the parameter itself (as a gradient's
    cotangent that every iteration passes on unchanged): its broadcast is invariant."""
    g = Graph("passed_on")
    h0 = g.add_param(T(F32, 2, 3), "h0")
    s0 = g.add_param(T(F32), "s0")
    n = g.add_param(T(I64), "n") if trip is None else trip

    def body(b, i, carried, sliced, invariant):
        h, s = carried
        full = b.apply("BroadcastTo", s, shape=(2, 3))
        return True, [b.apply("Add", b.apply("Mul", full, h), h), s], []
    h, s = loop(g, body, trip_count=n, carried=[h0, s0], iteration_type=None,
                names=["h", "s"])
    g.set_results([h, s])
    return g


def test_a_parameter_passed_on_unchanged_by_its_back_edge_is_invariant():
    g = _passed_on(None)
    h0 = RNG.standard_normal((2, 3)).astype(np.float32)
    cases = [(h0, np.float32(0.75), np.int64(k)) for k in (0, 1, 4)]
    before = [run(g, *a) for a in cases]
    hoist_loop_invariants(g)
    verify(g)
    (loop_node,) = [nd for nd in g.nodes if nd.op == "Loop"]
    assert [nd.op for nd in loop_node.attrs["body"].nodes if nd.op == "BroadcastTo"] == []
    assert [nd.op for nd in g.nodes].index("BroadcastTo") < [nd.op for nd in g.nodes].index(
        "Loop")
    for a, want in zip(cases, before):
        assert all(same_bits(x, y) for x, y in zip(run(g, *a), want))
