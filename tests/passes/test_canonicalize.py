"""canonicalize: the front-end's flag If nodes, negations and constants (golden IR)."""
import numpy as np

import graphjit as ms
from graphjit.jit.cache import cache_of
from graphjit.ir import Graph, verify
from graphjit.ir.builders import if_
from graphjit.passes import canonicalize
from pass_helpers import BOOL, F32, I32, T, check_pass, count, run

X = np.array([1.0, -2.0, 3.0], np.float32)


def _flags():
    """An early-return flag as the front-end emits it, and the If it guards."""
    g = Graph("flags")
    x = g.add_param(T(F32, 3), "x")
    c = g.add_param(T(BOOL), "c")
    r, v = if_(g, c, lambda b, u: (b.const(True), u),
               lambda b, u: (b.const(False), b.const(np.zeros(3, np.float32))), [x],
               names=["returned", "value"])
    n = g.apply("LogicalNot", r)
    (y,) = if_(g, n, lambda b, u: b.apply("Add", u, b.const(np.float32(1))), lambda b, u: u,
               [x], names=["y"])
    g.set_results([v, y, r])
    return g


FLAGS = """\
graph flags(%x: f32[3], %c: bool[]) {
  %value: f32[3], %y: f32[3] = If(%c, %x) then=@then else=@else
    subgraph then(%x_1: f32[3]) {
      return %x_1, %x_1
    }
    subgraph else(%x_2: f32[3]) {
      %0: f32[3] = Const([0.,0.,0.]:float32)
      %1: f32[] = Const(1.0:float32)
      %2: f32[3] = Add(%x_2, %1)
      return %0, %2
    }
  return %value, %y, %c
}"""


def test_flag_if_becomes_its_condition_and_ifs_on_it_merge():
    check_pass(canonicalize, _flags(), FLAGS, (X, np.bool_(True)), (X, np.bool_(False)))


def _const_if():
    g = Graph("const_if")
    x = g.add_param(T(F32, 3), "x")
    two = g.const(np.float32(2))
    (y,) = if_(g, True, lambda b, u: b.apply("Mul", u, b.const(np.float32(2))),
               lambda b, u: b.apply("Neg", u), [x], names=["y"])
    g.set_results([g.apply("Add", y, two)])
    return g


CONST_IF = """\
graph const_if(%x: f32[3]) {
  %0: f32[] = Const(2.0:float32)
  %1: f32[3] = Mul(%x, %0)
  %2: f32[3] = Add(%1, %0)
  return %2
}"""


def test_if_on_a_constant_is_its_branch_and_equal_constants_are_one():
    check_pass(canonicalize, _const_if(), CONST_IF, (X,))


def _nots_and_passthrough():
    g = Graph("nots")
    b = g.add_param(T(BOOL, 3), "b")
    x = g.add_param(T(F32, 3), "x")
    c = g.add_param(T(BOOL), "c")
    nn = g.apply("LogicalNot", g.apply("LogicalNot", b))
    y, z = if_(g, c, lambda _, u, w: (u, w), lambda gb, u, w: (u, gb.apply("Neg", w)),
               [x, x], names=["y", "z"])
    kept = g.apply("LogicalNot", g.apply("LogicalNot", b))    # a result: not an alias of b
    g.set_results([g.apply("Select", nn, y, z), kept])
    return g


NOTS = """\
graph nots(%b: bool[3], %x: f32[3], %c: bool[]) {
  %z: f32[3] = If(%c, %x) then=@then else=@else
    subgraph then(%x_1: f32[3]) {
      return %x_1
    }
    subgraph else(%x_2: f32[3]) {
      %0: f32[3] = Neg(%x_2)
      return %0
    }
  %1: bool[3] = LogicalNot(%b)
  %2: bool[3] = LogicalNot(%1)
  %3: f32[3] = Select(%b, %x, %z)
  return %3, %2
}"""


def test_double_not_and_passed_through_outputs():
    b = np.array([True, False, True])
    check_pass(canonicalize, _nots_and_passthrough(), NOTS, (b, X, np.bool_(True)),
               (b, X, np.bool_(False)))


def _negated_condition():
    g = Graph("neg")
    x = g.add_param(T(F32, 3), "x")
    c = g.add_param(T(BOOL), "c")
    n = g.apply("LogicalNot", c)
    # the else branch reads the condition's negation, which is true there
    (y,) = if_(g, n, lambda b, u, k: b.apply("Neg", u),
               lambda b, u, k: b.apply("Select", k, u, b.apply("Abs", u)), [x, n],
               names=["y"])
    g.set_results([y])
    return g


NEGATED = """\
graph neg(%x: f32[3], %c: bool[]) {
  %y: f32[3] = If(%c, %x) then=@else else=@then
    subgraph else(%x_1: f32[3]) {
      %0: f32[3] = Abs(%x_1)
      return %0
    }
    subgraph then(%x_2: f32[3]) {
      %1: f32[3] = Neg(%x_2)
      return %1
    }
  return %y
}"""


def test_if_on_a_negation_swaps_branches_and_propagates_the_condition():
    check_pass(canonicalize, _negated_condition(), NEGATED, (X, np.bool_(True)),
               (X, np.bool_(False)))


def test_the_negation_of_an_int_is_no_bool_constant():
    g = Graph("int_flag")
    k = g.add_param(T(I32), "k")
    (y,) = if_(g, g.apply("LogicalNot", k), lambda b, u: b.apply("Neg", u),
               lambda b, u: b.apply("Add", u, u), [k], names=["y"])
    g.set_results([y])
    canonicalize(g)
    verify(g)
    assert run(g, np.int32(0))[0] == 0 and run(g, np.int32(3))[0] == 6


def _demo():
    @ms.jit
    def demo(x):
        for i in range(3):
            if x.sum() > 5:
                return x
            x = x + 1
        return x
    return demo


def test_the_demo_of_structure_review():
    """`for i in range(3): if x.sum() > 5: return x; x = x + 1`: 11 If, 22 Const and 8
    LogicalNot around 9 compute nodes become 3 nested If and 6 Const."""
    results = {}
    for optimize in (False, True):
        ms.set_context(optimize_graphs=optimize)
        demo = _demo()
        for v in (1.0, 2.0, 10.0):
            results.setdefault(v, []).append(demo(ms.Tensor(np.full(3, v, np.float32))))
        g = cache_of(demo)[0].graph
        verify(g)
        counts = {op: count(g, op) for op in ("If", "Const", "LogicalNot", "Add",
                                               "ReduceSum", "Greater")}
        if optimize:
            assert counts == {"If": 3, "Const": 6, "LogicalNot": 0, "Add": 3,
                              "ReduceSum": 3, "Greater": 3}
        else:
            assert counts == {"If": 11, "Const": 22, "LogicalNot": 8, "Add": 3,
                              "ReduceSum": 3, "Greater": 3}
    for off, on in results.values():
        np.testing.assert_array_equal(off.asnumpy(), on.asnumpy())
