"""The verifier rejects malformed Loop port maps, purposes and back edges, and graphs
that break the IR's invariants, each with a clear message."""
import numpy as np
import pytest

from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.builders import loop
from graphjit.ir.errors import (GraphVerificationError, ShapeInferenceError, ShapeJoinError,
                                TypeJoinError)

F32, I32, I64, BOOL = dt.float32, dt.int32, dt.int64, dt.bool_
LOC = SourceLoc("/src/model.py", 21, 8, function="construct", text="        while x < n:\n")


def T(dtype, *shape):
    return TensorType(dtype, shape)


def _body(exit_type=None, cond_type=T(BOOL), iter_type=T(I64), h_type=T(F32, 3),
          name="body"):
    """params [i, h, x_t] (and [.., other] when cond_type is not bool[] or exit_type
    is given); results [cond, h_next, y]. h_next is h + x_t, or `other` of exit_type."""
    b = Graph(name)
    b.add_param(iter_type, "i")
    h = b.add_param(h_type, "h")
    x_t = b.add_param(T(F32, 1, 3), "x_t")
    cond = b.add_param(cond_type, "go") if cond_type != T(BOOL) else b.const(True)
    h_next = b.add_param(exit_type, "other") if exit_type is not None else \
        b.apply("Add", h, b.apply("Squeeze", x_t, axis=0))
    b.set_results([cond, h_next, x_t])
    return b


def _with_other(t):
    """_loop arguments binding the body's fourth parameter to an extra input of type t."""
    return {"extra_inputs": [t], "input_map": ((2, 1, None), (3, 2, 0), (4, 3, None))}


BASE = {"input_map": ((2, 1, None), (3, 2, 0)), "output_map": ((1, None), (2, 0)),
        "back_edges": ((1, 1),), "current_iteration": 0, "condition_result": 0}


def _loop(body=None, extra_inputs=(), **attrs):
    """Add a Loop over (n, True, x0: f32[3], xs: f32[4,3]) with BASE's port map,
    overridden by attrs; the body's params not bound by BASE are bound by extra
    input_map entries the caller passes."""
    g = Graph("f")
    n = g.add_param(T(I64), "n")
    x0 = g.add_param(T(F32, 3), "x0")
    xs = g.add_param(T(F32, 4, 3), "xs")
    extra = [g.add_param(t, f"e{k}") for k, t in enumerate(extra_inputs)]
    a = dict(BASE, body=body if body is not None else _body(), **attrs)
    node = g.add_node("Loop", [n, g.const(True), x0, xs] + extra, a, loc=LOC)
    g.set_results(node.outputs)
    return g, node


def test_the_base_loop_is_valid():
    g, node = _loop()
    verify(g)
    # the trip count is not a constant, so the concatenated dim is unknown
    assert [o.type for o in node.outputs] == [T(F32, 3), T(F32, None, 3)]


# -- port maps naming missing ports -----------------------------------------------------------
@pytest.mark.parametrize("attrs, msg", [
    ({"input_map": ((2, 1, None), (4, 2, 0))},
     r"input_map entry \(4, 2, 0\) names Loop input 4, but the Loop's data inputs are 2\.\.3"),
    ({"input_map": ((2, 1, None), (1, 2, 0))},
     r"names Loop input 1, but the Loop's data inputs are 2\.\.3 \(0 is the trip count, 1 "
     r"the condition\)"),
    ({"input_map": ((2, 1, None), (3, 5, 0))},
     r"input_map entry \(3, 5, 0\) names body parameter 5, but the body 'body' has 3 "
     r"parameter\(s\)"),
    ({"output_map": ((1, None), (7, 0))},
     r"output_map entry \(7, 0\) names body result 7, but the body 'body' has 3 result\(s\)"),
    ({"back_edges": ((3, 1),)},
     r"back edge \(3, 1\) names body result 3, but the body 'body' has 3 result\(s\)"),
    ({"back_edges": ((1, -1),)},
     r"back edge \(1, -1\) names body parameter -1, but the body 'body' has 3"),
    ({"current_iteration": 3},
     r"current_iteration names body parameter 3, but the body 'body' has 3 parameter\(s\)"),
    ({"input_map": ((2, 1, None),)}, r"body parameter\(s\) \[2\] of 'body' are bound to "
                                     r"nothing"),
    ({"input_map": ((2, 1, None), (3, 2, 0), (3, 1, None))},
     r"body parameter 1 is bound twice"),
    ({"input_map": ((2, 1, None), (3, 2, 0), (2, 0, None))},
     r"body parameter 0 is bound twice \(by input_map and current_iteration\)"),
    ({"input_map": ((2, 1, 0, 5), (3, 2, 0))},
     r"input_map entries are \(loop_input, body_param, axis\), got \(2, 1, 0, 5\)"),
])
def test_port_map_naming_a_missing_port(attrs, msg):
    with pytest.raises(GraphVerificationError, match=msg):
        _loop(**attrs)


