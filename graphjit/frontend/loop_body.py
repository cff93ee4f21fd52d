"""A Loop node from a loop on tensor values: the body is built against the entry types
of the variables it carries and rebuilt until their exit types join (ShapeJoin, which
only widens); Python numbers the body changes become weak 0-d tensors, lists appended
to become concatenated outputs, names that cannot be carried fail only where read."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

import numpy as np

from ..ir import dtypes as dt
from ..ir.control import sliced_type
from ..ir.errors import ShapeJoinError, TypeJoinError, UnsupportedSyntaxError
from ..ir.graph import Graph
from ..ir.join import join_shapes
from ..ir.types import TensorType
from ..tensor import Tensor
from . import analysis
from .builder import BRK, CONT, RAN, RET, RETVAL, FunctionBuilder
from .control_flow import Record, condition_value
from .joins import (_KORDER, _MISSING, _WEAK_DEFAULT, _container_name, _fits, _fmt_side, _info,
                    _kind, _lists_in, _same_static, materialize, placeholder_like, restore,
                    snapshot)
from .loops import LoopSpec, _run_orelse
from .values import (Collector as _Collector, DynamicList, GraphContext, GraphTensor,
                     MaybeUndefined, Undefined, Unjoinable, active)

__all__ = ["build_loop"]

Key = Tuple[str, tuple]   # (variable name, path into its tuple/list)


def _leaves(v, path=()):
    """(path, leaf) of a value's tuples, lists and dicts (a path holds indices and keys)."""
    if type(v) is dict:
        for k, x in v.items():
            yield from _leaves(x, path + (k,))
    elif isinstance(v, (tuple, list)) and not isinstance(v, _Collector):
        for i, x in enumerate(v):
            yield from _leaves(x, path + (i,))
    else:
        yield path, v


def _get(v, path):
    for i in path:
        if type(v) is dict:
            if i not in v:
                return _MISSING
        elif not isinstance(v, (tuple, list)) or not isinstance(i, int) or i >= len(v):
            return _MISSING
        v = v[i]
    return v


def _set(v, path, new):
    if not path:
        return new
    if type(v) is dict:
        out = dict(v)
        out[path[0]] = _set(v[path[0]], path[1:], new)
        return out
    items = list(v)
    items[path[0]] = _set(items[path[0]], path[1:], new)
    return tuple(items) if isinstance(v, tuple) else items


def _label(key: Key) -> str:
    name, path = key
    return name.strip("<>") + "".join(f"[{i!r}]" for i in path)


def _ident(text: str) -> str:
    out = "".join(c if c.isalnum() else "_" for c in text).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    return out


def _tensorlike(x) -> bool:
    return isinstance(x, GraphTensor) or (isinstance(x, Tensor) and x.has_data)


@dataclass
class _Slot:
    key: Key
    entry: Any
    dtype: Any
    shape: Any
    weak: bool
    kind: str = "var"    # var or flag


@dataclass
class _State:
    """What the passes over a loop body have learned."""

    widened: Dict[Key, tuple] = field(default_factory=dict)   # key -> (dtype, shape, weak)
    unjoinable: Dict[str, Any] = field(default_factory=dict)  # name -> why it cannot be carried
    extra_names: List[str] = field(default_factory=list)      # carried, found by a pass
    runs_once: bool = False      # the body certainly runs at least once
    promote: Dict[Key, tuple] = field(default_factory=dict)   # key -> (dtype, weak)
    local_trees: Dict[str, Any] = field(default_factory=dict)  # name -> placeholder tree


def _entry_tree(name, env0, st: _State):
    v = env0.get(name, _MISSING)
    if isinstance(v, MaybeUndefined):
        v = v.value
    if name == RETVAL and env0.get(RET, False) is False:
        v = _MISSING
    if isinstance(v, Undefined) or v is None and name == RETVAL:
        return st.local_trees.get(name, _MISSING)
    return v


