"""A Loop node from a loop on tensor values: the body is built against the entry types
of the variables it carries and rebuilt until their exit types join (ShapeJoin, which
only widens); Python numbers the body changes become weak 0-d tensors, lists appended
to become concatenated outputs, names that cannot be carried fail only where read."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, List

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..ir.control import sliced_type
from ..ir.errors import UnsupportedSyntaxError
from ..ir.graph import Graph
from ..ir.types import STATE, TensorType
from . import analysis
from .control_flow import Record, branch, condition_value
from .joins import (_MISSING, _WEAK_DEFAULT, _container_name, _info, _lists_in, materialize,
                    restore, snapshot)
from .loop_carry import (_Pass, _State, _exit_leaf, _ident, _label, _leaves, _loop_update, _set,
                         _slots_for)
from .state import BRK, CONT, LEFT, RAISED, RET, RETVAL
from .values import (Collector as _Collector, DynamicList, GraphContext, GraphTensor,
                     MaybeUndefined, Unassigned, Undefined, Unjoinable, active)

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["build_loop", "LoopSpec", "loop_exit"]


@dataclass
class LoopSpec:
    sliced: List[GraphTensor]            # outer values sliced along axis 0
    trip: Any                            # None (-1), a Python int or an int graph value
    make: Callable                       # (iteration value, slices) -> loop target value
    describe: str = ""


def loop_exit(b, node, outer_flags):
    """After a loop: break and continue go back to the enclosing loop's flags (as they
    were before this loop), and the else clause runs where this loop was not left by
    break or return (a break or continue in it is the enclosing loop's)."""
    brk = b.env.get(BRK, False)
    ret = b.env.get(RET, False)
    for f, v in outer_flags.items():
        if v is _MISSING:
            b.env.pop(f, None)
        else:
            b.env[f] = v
    b.env.pop(LEFT, None)
    if not node.orelse or brk is True or ret is True:
        return
    stop = brk if isinstance(brk, GraphTensor) else None
    if isinstance(ret, GraphTensor):
        stop = ret if stop is None else ops.logical_or(stop, ret)
    if stop is None:
        b.exec_block(node.orelse)
    else:
        def run():
            if isinstance(b.env.get(RET), GraphTensor):
                b.env[RET] = False
            b.exec_block(node.orelse)
        branch(b, ops.logical_not(stop), run, lambda: None, b.loc(node.orelse[0]),
               ("loop that ended normally", "loop left by break"))


def build_loop(b: FunctionBuilder, node, kind, spec: LoopSpec = None, cond0=None,
               record: Record = None):
    """Build a Loop node for the rest of a loop; see the module docstring. The caller
    then calls loop_exit (the else clause, the enclosing loop's flags)."""
    outer = active()
    loc = b.loc(node)
    env0 = b.env
    targets = analysis.target_names(node.target) if kind == "for" else []
    assigned = targets + [n for n in analysis.assigned_names(node.body) if n not in targets]
    has_ret = analysis.contains(node.body, ast.Return)
    appended = [n for n in analysis.appended_names(node.body)
                if type(env0.get(n)) is list and n not in assigned]
    # len() of such a list in the body: the loop carries its length (a hidden variable
    # the appends add 1 to), as eager mode's list has one
    lengths = [n for n in appended if _reads_len(
        node.body + ([node.test] if isinstance(node, ast.While) else []), n)]
    for n in lengths:
        env0[length_name(n)] = len(env0[n])
    names = list(assigned) + [length_name(n) for n in lengths] + \
        ([RET, RETVAL] if has_ret else []) + ([BRK] if node.orelse else [])
    st = _State()
    for n in names:      # bound after the loop if it was before, or an iteration bound it
        if isinstance(env0.get(n), MaybeUndefined):
            st.maybe[n] = None
    if kind == "for" and spec is not None:
        if spec.sliced and spec.trip is None:
            shape = spec.sliced[0].type.shape
            st.runs_once = bool(shape) and shape[0] is not None and shape[0] > 0
        elif isinstance(spec.trip, int) and not spec.sliced:
            st.runs_once = spec.trip > 0
    n_records = len(b.c.records)
    for attempt in range(12):
        del b.c.records[n_records:]   # decisions of an earlier pass are rebuilt
        n_nodes, state0 = len(outer.graph.nodes), outer.save_state()
        p = _loop_pass(b, node, kind, spec, names, st, appended, has_ret, outer)
        if p.ctx.wrote and not st.carries_state:
            # the body updates state: build it again carrying the state token, reading
            # Parameters in the body (not before the Loop, as a body that only reads does)
            st.carries_state = True
            outer.truncate(n_nodes)
            outer.restore_state(state0)
            continue
        if not _loop_update(p, st, loc):
            break
    else:
        raise UnsupportedSyntaxError("the types of the loop's variables did not settle",
                                     loc=loc)
    _emit_loop(b, node, kind, spec, cond0, p, st, outer, record, loc)


def length_name(list_name: str) -> str:
    """The hidden variable holding the length of a list appended in a Loop's body (no
    identifier, so no user's name; it is carried like the user's variables)."""
    return f"len({list_name})"


def _reads_len(body, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
               n.func.id == "len" and len(n.args) == 1 and
               isinstance(n.args[0], ast.Name) and n.args[0].id == name
               for stmt in body for n in ast.walk(stmt))


def _loop_pass(b, node, kind, spec, names, st, appended, has_ret, outer) -> _Pass:
    env0, locs0 = b.env, b.locs
    names = list(names) + [n for n in st.extra_names if n not in names]
    slots, trees = _slots_for(names, env0, st)
    ctx = GraphContext(Graph(f"{kind}_body"), parent=outer, kind="loop")
    g = ctx.graph
    it_param = g.add_param(TensorType(dt.int64, ()), "iteration")
    params = [g.add_param(TensorType(s.dtype, s.shape), _ident(_label(s.key))) for s in slots]
    if st.carries_state:    # the state token, carried after the variables
        ctx.token = ctx.token_param = g.add_param(STATE, "state")
        ctx.hoist_reads = False
    sliced = spec.sliced if spec is not None else []
    slice_params = [g.add_param(sliced_type(x.type, 0), "slice") for x in sliced]
    for prm, s in zip(params, slots):
        if isinstance(s.entry, GraphTensor):
            b.c.param_source[id(prm)] = s.entry.value
    for prm, x in zip(slice_params, sliced):
        b.c.param_source[id(prm)] = x.value
    env = dict(env0)
    env.update(trees)
    for n, e in st.unjoinable.items():
        env[n] = Unjoinable(n, e)
    rebound = analysis.rebound_names(node.body)
    for n in names:      # local to the function: not a global or closure name in the body
        if n not in env and not n.startswith("<") and n in rebound:
            env[n] = Unassigned(n)
    bound = {}
    for prm, s in zip(params, slots):
        name, path = s.key
        if s.kind == "bound":
            bound[name] = GraphTensor(prm)
        elif s.kind != "flag":
            env[name] = _set(env[name], path, GraphTensor(prm, weak=s.weak))
    for name, flag in bound.items():   # maybe unbound when the iteration starts
        env[name] = MaybeUndefined(name, env[name], flag)
    env[BRK] = False
    env[CONT] = False
    env.pop(LEFT, None)
    if has_ret:
        env[RET] = False
    collectors = {n: _Collector(n, length_name(n) if length_name(n) in env else None, ctx)
                  for n in appended}
    env.update(collectors)
    b.env, b.locs = env, dict(locs0)
    b.loop_depth += 1
    objs = [o for o in b.c.created.values() if isinstance(getattr(o, "__dict__", None), dict)]
    saved_attrs = [dict(vars(o)) for o in objs]
    containers = [c for c in _lists_in(env0) if c is not None]
    saved_containers = [snapshot(c) for c in containers]
    try:
        with ctx:
            if kind == "for":
                item = spec.make(GraphTensor(it_param, weak=True),
                                 [GraphTensor(sp) for sp in slice_params])
                b.assign(node.target, item, node)
            entry_env = dict(b.env)
            b.exec_block(node.body)
            stop = False
            if b.env.get(RAISED) is True:   # an iteration that gets here raises: the
                b.env = entry_env           # names keep their values, and it stops
                for c in collectors.values():
                    list.__setitem__(c, slice(None), [])
                    c.flags[:] = []
                stop = True
            b.env[CONT] = False
            parts = []
            for f in (BRK, RET):
                v = b.env.get(f, False) if (f != RET or has_ret) else False
                if v is True:
                    stop = True
                elif isinstance(v, GraphTensor):
                    parts.append(ops.logical_not(v))
            cond: Any = not stop
            if not stop and kind == "while":
                tc = condition_value(b, b.eval(node.test), node.test)
                if tc is False:
                    cond = False
                elif isinstance(tc, GraphTensor):
                    parts.append(tc)
            if cond is not False and parts:
                c = parts[0]
                for x in parts[1:]:
                    c = ops.logical_and(c, x)
                cond = c
            exit_env, exit_locs = b.env, b.locs
            for c, old in zip(containers, saved_containers):
                if not _same_contents(c, old):
                    name = _container_name(env0, c)
                    raise UnsupportedSyntaxError(
                        f"the {type(c).__name__} '{name}' changes inside a loop that depends "
                        f"on a tensor value (only list.append of tensors can be carried)",
                        loc=b.loc(node), names=(name,),
                        hint=f"keep the values in tensors (or in separate variables) "
                             f"instead of changing '{name}' in the loop")
            for o, old in zip(objs, saved_attrs):
                changed = [a for a in vars(o) if vars(o)[a] is not old.get(a, _MISSING)]
                if changed:
                    raise UnsupportedSyntaxError(
                        f"attribute '{changed[0]}' of a {type(o).__name__} object changes "
                        f"inside a loop that depends on a tensor value",
                        loc=b.loc(node), hint="keep the value in a local variable inside the "
                                              "loop and store it on the object after the loop")
    finally:
        for c, old in zip(containers, saved_containers):
            restore(c, old)
        for o, old in zip(objs, saved_attrs):
            vars(o).clear()
            vars(o).update(old)
        b.env, b.locs = env0, locs0
        b.loop_depth -= 1
    collected = {n: list(zip(list.__iter__(c), c.flags)) for n, c in collectors.items()}
    return _Pass(ctx, slots, trees, exit_env, exit_locs, cond, collected, len(sliced), env0,
                 names, dict(locs0))


def _same_contents(c, old) -> bool:
    return _identical(snapshot(c), old)


def _identical(a, b) -> bool:
    """The same objects in the same places (a container's contents, snapshot form)."""
    if type(a) in (list, tuple) and type(b) in (list, tuple):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(a[k] is b[k] for k in a)
    return a is b


def _scalar_value(ctx, v):
    if v.type.shape != ():
        return ctx.graph.add_node("Reshape", (v,), {"shape": ()}).outputs[0]
    return v


def _emit_loop(b, node, kind, spec, cond0, p: _Pass, st: _State, outer: GraphContext, record,
               loc):
    ctx, g = p.ctx, p.ctx.graph
    slots = p.slots
    with ctx:
        cond_v = _scalar_value(ctx, materialize(ctx, p.cond, dt.bool_))
        exits = []
        for s in slots:
            ev = _exit_leaf(p, s.key, s.kind)
            if ev is None:          # never returned inside: the value flows through
                ev = GraphTensor(g.params[1 + slots.index(s)])
            exits.append(materialize(ctx, ev, s.dtype))
        scans, scan_names = [], []
        scan_layout = {}      # list name -> [(value scan index, mask scan index or None)]
        for n, items in p.collected.items():
            layout = scan_layout[n] = []
            for item, flag in items:
                info = _info(item)
                if info is None:
                    raise UnsupportedSyntaxError(
                        f"appending a {type(item).__name__} to '{n}' inside a loop that "
                        f"depends on a tensor value", loc=loc, names=(n,),
                        hint="append tensors only")
                v = materialize(ctx, item, info[0] or _WEAK_DEFAULT[info[3]])
                scans.append(g.add_node("ExpandDims", (v,), {"axis": 0}).outputs[0])
                scan_names.append(n)
                mask_at = None
                if flag is not True:     # appended only where a tensor condition held
                    f = _scalar_value(ctx, materialize(ctx, flag, dt.bool_))
                    scans.append(g.add_node("ExpandDims", (f,), {"axis": 0}).outputs[0])
                    scan_names.append(n + "_appended")
                    mask_at = len(scans) - 1
                layout.append((len(scans) - 1 - (mask_at is not None), mask_at))
        tokens = [ctx.token] if st.carries_state else []
        g.set_results([cond_v] + exits + tokens + scans)
    n_c = len(slots) + len(tokens)    # carried values: the variables, then the token
    captured = list(ctx.captured)
    for prm, v in zip(g.params[1 + n_c + p.n_sliced:], captured):
        b.c.param_source[id(prm)] = v
    if kind == "while":
        trip = outer.const(np.asarray(-1, np.int64))
        c0 = _scalar_value(outer, outer.lift(cond0.value))
    else:
        t = spec.trip
        if t is None:
            trip = outer.const(np.asarray(-1, np.int64))
        elif isinstance(t, GraphTensor):
            trip = _scalar_value(outer, materialize(outer, t, dt.int64))
        else:
            trip = outer.const(np.asarray(int(t), np.int64))
        c0 = outer.const(np.asarray(True))
    entries = []
    for s in slots:
        e = s.entry
        if isinstance(e, Undefined) or e is None or e is _MISSING:
            e = False if s.kind != "var" else np.zeros(
                tuple(0 if d is None else d for d in s.shape) if s.shape else (), s.dtype.np)
        entries.append(materialize(outer, e, s.dtype))
    sliced_vals = [outer.lift(x.value) for x in (spec.sliced if spec else [])]
    cap_vals = [outer.lift(v) for v in captured]
    if st.carries_state:
        entries.append(outer.current_token())
    inputs = [trip, c0] + entries + sliced_vals + cap_vals
    n_s = len(sliced_vals)
    input_map = tuple([(2 + j, 1 + j, None) for j in range(n_c)] +
                      [(2 + n_c + k, 1 + n_c + k, 0) for k in range(n_s)] +
                      [(2 + n_c + n_s + m, 1 + n_c + n_s + m, None)
                       for m in range(len(cap_vals))])
    output_map = tuple([(1 + j, None) for j in range(n_c)] +
                       [(1 + n_c + k, 0) for k in range(len(scans))])
    back_edges = tuple((1 + j, 1 + j) for j in range(n_c))
    names = [_ident(_label(s.key)) for s in slots] + ["state"] * len(tokens) + scan_names
    loop = outer.graph.add_node(
        "Loop", inputs, {"body": g, "input_map": input_map, "output_map": output_map,
                         "back_edges": back_edges, "current_iteration": 0,
                         "condition_result": 0}, loc=loc, names=names)
    outs = loop.outputs
    if tokens:
        outer.set_token(outs[len(slots)], wrote=True)
    env = dict(p.env0)
    env.update(p.trees)
    bound = {}
    for s, o in zip(slots, outs[:n_c]):
        name, path = s.key
        out = GraphTensor(o, weak=s.weak)
        if s.kind == "flag":
            # a flag no path of the body sets stays what it was (a Python False folds)
            env[name] = s.entry if p.exit_env.get(name, False) is False else out
        elif s.kind == "bound":
            bound[name] = out
        else:
            env[name] = _set(env[name], path, out)
    for n, flag in bound.items():   # bound if it was before the loop or an iteration bound it
        if not (st.runs_once and _exit_leaf(p, (n, ()), "bound") is True):
            before = p.env0.get(n)
            if isinstance(before, Unjoinable):
                # it had a value before the loop (one whose paths could not join): after
                # zero iterations it is still that, so a read is refused as before; the
                # bound flag would raise UnboundLocalError where eager mode has a value
                env[n] = Unjoinable(n, before.exc)
            else:
                env[n] = MaybeUndefined(n, env[n], flag)   # read: UnboundLocalError if not
    for n, ev in p.exit_env.items():      # lists of run-time length made inside the body
        if n.startswith("<") or n in bound or (n in env and not isinstance(env[n], Undefined)):
            continue
        if isinstance(ev, MaybeUndefined):
            ev = ev.value
        if isinstance(ev, DynamicList) or any(isinstance(x, DynamicList)
                                              for _, x in _leaves(ev)):
            env[n] = Undefined(n, "it is a list of run-time length made inside a loop that "
                                  "depends on a tensor value; build it before the loop")
    for n, e in st.unjoinable.items():   # assigned before read in every iteration
        env[n] = Unjoinable(n, e)
    for n, layout in scan_layout.items():
        if layout:
            stacks = [GraphTensor(outs[n_c + vi]) for vi, _ in layout]
            masks = [None if mi is None else GraphTensor(outs[n_c + mi]) for _, mi in layout]
            env[n] = DynamicList(list(p.env0[n]), stacks, masks=masks)
    b.env = env
    b.locs.update({n: l for n, l in p.exit_locs.items() if n in env})
    if record is not None:
        record.details.update({
            # what one iteration hands the next: the variables the body reads before it
            # sets them (the loop variable of a for, set from the slice, is not)
            "carried": [_label(s.key) for i, s in enumerate(slots)
                        if s.kind == "var" and p.ctx.graph.params[1 + i].users],
            "sliced": [ast.unparse(node.iter)] if n_s else [],
            "concatenated": sorted(set(scan_names))})
