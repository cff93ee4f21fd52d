"""The IR verifier: types, dominance, closed subgraphs and Loop port maps."""
from __future__ import annotations

from .errors import GraphJitError, GraphVerificationError
from .join import join_types
from .registry import get_op
from .types import TensorType, num_elements

__all__ = ["verify", "check_loop_ports", "check_state"]


def _bad(msg, node=None):
    loc = getattr(node, "loc", None)
    where = f" (node {node.op}" + (f" at {loc.short()})" if loc else ")") if node else ""
    return GraphVerificationError(msg + where, loc=loc)


def _is_index(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _axis_ok(axis, rank) -> bool:
    """An axis of a tensor of this rank (unknown rank: any int); rank 0 has none."""
    if not _is_index(axis):
        return False
    return rank is None or (rank > 0 and -rank <= axis < rank)


def _axis_range(rank) -> str:
    if rank == 0:
        return "a scalar has no axis to slice or concatenate along"
    return f"valid axes are {-rank}..{rank - 1}"


def _entries(attrs, key, width, form):
    entries = attrs[key]
    if not isinstance(entries, (tuple, list)):
        raise _bad(f"Loop: {key} must be a tuple of {form} tuples, got {entries!r}")
    for e in entries:
        if not isinstance(e, (tuple, list)) or len(e) != width:
            raise _bad(f"Loop: {key} entries are {form}, got {e!r}")
    return [tuple(e) for e in entries]


def _param_fits(p: TensorType, t: TensorType) -> bool:
    try:
        return p.dtype is t.dtype and join_types(p, t) == p
    except GraphJitError:
        return False


def check_loop_ports(ts, attrs) -> None:
    """Check a Loop's port map, back edges and purposes against its input types.

    Args:
        ts: the Loop's input types (trip count, condition, data inputs).
        attrs: the Loop's normalized attributes (see graphjit.ir.control).

    Raises:
        GraphVerificationError: naming the entry that is wrong and why.
        ShapeJoinError / TypeJoinError: a back edge whose exit type does not join
            with its entry type (the message names both shapes or dtypes).
    """
    body = attrs["body"]
    n_in, n_par, n_res = len(ts), len(body.params), len(body.results)
    input_map = _entries(attrs, "input_map", 3, "(loop_input, body_param, axis)")
    output_map = _entries(attrs, "output_map", 2, "(body_result, axis)")
    back_edges = _entries(attrs, "back_edges", 2, "(body_result, body_param)")

    # purposes: execution_condition (mandatory) and current_iteration (optional)
    cr = attrs["condition_result"]
    if not _is_index(cr) or not 0 <= cr < n_res:
        raise _bad(f"Loop: the body has no execution-condition result: condition_result="
                   f"{cr!r}, but the body '{body.name}' has {n_res} result(s); its result "
                   f"with purpose execution_condition (a one-element bool) is mandatory")
    ct = body.results[cr].type
    if not ct.dtype.is_bool or (ct.shape is not None and (
            len(ct.shape) > 1 or num_elements(ct.shape) not in (1, None))):
        raise _bad(f"Loop: the execution-condition result (body result {cr}) must be a bool "
                   f"scalar or one-element 1-D tensor, got {ct}")
    ci = attrs["current_iteration"]
    if ci != -1:
        if not _is_index(ci) or not 0 <= ci < n_par:
            raise _bad(f"Loop: current_iteration names body parameter {ci!r}, but the body "
                       f"'{body.name}' has {n_par} parameter(s) (use -1 for none)")
        t = body.params[ci].type
        if t.dtype.name not in ("int32", "int64") or t.shape not in ((), (1,)):
            raise _bad(f"Loop: the current-iteration parameter (body parameter {ci}) must be "
                       f"an int32/int64 scalar or one-element 1-D tensor, got {t}")

    # input entries: invariant or sliced
    bound = {ci: "current_iteration"} if ci != -1 else {}
    initial = {}
    used_inputs = set()
    for li, bp, axis in input_map:
        if not _is_index(li) or not 2 <= li < n_in:
            raise _bad(f"Loop: input_map entry {(li, bp, axis)} names Loop input {li!r}, but "
                       f"the Loop's data inputs are " +
                       (f"2..{n_in - 1}" if n_in > 2 else "none") +
                       " (0 is the trip count, 1 the condition)")
        if not _is_index(bp) or not 0 <= bp < n_par:
            raise _bad(f"Loop: input_map entry {(li, bp, axis)} names body parameter {bp!r}, "
                       f"but the body '{body.name}' has {n_par} parameter(s)")
        if bp in bound:
            raise _bad(f"Loop: body parameter {bp} is bound twice (by input_map and "
                       f"{bound[bp]})")
        bound[bp] = f"input_map entry {(li, bp, axis)}"
        used_inputs.add(li)
        t = ts[li]
        if axis is not None:
            if not t.is_tensor:
                raise _bad(f"Loop: input_map entry {(li, bp, axis)} slices Loop input {li}, "
                           f"which is {t}; only tensors can be sliced")
            if not _axis_ok(axis, t.rank):
                raise _bad(f"Loop: slicing axis {axis!r} is out of range for Loop input {li} "
                           f"of type {t}; {_axis_range(t.rank)}")
            from .control import sliced_type
            t = sliced_type(t, axis)
        else:
            initial[bp] = t
        p = body.params[bp].type
        if not _param_fits(p, t):
            what = "each slice of Loop input" if axis is not None else "Loop input"
            raise _bad(f"Loop: body parameter {bp} is {p} but {what} {li} is {t}; the "
                       f"parameter must have the same dtype and the same or a more general "
                       f"shape")
    missing = [i for i in range(n_par) if i not in bound]
    if missing:
        raise _bad(f"Loop: body parameter(s) {missing} of '{body.name}' are bound to nothing; "
                   f"bind each with an input_map entry or as current_iteration")
    unused = [i for i in range(2, n_in) if i not in used_inputs]
    if unused:
        raise _bad(f"Loop: Loop input(s) {unused} feed no body parameter; add input_map "
                   f"entries for them or drop them")

    # output entries: last value or concatenation
    for ri, axis in output_map:
        if not _is_index(ri) or not 0 <= ri < n_res:
            raise _bad(f"Loop: output_map entry {(ri, axis)} names body result {ri!r}, but "
                       f"the body '{body.name}' has {n_res} result(s)")
        if axis is not None:
            t = body.results[ri].type
            if not t.is_tensor:
                raise _bad(f"Loop: output_map entry {(ri, axis)} concatenates body result "
                           f"{ri}, which is {t}; only tensors can be concatenated")
            if not _axis_ok(axis, t.rank):
                raise _bad(f"Loop: concatenation axis {axis!r} is out of range for body "
                           f"result {ri} of type {t}; {_axis_range(t.rank)}")

    # back edges: the exit type must join with the entry type and be no wider
    seen = set()
    for ri, bp in back_edges:
        if not _is_index(ri) or not 0 <= ri < n_res:
            raise _bad(f"Loop: back edge {(ri, bp)} names body result {ri!r}, but the body "
                       f"'{body.name}' has {n_res} result(s)")
        if not _is_index(bp) or not 0 <= bp < n_par:
            raise _bad(f"Loop: back edge {(ri, bp)} names body parameter {bp!r}, but the "
                       f"body '{body.name}' has {n_par} parameter(s)")
        if bp == ci:
            raise _bad(f"Loop: back edge {(ri, bp)} feeds the current-iteration parameter")
        if bp in seen:
            raise _bad(f"Loop: body parameter {bp} receives two back edges")
        seen.add(bp)
        if bp not in initial:
            raise _bad(f"Loop: back-edged body parameter {bp} needs an un-sliced input_map "
                       f"entry that gives its first iteration's value")
        entry_t, exit_t = body.params[bp].type, body.results[ri].type
        try:
            joined = join_types(entry_t, exit_t)
        except GraphJitError as e:
            raise e.with_context(
                detail=f"Loop back edge {(ri, bp)}: body result {ri} is {exit_t} at the "
                       f"body's exit but body parameter {bp} is {entry_t} at its entry",
                hint="make the carried value keep its shape and dtype in every iteration, "
                     "or declare the parameter with the joined type")
        if joined != entry_t:
            raise _bad(f"Loop: back edge {(ri, bp)}: body result {ri} is {exit_t}, more "
                       f"general than body parameter {bp} ({entry_t}); declare the parameter "
                       f"as {joined}")


def verify(graph) -> None:
    """Check a graph and its subgraphs: closed subgraphs, dominance, every node's
    output types against its op's inference (for Loop: port maps, axes, purposes,
    dtypes and back-edge joins; for If: branch arity, parameter types and the join),
    and the state rules (check_state).

    Raises:
        GraphVerificationError: with the offending node and its source line.
        ShapeJoinError / TypeJoinError: branch outputs or a back edge that do not join.
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
    check_state(graph)


def check_state(graph) -> None:
    """The state rules (graphjit.ir.defs.state), which make the order of every read
    and update of a Parameter data flow that no transformation can change:
    a graph has at most one state-token parameter; every state value is used once
    (by one node input or one result), so the state ops of a graph form one chain
    from that parameter; the chain ends in exactly one result of the graph, so no
    update can be dropped from it; and a ref (a Parameter) is never a result.

    Raises:
        GraphVerificationError: naming the rule, the graph and the node.
    """
    tokens = [p for p in graph.params if p.type.kind == "state"]
    if len(tokens) > 1:
        raise _bad(f"graph '{graph.name}' has {len(tokens)} state-token parameters; a graph "
                   f"threads one token, so its reads and updates have one order")
    users = {}
    for node in graph.nodes:
        for v in node.inputs:
            if v.type.kind == "state":
                if id(v) in users:
                    raise _bad(f"the state token {v.name or '?'} is used twice (by "
                               f"{users[id(v)]} and {node.op}); each state op must take the "
                               f"token the one before it gave, so their order is fixed", node)
                users[id(v)] = node.op
    results = [r for r in graph.results if r.type.kind == "state"]
    for r in results:
        if id(r) in users:
            raise _bad(f"the state token returned by '{graph.name}' is also used by "
                       f"{users[id(r)]}; the graph must return the last token")
        users[id(r)] = "return"
    if tokens and len(results) != 1:
        raise _bad(f"graph '{graph.name}' takes the state token but returns "
                   f"{len(results)} tokens; it must return the last one, so that every "
                   f"update it makes stays in the order of the program")
    for r in graph.results:
        if r.type.kind == "ref":
            raise _bad(f"graph '{graph.name}' returns a ref ({r.type}); refs stand for "
                       f"Parameters and only go into state ops and subgraphs")