def _slots_for(names, env0, st: _State) -> Tuple[List[_Slot], Dict[str, Any]]:
    slots, trees = [], {}
    for n in names:
        if n in (RET, BRK, RAN):
            v = env0.get(n, False) if n != RAN else False
            slots.append(_Slot((n, ()), False if isinstance(v, Undefined) else v, dt.bool_, (),
                               False, "flag"))
            continue
        if n in st.unjoinable:
            continue
        tree = _entry_tree(n, env0, st)
        if tree is _MISSING or isinstance(tree, (DynamicList, _Collector)):
            continue
        trees[n] = tree
        for path, leaf in _leaves(tree):
            key = (n, path)
            if key in st.widened:
                d, s, w = st.widened[key]
                slots.append(_Slot(key, leaf, d, s, w))
            elif isinstance(leaf, GraphTensor):
                slots.append(_Slot(key, leaf, leaf.dtype, leaf.type.shape, leaf.weak))
            elif isinstance(leaf, Tensor) and leaf.has_data:
                slots.append(_Slot(key, leaf, leaf.dtype, tuple(leaf.shape), False))
            elif key in st.promote:
                d, w = st.promote[key]
                slots.append(_Slot(key, leaf, d, (), w))
    return slots, trees


def build_loop(b: FunctionBuilder, node, kind, spec: LoopSpec = None, cond0=None,
               record: Record = None):
    """Build a Loop node for the rest of a loop; see the module docstring."""
    outer = active()
    loc = b.loc(node)
    env0 = b.env
    targets = analysis.target_names(node.target) if kind == "for" else []
    assigned = targets + [n for n in analysis.assigned_names(node.body) if n not in targets]
    has_ret = analysis.contains(node.body, ast.Return)
    appended = [n for n in analysis.appended_names(node.body)
                if type(env0.get(n)) is list and n not in assigned]
    names = list(assigned) + ([RET, RETVAL] if has_ret else []) + \
        ([BRK] if node.orelse else [])
    st = _State()
    if any(isinstance(env0.get(n), MaybeUndefined) for n in names):
        st.extra_names.append(RAN)    # defined after the loop if it was before or this ran
    if kind == "for" and spec is not None:
        if spec.sliced and spec.trip is None:
            shape = spec.sliced[0].type.shape
            st.runs_once = bool(shape) and shape[0] is not None and shape[0] > 0
        elif isinstance(spec.trip, int) and not spec.sliced:
            st.runs_once = spec.trip > 0
    n_records = len(b.c.records)
    for attempt in range(12):
        del b.c.records[n_records:]   # decisions of an earlier pass are rebuilt
        p = _loop_pass(b, node, kind, spec, names, st, appended, has_ret, outer)
        if not _loop_update(p, st, loc):
            break
    else:
        raise UnsupportedSyntaxError("the types of the loop's variables did not settle",
                                     loc=loc)
    _emit_loop(b, node, kind, spec, cond0, p, st, outer, record, loc)


@dataclass
class _Pass:
    ctx: GraphContext
    slots: List[_Slot]
    trees: Dict[str, Any]
    exit_env: Dict[str, Any]
    exit_locs: Dict[str, Any]
    cond: Any
    collected: Dict[str, list]
    n_sliced: int
    env0: Dict[str, Any]
    names: List[str]
    entry_locs: Dict[str, Any] = field(default_factory=dict)


def _loop_pass(b, node, kind, spec, names, st, appended, has_ret, outer) -> _Pass:
    from .. import ops
    env0, locs0 = b.env, b.locs
    names = list(names) + [n for n in st.extra_names if n not in names]
    slots, trees = _slots_for(names, env0, st)
    ctx = GraphContext(Graph(f"{kind}_body"), parent=outer)
    g = ctx.graph
    it_param = g.add_param(TensorType(dt.int64, ()), "iteration")
    params = [g.add_param(TensorType(s.dtype, s.shape), _ident(_label(s.key))) for s in slots]
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
    for prm, s in zip(params, slots):
        name, path = s.key
        if s.kind == "flag":
            continue
        env[name] = _set(env[name], path, GraphTensor(prm, weak=s.weak))
    env[BRK] = False
    env[CONT] = False
    if RAN in names:
        env[RAN] = True     # the body runs: names it binds are defined after the loop
    if has_ret:
        env[RET] = False
    collectors = {n: _Collector(n) for n in appended}
    env.update(collectors)
    b.env, b.locs = env, dict(locs0)
    b.loop_depth += 1
    objs = [o for o in b.c.created.values() if hasattr(o, "__dict__")]
    saved_attrs = [dict(vars(o)) for o in objs]
    containers = [c for c in _lists_in(env0) if c is not None]
    saved_containers = [snapshot(c) for c in containers]
    try:
        with ctx:
            if kind == "for":
                item = spec.make(GraphTensor(it_param, weak=True),
                                 [GraphTensor(sp) for sp in slice_params])
                b.assign(node.target, item, node)
            b.exec_block(node.body)
            b.env[CONT] = False
            parts = []
            stop = False
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


