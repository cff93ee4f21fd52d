"""eliminate_common_subexpressions and eliminate_dead_values (golden IR)."""
import numpy as np

from graphjit.ir import Graph
from graphjit.ir.builders import if_, loop
from graphjit.passes import eliminate_common_subexpressions, eliminate_dead_values
from pass_helpers import BOOL, F32, I64, T, check_pass

X = np.array([0.5, -1.0, 2.0], np.float32)


def _repeated():
    g = Graph("cse")
    x = g.add_param(T(F32, 3), "x")
    c = g.add_param(T(BOOL), "c")
    a = g.apply("Sub", x, g.apply("ReduceMean", x))
    b = g.apply("Sub", x, g.apply("ReduceMean", x))
    sq = g.apply("Mul", a, b)
    w1 = g.const(np.arange(2000, dtype=np.float32))      # large: compared by bytes
    w2 = g.const(np.arange(2000, dtype=np.float32))
    zero, minus_zero = g.const(np.float32(0.0)), g.const(np.float32(-0.0))
    s = g.apply("Add", g.apply("ReduceSum", w1), g.apply("ReduceSum", w2))
    (i1,) = if_(g, c, lambda gb, u: gb.apply("Neg", u), lambda gb, u: u, [sq])
    (i2,) = if_(g, c, lambda gb, u: gb.apply("Neg", u), lambda gb, u: u, [sq])
    g.add_node("Print", [i1], {"template": (0,)})
    g.add_node("Print", [i1], {"template": (0,)})
    twice = [g.apply("Abs", x), g.apply("Abs", x)]       # two results stay two arrays
    g.set_results([i1, g.apply("Exp", i2), s, g.apply("Add", x, zero),
                   g.apply("Add", x, minus_zero), *twice])
    return g


CSE = """\
graph cse(%x: f32[3], %c: bool[]) {
  %0: f32[] = ReduceMean(%x) axis=None keep_dims=False
  %1: f32[3] = Sub(%x, %0)
  %2: f32[3] = Mul(%1, %1)
  %3: f32[2000] = Const(<float32[2000]>)
  %4: f32[] = Const(0.0:float32)
  %5: f32[] = Const(-0.0:float32)
  %6: f32[] = ReduceSum(%3) axis=None keep_dims=False
  %7: f32[] = Add(%6, %6)
  %8: f32[3] = If(%c, %2) then=@then else=@else
    subgraph then(%9: f32[3]) {
      %10: f32[3] = Neg(%9)
      return %10
    }
    subgraph else(%11: f32[3]) {
      return %11
    }
  Print(%8) template=(0,) sep=' ' end='\\n'
  Print(%8) template=(0,) sep=' ' end='\\n'
  %12: f32[3] = Abs(%x)
  %13: f32[3] = Abs(%x)
  %14: f32[3] = Exp(%8)
  %15: f32[3] = Add(%x, %4)
  %16: f32[3] = Add(%x, %5)
  return %8, %14, %7, %15, %16, %12, %13
}"""


def test_cse_merges_equal_nodes_constants_and_ifs_but_not_effects(capsys):
    """Equal subgraphs merge by structure; 0.0 and -0.0 stay apart; both Prints stay;
    two results stay two values."""
    check_pass(lambda g: eliminate_dead_values(eliminate_common_subexpressions(g)),
               _repeated(), CSE, (X, np.bool_(True)), (X, np.bool_(False)))
    assert capsys.readouterr().out.count("\n") == 8     # 2 Prints x 2 runs, before and after


def _dead():
    g = Graph("dce")
    x = g.add_param(T(F32, 3), "x")
    k = g.add_param(T(I64), "k")
    c = g.add_param(T(BOOL), "c")
    idx = g.add_param(T(I64, 1), "idx")

    def body(b, i, carried, sliced, invariant):
        h, n = carried
        (w,) = invariant
        b.apply("Exp", w)                                   # unused
        return True, [b.apply("Mul", h, b.const(np.float32(0.5))),
                      b.apply("Add", n, b.const(np.int64(1)))], []
    h, n = loop(g, body, trip_count=4, carried=[x, k], invariant=[x], names=["h", "n"])
    y, z = if_(g, c, lambda b, u, v: (b.apply("Neg", u), b.apply("Abs", v)),
               lambda b, u, v: (u, v), [h, x], names=["y", "z"])
    g.apply("Exp", x)
    g.apply("Gather", x, idx)        # unused, but may fail: it stays
    g.set_results([y])
    return g


DCE = """\
graph dce(%x: f32[3], %k: i64[], %c: bool[], %idx: i64[1]) {
  %0: i64[] = Const(4:int64)
  %1: bool[] = Const(True:bool)
  %h: f32[3] = Loop(%0, %1, %x) body=@body
    subgraph body(%x_1: f32[3]) {
      %2: f32[] = Const(0.5:float32)
      %3: f32[3] = Mul(%x_1, %2)
      %4: bool[] = Const(True:bool)
      return %4, %3
    }
    port_map {
      execution_condition %4
      input %x -> %x_1
      back_edge %3 -> %x_1
      output %h <- %3
    }
  %y: f32[3] = If(%c, %h) then=@then else=@else
    subgraph then(%h_1: f32[3]) {
      %5: f32[3] = Neg(%h_1)
      return %5
    }
    subgraph else(%h_2: f32[3]) {
      return %h_2
    }
  %6: f32[1] = Gather(%x, %idx) axis=0
  return %y
}"""


def test_dce_drops_loop_ports_carried_values_and_if_outputs():
    """The unused carried count, its output, the iteration number, the unread invariant
    input, the If's unused output and operand all go."""
    check_pass(eliminate_dead_values, _dead(), DCE,
               (X, np.int64(2), np.bool_(True), np.array([1])),
               (X, np.int64(2), np.bool_(False), np.array([2])))


ZERO = """\
graph zero(%x: f32[3], %n: i64[]) {
  %0: bool[] = Const(True:bool)
  %1: f32[3] = Loop(%n, %0, %x, %x) body=@body
    subgraph body(%x_1: f32[3], %x_2: f32[3]) {
      %2: f32[3] = Neg(%x_2)
      %3: bool[] = Const(True:bool)
      return %3, %2
    }
    port_map {
      execution_condition %3
      input %x -> %x_1
      input %x -> %x_2
      back_edge %2 -> %x_1
      output %1 <- %2
    }
  return %1
}"""


def test_a_carried_value_whose_output_is_used_keeps_its_back_edge():
    """After zero iterations the output is the initial value: the back edge (and the
    parameter the body never reads) stays; only the iteration number goes."""
    g = Graph("zero")
    x = g.add_param(T(F32, 3), "x")
    n = g.add_param(T(I64), "n")

    def body(b, i, carried, sliced, invariant):
        (h,), (w,) = carried, invariant
        return True, [b.apply("Neg", w)], []
    (h,) = loop(g, body, trip_count=n, carried=[x], invariant=[x])
    g.set_results([h])
    check_pass(eliminate_dead_values, g, ZERO, (X, np.int64(0)), (X, np.int64(2)))
