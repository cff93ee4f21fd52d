"""The IR verifier: types, dominance, closed subgraphs and Loop port maps."""
from __future__ import annotations

from .errors import GraphJitError, GraphVerificationError
from .join import join_types
from .registry import get_op
from .types import num_elements

__all__ = ["verify", "check_loop_ports"]


def _bad(msg, node=None):
    loc = getattr(node, "loc", None)
    where = f" (node {node.op}" + (f" at {loc.short()})" if loc else ")") if node else ""
    return GraphVerificationError(msg + where, loc=loc)


def _axis_ok(axis, rank):
    return rank is None or -rank <= axis < rank


def check_loop_ports(ts, attrs) -> None:
    """Check a Loop's port map, back edges and purposes against its input types.

    Raises:
        GraphVerificationError: naming the entry that is wrong.
        ShapeJoinError / TypeJoinError: a back edge whose exit type does not join
            with its entry type.
    """
    body = attrs["body"]
    n_in, n_par, n_res = len(ts), len(body.params), len(body.results)
    cr = attrs["condition_result"]
    if not isinstance(cr, int) or not 0 <= cr < n_res:
        raise _bad(f"Loop: the body has no execution-condition result (condition_result="
                   f"{cr!r}, the body has {n_res} results)")
    ct = body.results[cr].type
    if not ct.dtype.is_bool or (ct.shape is not None and num_elements(ct.shape) not in (1, None)):
        raise _bad(f"Loop: the execution-condition result must be a one-element bool, got {ct}")
    ci = attrs["current_iteration"]
    if ci != -1:
        if not isinstance(ci, int) or not 0 <= ci < n_par:
            raise _bad(f"Loop: current_iteration names body parameter {ci}, but the body has "
                       f"{n_par} parameters")
        t = body.params[ci].type
        if t.dtype.name not in ("int32", "int64") or (t.shape is not None and
                                                       num_elements(t.shape) != 1):
            raise _bad(f"Loop: the current-iteration parameter must be an int32/int64 scalar "
                       f"or one-element 1-D tensor, got {t}")
    bound = {ci} if ci != -1 else set()
    initial = {}
    for entry in attrs["input_map"]:
        if len(entry) != 3:
            raise _bad(f"Loop: input_map entries are (loop_input, body_param, axis), got "
                       f"{entry!r}")
        li, bp, axis = entry
        if not isinstance(li, int) or not 2 <= li < n_in:
            raise _bad(f"Loop: input_map names Loop input {li}, but the data inputs are "
                       f"2..{n_in - 1}")
        if not isinstance(bp, int) or not 0 <= bp < n_par:
            raise _bad(f"Loop: input_map names body parameter {bp}, but the body has {n_par}")
        if bp in bound:
            raise _bad(f"Loop: body parameter {bp} is bound twice")
        bound.add(bp)
        t = ts[li]
        if axis is not None:
            if not isinstance(axis, int) or not _axis_ok(axis, t.rank) or t.rank == 0:
                raise _bad(f"Loop: slicing axis {axis} is out of range for input {li} of "
                           f"type {t}")
            from .control import sliced_type
            t = sliced_type(t, axis)
        else:
            initial[bp] = t
        p = body.params[bp].type
        if p.dtype is not t.dtype:
            raise _bad(f"Loop: body parameter {bp} is {p} but Loop input {li} gives {t}")
        join_types(p, t)
        if p.shape is not None and t.shape is not None and len(p.shape) == len(t.shape) and any(
                a is not None and b is not None and a != b for a, b in zip(p.shape, t.shape)):
            raise _bad(f"Loop: body parameter {bp} is {p} but Loop input {li} gives {t}")
    missing = [i for i in range(n_par) if i not in bound]
    if missing:
        raise _bad(f"Loop: body parameter(s) {missing} are bound to nothing (use input_map "
                   f"or current_iteration)")
    for entry in attrs["output_map"]:
        if len(entry) != 2:
            raise _bad(f"Loop: output_map entries are (body_result, axis), got {entry!r}")
        ri, axis = entry
        if not isinstance(ri, int) or not 0 <= ri < n_res:
            raise _bad(f"Loop: output_map names body result {ri}, but the body has {n_res}")
        if axis is not None:
            r = body.results[ri].type.rank
            if not isinstance(axis, int) or r == 0 or not _axis_ok(axis, r):
                raise _bad(f"Loop: concatenation axis {axis} is out of range for body result "
                           f"{ri} of type {body.results[ri].type}")
    seen = set()
    for entry in attrs["back_edges"]:
        if len(entry) != 2:
            raise _bad(f"Loop: back_edges entries are (body_result, body_param), got {entry!r}")
        ri, bp = entry
        if not isinstance(ri, int) or not 0 <= ri < n_res:
            raise _bad(f"Loop: a back edge names body result {ri}, but the body has {n_res}")
        if not isinstance(bp, int) or not 0 <= bp < n_par:
            raise _bad(f"Loop: a back edge names body parameter {bp}, but the body has {n_par}")
        if bp in seen:
            raise _bad(f"Loop: body parameter {bp} receives two back edges")
        seen.add(bp)
        if bp not in initial:
            raise _bad(f"Loop: back-edged body parameter {bp} needs an un-sliced input_map "
                       f"entry for its first value")
        entry_t, exit_t = body.params[bp].type, body.results[ri].type
        try:
            joined = join_types(entry_t, exit_t)
        except GraphJitError as e:
            e.with_context(detail=f"Loop back edge: body result {ri} ({exit_t}) does not join "
                                  f"with body parameter {bp} ({entry_t})")
            raise
        if joined != entry_t:
            raise _bad(f"Loop: back edge result {ri} is {exit_t}, wider than its parameter {bp} "
                       f"({entry_t}); declare the parameter as {joined}")


def verify(graph) -> None:
    """Check a graph and its subgraphs.

    Raises:
        GraphVerificationError: with the offending node and its source line.
    """
    _verify(graph, set())


def _verify(graph, seen_graphs) -> None:
    if id(graph) in seen_graphs:
        raise _bad(f"graph '{graph.name}' is used as a subgraph twice")
    seen_graphs.add(id(graph))
    defined = set()
    for p in graph.params:
        if p.graph is not graph:
            raise _bad(f"parameter {p!r} of '{graph.name}' belongs to another graph")
        defined.add(id(p))
    for node in graph.nodes:
        if node.graph is not graph:
            raise _bad(f"node belongs to another graph than '{graph.name}'", node)
        for i, v in enumerate(node.inputs):
            if v.graph is not graph:
                raise _bad(f"input {i} comes from graph '{v.graph.name}'; subgraphs are closed",
                           node)
            if id(v) not in defined:
                raise _bad(f"input {i} is used before it is defined", node)
        opdef = get_op(node.op)
        for sub in node.subgraphs():
            _verify(sub, seen_graphs)
        consts = [v.producer.attrs["value"] if v.producer is not None and
                  v.producer.op == "Const" else None for v in node.inputs]
        try:
            types = opdef.infer_types([v.type for v in node.inputs], node.attrs, consts)
        except GraphJitError as e:
            if e.loc is None:
                e.loc = node.loc
            raise
        if list(types) != [o.type for o in node.outputs]:
            raise _bad(f"output types {[str(o.type) for o in node.outputs]} differ from the "
                       f"inferred {[str(t) for t in types]}", node)
        for o in node.outputs:
            defined.add(id(o))
    for r in graph.results:
        if id(r) not in defined:
            raise _bad(f"result {r!r} of '{graph.name}' is not defined in it")
