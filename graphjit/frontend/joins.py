"""Joining what two paths give one name (If branches, loop entry and exit): tensors by
ShapeJoin and dtype rules (Python numbers as weak types), structures leaf by leaf,
names bound on one path only as Undefined or, where a loop may not have bound them, as
MaybeUndefined; and snapshots of the Python containers a path may change."""
from __future__ import annotations

import functools
import types
from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..ir.errors import ShapeJoinError, TypeJoinError, UnsupportedSyntaxError
from ..ir.join import join_shapes
from ..ir.types import format_shape_ms
from ..ops._dispatch import PY_SCALARS, weak_kind
from ..common.parameter import Parameter
from ..common.tensor import Tensor, TensorLike
from .strings import RuntimeString, encode
from .values import (Collector, DynamicList, GraphContext, GraphTensor, LocalFunction,
                     MaybeUndefined, Switch, Undefined, active)

__all__ = ["join_leaf", "join_trees", "fill_holes", "placeholder_like", "materialize",
           "snapshot", "restore", "describe_value"]

_MISSING = Undefined("<missing>")


class _Hole:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


@dataclass
class _Pair:
    name: str
    a: Any
    b: Any
    dtype: Any
    shape: Any
    weak: bool


def _kind(x) -> Optional[str]:
    """'b', 'i' or 'f' for a Python (or numpy) number, else None."""
    return weak_kind(x) if isinstance(x, PY_SCALARS) else None


_KORDER = {"b": 0, "i": 1, "u": 1, "f": 2}
_WEAK_DEFAULT = {"b": dt.bool_, "i": dt.int64, "u": dt.int64, "f": dt.float64}


def _info(x):
    """(dtype or None, shape, weak, kind) of a leaf that can become a tensor, or None."""
    if isinstance(x, GraphTensor):
        return x.dtype, x.type.shape, x.weak, x.dtype.kind
    if isinstance(x, Tensor) and x.has_data:
        return x.dtype, tuple(x.shape), False, x.dtype.kind
    k = _kind(x)
    if k is not None:
        return None, (), True, k
    return None


def _fits(value, dtype) -> bool:
    """Whether a weak value keeps its meaning in dtype (eager would keep it as is)."""
    k = value.dtype.kind if isinstance(value, GraphTensor) else _kind(value)
    if dtype.is_bool:
        return k == "b"
    if dtype.is_integer:
        if k == "f":
            return False
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            info = np.iinfo(dtype.np)
            return info.min <= int(value) <= info.max
        return True
    return True


_PLAIN = (bool, int, float, complex, str, bytes, type(None), np.bool_, np.number)


def describe_value(x) -> str:
    """How a message names a value: what the user wrote, never an internal repr."""
    if isinstance(x, (GraphTensor, Tensor)) and _info(x) is not None:
        article = "an" if x.dtype.name[0] in "aeiou" else "a"
        return f"{article} {x.dtype} tensor of shape {format_shape_ms(_info(x)[1])}"
    if isinstance(x, Undefined):
        return "not defined"
    if isinstance(x, RuntimeString):
        return "a string made from tensor values (its text exists only when the graph runs)"
    if x is None:
        return "None"
    if isinstance(x, _PLAIN):
        text = repr(x.item() if isinstance(x, (np.bool_, np.number)) else x)
        return f"the Python {type(x).__name__} " + (text if len(text) <= 40 else
                                                     text[:37] + "...")
    if isinstance(x, LocalFunction):
        return f"the function '{x.__name__}' (defined inside the compiled function)"
    if isinstance(x, Switch):
        return f"one of {len(x.items)} functions chosen by a tensor value"
    if isinstance(x, types.MethodType):
        return f"the method '{type(x.__self__).__name__}.{x.__func__.__name__}'"
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType)):
        return f"the function '{getattr(x, '__qualname__', x.__name__)}'"
    if isinstance(x, type):
        return f"the class '{x.__name__}'"
    if isinstance(x, types.ModuleType):
        return f"the module '{x.__name__}'"
    if isinstance(x, DynamicList):
        return "a list whose length is known only at run time"
    if type(x) in (tuple, list, dict, set):
        n = len(x)
        return f"a {type(x).__name__} of {n} item{'s' if n != 1 else ''}"
    target = getattr(type(x), "_graphjit_target", None)
    if target is not None:
        fn = getattr(x, "fn", None)
        return f"the @jit function '{getattr(fn, '__name__', '?')}'"
    return f"a {type(x).__name__} object"


