"""Helpers that build If and Loop nodes by hand, their subgraphs from Python functions.

    g = Graph("f")
    xs = g.add_param(TensorType(float32, (5, 3)), "xs")
    h0 = g.add_param(TensorType(float32, (1, 3)), "h0")

    def step(b, i, carried, sliced, invariant):
        (h,), (x,) = carried, sliced
        h_next = b.apply("Add", h, x)
        return True, [h_next], [h_next]         # condition, next carried, outputs

    h_last, hs = loop(g, step, carried=[h0], sliced=[(xs, 0)])   # hs: f32[5,3]

The body's parameters are [iteration, carried..., sliced..., invariant...] and its
results [condition, carried..., outputs...], the layout the front-end emits too.
"""
from __future__ import annotations

import contextlib
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import dtypes as _dt
from .errors import GraphJitError
from .graph import Graph, Value
from .join import join_types
from .types import TensorType

__all__ = ["if_", "loop", "ITERATION_TYPE"]

ITERATION_TYPE = TensorType(_dt.int64, ())
"""The default type of the current-iteration parameter: an int64 scalar."""

_MAX_REBUILDS = 8


def _as_value(graph: Graph, x, dtype, what: str) -> Value:
    if isinstance(x, Value):
        return x
    if isinstance(x, (bool, int, float, np.ndarray, np.generic)):
        return graph.const(np.asarray(x, dtype=dtype.np))
    raise TypeError(f"{what} must be a Value of graph '{graph.name}' or a Python "
                    f"{dtype.name} constant, got {x!r}")


def _as_list(x) -> list:
    if isinstance(x, Value):
        return [x]
    return list(x)


def _join_carried(k: int, entry: TensorType, exit_v: Value, first: Value) -> TensorType:
    try:
        return join_types(entry, exit_v.type)
    except GraphJitError as e:
        label = f"carried value {k}" + (f" '{first.name}'" if first.name else "")
        raise e.with_context(detail=f"{label} enters the Loop body as {entry} and leaves it "
                                    f"as {exit_v.type}")


def if_(graph: Graph, cond, then_fn: Callable, else_fn: Callable,
        operands: Sequence[Value] = (), *, names: Sequence[str] = (), loc=None,
        then_name: str = "then", else_name: str = "else") -> Tuple[Value, ...]:
    """Add an If node whose branches are built by two Python functions.

    Args:
        graph: the graph to add the If to.
        cond: a one-element bool Value of `graph`, or a Python bool (made a Const).
        then_fn, else_fn: `fn(b, *params) -> Value or sequence of Values`, where `b`
            is the branch graph and `params` its parameters, one per operand with the
            operand's type and name. Both must return the same number of values.
        operands: the outer values the branches read (subgraphs are closed).
        names: names of the If's outputs.
        loc: the SourceLoc of the node.
        then_name, else_name: names of the branch graphs.

    Returns:
        The If's outputs (a tuple, possibly empty).

    Raises:
        ShapeJoinError / TypeJoinError: the branches' results do not join.
        GraphVerificationError: different numbers of results.
    """
    cond = _as_value(graph, cond, _dt.bool_, "the If condition")
    operands = list(operands)
    branches = []
    for fn, gname in ((then_fn, then_name), (else_fn, else_name)):
        b = Graph(gname)
        params = [b.add_param(v.type, v.name) for v in operands]
        results = fn(b, *params)
        results = [] if results is None else _as_list(results)
        b.set_results(results)
        branches.append(b)
    with _located(loc):
        node = graph.add_node("If", [cond] + operands,
                              {"then_graph": branches[0], "else_graph": branches[1]},
                              loc=loc, names=names)
    return node.outputs


StepResult = Tuple[object, Sequence[Value], Sequence[Union[Value, Tuple[Value, Optional[int]]]]]


