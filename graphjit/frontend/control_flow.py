"""The one decision point: a Python condition folds, a graph condition builds If/Loop.

    if x < y:          # x, y tensors: both branches are built in child graphs and
        out = x        # every variable they assign is joined (ShapeJoin) into the
    else:              # outputs of one If node
        out = z

    while i < 3:       # a tensor condition: the body becomes a Loop whose carried
        i = i + 1      # variables are joined between entry and exit until stable

Constant `for` loops unroll (up to set_context(max_unroll=...)); `for` over a tensor,
or over range() with a tensor bound, becomes a Loop slicing the tensor or counting
trips. break, continue and return under graph conditions are flags in the
environment (builder.RET/BRK/CONT) that guard the statements after them.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import ShapeJoinError, TypeJoinError, UnsupportedSyntaxError
from ..ir.graph import Graph
from ..ir.join import join_shapes
from ..ir.types import format_shape_ms, num_elements
from ..ops._dispatch import PY_SCALARS, weak_kind
from ..tensor import Tensor
from . import analysis
from .builder import BRK, CONT, RET, RETVAL, FunctionBuilder
from .values import (DynamicList, GraphContext, GraphTensor, MaybeUndefined, Undefined,
                     Unjoinable, active)

__all__ = ["Record", "condition_value", "build_if_stmt", "build_guarded", "build_ifexp",
           "build_boolop", "build_compare", "index_sequence", "finish_return", "branch",
           "join_leaf", "placeholder_like", "materialize", "describe"]

_MISSING = Undefined("<missing>")


@dataclass
class Record:
    """One control-flow decision, for the explain report."""

    kind: str                 # if, while, for, ifexp, and/or
    loc: Any
    condition: str            # constant or variable
    decision: str             # what it became
    reason: str = ""          # which values made it variable
    details: Dict[str, Any] = field(default_factory=dict)


# -- conditions ---------------------------------------------------------------------------------
def condition_value(b: FunctionBuilder, v, node=None):
    """A Python bool for a value known at build time, else a bool graph value with
    one element (non-bool tensors are compared with 0, as Python's truth)."""
    from .. import ops
    if isinstance(v, GraphTensor):
        n = num_elements(v.type.shape)
        if n is not None and n != 1:
            from ..ir.errors import ShapeInferenceError
            raise ShapeInferenceError(
                f"The truth value of a tensor with {n} elements ({v.type}) is ambiguous",
                loc=b.loc(node) if node is not None else None,
                hint="reduce it first: use (x > 0).all() or .any()")
        if v.type.shape is not None and len(v.type.shape) > 1:
            v = ops.reshape(v, ())
        return v if v.dtype.is_bool else ops.not_equal(v, 0)
    if isinstance(v, DynamicList):
        raise UnsupportedSyntaxError("the truth of a list whose length is known only at run "
                                     "time", loc=b.loc(node) if node is not None else None)
    return bool(v)


def describe(v, sources: Dict[int, Any]) -> str:
    """Which inputs a graph value depends on (for the explain report); `sources` maps
    the id of a subgraph parameter to the outer value it stands for."""
    if not isinstance(v, GraphTensor):
        return ""
    names, seen, stack = [], set(), [v.value]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x.producer is None:
            src = sources.get(id(x))
            if src is not None:
                stack.append(src)
            elif x.name and x.name not in names and x.graph is not None:
                names.append(x.name)
            continue
        stack.extend(x.producer.inputs)
    return "depends on " + ", ".join(sorted(names)) if names else "depends on tensor values"


# -- joining what two paths produce ---------------------------------------------------------------
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
        if (ka == "f") != (kb == "f"):
            # eager Python keeps an int on one path and a float on the other; later
            # arithmetic with integer tensors would give other dtypes on each path
            raise TypeJoinError(
                f"Cannot join the values of '{name}': it is {_fmt_side(a, locs[0])} in the "
                f"{side_names[0]} and {_fmt_side(b, locs[1])} in the {side_names[1]}; a Python "
                f"int and a Python float do not join", loc=where_loc, names=(name,),
                hint=f"give '{name}' numbers of one kind on both paths (for example 1.0 "
                     f"instead of 1)")
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
                              f"{_fmt_side(b, locs[1])} in the {side_names[1]}; ShapeJoin "
                              f"{e.rule}",
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
    if type(template) is _ListTemplate:
        return [fill_holes(x, outs) for x in template]
    return template


def materialize(ctx: GraphContext, x, dtype, shape=None):
    """x (graph value, eager Tensor or Python number) as a Value of ctx's graph with
    this dtype."""
    if isinstance(x, GraphTensor):
        v = ctx.lift(x.value)
        if v.type.dtype is not dtype:
            v = ctx.graph.add_node("Cast", (v,), {"dtype": dtype}).outputs[0]
        return v
    if isinstance(x, Tensor):
        return ctx.const(x._need_data().astype(dtype.np))
    return ctx.const(np.asarray(x, dtype=dtype.np))


def _lists_in(env) -> List[list]:
    """The lists and dicts the environment names (the Python containers a branch or a
    loop body may change in place)."""
    out, seen = [], set()
    for v in env.values():
        if type(v) in (list, dict) and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def snapshot(c):
    return list(c) if type(c) is list else dict(c)


def restore(c, contents):
    if type(c) is list:
        c[:] = contents
    else:
        c.clear()
        c.update(contents)


def _container_name(env, c) -> str:
    return next((k for k, v in env.items() if v is c), f"a {type(c).__name__}")


# -- if -----------------------------------------------------------------------------------------
def branch(b: FunctionBuilder, cond: GraphTensor, then_fn: Callable, else_fn: Callable,
           loc, side_names=("if-branch", "else-branch")):
    """Build both branches in child graphs, join what they assign (and what they
    return, for expressions) into one If node; returns the joined expression value."""
    outer = active()
    env0, locs0 = b.env, b.locs
    lists = _lists_in(env0)
    saved_lists = [snapshot(l) for l in lists]
    objs = [o for o in b.c.created.values() if hasattr(o, "__dict__")]
    saved_attrs = [dict(vars(o)) for o in objs]
    results = []
    for i, fn in enumerate((then_fn, else_fn)):
        ctx = GraphContext(Graph(("then" if i == 0 else "else")), parent=outer)
        b.env, b.locs = dict(env0), dict(locs0)
        try:
            with ctx:
                value = fn()
        finally:
            after = [snapshot(l) for l in lists]
            for l, old in zip(lists, saved_lists):
                restore(l, old)
            attrs = [dict(vars(o)) for o in objs]
            for o, old in zip(objs, saved_attrs):
                vars(o).clear()
                vars(o).update(old)
            env_i, locs_i = b.env, b.locs
            b.env, b.locs = env0, locs0
        results.append((ctx, env_i, locs_i, value, after, attrs))
    (ctx_t, env_t, locs_t, val_t, lists_t, attrs_t), \
        (ctx_e, env_e, locs_e, val_e, lists_e, attrs_e) = results

    pairs: List[_Pair] = []
    merged, merged_locs = {}, {}
    names = list(env_t) + [n for n in env_e if n not in env_t]
    ret_t, ret_e = env_t.get(RET, False), env_e.get(RET, False)
    for n in names:
        a, c = env_t.get(n, _MISSING), env_e.get(n, _MISSING)
        if a is c:
            merged[n] = a
            continue
        if n == RETVAL:
            if ret_t is False and ret_e is not False:
                a = placeholder_like(c)
            elif ret_e is False and ret_t is not False:
                c = placeholder_like(a)
        if isinstance(a, Undefined) and a is _MISSING:
            a = Undefined(n)
        if isinstance(c, Undefined) and c is _MISSING:
            c = Undefined(n)
        label = n if not n.startswith("<") else n.strip("<>")
        n_pairs = len(pairs)
        try:
            merged[n] = join_trees(label, a, c, pairs, side_names,
                                   (locs_t.get(n), locs_e.get(n)), loc)
        except (ShapeJoinError, TypeJoinError, UnsupportedSyntaxError) as e:
            if n in (RET, BRK, CONT):
                raise
            del pairs[n_pairs:]
            merged[n] = Unjoinable(label, e)   # an error only if it is read again
        merged_locs[n] = locs_t.get(n) or locs_e.get(n)
    list_templates = []
    for l, ta, tb in zip(lists, lists_t, lists_e):
        name = _container_name(env0, l)
        if type(l) is dict:
            if ta.keys() != tb.keys():
                raise UnsupportedSyntaxError(
                    f"the dict '{name}' gets other keys in the {side_names[0]} "
                    f"({sorted(map(str, ta))}) than in the {side_names[1]} "
                    f"({sorted(map(str, tb))}) of a condition that depends on a tensor value",
                    loc=loc, names=(name,), hint="set the same keys on both paths")
            list_templates.append((l, {k: join_trees(f"{name}[{k!r}]", ta[k], tb[k], pairs,
                                                     side_names, (None, None), loc)
                                       for k in ta}))
            continue
        if len(ta) == len(tb) and all(x is y for x, y in zip(ta, tb)):
            l[:] = ta
            continue
        if len(ta) != len(tb):
            raise UnsupportedSyntaxError(
                f"the list '{name}' gets {len(ta)} items in the {side_names[0]} and {len(tb)} "
                f"in the {side_names[1]} of a condition that depends on a tensor value",
                loc=loc, names=(name,),
                hint="append on both paths (the same number of times), or build a tensor "
                     "with ops.where")
        list_templates.append((l, _ListTemplate(
            join_trees(f"{name}[{i}]", x, y, pairs, side_names, (None, None), loc)
            for i, (x, y) in enumerate(zip(ta, tb)))))
    attr_templates = []
    for o, ta, tb in zip(objs, attrs_t, attrs_e):
        for attr in list(ta) + [a for a in tb if a not in ta]:
            x, y = ta.get(attr, _MISSING), tb.get(attr, _MISSING)
            if x is y:
                continue
            label = f"{type(o).__name__}.{attr}"
            attr_templates.append((o, attr, join_trees(
                label, Undefined(label) if x is _MISSING else x,
                Undefined(label) if y is _MISSING else y, pairs, side_names, (None, None),
                loc)))
    expr_template = None
    if val_t is not None or val_e is not None:
        expr_template = join_trees("the expression", val_t, val_e, pairs, side_names,
                                   (None, None), loc)

    def store_objects(outs):
        for l, tmpl in list_templates:
            restore(l, {k: fill_holes(v, outs) for k, v in tmpl.items()}
                    if type(l) is dict else fill_holes(tmpl, outs))
        for o, attr, tmpl in attr_templates:
            setattr(o, attr, fill_holes(tmpl, outs))

    if not pairs:
        b.env = merged
        b.locs.update(merged_locs)
        store_objects(())
        return expr_template
    for ctx, side in ((ctx_t, "a"), (ctx_e, "b")):
        with ctx:
            ctx.graph.set_results([materialize(ctx, getattr(p, side), p.dtype)
                                   for p in pairs])
    operands = _unify_params(b.c.param_source, ctx_t, ctx_e)
    node = outer.graph.add_node("If", [outer.lift(cond.value)] + operands,
                                {"then_graph": ctx_t.graph, "else_graph": ctx_e.graph},
                                loc=loc, names=[p.name for p in pairs])
    outs = [GraphTensor(v, weak=p.weak) for v, p in zip(node.outputs, pairs)]
    b.env = {k: fill_holes(v, outs) for k, v in merged.items()}
    b.locs.update(merged_locs)
    store_objects(outs)
    return None if expr_template is None else fill_holes(expr_template, outs)


def _unify_params(sources, *ctxs) -> list:
    """Give every branch graph one parameter per outer value any branch captured."""
    order, seen = [], set()
    for ctx in ctxs:
        for v in ctx.captured:
            if id(v) not in seen:
                seen.add(id(v))
                order.append(v)
    for ctx in ctxs:
        params = []
        for v in order:
            p = ctx.captures.get(id(v))
            if p is None:
                p = ctx.graph.add_param(v.type, v.name)
                ctx.captures[id(v)] = p
            params.append(p)
            sources[id(p)] = v
        for i, p in enumerate(params):
            p.index = i
        ctx.graph.params = params
    return order


def build_if_stmt(b: FunctionBuilder, node: ast.If):
    loc = b.loc(node)
    test = b.eval(node.test)
    cond = condition_value(b, test, node.test)
    if not isinstance(cond, GraphTensor):
        b.c.record(Record("if", loc, "constant", f"folded to the "
                          f"{'if' if cond else 'else'}-branch", f"condition is {cond}"))
        b.exec_block(node.body if cond else node.orelse)
        return
    rec = b.c.record(Record("if", loc, "variable", "If", describe(cond, b.c.param_source)))
    branch(b, cond, lambda: b.exec_block(node.body), lambda: b.exec_block(node.orelse), loc)
    rec.details["outputs"] = _last_if_outputs()


def _last_if_outputs():
    ctx = active()
    for n in reversed(ctx.graph.nodes):
        if n.op == "If":
            return [o.name for o in n.outputs]
    return []


def build_guarded(b: FunctionBuilder, flag: GraphTensor, stmts):
    """Statements after a break/continue/return that happened under a graph condition:
    they run only where none happened."""
    from .. import ops
    loc = b.loc(stmts[0])

    def rest():
        for f in (RET, BRK, CONT):
            if isinstance(b.env.get(f), GraphTensor):
                b.env[f] = False
        b.exec_block(stmts)

    branch(b, ops.logical_not(flag), rest, lambda: None, loc,
           ("path that continues", "path that already left"))


def build_ifexp(b: FunctionBuilder, node: ast.IfExp):
    cond = condition_value(b, b.eval(node.test), node.test)
    if not isinstance(cond, GraphTensor):
        return b.eval(node.body if cond else node.orelse)
    loc = b.loc(node)
    b.c.record(Record("ifexp", loc, "variable", "If", describe(cond, b.c.param_source)))
    return branch(b, cond, lambda: b.eval(node.body), lambda: b.eval(node.orelse), loc,
                  ("true value", "false value"))


def build_boolop(b: FunctionBuilder, node: ast.BoolOp):
    """`a and b` / `a or b` with Python's short circuit; on a graph value the right
    side is built in a branch, so it runs only where Python would run it."""
    is_and = isinstance(node.op, ast.And)
    value = b.eval(node.values[0])
    for rhs in node.values[1:]:
        c = condition_value(b, value, node.values[0])
        if not isinstance(c, GraphTensor):
            if (is_and and not c) or (not is_and and c):
                return value
            value = b.eval(rhs)
            continue
        loc = b.loc(node)
        left = value
        if isinstance(left, GraphTensor) and left.dtype.is_bool or _kind(left) == "b":
            keep = left
        else:
            keep = left
        if is_and:
            value = branch(b, c, lambda r=rhs: b.eval(r), lambda k=keep: k, loc,
                           ("right side", "left side"))
        else:
            value = branch(b, c, lambda k=keep: k, lambda r=rhs: b.eval(r), loc,
                           ("left side", "right side"))
    return value


def build_compare(b: FunctionBuilder, node: ast.Compare):
    left = b.eval(node.left)
    result = None
    for i, (op, right_node) in enumerate(zip(node.ops, node.comparators)):
        right = b.eval(right_node)
        r = _compare(b, op, left, right, node)
        if i == 0:
            result = r
        else:
            c = condition_value(b, result, node)
            if isinstance(c, GraphTensor):
                from .. import ops
                result = ops.logical_and(c, condition_value(b, r, node))
            elif not c:
                return result
            else:
                result = r
        if i < len(node.ops) - 1 and not isinstance(result, GraphTensor) and not result:
            return result
        left = right
    return result


def _compare(b, op, left, right, node):
    from .operators import CMPOPS
    if isinstance(op, (ast.In, ast.NotIn)):
        out = _contains(b, right, left, node)
        if isinstance(op, ast.NotIn):
            if isinstance(out, GraphTensor):
                from .. import ops
                return ops.logical_not(out)
            return not out
        return out
    if isinstance(op, (ast.Is, ast.IsNot)):
        identity = _identity_of_weak_bool(left, right)
        if identity is not None:
            if isinstance(op, ast.IsNot):
                from .. import ops
                identity = ops.logical_not(identity)
                identity.weak = True
            return identity
    return CMPOPS[type(op)](left, right)


def _identity_of_weak_bool(a, b):
    """`flag is True` where flag stands for a Python bool (a weak bool graph value): in
    eager Python that is equality, since True and False are singletons."""
    for x, y in ((a, b), (b, a)):
        if isinstance(x, GraphTensor) and x.weak and x.dtype.is_bool and \
                isinstance(y, (bool, np.bool_)):
            from .. import ops
            out = ops.equal(x, bool(y))
            out.weak = True
            return out
    return None


def _contains(b, container, x, node):
    from .. import ops
    if isinstance(container, (GraphTensor, DynamicList)) or (
            isinstance(x, GraphTensor) and isinstance(container, (list, tuple))):
        if isinstance(container, (list, tuple)):
            out = None
            for item in container:
                e = ops.equal(x, item)
                e = ops.any(e) if isinstance(e, GraphTensor) and e.type.shape != () else e
                out = e if out is None else ops.logical_or(out, e)
            return False if out is None else out
        if isinstance(container, DynamicList):
            container = container.stacked(0)
        return ops.any(ops.equal(container, x))
    return x in container


# -- reading Python sequences with graph indices -------------------------------------------------
def index_sequence(b: FunctionBuilder, seq, key: GraphTensor):
    """seq[key] for a Python list/tuple and an int graph value: the items become a
    constant tensor (numbers) or a stack (tensors of one type), read with Gather."""
    from .. import ops
    if not key.dtype.is_integer:
        raise TypeError(f"list indices must be integers, not a {key.dtype} tensor")
    if not seq:
        raise IndexError("index into an empty list")
    if all(_kind(x) is not None for x in seq):
        kinds = {_kind(x) for x in seq}
        k = max(kinds, key=_KORDER.__getitem__)
        arr = np.asarray(seq, dtype=_WEAK_DEFAULT[k].np)
        out = ops.gather(Tensor._wrap(arr), key, 0)
        out.weak = True
        return out
    if all(isinstance(x, (GraphTensor, Tensor)) for x in seq):
        types_ = {(x.dtype, _info(x)[1]) for x in seq}
        if len(types_) != 1:
            raise UnsupportedSyntaxError(
                "indexing a list of tensors of different types with a tensor value",
                hint="make the tensors one dtype and shape so they can be stacked")
        return ops.gather(ops.stack(list(seq), 0), key, 0)
    raise UnsupportedSyntaxError(
        f"indexing a Python {type(seq).__name__} of {type(seq[0]).__name__} items with a "
        f"tensor value", hint="index with a Python int, or keep the items in a tensor")


# -- return ---------------------------------------------------------------------------------------
def finish_return(b: FunctionBuilder, fndef):
    ret = b.env.get(RET, False)
    rv = b.env.get(RETVAL)
    if ret is False:
        return None
    if isinstance(rv, Undefined):
        raise rv.error(None)
    if ret is True or analysis.always_returns(fndef.body):
        return rv
    if rv is None:
        return None
    raise TypeJoinError(
        f"'{fndef.name}' returns a value on some paths and falls off its end (returning None) "
        f"on others, depending on a tensor value", loc=b.loc(fndef.body[-1]),
        names=(fndef.name,), hint="end the function with a return statement")