def test_a_loop_input_bound_to_nothing():
    with pytest.raises(GraphVerificationError,
                       match=r"Loop input\(s\) \[4\] feed no body parameter"):
        _loop(extra_inputs=[T(F32)])


# -- axes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [2, -3, 7])
def test_slicing_axis_out_of_range(axis):
    with pytest.raises(GraphVerificationError,
                       match=rf"slicing axis {axis} is out of range for Loop input 3 of type "
                             rf"f32\[4,3\]; valid axes are -2\.\.1"):
        _loop(input_map=((2, 1, None), (3, 2, axis)))


def test_slicing_a_scalar():
    b = Graph("body")
    b.add_param(T(I64), "i")
    b.add_param(T(F32), "s")
    b.set_results([b.const(True)])
    g = Graph("f")
    s = g.add_param(T(F32), "s")
    with pytest.raises(GraphVerificationError, match="a scalar has no axis to slice"):
        g.add_node("Loop", [g.const(np.int64(3)), g.const(True), s], {
            "body": b, "input_map": ((2, 1, 0),), "current_iteration": 0,
            "condition_result": 0})


def test_slicing_axis_must_be_an_int():
    with pytest.raises(GraphVerificationError, match="slicing axis '0' is out of range"):
        _loop(input_map=((2, 1, None), (3, 2, "0")))


@pytest.mark.parametrize("axis", [2, -3])
def test_concatenation_axis_out_of_range(axis):
    with pytest.raises(GraphVerificationError,
                       match=rf"concatenation axis {axis} is out of range for body result 2 "
                             rf"of type f32\[1,3\]; valid axes are -2\.\.1"):
        _loop(output_map=((1, None), (2, axis)))


def test_concatenating_a_scalar_result():
    with pytest.raises(GraphVerificationError, match="concatenation axis 0 is out of range "
                                                     "for body result 0 of type bool\\[\\]"):
        _loop(output_map=((0, 0),))


def test_negative_axes_are_allowed():
    g, node = _loop(input_map=((2, 1, None), (3, 2, -2)), output_map=((1, None), (2, -2)))
    verify(g)
    assert node.outputs[1].type == T(F32, None, 3)


# -- purposes -----------------------------------------------------------------------------------
def test_body_without_an_execution_condition_result():
    b = Graph("no_cond")
    b.add_param(T(I64), "i")
    b.add_param(T(F32, 3), "h")
    b.add_param(T(F32, 1, 3), "x_t")
    b.set_results([])
    with pytest.raises(GraphVerificationError,
                       match=r"the body has no execution-condition result: condition_result="
                             r"0, but the body 'no_cond' has 0 result\(s\); its result with "
                             r"purpose execution_condition \(a one-element bool\) is "
                             r"mandatory"):
        _loop(body=b, output_map=(), back_edges=())


def test_condition_result_out_of_range():
    with pytest.raises(GraphVerificationError, match="no execution-condition result: "
                                                     "condition_result=3"):
        _loop(condition_result=3)


@pytest.mark.parametrize("cond_type", [T(F32), T(BOOL, 2), T(BOOL, 1, 1)])
def test_execution_condition_must_be_a_one_element_bool(cond_type):
    with pytest.raises(GraphVerificationError, match="the execution-condition result "
                                                     "\\(body result 0\\) must be a bool"):
        _loop(body=_body(cond_type=cond_type), **_with_other(cond_type))