def loop(graph: Graph, body: Callable[..., StepResult], *, trip_count=-1, condition=True,
         carried: Sequence[Value] = (), sliced: Sequence = (), invariant: Sequence[Value] = (),
         iteration_type: Optional[TensorType] = ITERATION_TYPE, name: str = "body",
         names: Sequence[str] = (), loc=None) -> Tuple[Value, ...]:
    """Add a Loop node whose body is built by a Python function.

    Args:
        graph: the graph to add the Loop to.
        body: `body(b, i, carried, sliced, invariant) -> (cond, next_carried, outputs)`.
            `b` is the body graph; `i` the current-iteration parameter (None when
            `iteration_type` is None); `carried`, `sliced` and `invariant` lists of
            the body's parameters for those inputs. It returns the execution
            condition (a one-element bool Value of `b`, or a Python bool), the next
            value of each carried parameter (a back edge each), and the outputs:
            each a Value, concatenated across iterations along axis 0, or a pair
            (Value, axis) with an int axis (concatenated along it) or None (the last
            iteration's value).
        trip_count: an int32/int64 Value or a Python int; -1 means no limit.
        condition: a one-element bool Value or a Python bool: whether to run at all.
        carried: the first iteration's value of each carried parameter.
        sliced: values sliced one step per iteration: Values (along axis 0) or
            (Value, axis) pairs; each body parameter has size 1 along the axis.
        invariant: values the body reads as they are.
        iteration_type: the type of the current-iteration parameter (int32/int64,
            shape () or (1,)), or None for no such parameter.
        name: the body graph's name.
        names: names of the Loop's outputs.
        loc: the SourceLoc of the node.

    A carried value whose type changes in the body (a dim that grows, say) gets
    the ShapeJoin of its entry and exit types: the body is rebuilt with the joined
    type until the types are stable, as the front-end does.

    Returns:
        The Loop's outputs: the carried values after the last iteration (the
        initial ones after zero iterations), then one per output.

    Raises:
        ShapeJoinError / TypeJoinError: a carried value's exit type does not join
            with its entry type.
        GraphVerificationError: a malformed port map (see verifier.check_loop_ports).
    """
    trip = _as_value(graph, trip_count, _dt.int64, "the Loop trip count")
    cond0 = _as_value(graph, condition, _dt.bool_, "the Loop condition")
    carried = _as_list(carried)
    sliced_pairs = [(s, 0) if isinstance(s, Value) else tuple(s) for s in _as_list(sliced)]
    invariant = _as_list(invariant)
    with _located(loc):
        b, i, out_axes = _build_body(body, name, iteration_type, carried, sliced_pairs,
                                     invariant)
    n_c, n_s = len(carried), len(sliced_pairs)
    first = 1 if i is not None else 0
    input_map = tuple(
        [(2 + k, first + k, None) for k in range(n_c)] +
        [(2 + n_c + k, first + n_c + k, axis) for k, (_, axis) in enumerate(sliced_pairs)] +
        [(2 + n_c + n_s + k, first + n_c + n_s + k, None) for k in range(len(invariant))])
    output_map = tuple([(1 + k, None) for k in range(n_c)] +
                       [(1 + n_c + k, axis) for k, axis in enumerate(out_axes)])
    back_edges = tuple((1 + k, first + k) for k in range(n_c))
    inputs = [trip, cond0] + carried + [v for v, _ in sliced_pairs] + invariant
    with _located(loc):
        node = graph.add_node("Loop", inputs, {
            "body": b, "input_map": input_map, "output_map": output_map,
            "back_edges": back_edges, "current_iteration": 0 if i is not None else -1,
            "condition_result": 0}, loc=loc, names=names)
    return node.outputs


def _build_body(body, name, iteration_type, carried, sliced_pairs, invariant):
    """Build the body graph, again while a carried type widens (types only widen, so
    this ends); returns the graph, its iteration parameter (or None) and the axis of
    each output."""
    from .control import sliced_type
    carried_types = [v.type for v in carried]
    for _ in range(_MAX_REBUILDS):
        b = Graph(name)
        i = b.add_param(iteration_type, "i") if iteration_type is not None else None
        c_params = [b.add_param(t, v.name) for t, v in zip(carried_types, carried)]
        s_params = [b.add_param(sliced_type(v.type, axis),
                                f"{v.name}_t" if v.name else None) for v, axis in sliced_pairs]
        i_params = [b.add_param(v.type, v.name) for v in invariant]
        step = body(b, i, list(c_params), list(s_params), list(i_params))
        if not isinstance(step, (tuple, list)) or len(step) != 3:
            raise TypeError(f"the Loop body function must return (condition, next_carried, "
                            f"outputs), got {step!r}")
        cond, nxt, outs = step
        cond = _as_value(b, cond, _dt.bool_, "the Loop body's condition")
        nxt = _as_list(nxt)
        if len(nxt) != len(carried):
            raise TypeError(f"the Loop body returns {len(nxt)} next carried value(s) for "
                            f"{len(carried)} carried input(s)")
        out_pairs = [(o, 0) if isinstance(o, Value) else tuple(o) for o in _as_list(outs)]
        b.set_results([cond] + nxt + [o for o, _ in out_pairs])
        joined = [_join_carried(k, t, v, c) for k, (t, v, c) in
                  enumerate(zip(carried_types, nxt, carried))]
        if joined == carried_types:
            break
        carried_types = joined
    return b, i, [axis for _, axis in out_pairs]


@contextlib.contextmanager
def _located(loc):
    """Errors raised inside get the node's location when they have none."""
    try:
        yield
    except GraphJitError as e:
        if loc is not None:
            e.with_context(loc=loc)
        raise