def _is_function_value(x) -> bool:
    """Something the program calls: functions, methods, Cells, operator objects."""
    return callable(x) and not isinstance(x, (type, TensorLike, GraphTensor, Tensor, Undefined,
                                              DynamicList)) or isinstance(x, (Switch,
                                                                             functools.partial))


def _fmt_side(x, loc) -> str:
    desc = describe_value(x)
    return desc + (f" (assigned at line {loc.line}: `{loc.text.strip()}`)" if loc is not None
                   and loc.text else "")


def _join_hint(name, a, b) -> str:
    if _is_function_value(a) or _is_function_value(b):
        return (f"give '{name}' a function on every path (calling it then calls the one the "
                f"condition chose)")
    if type(a) is tuple and type(b) is tuple:
        return (f"give '{name}' tuples of one length on every path, or make it a list (lists "
                f"of other lengths join into a list whose length is known at run time)")
    return f"give '{name}' a tensor (or a number) on every path"


def join_leaf(name, a, b, side_names, locs, where_loc) -> _Pair:
    """How two values of one variable become one tensor type, or an error."""
    ia, ib = _info(a), _info(b)
    if ia is None or ib is None:
        raise TypeJoinError(
            f"Cannot join the values of '{name}' from the {side_names[0]} and the "
            f"{side_names[1]}: it is {_fmt_side(a, locs[0])} in the {side_names[0]} and "
            f"{_fmt_side(b, locs[1])} in the {side_names[1]}", loc=where_loc, names=(name,),
            hint=_join_hint(name, a, b))
    (da, sa, wa, ka), (db, sb, wb, kb) = ia, ib
    if not wa and not wb:
        if da is not db:
            raise TypeJoinError(
                f"Cannot join the return values of different branches, perhaps you need to "
                f"make them equal.\nType Join Failed: dtype1 = {da}, dtype2 = {db}.",
                loc=where_loc, names=(name,),
                detail=f"'{name}' is {_fmt_side(a, locs[0])} in the {side_names[0]} and "
                       f"{_fmt_side(b, locs[1])} in the {side_names[1]}",
                hint=f"cast one side so '{name}' has one dtype, e.g. ops.cast(x, ms.{da})")
        dtype, weak = da, False
    elif not wa or not wb:
        strong, wval = (da, b) if not wa else (db, a)
        if not _fits(wval, strong):
            raise TypeJoinError(
                f"Cannot join the values of '{name}': it is {_fmt_side(a, locs[0])} in the "
                f"{side_names[0]} and {_fmt_side(b, locs[1])} in the {side_names[1]}; a "
                f"{strong} tensor cannot hold the other value exactly", loc=where_loc,
                names=(name,), hint=f"make both sides of '{name}' tensors of one dtype")
        dtype, weak = strong, False
    else:
        if ka != kb:
            # eager Python keeps, say, an int on one path and a float (or a bool) on the
            # other: the result's type, and later arithmetic, would depend on the path
            kinds = {"b": "bool", "i": "int", "u": "int", "f": "float"}
            raise TypeJoinError(
                f"Cannot join the values of '{name}': it is {_fmt_side(a, locs[0])} in the "
                f"{side_names[0]} and {_fmt_side(b, locs[1])} in the {side_names[1]}; a Python "
                f"{kinds[ka]} and a Python {kinds[kb]} do not join", loc=where_loc,
                names=(name,),
                hint=f"give '{name}' numbers of one kind on both paths (for example 1.0 "
                     f"instead of 1, or 1 instead of True)")
        k = max(ka, kb, key=_KORDER.__getitem__)
        if da is not None and da.kind == k:
            dtype = da
        elif db is not None and db.kind == k:
            dtype = db
        else:
            dtype = _WEAK_DEFAULT[k]
        weak = True
    try:
        shape = sa if sa == sb else join_shapes(sa, sb)
    except ShapeJoinError as e:
        e.with_context(loc=where_loc, names=(name,),
                       detail=f"'{name}' is {_fmt_side(a, locs[0])} in the {side_names[0]} and "
                              f"{_fmt_side(b, locs[1])} in the {side_names[1]}",
                       hint=f"make '{name}' the same shape on both paths, or declare the "
                            f"differing dim unknown with ms.TensorSpec/Tensor(shape=[None, "
                            f"...]) in set_inputs")
        if locs[0] is not None:
            e.extra_locs += ((f"'{name}' in the {side_names[0]}", locs[0]),)
        if locs[1] is not None:
            e.extra_locs += ((f"'{name}' in the {side_names[1]}", locs[1]),)
        raise
    return _Pair(name, a, b, dtype, shape, weak)


