"""If: closed branches, joined output types, the MindSpore join error, printing."""
import numpy as np
import pytest

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.builders import if_, loop
from graphjit.ir.errors import (GraphRuntimeError, GraphVerificationError,
                                ShapeInferenceError, ShapeJoinError, TypeJoinError)

F32, I64, BOOL = dt.float32, dt.int64, dt.bool_


def T(dtype, *shape):
    return TensorType(dtype, shape)


def run(g, *args):
    verify(g)
    return compile_graph(g)(*args)


def _abs_graph(cond_type=T(BOOL)):
    g = Graph("abs")
    c = g.add_param(cond_type, "c")
    x = g.add_param(T(F32, 3), "x")
    g.set_results(if_(g, c, lambda b, v: b.apply("Neg", v), lambda b, v: v, [x]))
    return g


def test_if_runs_the_branch_its_condition_picks():
    g = _abs_graph()
    x = np.array([1.0, -2.0, 3.0], np.float32)
    (neg,) = run(g, np.bool_(True), x)
    (same,) = run(g, np.bool_(False), x)
    np.testing.assert_array_equal(neg, -x)
    np.testing.assert_array_equal(same, x)
    assert neg.dtype == same.dtype == np.float32


def test_one_element_1d_condition():
    g = _abs_graph(T(BOOL, 1))
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run(g, np.array([True]), x)[0], -x)
    np.testing.assert_array_equal(run(g, np.array([False]), x)[0], x)


def test_condition_of_unknown_shape_is_checked_when_it_runs():
    g = _abs_graph(TensorType(BOOL, None))
    x = np.ones(3, np.float32)
    np.testing.assert_array_equal(run(g, np.array([[True]]), x)[0], -x)
    with pytest.raises(GraphRuntimeError, match="exactly one element, got shape \\(2,\\)"):
        run(g, np.array([True, False]), x)


@pytest.mark.parametrize("cond_type, msg", [
    (T(F32), "the condition must be bool, got f32\\[\\]"),
    (T(BOOL, 2), "must be a scalar or a one-element 1-D tensor, got bool\\[2\\]"),
    (T(BOOL, 1, 1), "must be a scalar or a one-element 1-D tensor, got bool\\[1,1\\]"),
])
def test_condition_must_be_a_one_element_bool(cond_type, msg):
    with pytest.raises(ShapeInferenceError, match=msg):
        _abs_graph(cond_type)


def test_output_types_are_the_shape_join_of_the_branches():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 2, 3), "a")
    b_ = g.add_param(T(F32, 2, None), "b")
    r = g.add_param(TensorType(F32, None), "r")
    outs = if_(g, c, lambda b, x, y, z: [x, x, x], lambda b, x, y, z: [x, y, z], [a, b_, r])
    assert [o.type for o in outs] == [T(F32, 2, 3), T(F32, 2, None), TensorType(F32, None)]
    g.set_results(outs)
    av, bv = np.ones((2, 3), np.float32), np.zeros((2, 5), np.float32)
    got = run(g, np.bool_(False), av, bv, np.zeros(4, np.float32))
    assert [x.shape for x in got] == [(2, 3), (2, 5), (4,)]


def test_failed_join_names_both_shapes():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    s = g.add_param(T(F32), "s")
    v = g.add_param(T(F32, 2), "v")
    with pytest.raises(ShapeJoinError) as info:
        if_(g, c, lambda b, x, y: x, lambda b, x, y: y, [s, v])
    text = str(info.value)
    assert text.startswith("Cannot join the return values of different branches")
    assert "Shape Join Failed: shape1 = (), shape2 = (2)." in text
    assert "If output 0: the then branch returns f32[] and the else branch returns f32[2]" \
        in text
    assert isinstance(info.value, ValueError)


def test_failed_join_of_known_dims_names_both_shapes():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 3, 4), "a")
    b_ = g.add_param(T(F32, 3, 5), "b")
    with pytest.raises(ShapeJoinError, match=r"shape1 = \(3, 4\), shape2 = \(3, 5\)\."):
        if_(g, c, lambda b, x, y: x, lambda b, x, y: y, [a, b_])


def test_failed_dtype_join_is_a_type_join_error():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 2), "a")
    with pytest.raises(TypeJoinError, match="dtype1 = float32, dtype2 = int64"):
        if_(g, c, lambda b, x: x, lambda b, x: b.apply("Cast", x, dtype=I64), [a])


def test_branches_must_return_the_same_number_of_values():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 2), "a")
    with pytest.raises(GraphVerificationError, match="then graph returns 2 values and the "
                                                     "else graph 1"):
        if_(g, c, lambda b, x: [x, x], lambda b, x: [x], [a])


