"""Joining what two paths give one name (If branches, loop entry and exit): tensors by
ShapeJoin and dtype rules (Python numbers as weak types), structures leaf by leaf,
names bound on one path only as Undefined or, where a loop may not have bound them, as
MaybeUndefined; and snapshots of the Python containers a path may change."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import ShapeJoinError, TypeJoinError, UnsupportedSyntaxError
from ..ir.join import join_shapes
from ..ir.types import format_shape_ms
from ..ops._dispatch import PY_SCALARS, weak_kind
from ..parameter import Parameter
from ..tensor import Tensor
from .values import Collector, DynamicList, GraphContext, GraphTensor, MaybeUndefined, Undefined

__all__ = ["join_leaf", "join_trees", "fill_holes", "placeholder_like", "materialize",
           "snapshot", "restore"]

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


def _fmt_side(x, loc) -> str:
    if isinstance(x, (GraphTensor, Tensor)):
        article = "an" if x.dtype.name[0] in "aeiou" else "a"
        desc = f"{article} {x.dtype} tensor of shape {format_shape_ms(_info(x)[1])}"
    elif isinstance(x, Undefined):
        desc = "not defined"
    else:
        desc = f"the Python {type(x).__name__} {x!r}"
    return desc + (f" (assigned at line {loc.line}: `{loc.text.strip()}`)" if loc is not None
                   and loc.text else "")


def join_leaf(name, a, b, side_names, locs, where_loc) -> _Pair:
    """How two values of one variable become one tensor type, or an error."""
    ia, ib = _info(a), _info(b)
    if ia is None or ib is None:
        raise TypeJoinError(
            f"Cannot join the values of '{name}' from the {side_names[0]} and the "
            f"{side_names[1]}: it is {_fmt_side(a, locs[0])} in the {side_names[0]} and "
            f"{_fmt_side(b, locs[1])} in the {side_names[1]}", loc=where_loc, names=(name,),
            hint=f"give '{name}' a tensor (or a number) on every path")
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
    if isinstance(a, (DynamicList,)) or isinstance(b, DynamicList):
        raise UnsupportedSyntaxError(
            f"'{name}' is a list built in a loop on one path and something else on the other",
            loc=where_loc, names=(name,))
    pairs.append(join_leaf(name, a, b, side_names, locs, where_loc))
    return _Hole(len(pairs) - 1)


def placeholder_like(v):
    """A value of v's structure whose tensors are zeros (for paths where v is unused)."""
    if type(v) is tuple:
        return tuple(placeholder_like(x) for x in v)
    if type(v) is list:
        return [placeholder_like(x) for x in v]
    if type(v) is dict:
        return {k: placeholder_like(x) for k, x in v.items()}
    info = _info(v)
    if info is None or info[0] is None:
        return v
    d, shape, weak, _ = info
    if weak and shape == ():
        return d.np.type(0).item()   # a Python number: stays weak in joins
    if shape is None:
        return Tensor._wrap(np.zeros((), d.np))
    return Tensor._wrap(np.zeros(tuple(0 if s is None else s for s in shape), d.np))


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


def fill_holes(template, outs):
    if isinstance(template, _Hole):
        return outs[template.i]
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