def _same_static(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, types.MethodType):     # self.f read twice: two equal method objects
        return a == b
    if isinstance(a, (str, bytes, type(None), bool, int, float, np.bool_, np.integer,
                      np.floating)):
        return a == b
    return False


def join_trees(name, a, b, pairs: List[_Pair], side_names, locs, where_loc):
    """A template of the joined value: static parts kept, differing tensor-like leaves
    replaced by _Hole(i) with pairs[i] saying how to join them."""
    if _same_static(a, b):
        return a
    if isinstance(a, MaybeUndefined) or isinstance(b, MaybeUndefined):
        (va, fa), (vb, fb) = _maybe_parts(a, b), _maybe_parts(b, a)
        return _MaybeTemplate(
            name, join_trees(name, va, vb, pairs, side_names, locs, where_loc),
            join_trees(f"{name} (defined)", fa, fb, pairs, side_names, locs, where_loc))
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        defined = side_names[1] if isinstance(a, Undefined) else side_names[0]
        if isinstance(a, Undefined) and isinstance(b, Undefined):
            return a
        return Undefined(name, f"it is assigned only in the {defined}")
    if type(a) is tuple and type(b) is tuple and len(a) == len(b):
        return tuple(join_trees(f"{name}[{i}]", x, y, pairs, side_names, locs, where_loc)
                     for i, (x, y) in enumerate(zip(a, b)))
    if type(a) is dict and type(b) is dict and a is not b and list(a) == list(b):
        return _DictTemplate((k, join_trees(f"{name}[{k!r}]", a[k], b[k], pairs, side_names,
                                            locs, where_loc)) for k in a)
    if type(a) is list and type(b) is list and len(a) == len(b) and a is not b:
        return _ListTemplate(join_trees(f"{name}[{i}]", x, y, pairs, side_names, locs,
                                        where_loc) for i, (x, y) in enumerate(zip(a, b)))
    if _list_like(a) and _list_like(b):
        return _join_lists(name, a, b, pairs, side_names, locs, where_loc)
    if isinstance(a, (DynamicList,)) or isinstance(b, DynamicList):
        raise UnsupportedSyntaxError(
            f"'{name}' is a list of run-time length on one path and "
            f"{describe_value(b if isinstance(a, DynamicList) else a)} on the other",
            loc=where_loc, names=(name,), hint=f"make '{name}' a list on both paths")
    if _is_text(a) and _is_text(b):
        # other strings on the two paths: the If gives which one (0 or 1); the string is
        # made from it when the graph runs (where it is printed, raised or returned)
        pairs.append(join_leaf(f"{name} (which string)", 0, 1, side_names, locs, where_loc))
        return _TextChoice(a, b, _Hole(len(pairs) - 1))
    if _is_function_value(a) and _is_function_value(b):
        # other functions on the two paths: the If gives which one (0 or 1), and calling
        # the name builds each call in a branch
        pairs.append(join_leaf(f"{name} (which function)", 0, 1, side_names, locs,
                               where_loc))
        which = _Hole(len(pairs) - 1)
        a, b = (_lift_switch(name, f, side, pairs, side_names, locs, where_loc)
                for side, f in ((0, a), (1, b)))
        return _Choice(a, b, which)
    pairs.append(join_leaf(name, a, b, side_names, locs, where_loc))
    return _Hole(len(pairs) - 1)


