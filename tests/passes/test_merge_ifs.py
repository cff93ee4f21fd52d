"""merge_ifs: an If on a flag an earlier If returns moves into that If (golden IR)."""
import numpy as np

from graphjit.ir import Graph
from graphjit.ir.builders import if_
from graphjit.passes import canonicalize, merge_ifs
from pass_helpers import BOOL, F32, I64, T, check_pass

X = np.array([0.5, -1.0, 2.0], np.float32)
INPUTS = [(X, np.bool_(True)), (X, np.bool_(False)), (-X, np.bool_(False))]


def _threaded():
    g = Graph("thread")
    x = g.add_param(T(F32, 3), "x")
    c = g.add_param(T(BOOL), "c")

    def else_a(b, u):
        s = b.apply("Greater", b.apply("ReduceSum", u), b.const(np.float32(0)))
        return s, b.apply("Add", u, b.const(np.float32(1)))
    r, v = if_(g, c, lambda b, u: (b.const(True), u), else_a, [x], names=["r", "v"])
    (w,) = if_(g, r, lambda b, p, q: p, lambda b, p, q: b.apply("Neg", q), [v, x],
               names=["w"])
    g.set_results([w])
    return g


MERGED = """\
graph thread(%x: f32[3], %c: bool[]) {
  %r: bool[], %v: f32[3], %w: f32[3] = If(%c, %x) then=@then else=@else
    subgraph then(%x_1: f32[3]) {
      %0: bool[] = Const(True:bool)
      return %0, %x_1, %x_1
    }
    subgraph else(%x_2: f32[3]) {
      %1: f32[] = ReduceSum(%x_2) axis=None keep_dims=False
      %2: f32[] = Const(0.0:float32)
      %3: bool[] = Greater(%1, %2)
      %4: f32[] = Const(1.0:float32)
      %5: f32[3] = Add(%x_2, %4)
      %w_1: f32[3] = If(%3, %5, %x_2) then=@then_1 else=@else_1
        subgraph then_1(%v_1: f32[3], %x_3: f32[3]) {
          return %v_1
        }
        subgraph else_1(%v_2: f32[3], %x_4: f32[3]) {
          %6: f32[3] = Neg(%x_4)
          return %6
        }
      return %3, %5, %w_1
    }
  return %w
}"""

CANONICAL = """\
graph thread(%x: f32[3], %c: bool[]) {
  %w: f32[3] = If(%c, %x) then=@then else=@else
    subgraph then(%x_1: f32[3]) {
      return %x_1
    }
    subgraph else(%x_2: f32[3]) {
      %0: f32[] = ReduceSum(%x_2) axis=None keep_dims=False
      %1: f32[] = Const(0.0:float32)
      %2: bool[] = Greater(%0, %1)
      %3: f32[] = Const(1.0:float32)
      %4: f32[3] = Add(%x_2, %3)
      %w_1: f32[3] = If(%2, %4, %x_2) then=@then_1 else=@else_1
        subgraph then_1(%v: f32[3], %x_3: f32[3]) {
          return %v
        }
        subgraph else_1(%v_1: f32[3], %x_4: f32[3]) {
          %5: f32[3] = Neg(%x_4)
          return %5
        }
      return %w_1
    }
  return %w
}"""


def test_an_if_on_a_returned_flag_moves_into_the_if_that_returns_it():
    """Where the flag is a constant (the then branch) the later If is inlined, where
    it is computed it nests; its small then branch is copied."""
    check_pass(merge_ifs, _threaded(), MERGED, *INPUTS)
    check_pass(canonicalize, _threaded(), CANONICAL, *INPUTS)


def test_no_merge_across_effects_when_the_later_if_may_fail(capsys):
    g = Graph("guarded")
    x = g.add_param(T(F32, 3), "x")
    c = g.add_param(T(BOOL), "c")
    i = g.add_param(T(I64, 1), "i")
    (a,) = if_(g, c, lambda b, u: b.apply("Neg", u), lambda b, u: u, [x])
    g.add_node("Print", [a], {"template": (0,)})
    (y,) = if_(g, c, lambda b, u, k: b.apply("Gather", u, k),
               lambda b, u, k: b.apply("Gather", u, b.const(np.array([0]))), [x, i])
    g.set_results([a, y])
    text = str(g)
    merge_ifs(g)
    assert str(g) == text