def _exit_leaf(p: _Pass, key: Key):
    name, path = key
    if name == RETVAL and p.exit_env.get(RET, False) is False:
        return None     # the body never returns: the value stays what it was
    v = p.exit_env.get(name, _MISSING)
    return _get(v.value if isinstance(v, MaybeUndefined) else v, path)


def _loop_update(p: _Pass, st: _State, loc) -> bool:
    """Compare exit with entry; widen, promote or add carried values. True if changed."""
    changed = False
    slot_keys = {s.key for s in p.slots}
    for s in p.slots:
        try:
            changed |= _update_slot(p, st, s, loc)
        except (ShapeJoinError, TypeJoinError, UnsupportedSyntaxError) as e:
            if s.kind == "flag":
                raise
            # the name cannot be carried: the next pass reads it as an error, so the
            # program is refused only if it really reads the value across iterations
            st.unjoinable[s.key[0]] = e
            changed = True
    return _update_python_values(p, st, loc, slot_keys) or changed


def _update_slot(p: _Pass, st: _State, s: _Slot, loc) -> bool:
    changed = False
    ev = _exit_leaf(p, s.key)
    label = _label(s.key)
    if ev is None and s.key[0] == RETVAL:
        return False
    if ev is _MISSING or isinstance(ev, Undefined):
        raise UnsupportedSyntaxError(
            f"'{label}' does not keep its structure (or is deleted) inside a loop that "
            f"depends on a tensor value", loc=loc, names=(label,),
            hint=f"give '{label}' the same kind of value in every iteration")
    info = _info(ev)
    if info is None:
        raise TypeJoinError(
            f"'{label}' is a tensor before the loop but {_fmt_side(ev, None)} after one "
            f"iteration", loc=loc, names=(label,),
            hint=f"keep '{label}' a tensor inside the loop")
    d, shape, weak, k = info
    new_dtype, new_weak = s.dtype, s.weak
    if d is None:                              # a Python number at exit
        if s.weak:
            if _KORDER[k] > _KORDER[s.dtype.kind]:
                new_dtype = _WEAK_DEFAULT[k]
        elif not _fits(ev, s.dtype):
            raise _carry_type_error(label, s, ev, p, loc)
    elif s.weak and not weak:                  # weak entry, strong exit: take its dtype
        if s.dtype.kind == "f" and not d.is_floating or (
                not isinstance(s.entry, GraphTensor) and _kind(s.entry) is not None and
                not _fits(s.entry, d)):
            raise _carry_type_error(label, s, ev, p, loc)
        new_dtype, new_weak = d, False
    elif not s.weak and weak:
        if not _fits(ev, s.dtype):
            raise _carry_type_error(label, s, ev, p, loc)
    elif s.weak and weak:
        if _KORDER[d.kind] > _KORDER[s.dtype.kind]:
            new_dtype = d
    elif d is not s.dtype:
        raise _carry_type_error(label, s, ev, p, loc)
    try:
        new_shape = s.shape if shape == s.shape else join_shapes(s.shape, shape)
    except ShapeJoinError as e:
        eloc = p.exit_locs.get(s.key[0])
        e.with_context(
            loc=loc, names=(label,),
            detail=f"'{label}' enters the loop as "
                   f"{_fmt_side(s.entry, p.entry_locs.get(s.key[0]))} and is "
                   f"{_fmt_side(ev, eloc)} after one iteration (the first iteration changes "
                   f"it)",
            hint=f"keep the shape of '{label}' the same in every iteration, or make the "
                 f"changing dim unknown before the loop (TensorSpec with None)")
        if p.entry_locs.get(s.key[0]) is not None:
            e.extra_locs += ((f"'{label}' before the loop", p.entry_locs[s.key[0]]),)
        if eloc is not None:
            e.extra_locs += ((f"'{label}' changes shape here", eloc),)
        raise
    if (new_dtype, new_shape, new_weak) != (s.dtype, s.shape, s.weak):
        st.widened[s.key] = (new_dtype, new_shape, new_weak)
        changed = True
    return changed