@pytest.mark.parametrize("iter_type", [T(F32), T(I64, 2), T(I64, 1, 1), T(dt.int16)])
def test_current_iteration_must_be_an_int32_or_int64_scalar_or_1_element(iter_type):
    with pytest.raises(GraphVerificationError, match="the current-iteration parameter \\(body "
                                                     "parameter 0\\) must be an int32/int64"):
        _loop(body=_body(iter_type=iter_type))


@pytest.mark.parametrize("trip_type, msg", [
    (T(F32), "the trip count must be int32 or int64, got f32\\[\\]"),
    (T(I64, 2), "the trip count must be a scalar or one-element 1-D tensor, got i64\\[2\\]"),
])
def test_trip_count_type(trip_type, msg):
    g = Graph("f")
    n = g.add_param(trip_type, "n")
    b = Graph("body")
    b.set_results([b.const(True)])
    with pytest.raises(ShapeInferenceError, match=msg):
        g.add_node("Loop", [n, g.const(True)], {"body": b, "condition_result": 0})


def test_initial_condition_type():
    g = Graph("f")
    b = Graph("body")
    b.set_results([b.const(True)])
    with pytest.raises(ShapeInferenceError, match="execution condition input must be bool"):
        g.add_node("Loop", [g.const(np.int64(3)), g.const(np.int64(1))],
                   {"body": b, "condition_result": 0})


# -- dtypes and back edges -------------------------------------------------------------------
def test_body_parameter_dtype_must_match_its_input():
    with pytest.raises(GraphVerificationError, match=r"body parameter 1 is i64\[3\] but Loop "
                                                     r"input 2 is f32\[3\]"):
        _loop(body=_body(h_type=T(I64, 3), exit_type=T(I64, 3)), **_with_other(T(I64, 3)))


def test_sliced_parameter_must_have_the_slice_type():
    with pytest.raises(GraphVerificationError, match=r"body parameter 2 is f32\[1,3\] but each "
                                                     r"slice of Loop input 3 is f32\[4,1\]"):
        _loop(input_map=((2, 1, None), (3, 2, 1)))


def test_back_edge_whose_types_do_not_join_is_a_shape_join_error():
    with pytest.raises(ShapeJoinError) as info:
        _loop(body=_body(exit_type=T(F32, 4)), **_with_other(T(F32, 4)))
    text = str(info.value)
    assert "Shape Join Failed: shape1 = (3), shape2 = (4)." in text
    assert ("Loop back edge (1, 1): body result 1 is f32[4] at the body's exit but body "
            "parameter 1 is f32[3] at its entry") in text


def test_back_edge_of_another_rank_does_not_join():
    with pytest.raises(ShapeJoinError, match=r"shape1 = \(3\), shape2 = \(3, 1\)\."):
        _loop(body=_body(exit_type=T(F32, 3, 1)), **_with_other(T(F32, 3, 1)))


def test_back_edge_whose_dtypes_differ_is_a_type_join_error():
    with pytest.raises(TypeJoinError, match="dtype1 = float32, dtype2 = int64"):
        _loop(body=_body(exit_type=T(I64, 3)), **_with_other(T(I64, 3)))


def test_back_edge_more_general_than_its_parameter():
    with pytest.raises(GraphVerificationError,
                       match=r"back edge \(1, 1\): body result 1 is f32\[\?\], more general "
                             r"than body parameter 1 \(f32\[3\]\); declare the parameter as "
                             r"f32\[\?\]"):
        _loop(body=_body(exit_type=T(F32, None)), **_with_other(T(F32, None)))


def test_back_edge_into_a_parameter_declared_more_general_is_valid():
    g, node = _loop(body=_body(h_type=T(F32, None), exit_type=T(F32, None)),
                    **_with_other(T(F32, None)))
    verify(g)
    assert node.outputs[0].type == T(F32, None)


