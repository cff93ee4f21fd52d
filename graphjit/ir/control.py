"""The control-flow operators If and Loop, with closed subgraphs.

If(cond, *operands) then_graph=@t else_graph=@e
    Both graphs take the operands as parameters and return the same number of
    results; each output is the ShapeJoin of the two branches' results.

Loop(trip_count, condition, *inputs) body=@b ...   (seed 000, OpenVINO's Loop)
    trip_count: int32/int64 scalar or one-element 1-D; -1 means no limit.
    condition: bool scalar or one-element 1-D; false means zero iterations.
    Attributes (all plain tuples of ints):
      input_map: (loop_input_index, body_param_index, axis) per entry; loop input
        indices count from 0 = trip_count, so the data inputs start at 2. With an
        axis (not None) the input is sliced along it, one slice of size 1 per
        iteration (the dim is kept); otherwise the body sees it as is.
      output_map: (body_result_index, axis) per Loop output. Without an axis the
        output is the result's value after the last iteration; with one it is
        the concatenation of that result across all iterations along the axis.
      back_edges: (body_result_index, body_param_index): the result feeds the
        parameter in the next iteration; the parameter's input_map entry gives
        the first iteration's value.
      current_iteration: index of the body parameter that receives the
        iteration number (int64 scalar), or -1.
      condition_result: index of the body result (purpose execution_condition)
        that decides whether another iteration runs. Mandatory.
    Iterations stop at the first of: the trip count reached, the condition false,
    a sliced input exhausted. With zero iterations a back-edged output is its
    initial input and a concatenated output is empty along its axis.
"""
from __future__ import annotations

import numpy as np

from .dtypes import bool_
from .errors import GraphVerificationError, ShapeInferenceError
from .join import join_types
from .registry import REQUIRED, register_op
from .types import TensorType, num_elements

__all__ = ["loop_iteration_bound", "sliced_type"]


def _graph_attr(op, attrs, key):
    from .graph import Graph
    g = attrs.get(key)
    if not isinstance(g, Graph):
        raise GraphVerificationError(f"{op}: attribute '{key}' must be a Graph, got {g!r}")
    return g


def _check_condition(op, t: TensorType, what="condition"):
    if not t.dtype.is_bool:
        raise ShapeInferenceError(f"{op}: the {what} must be bool, got {t}")
    if t.shape is not None and num_elements(t.shape) not in (None, 1):
        raise ShapeInferenceError(f"{op}: the {what} must have one element, got {t}")
    if t.shape is not None and len(t.shape) > 1:
        raise ShapeInferenceError(f"{op}: the {what} must be a scalar or 1-D, got {t}")


def _if_infer(ts, attrs):
    cond, operands = ts[0], ts[1:]
    _check_condition("If", cond)
    then_g = _graph_attr("If", attrs, "then_graph")
    else_g = _graph_attr("If", attrs, "else_graph")
    for g, label in ((then_g, "then"), (else_g, "else")):
        if len(g.params) != len(operands):
            raise GraphVerificationError(
                f"If: the {label} graph takes {len(g.params)} parameters but the If passes "
                f"{len(operands)} operands")
        for i, (p, t) in enumerate(zip(g.params, operands)):
            if p.type != t:
                raise GraphVerificationError(
                    f"If: parameter {i} of the {label} graph is {p.type} but operand {i} is {t}")
    if len(then_g.results) != len(else_g.results):
        raise GraphVerificationError(
            f"If: the then graph returns {len(then_g.results)} values and the else graph "
            f"{len(else_g.results)}")
    return tuple(join_types(a, b) for a, b in zip(then_g.result_types, else_g.result_types))


register_op("If", ("condition", "*operands"),
            {"then_graph": REQUIRED, "else_graph": REQUIRED}, infer=_if_infer,
            family="control", doc="run then_graph or else_graph on the operands")


def sliced_type(t: TensorType, axis: int) -> TensorType:
    """The type of one iteration's slice (size 1 along axis, as OpenVINO slices)."""
    if t.shape is None:
        return t
    a = axis % len(t.shape)
    return TensorType(t.dtype, t.shape[:a] + (1,) + t.shape[a + 1:])


def _const_scalar(c):
    if c is None:
        return None
    c = np.asarray(c)
    return c.reshape(-1)[0].item() if c.size == 1 else None


def loop_iteration_bound(ts, attrs, consts):
    """The exact number of iterations when it is known at build time, else None."""
    body = attrs["body"]
    trip = _const_scalar(consts[0])
    cond0 = _const_scalar(consts[1])
    if cond0 is False:
        return 0
    bounds = []
    if trip is not None and trip >= 0:
        bounds.append(int(trip))
    for li, _, axis in attrs["input_map"]:
        if axis is not None:
            shape = ts[li].shape
            if shape is None or shape[axis % len(shape)] is None:
                return None
            bounds.append(shape[axis % len(shape)])
    if cond0 is not True or not bounds:
        return None if not (bounds and min(bounds) == 0) else 0
    r = body.results[attrs["condition_result"]]
    stops_early = not (r.producer is not None and r.producer.op == "Const" and
                       bool(np.all(r.producer.attrs["value"])))
    if stops_early:
        return 0 if min(bounds) == 0 else None
    return min(bounds)


def _loop_infer(ts, attrs, consts):
    body = _graph_attr("Loop", attrs, "body")
    if len(ts) < 2:
        raise ShapeInferenceError("Loop: needs a trip count and a condition input")
    trip, cond = ts[0], ts[1]
    if not trip.dtype.is_integer or trip.dtype.name not in ("int32", "int64"):
        raise ShapeInferenceError(f"Loop: the trip count must be int32 or int64, got {trip}")
    if trip.shape is not None and (len(trip.shape) > 1 or num_elements(trip.shape) not in
                                   (None, 1)):
        raise ShapeInferenceError(f"Loop: the trip count must be a scalar or one-element "
                                  f"1-D tensor, got {trip}")
    _check_condition("Loop", cond)
    from .verifier import check_loop_ports
    check_loop_ports(ts, attrs)
    n = loop_iteration_bound(ts, attrs, consts)
    back = dict(attrs["back_edges"])
    initial = {bp: ts[li] for li, bp, axis in attrs["input_map"] if axis is None}
    outs = []
    for ri, axis in attrs["output_map"]:
        t = body.results[ri].type
        if axis is None:
            if ri in back and back[ri] in initial:
                t = join_types(initial[back[ri]], t)
            outs.append(t)
            continue
        if t.shape is None:
            outs.append(t)
            continue
        a = axis % len(t.shape)
        d = t.shape[a]
        size = None if (n is None or d is None) else n * d
        outs.append(TensorType(t.dtype, t.shape[:a] + (size,) + t.shape[a + 1:]))
    return tuple(outs)


register_op("Loop", ("trip_count", "condition", "*inputs"),
            {"body": REQUIRED, "input_map": (), "output_map": (), "back_edges": (),
             "current_iteration": -1, "condition_result": REQUIRED},
            infer=_loop_infer, infer_takes_consts=True, family="control",
            doc="run the body repeatedly (see the module docstring for the port map)")

LOOP_CONDITION_DTYPE = bool_
