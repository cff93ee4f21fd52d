"""The control-flow operators If and Loop, with closed subgraphs.

If(cond, *operands) then_graph=@t else_graph=@e
    cond: bool scalar or one-element 1-D. Both graphs take the operands as their
    parameters (a parameter may be more general than its operand) and return the
    same number of results; output k is the ShapeJoin of the two branches'
    result k, and a failed join is a ShapeJoinError (TypeJoinError for dtypes)
    naming both shapes.

Loop(trip_count, condition, *inputs) body=@b ...   (seed 000, OpenVINO's Loop)
    trip_count: int32/int64 scalar or one-element 1-D; -1 means no limit.
    condition: bool scalar or one-element 1-D; false means zero iterations.
    Attributes (all plain tuples of ints):
      input_map: (loop_input_index, body_param_index, axis) per entry; loop input
        indices count from 0 = trip_count, so the data inputs start at 2. With an
        axis (not None; negative counts from the end) the input is sliced along
        it, one slice of size 1 per iteration (the dim is kept, as OpenVINO
        does); otherwise the body sees it as is (an invariant input, or the first
        value of a back-edged parameter).
      output_map: (body_result_index, axis) per Loop output. Without an axis the
        output is the result's value after the last iteration; with one it is
        the concatenation of that result across all iterations along the axis.
      back_edges: (body_result_index, body_param_index): the result feeds the
        parameter in the next iteration; the parameter's input_map entry gives
        the first iteration's value, and a Loop output of that result gives the
        last iteration's value.
      current_iteration: index of the body parameter (purpose current_iteration)
        that receives the iteration number, counted from 0 (an int32/int64 scalar
        or one-element 1-D, as the parameter's type says), or -1 for none.
      condition_result: index of the body result (purpose execution_condition,
        a one-element bool) that decides whether another iteration runs. Mandatory.
    Iterations stop at the first of: the trip count reached, the execution
    condition false, a sliced input exhausted. With zero iterations a back-edged
    output is its initial input and a concatenated output is empty along its
    axis (its other dims as typed; an unknown one is 0); any other output has no
    value, and running such a Loop zero times is a runtime error.

Inference: the output types come from the body. A concatenated dim is n * d
where d is the result's dim and n the iteration count, which is known only when
the loop cannot stop early (see loop_iteration_bound); otherwise it is unknown.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .errors import GraphJitError, GraphVerificationError, ShapeInferenceError
from .join import join_types
from .registry import REQUIRED, register_op
from .types import TensorType, num_elements

__all__ = ["loop_iteration_bound", "sliced_type", "concatenated_type",
           "check_condition_type"]


def _graph_attr(op, attrs, key):
    from .graph import Graph
    g = attrs.get(key)
    if not isinstance(g, Graph):
        raise GraphVerificationError(f"{op}: attribute '{key}' must be a Graph, got {g!r}")
    return g


def check_condition_type(op: str, t: TensorType, what: str = "condition") -> None:
    """A condition is a bool scalar or a one-element 1-D tensor.

    Raises:
        ShapeInferenceError: naming the op, what the value is for, and its type.
    """
    if not t.is_tensor or not t.dtype.is_bool:
        raise ShapeInferenceError(f"{op}: the {what} must be bool, got {t}")
    if t.shape is not None and (len(t.shape) > 1 or num_elements(t.shape) not in (None, 1)):
        raise ShapeInferenceError(
            f"{op}: the {what} must be a scalar or a one-element 1-D tensor, got {t}")


def _if_infer(ts, attrs):
    cond, operands = ts[0], ts[1:]
    check_condition_type("If", cond)
    then_g = _graph_attr("If", attrs, "then_graph")
    else_g = _graph_attr("If", attrs, "else_graph")
    if then_g is else_g:
        raise GraphVerificationError("If: then_graph and else_graph are one Graph object; "
                                     "give each branch a graph of its own")
    for g, label in ((then_g, "then"), (else_g, "else")):
        if len(g.params) != len(operands):
            raise GraphVerificationError(
                f"If: the {label} graph '{g.name}' takes {len(g.params)} parameters but the "
                f"If passes {len(operands)} operands")
        for i, (p, t) in enumerate(zip(g.params, operands)):
            if not _fits(p.type, t):
                raise GraphVerificationError(
                    f"If: parameter {i} of the {label} graph '{g.name}' is {p.type} but "
                    f"operand {i} is {t}")
    if len(then_g.results) != len(else_g.results):
        raise GraphVerificationError(
            f"If: the then graph returns {len(then_g.results)} values and the else graph "
            f"{len(else_g.results)}; both branches must return the same number")
    outs = []
    for k, (a, b) in enumerate(zip(then_g.result_types, else_g.result_types)):
        try:
            outs.append(join_types(a, b))
        except GraphJitError as e:
            raise e.with_context(detail=f"If output {k}: the then branch returns {a} and the "
                                        f"else branch returns {b}")
    return tuple(outs)


def _fits(param: TensorType, given: TensorType) -> bool:
    """A value of type `given` may be bound to a parameter of type `param`: same dtype,
    and the parameter's shape is the given one or more general (ShapeJoin-wise)."""
    if param.dtype is not given.dtype:
        return False
    try:
        return join_types(param, given) == param
    except GraphJitError:
        return False


