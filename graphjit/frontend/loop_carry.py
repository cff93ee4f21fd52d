"""What a Loop carries and how its types settle: the carried slots of a pass over the
body, what the passes have learned, and the comparison of a pass's exit values with
its entry values (widen the shape, promote Python numbers, or refuse the name)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

from ..ir import dtypes as dt
from ..ir.errors import ShapeJoinError, TypeJoinError, UnsupportedSyntaxError
from ..ir.join import join_shapes
from ..common.tensor import Tensor
from .joins import (_KORDER, _MISSING, _WEAK_DEFAULT, _fits, _fmt_side, _info, _kind,
                    _same_static, placeholder_like)
from .state import BRK, RET, RETVAL, bound_name
from .values import (Collector as _Collector, DynamicList, GraphContext, GraphTensor,
                     MaybeUndefined, Undefined, Unjoinable)

__all__ = ["Key"]

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
    kind: str = "var"    # var, flag (RET, BRK) or bound (whether key[1]'s name is bound)


@dataclass
class _State:
    """What the passes over a loop body have learned."""

    widened: Dict[Key, tuple] = field(default_factory=dict)   # key -> (dtype, shape, weak)
    unjoinable: Dict[str, Any] = field(default_factory=dict)  # name -> why it cannot be carried
    extra_names: List[str] = field(default_factory=list)      # carried, found by a pass
    runs_once: bool = False      # the body certainly runs at least once
    promote: Dict[Key, tuple] = field(default_factory=dict)   # key -> (dtype, weak)
    local_trees: Dict[str, Any] = field(default_factory=dict)  # name -> placeholder tree
    # names that may be unbound when an iteration starts (first bound inside the body, or
    # maybe unbound before the loop): each carries a bound flag, and reading one before
    # the iteration binds it checks the flag when the graph runs (UnboundLocalError)
    maybe: Dict[str, None] = field(default_factory=dict)
    carries_state: bool = False  # the body updates Parameters: it carries the state token


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
        if n in (RET, BRK):
            v = env0.get(n, False)
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
    for n in st.maybe:
        if n in trees:
            before = env0.get(n)
            entry = before.ran if isinstance(before, MaybeUndefined) else False
            slots.append(_Slot((n, ()), entry, dt.bool_, (), False, "bound"))
    return slots, trees


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


def _exit_leaf(p: _Pass, key: Key, kind: str = "var"):
    name, path = key
    if kind == "bound":      # whether the name is bound when the iteration ends
        v = p.exit_env.get(name, _MISSING)
        if isinstance(v, MaybeUndefined):
            return v.ran
        return not isinstance(v, Undefined)
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
    ev = _exit_leaf(p, s.key, s.kind)
    label = _label(s.key) if s.kind != "bound" else _label((bound_name(s.key[0]), ()))
    if ev is None and s.key[0] == RETVAL:
        return False
    if isinstance(ev, Unjoinable):      # the body's paths give it values that do not join
        raise ev.exc
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
        if isinstance(ev, (Undefined, _Collector, DynamicList)) or (
                ev is None and n == RETVAL):
            continue
        leaves = list(_leaves(ev))
        if any(isinstance(x, (DynamicList, _Collector)) for _, x in leaves):
            continue
        if n != RETVAL:
            st.maybe[n] = None        # bound only once an iteration has bound it
        elif not any(_tensorlike(x) for _, x in leaves):
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