def _update_python_values(p: _Pass, st: _State, loc, slot_keys) -> bool:
    changed = False
    # Python values the body changes: promote numbers to carried tensors
    for n in set(p.env0) | set(p.trees):
        if n in st.unjoinable:
            continue
        if n.startswith("<") and n != RETVAL:
            continue
        entry = p.trees.get(n, p.env0.get(n))
        if n == RETVAL and n not in p.trees:
            continue
        ev = p.exit_env.get(n, _MISSING) if n != RETVAL or p.exit_env.get(RET) is not False \
            else entry
        if isinstance(entry, MaybeUndefined):
            entry = entry.value
        if isinstance(ev, MaybeUndefined):
            ev = ev.value
        if ev is entry or _same_static(ev, entry) or isinstance(ev, _Collector) or \
                isinstance(entry, Undefined):
            continue
        el, xl = dict(_leaves(entry)), dict(_leaves(ev))
        try:
            if set(el) != set(xl) or isinstance(entry, DynamicList) or isinstance(
                    ev, DynamicList):
                raise _structure_error(n, entry, ev, p, loc)
            for path, a in el.items():
                x = xl[path]
                if (n, path) not in slot_keys and not (x is a or _same_static(x, a)) and (
                        _info(a) is None or _info(x) is None):
                    raise _structure_error(_label((n, path)), a, x, p, loc)
        except TypeJoinError as e:
            st.unjoinable[n] = e
            changed = True
            continue
        for path, a in el.items():
            key = (n, path)
            x = xl[path]
            if key in slot_keys or x is a or _same_static(x, a):
                continue
            ia, ix = _info(a), _info(x)
            if n not in p.names:
                st.extra_names.append(n)   # changed without being assigned by name
            if ix[0] is not None and not ix[2]:
                st.promote[key] = (ix[0], False)
            else:
                kk = max(ia[3], ix[3], key=_KORDER.__getitem__)
                st.promote[key] = (_WEAK_DEFAULT[kk], True)
            changed = True
    # values first made inside the body and still live after it
    for n, ev in p.exit_env.items():
        if n.startswith("<") and n != RETVAL:
            continue
        if isinstance(ev, MaybeUndefined):      # made by a loop inside this body
            ev = ev.value
        if n == RETVAL and (p.exit_env.get(RET, False) is False or n in p.trees):
            continue
        if n != RETVAL and (n in p.trees or (n in p.env0 and not isinstance(p.env0[n],
                                                                             Undefined))):
            continue
        if isinstance(ev, (Undefined, _Collector, DynamicList)) or ev is None:
            continue
        if n != RETVAL and not st.runs_once and RAN not in st.extra_names:
            st.extra_names.append(RAN)      # reads after the loop check that it ran
            changed = True
        leaves = list(_leaves(ev))
        if not any(_tensorlike(x) for _, x in leaves):
            continue
        st.local_trees[n] = placeholder_like(ev)
        for path, x in leaves:
            if _tensorlike(x):
                info = _info(x)
                st.widened[(n, path)] = (info[0], info[1], info[2])
        changed = True
    return changed


def _structure_error(label, entry, ev, p, loc):
    name = label.split("[")[0]
    return TypeJoinError(
        f"'{label}' is {_fmt_side(entry, p.entry_locs.get(name))} before the loop and "
        f"{_fmt_side(ev, p.exit_locs.get(name))} after one iteration of a loop that depends "
        f"on a tensor value", loc=loc,
        names=(label,),
        hint=f"give '{label}' a tensor value before the loop (for example ops.zeros(...)) and "
             f"keep its kind in every iteration")


def _carry_type_error(label, s, ev, p, loc):
    eloc = p.exit_locs.get(s.key[0])
    return TypeJoinError(
        f"Cannot join the return values of different branches, perhaps you need to make them "
        f"equal.\nType Join Failed: dtype1 = {s.dtype}, dtype2 = "
        f"{ev.dtype if isinstance(ev, (GraphTensor, Tensor)) else type(ev).__name__}.",
        loc=loc, names=(label,),
        detail=f"'{label}' enters the loop as {_fmt_side(s.entry, p.entry_locs.get(s.key[0]))} "
               f"and is {_fmt_side(ev, eloc)} after one iteration",
        hint=_dtype_fix(label, s.dtype, ev))