def test_branch_parameters_must_fit_the_operands():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, None), "a")
    then, other = Graph("then"), Graph("else")
    then.set_results([then.add_param(T(F32, 3), "x")])     # narrower than f32[?]
    other.set_results([other.add_param(T(F32, None), "x")])
    with pytest.raises(GraphVerificationError, match="parameter 0 of the then graph 'then' "
                                                     "is f32\\[3\\] but operand 0 is "
                                                     "f32\\[\\?\\]"):
        g.add_node("If", [c, a], {"then_graph": then, "else_graph": other})


def test_branches_are_closed():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 2), "a")
    with pytest.raises(GraphVerificationError, match="subgraphs are closed"):
        if_(g, c, lambda b: b.apply("Neg", a), lambda b: b.const(np.zeros(2, np.float32)))


def test_a_branch_with_no_nodes_and_an_if_with_no_outputs():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 2), "a")
    assert if_(g, c, lambda b, x: None, lambda b, x: [], [a]) == ()
    g.set_results([a])
    np.testing.assert_array_equal(run(g, np.bool_(True), np.ones(2, np.float32))[0], 1)


def test_nested_ifs():
    """sign(x) by two nested Ifs."""
    g = Graph("sign")
    x = g.add_param(T(F32), "x")
    pos = g.apply("Greater", x, g.const(0.0))

    def not_positive(b, v):
        neg = b.apply("Less", v, b.const(0.0))
        return if_(b, neg, lambda t, w: t.const(-1.0), lambda e, w: e.const(0.0), [v])

    g.set_results(if_(g, pos, lambda b, v: b.const(1.0), not_positive, [x]))
    for v in (-2.5, 0.0, 3.0):
        assert run(g, np.float32(v))[0] == np.sign(v)


def test_if_with_a_loop_in_each_branch():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    n = g.add_param(T(I64), "n")

    def counting(step_value):
        def branch(b, nn):
            def step(bb, i, carried, sliced, invariant):
                return True, [bb.apply("Add", carried[0], bb.const(np.int64(step_value)))], []
            return loop(b, step, trip_count=nn, carried=[b.const(np.int64(0))])
        return branch

    g.set_results(if_(g, c, counting(2), counting(-1), [n]))
    assert int(run(g, np.bool_(True), np.int64(5))[0]) == 10
    assert int(run(g, np.bool_(False), np.int64(5))[0]) == -5


def test_the_same_operand_twice_and_an_operand_returned_as_is():
    g = Graph("f")
    c = g.add_param(T(BOOL), "c")
    a = g.add_param(T(F32, 2), "a")
    outs = if_(g, c, lambda b, x, y: [b.apply("Add", x, y), y],
               lambda b, x, y: [x, b.apply("Mul", x, y)], [a, a])
    g.set_results(outs)
    av = np.array([2.0, 3.0], np.float32)
    s, y = run(g, np.bool_(True), av)
    np.testing.assert_array_equal(s, av + av)
    np.testing.assert_array_equal(y, av)
    s, y = run(g, np.bool_(False), av)
    np.testing.assert_array_equal(s, av)
    np.testing.assert_array_equal(y, av * av)


GOLDEN_IF = """\
graph pick(%x: f32[2,3], %y: f32[2,?], %c: bool[]) {
  %0: f32[2,3] = Add(%x, %x)
  %z: f32[2,?] = If(%c, %0, %y) then=@then else=@else  # net.py:14
    subgraph then(%1: f32[2,3], %y_1: f32[2,?]) {
      return %1
    }
    subgraph else(%2: f32[2,3], %y_2: f32[2,?]) {
      %3: f32[2,?] = Neg(%y_2)
      return %3
    }
  return %z
}"""


def test_golden_printed_if():
    g = Graph("pick")
    x = g.add_param(T(F32, 2, 3), "x")
    y = g.add_param(T(F32, 2, None), "y")
    c = g.add_param(T(BOOL), "c")
    twice = g.apply("Add", x, x)
    loc = SourceLoc("/src/net.py", 14, 8, function="construct")
    g.set_results(if_(g, c, lambda b, u, v: u, lambda b, u, v: b.apply("Neg", v), [twice, y],
                      names=["z"], loc=loc))
    verify(g)
    assert str(g) == GOLDEN_IF
    xv, yv = np.ones((2, 3), np.float32), np.ones((2, 5), np.float32)
    np.testing.assert_array_equal(run(g, xv, yv, np.bool_(True))[0], xv + xv)
    np.testing.assert_array_equal(run(g, xv, yv, np.bool_(False))[0], -yv)