@pytest.mark.parametrize("edges, msg", [
    (((1, 1), (1, 1)), "body parameter 1 receives two back edges"),
    (((2, 2),), r"back-edged body parameter 2 needs an un-sliced input_map entry"),
    (((1, 0),), r"back edge \(1, 0\) feeds the current-iteration parameter"),
])
def test_malformed_back_edges(edges, msg):
    with pytest.raises(GraphVerificationError, match=msg):
        _loop(back_edges=edges)


def test_builder_reports_the_carried_value_whose_types_do_not_join():
    g = Graph("f")
    h0 = g.add_param(T(F32, 3), "h0")

    def step(b, i, carried, sliced, invariant):
        grown = b.apply("Concat", carried[0], carried[0], axis=0)
        return True, [grown], []

    with pytest.raises(ShapeJoinError) as info:
        loop(g, step, trip_count=2, carried=[h0], loc=LOC)
    assert "shape1 = (3), shape2 = (6)." in str(info.value)
    assert info.value.loc is LOC and "while x < n:" in str(info.value)
    assert "carried value 0 'h0' enters the Loop body as f32[3] and leaves it as f32[6]" in \
        str(info.value)


# -- verify(): graphs changed after they were built ----------------------------------------------
def test_verify_catches_a_port_map_broken_after_the_node_was_built():
    g, node = _loop()
    node.attrs["input_map"] = ((2, 1, None), (3, 2, 5))
    with pytest.raises(GraphVerificationError) as info:
        verify(g)
    assert "slicing axis 5 is out of range" in str(info.value)
    assert info.value.loc is LOC


def test_verify_reports_a_back_edge_broken_after_the_node_was_built_at_its_line():
    g, node = _loop(body=_body(h_type=T(F32, None), exit_type=T(F32, None)),
                    **_with_other(T(F32, None)))
    body = node.attrs["body"]
    g.params[3].type = body.params[3].type = T(F32, 4)     # the value fed back is f32[4]
    body.params[1].type = T(F32, 3)                        # ...into an f32[3] parameter
    with pytest.raises(ShapeJoinError) as info:
        verify(g)
    assert "shape1 = (3), shape2 = (4)." in str(info.value)
    assert info.value.loc is LOC and "while x < n:" in str(info.value)


def test_verify_checks_loops_nested_in_bodies():
    g = Graph("f")
    x0 = g.add_param(T(F32, 3), "x0")

    def outer(b, i, carried, sliced, invariant):
        def inner(bb, j, c, s, inv):
            return True, [bb.apply("Neg", c[0])], []
        return True, list(loop(b, inner, trip_count=2, carried=[carried[0]])), []

    g.set_results(loop(g, outer, trip_count=3, carried=[x0]))
    verify(g)
    inner_node = next(n for n in g.nodes[-1].attrs["body"].nodes if n.op == "Loop")
    inner_node.attrs["condition_result"] = 9
    with pytest.raises(GraphVerificationError, match="condition_result=9"):
        verify(g)


def test_verify_catches_stale_output_types():
    g, node = _loop()
    node.outputs[1].type = T(F32, 5, 3)
    with pytest.raises(GraphVerificationError, match=r"output types \['f32\[3\]', 'f32\[5,3\]'\] "
                                                     r"differ from the inferred"):
        verify(g)


def test_a_body_may_not_read_outer_values():
    g = Graph("f")
    x = g.add_param(T(F32, 3), "x")

    def step(b, i, carried, sliced, invariant):
        return True, [b.apply("Add", carried[0], x)], []

    with pytest.raises(GraphVerificationError, match="subgraphs are closed"):
        loop(g, step, trip_count=2, carried=[x])


def test_a_body_used_by_two_loops():
    g, node = _loop()
    again = g.add_node("Loop", list(node.inputs), dict(node.attrs))
    g.set_results(list(node.outputs) + list(again.outputs))
    with pytest.raises(GraphVerificationError, match="graph 'body' is used as a subgraph twice"):
        verify(g)


def test_verify_catches_use_before_definition():
    g = Graph("f")
    x = g.add_param(T(F32, 3), "x")
    y = g.apply("Neg", x)
    z = g.apply("Neg", y)
    g.nodes.reverse()
    g.set_results([z])
    with pytest.raises(GraphVerificationError, match="input 0 is used before it is defined"):
        verify(g)