def _list_like(x) -> bool:
    return type(x) is list or isinstance(x, DynamicList)


def _rows(x):
    """(head, [(item, appended flag)]) of a list: head is what a list of run-time
    length has before its items of known position (prefix, stacks, masks)."""
    if isinstance(x, DynamicList):
        return (x.prefix, x.stacks, x.masks), list(zip(x.suffix, x.suffix_flags))
    return ([], [], []), [(v, True) for v in x]


def _join_lists(name, a, b, pairs, side_names, locs, where_loc):
    """Lists of other lengths on the two paths become one list of run-time length: the
    items of the longer list, each with a flag saying whether this path has it."""
    (head_a, rows_a), (head_b, rows_b) = _rows(a), _rows(b)
    # a plain list against a list of run-time length that has only a prefix of known
    # items (the path that skipped an append after a break, say): the plain list's first
    # items are its prefix, the rest its rows
    for (head_x, rows_x), (head_y, rows_y), y in (((head_a, rows_a), (head_b, rows_b), b),
                                                  ((head_b, rows_b), (head_a, rows_a), a)):
        k = len(head_x[0])
        if isinstance(y, DynamicList) or head_x[1] or head_x[2] or not k or len(y) < k:
            continue
        head_y[0].extend(v for v, _ in rows_y[:k])
        del rows_y[:k]
    same_head = all(len(x) == len(y) for x, y in zip(head_a, head_b)) and all(
        (p is None) == (q is None) for p, q in zip(head_a[2], head_b[2]))
    items = [v for v, _ in rows_a + rows_b]
    if not same_head:
        raise TypeJoinError(
            f"Cannot join the values of '{name}': it is a list of run-time length built by "
            f"other loops in the {side_names[0]} and the {side_names[1]}", loc=where_loc,
            names=(name,), hint=f"build '{name}' before the condition and only append to it "
                                f"in the branches")
    if not all(_info(v) is not None for v in items):
        raise TypeJoinError(
            f"Cannot join the values of '{name}': it is {_fmt_side(a, locs[0])} in the "
            f"{side_names[0]} and {_fmt_side(b, locs[1])} in the {side_names[1]}; lists of "
            f"different lengths join only when all their items are tensors (or numbers)",
            loc=where_loc, names=(name,),
            hint=f"put tensors of one dtype and shape in '{name}' on both paths")
    n = max(len(rows_a), len(rows_b))
    rows_a = rows_a + [(placeholder_like(rows_b[i][0]), False) for i in range(len(rows_a), n)]
    rows_b = rows_b + [(placeholder_like(rows_a[i][0]), False) for i in range(len(rows_b), n)]
    head = tuple([join_trees(f"{name} ({what} {i})", x, y, pairs, side_names, locs, where_loc)
                  for i, (x, y) in enumerate(zip(xs, ys))]
                 for what, xs, ys in zip(("item", "rows of loop", "appended in loop"), head_a,
                                         head_b))
    return _RowsTemplate(head, [
        (join_trees(f"{name}[{i}]", va, vb, pairs, side_names, locs, where_loc),
         join_trees(f"{name}[{i}] (present)", fa, fb, pairs, side_names, locs, where_loc))
        for i, ((va, fa), (vb, fb)) in enumerate(zip(rows_a, rows_b))])