def _dtype_fix(label, entry_dtype, ev) -> str:
    exit_dtype = ev.dtype if isinstance(ev, (GraphTensor, Tensor)) else None
    if exit_dtype is not None and exit_dtype.is_floating and not entry_dtype.is_floating:
        return (f"start '{label}' as {exit_dtype} before the loop (for example "
                f"ops.zeros(..., ms.{exit_dtype})), so every iteration keeps that dtype")
    return (f"keep '{label}' {entry_dtype} in every iteration, for example "
            f"ops.cast(..., ms.{entry_dtype}) where the body assigns it")


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
            ev = _exit_leaf(p, s.key)
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
        g.set_results([cond_v] + exits + scans)
    n_c = len(slots)
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
            e = False if s.kind == "flag" else np.zeros(
                tuple(0 if d is None else d for d in s.shape) if s.shape else (), s.dtype.np)
        entries.append(materialize(outer, e, s.dtype))
    sliced_vals = [outer.lift(x.value) for x in (spec.sliced if spec else [])]
    cap_vals = [outer.lift(v) for v in captured]
    inputs = [trip, c0] + entries + sliced_vals + cap_vals
    n_s = len(sliced_vals)
    input_map = tuple([(2 + j, 1 + j, None) for j in range(n_c)] +
                      [(2 + n_c + k, 1 + n_c + k, 0) for k in range(n_s)] +
                      [(2 + n_c + n_s + m, 1 + n_c + n_s + m, None)
                       for m in range(len(cap_vals))])
    output_map = tuple([(1 + j, None) for j in range(n_c)] +
                       [(1 + n_c + k, 0) for k in range(len(scans))])
    back_edges = tuple((1 + j, 1 + j) for j in range(n_c))
    names = [_ident(_label(s.key)) for s in slots] + scan_names
    loop = outer.graph.add_node(
        "Loop", inputs, {"body": g, "input_map": input_map, "output_map": output_map,
                         "back_edges": back_edges, "current_iteration": 0,
                         "condition_result": 0}, loc=loc, names=names)
    outs = loop.outputs
    env = dict(p.env0)
    env.update(p.trees)
    for s, o in zip(slots, outs[:n_c]):
        name, path = s.key
        out = GraphTensor(o, weak=s.weak)
        if s.kind == "flag":
            # a flag no path of the body sets stays what it was (a Python False folds)
            env[name] = s.entry if p.exit_env.get(name, False) is False else out
        else:
            env[name] = _set(env[name], path, out)
    ran = env.pop(RAN, None)
    if RAN in p.env0:                     # an enclosing loop's flag stays as it was
        env[RAN] = p.env0[RAN]
    for n, before in p.env0.items():      # maybe undefined before: still, unless this ran
        if isinstance(before, MaybeUndefined) and isinstance(ran, GraphTensor) and \
                not isinstance(env.get(n), MaybeUndefined) and n in p.names:
            from .. import ops
            env[n] = MaybeUndefined(n, env[n], ops.logical_or(before.ran, ran))
    for n, ev in p.exit_env.items():      # names first bound inside the body
        if n.startswith("<") or isinstance(ev, (_Collector, Undefined)):
            continue
        if isinstance(ev, MaybeUndefined):
            ev = ev.value
        if n in st.local_trees and n in env:
            ev = env[n]
        elif n in env and not isinstance(env[n], Undefined):
            continue
        if isinstance(ev, DynamicList) or any(isinstance(x, DynamicList)
                                              for _, x in _leaves(ev)):
            env[n] = Undefined(n, "it is a list of run-time length made inside a loop that "
                                  "depends on a tensor value; build it before the loop")
            continue
        if st.runs_once:
            env[n] = ev
        elif isinstance(ran, GraphTensor):
            env[n] = MaybeUndefined(n, ev, ran)   # UnboundLocalError if read after 0 runs
        else:
            env[n] = Undefined(n, "it is assigned only inside a loop that may run zero times")
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
            "carried": [_label(s.key) for s in slots if s.kind != "flag"],
            "sliced": [ast.unparse(node.iter)] if n_s else [],
            "concatenated": sorted(set(scan_names))})
    if node.orelse:
        _run_orelse(b, node)