register_op("If", ("condition", "*operands: any"),
            {"then_graph": REQUIRED, "else_graph": REQUIRED}, infer=_if_infer,
            family="control", doc="run then_graph or else_graph on the operands")


def sliced_type(t: TensorType, axis: int) -> TensorType:
    """The type of one iteration's slice (size 1 along axis, as OpenVINO slices)."""
    if t.shape is None:
        return t
    a = axis % len(t.shape)
    return TensorType(t.dtype, t.shape[:a] + (1,) + t.shape[a + 1:])


def concatenated_type(t: TensorType, axis: int, n: Optional[int]) -> TensorType:
    """The type of n values of type t concatenated along axis (n None: unknown)."""
    if t.shape is None:
        return t
    a = axis % len(t.shape)
    d = t.shape[a]
    size = 0 if n == 0 else None if (n is None or d is None) else n * d
    return TensorType(t.dtype, t.shape[:a] + (size,) + t.shape[a + 1:])


def _const_scalar(c):
    if c is None:
        return None
    c = np.asarray(c)
    return c.reshape(-1)[0].item() if c.size == 1 else None


def _always_true(body, attrs, consts) -> bool:
    """The execution-condition result is true in every iteration: a true Const, or an
    invariant parameter bound to a true Const input."""
    r = body.results[attrs["condition_result"]]
    if r.producer is not None:
        return r.producer.op == "Const" and bool(np.all(r.producer.attrs["value"]))
    pos = next((i for i, p in enumerate(body.params) if p is r), None)
    if pos is None or any(bp == pos for _, bp in attrs["back_edges"]):
        return False
    for li, bp, axis in attrs["input_map"]:
        if bp == pos and axis is None:
            return _const_scalar(consts[li]) is True
    return False


def loop_iteration_bound(ts, attrs, consts) -> Optional[int]:
    """The exact number of iterations when it is known at build time, else None.

    Known when the initial condition is a false constant, when some bound is 0, or
    when the initial condition is a true constant, the execution condition is always
    true and every bound (a constant trip count other than -1, the length of each
    sliced input) is known.
    """
    trip = _const_scalar(consts[0])
    cond0 = _const_scalar(consts[1])
    if cond0 is False:
        return 0
    bounds, unknown = [], False
    if trip is not None and trip >= 0:
        bounds.append(int(trip))
    elif trip is None:
        unknown = True
    for li, _, axis in attrs["input_map"]:
        if axis is not None:
            shape = ts[li].shape
            d = None if shape is None else shape[axis % len(shape)]
            if d is None:
                unknown = True
            else:
                bounds.append(d)
    if bounds and min(bounds) == 0:
        return 0
    if unknown or not bounds or cond0 is not True:
        return None
    return min(bounds) if _always_true(attrs["body"], attrs, consts) else None


def _loop_infer(ts, attrs, consts):
    body = _graph_attr("Loop", attrs, "body")
    if len(ts) < 2:
        raise ShapeInferenceError("Loop: needs a trip count and a condition input")
    trip, cond = ts[0], ts[1]
    if not trip.is_tensor or trip.dtype.name not in ("int32", "int64"):
        raise ShapeInferenceError(f"Loop: the trip count must be int32 or int64, got {trip}")
    if trip.shape is not None and (len(trip.shape) > 1 or num_elements(trip.shape) not in
                                   (None, 1)):
        raise ShapeInferenceError(f"Loop: the trip count must be a scalar or one-element "
                                  f"1-D tensor, got {trip}")
    check_condition_type("Loop", cond, "execution condition input")
    from .verifier import check_loop_ports
    check_loop_ports(ts, attrs)
    n = loop_iteration_bound(ts, attrs, consts)
    back = dict(attrs["back_edges"])
    initial = {bp: ts[li] for li, bp, axis in attrs["input_map"] if axis is None}
    outs = []
    for ri, axis in attrs["output_map"]:
        t = body.results[ri].type
        if axis is not None:
            outs.append(concatenated_type(t, axis, n))
        elif ri in back:
            # zero iterations give the initial input, others the last result
            first = initial[back[ri]]
            outs.append(join_types(first, t) if n is None else first if n == 0 else t)
        else:
            outs.append(t)
    return tuple(outs)


register_op("Loop", ("trip_count", "condition", "*inputs: any"),
            {"body": REQUIRED, "input_map": (), "output_map": (), "back_edges": (),
             "current_iteration": -1, "condition_result": REQUIRED},
            infer=_loop_infer, infer_takes_consts=True, family="control",
            doc="run the body repeatedly (see the module docstring for the port map)")