@dataclass
class _RowsTemplate:
    """A list of run-time length made by a join: its head and (item, flag) templates."""

    head: tuple
    rows: list


def placeholder_like(v):
    """A value of v's structure whose tensors are zeros (for paths where v is unused)."""
    if type(v) is tuple:
        return tuple(placeholder_like(x) for x in v)
    if type(v) is list:
        return [placeholder_like(x) for x in v]
    if type(v) is dict:
        return {k: placeholder_like(x) for k, x in v.items()}
    if isinstance(v, DynamicList):       # the same layout, every row absent
        return DynamicList([placeholder_like(x) for x in v.prefix],
                           [placeholder_like(x) for x in v.stacks],
                           [placeholder_like(x) for x in v.suffix],
                           [None if m is None else placeholder_like(m) for m in v.masks],
                           [False] * len(v.suffix))
    if isinstance(v, Switch):            # (its choice is a value of another graph)
        return placeholder_like(v.items[0])
    info = _info(v)
    if info is None or info[0] is None:
        return v
    d, shape, weak, _ = info
    if weak and shape == ():
        return d.np.type(0).item()   # a Python number: stays weak in joins
    if shape is None:
        return Tensor._wrap(np.zeros((), d.np))
    return Tensor._wrap(np.zeros(tuple(0 if s is None else s for s in shape), d.np))


def _lift_switch(name, f, side, pairs, side_names, locs, where_loc):
    """A function chosen on one side by an earlier condition: its choice (a value of
    that side's graph) becomes an output of the If too."""
    if not isinstance(f, Switch):
        return f
    index = (f.index, 0) if side == 0 else (0, f.index)
    return _SwitchTemplate(     # (its items are functions: switches are kept flat)
        list(f.items),
        join_trees(f"{name} (which function)", *index, pairs, side_names, locs, where_loc),
        f.labels)


@dataclass
class _SwitchTemplate:
    items: list
    index: Any
    labels: Any


def _is_text(x) -> bool:
    """A str, or a string made from values of the graphs outside the If (a string made
    from a branch's own values would need them as outputs too: not joined)."""
    if isinstance(x, str):
        return True
    if not isinstance(x, RuntimeString):
        return False
    inputs: list = []
    encode(x, inputs)
    ctx = active()
    return all(not isinstance(v, GraphTensor) or ctx.owns(v.value) for v in inputs)


@dataclass
class _TextChoice:
    """A name given string a on one path and string b on the other."""

    a: Any
    b: Any
    which: Any


@dataclass
class _Choice:
    """A name given function a on one path and function b on the other."""

    a: Any
    b: Any
    which: _Hole


class _MaybeTemplate:
    """A joined name that may be unbound: its value and whether it is bound."""

    def __init__(self, name, value, bound):
        self.name, self.value, self.bound = name, value, bound


def _maybe_parts(x, other):
    """(value, bound) of one side of a join where some side may be unbound."""
    if isinstance(x, MaybeUndefined):
        return x.value, x.ran
    if isinstance(x, Undefined):
        o = other.value if isinstance(other, MaybeUndefined) else other
        return placeholder_like(o), False
    return x, True


class _DictTemplate(dict):
    """A new dict made by a join."""


class _ListTemplate(list):
    """A new list made by a join (an ordinary list in a template is the user's object,
    kept as it is)."""


def _merge_choice(a, b, which):
    """One flat Switch over the functions of both sides (a nested one would double at
    every join): which side (0 or 1) and that side's choice pick the item."""
    sides = [(f.items, f.index) if isinstance(f, Switch) else ([f], 0) for f in (a, b)]
    items = []
    for f in sides[0][0] + sides[1][0]:
        if not any(_same_static(f, g) for g in items):
            items.append(f)
    if len(items) == 1:
        return items[0]
    picks = []
    for fs, index in sides:
        table = [next(i for i, g in enumerate(items) if _same_static(f, g)) for f in fs]
        if isinstance(index, GraphTensor):
            pick = ops.gather(Tensor._wrap(np.asarray(table, np.int64)), index, 0)
        else:
            pick = table[index]
        picks.append(pick)
    index = ops.where(ops.equal(which, 0), picks[0], picks[1])
    labels = [f"call of {describe_value(f)}" for f in items] if len(items) == 2 else None
    return Switch(items, index, labels)


def fill_holes(template, outs):
    if isinstance(template, _Hole):
        return outs[template.i]
    if isinstance(template, _RowsTemplate):
        rows = [(fill_holes(v, outs), fill_holes(f, outs)) for v, f in template.rows]
        prefix, stacks, masks = ([fill_holes(x, outs) for x in part] for part in template.head)
        return DynamicList(prefix, stacks, [v for v, _ in rows], masks, [f for _, f in rows])
    if isinstance(template, _TextChoice):
        return RuntimeString([("pick", fill_holes(template.which, outs),
                               (template.a, template.b))])
    if isinstance(template, _Choice):
        return _merge_choice(fill_holes(template.a, outs), fill_holes(template.b, outs),
                             fill_holes(template.which, outs))
    if isinstance(template, _SwitchTemplate):
        return Switch([fill_holes(f, outs) for f in template.items],
                      fill_holes(template.index, outs), template.labels)
    if isinstance(template, _MaybeTemplate):
        value, bound = fill_holes(template.value, outs), fill_holes(template.bound, outs)
        return value if bound is True else MaybeUndefined(template.name, value, bound)
    if type(template) is tuple:
        return tuple(fill_holes(x, outs) for x in template)
    if type(template) is _DictTemplate:
        return {k: fill_holes(v, outs) for k, v in template.items()}
    if type(template) is _ListTemplate:
        return [fill_holes(x, outs) for x in template]
    return template


def materialize(ctx: GraphContext, x, dtype, shape=None):
    """x (graph value, eager Tensor or Python number) as a Value of ctx's graph with
    this dtype."""
    if isinstance(x, (GraphTensor, Parameter)):
        v = ctx.value_of(x)      # a Parameter: its value here (state, read when it runs)
        if v.type.dtype is not dtype:
            v = ctx.graph.add_node("Cast", (v,), {"dtype": dtype}).outputs[0]
        return v
    if isinstance(x, Tensor):
        v = ctx.value_of(x)
        if v.type.dtype is not dtype:
            v = ctx.graph.add_node("Cast", (v,), {"dtype": dtype}).outputs[0]
        return v
    return ctx.const(np.asarray(x, dtype=dtype.np))


def _lists_in(env) -> List[list]:
    """The lists and dicts the environment names (the Python containers a branch or a
    loop body may change in place)."""
    out, seen = [], set()
    for v in env.values():
        if isinstance(v, (list, dict, DynamicList)) and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def snapshot(c):
    if isinstance(c, Collector):     # its values and their flags (it refuses reads)
        return list(zip(list.__iter__(c), c.flags))
    if isinstance(c, DynamicList):
        return c.contents()
    return list(c) if isinstance(c, list) else dict(c)


def restore(c, contents):
    if isinstance(c, DynamicList):
        c.set_contents(contents)
    elif isinstance(c, Collector):
        list.__setitem__(c, slice(None), [v for v, _ in contents])
        c.flags[:] = [f for _, f in contents]
    elif isinstance(c, list):
        list.__setitem__(c, slice(None), contents)
    else:
        c.clear()
        c.update(contents)


def _container_name(env, c) -> str:
    return next((k for k, v in env.items() if v is c), f"a {type(c).__name__}")
