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
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..ir import dtypes as dt
from ..ir.control import sliced_type
from ..ir.errors import (GraphJitError, ShapeJoinError, TypeJoinError, UnsupportedSyntaxError)
from ..ir.graph import Graph
from ..ir.join import join_shapes
from ..ir.types import TensorType, format_shape_ms, num_elements
from ..tensor import Tensor
from . import analysis
from .builder import BRK, CONT, RET, RETVAL, FunctionBuilder
from .calls import GraphEnumerate, GraphRange, GraphZip
from .values import DynamicList, GraphContext, GraphTensor, Undefined, active

__all__ = ["Record", "condition_value", "build_if_stmt", "build_guarded", "build_ifexp",
           "build_boolop", "build_compare", "build_for", "build_while", "index_sequence",
           "finish_return"]

PY_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)
_MISSING = Undefined("<missing>")
PARAM_SOURCE: Dict[int, Any] = {}   # id(subgraph param) -> outer Value (for explain)


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


def describe(v) -> str:
    """Which inputs a graph value depends on (for the explain report)."""
    if not isinstance(v, GraphTensor):
        return ""
    names, seen, stack = [], set(), [v.value]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x.producer is None:
            src = PARAM_SOURCE.get(id(x))
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
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, (int, np.integer)):
        return "i"
    if isinstance(x, (float, np.floating)):
        return "f"
    return None


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
        desc = f"a {x.dtype} tensor of shape {format_shape_ms(_info(x)[1])}"
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
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        defined = side_names[1] if isinstance(a, Undefined) else side_names[0]
        if isinstance(a, Undefined) and isinstance(b, Undefined):
            return a
        return Undefined(name, f"it is assigned only in the {defined}")
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(join_trees(f"{name}[{i}]", x, y, pairs, side_names, locs, where_loc)
                     for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and a is not b:
        return [join_trees(f"{name}[{i}]", x, y, pairs, side_names, locs, where_loc)
                for i, (x, y) in enumerate(zip(a, b))]
    if isinstance(a, (DynamicList,)) or isinstance(b, DynamicList):
        raise UnsupportedSyntaxError(
            f"'{name}' is a list built in a loop on one path and something else on the other",
            loc=where_loc, names=(name,))
    pairs.append(join_leaf(name, a, b, side_names, locs, where_loc))
    return _Hole(len(pairs) - 1)


def placeholder_like(v):
    """A value of v's structure whose tensors are zeros (for paths where v is unused)."""
    if isinstance(v, tuple):
        return tuple(placeholder_like(x) for x in v)
    if isinstance(v, list):
        return [placeholder_like(x) for x in v]
    info = _info(v)
    if info is None or info[0] is None:
        return v
    from .. import ops
    d, shape, weak, _ = info
    if shape is None:
        return Tensor._wrap(np.zeros((), d.np))
    return Tensor._wrap(np.zeros(tuple(0 if s is None else s for s in shape), d.np))


def fill_holes(template, outs):
    if isinstance(template, _Hole):
        return outs[template.i]
    if isinstance(template, tuple):
        return tuple(fill_holes(x, outs) for x in template)
    if isinstance(template, list):
        return [fill_holes(x, outs) for x in template]
    return template


def materialize(ctx: GraphContext, x, dtype, shape=None):
    """x (graph value, eager Tensor or Python number) as a Value of ctx's graph with
    this dtype."""
    from .. import ops
    if isinstance(x, GraphTensor):
        v = ctx.lift(x.value)
        if v.type.dtype is not dtype:
            v = ctx.graph.add_node("Cast", (v,), {"dtype": dtype}).outputs[0]
        return v
    if isinstance(x, Tensor):
        return ctx.const(x._need_data().astype(dtype.np))
    return ctx.const(np.asarray(x, dtype=dtype.np))


def _lists_in(env) -> List[list]:
    out, seen = [], set()
    for v in env.values():
        if type(v) is list and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


# -- if -----------------------------------------------------------------------------------------
def branch(b: FunctionBuilder, cond: GraphTensor, then_fn: Callable, else_fn: Callable,
           loc, side_names=("if-branch", "else-branch")):
    """Build both branches in child graphs, join what they assign (and what they
    return, for expressions) into one If node; returns the joined expression value."""
    outer = active()
    env0, locs0 = b.env, b.locs
    lists = _lists_in(env0)
    saved_lists = [list(l) for l in lists]
    results = []
    for i, fn in enumerate((then_fn, else_fn)):
        ctx = GraphContext(Graph(("then" if i == 0 else "else")), parent=outer)
        b.env, b.locs = dict(env0), dict(locs0)
        try:
            with ctx:
                value = fn()
        finally:
            after = [list(l) for l in lists]
            for l, old in zip(lists, saved_lists):
                l[:] = old
            env_i, locs_i = b.env, b.locs
            b.env, b.locs = env0, locs0
        results.append((ctx, env_i, locs_i, value, after))
    (ctx_t, env_t, locs_t, val_t, lists_t), (ctx_e, env_e, locs_e, val_e, lists_e) = results

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
        merged[n] = join_trees(n if not n.startswith("<") else n.strip("<>"), a, c, pairs,
                               side_names, (locs_t.get(n), locs_e.get(n)), loc)
        merged_locs[n] = locs_t.get(n) or locs_e.get(n)
    list_templates = []
    for l, ta, tb in zip(lists, lists_t, lists_e):
        if len(ta) == len(tb) and all(x is y for x, y in zip(ta, tb)):
            l[:] = ta
            continue
        if len(ta) != len(tb):
            name = next((k for k, v in env0.items() if v is l), "a list")
            raise UnsupportedSyntaxError(
                f"the list '{name}' gets {len(ta)} items in the {side_names[0]} and {len(tb)} "
                f"in the {side_names[1]} of a condition that depends on a tensor value",
                loc=loc, names=(name,),
                hint="append on both paths (the same number of times), or build a tensor "
                     "with ops.where")
        name = next((k for k, v in env0.items() if v is l), "list")
        list_templates.append((l, [join_trees(f"{name}[{i}]", x, y, pairs, side_names,
                                              (None, None), loc)
                                   for i, (x, y) in enumerate(zip(ta, tb))]))
    expr_template = None
    if val_t is not None or val_e is not None:
        expr_template = join_trees("the expression", val_t, val_e, pairs, side_names,
                                   (None, None), loc)

    if not pairs:
        b.env = merged
        b.locs.update(merged_locs)
        for l, tmpl in list_templates:
            l[:] = tmpl
        return expr_template
    for ctx, side in ((ctx_t, "a"), (ctx_e, "b")):
        with ctx:
            ctx.graph.set_results([materialize(ctx, getattr(p, side), p.dtype)
                                   for p in pairs])
    operands = _unify_params(ctx_t, ctx_e)
    node = outer.graph.add_node("If", [outer.lift(cond.value)] + operands,
                                {"then_graph": ctx_t.graph, "else_graph": ctx_e.graph},
                                loc=loc, names=[p.name for p in pairs])
    outs = [GraphTensor(v, weak=p.weak) for v, p in zip(node.outputs, pairs)]
    b.env = {k: fill_holes(v, outs) for k, v in merged.items()}
    b.locs.update(merged_locs)
    for l, tmpl in list_templates:
        l[:] = fill_holes(tmpl, outs)
    return None if expr_template is None else fill_holes(expr_template, outs)


def _unify_params(*ctxs) -> list:
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
            PARAM_SOURCE[id(p)] = v
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
    rec = b.c.record(Record("if", loc, "variable", "If", describe(cond)))
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
    b.c.record(Record("ifexp", loc, "variable", "If", describe(cond)))
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
    from .builder import CMPOPS
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
        if not isinstance(result, GraphTensor) and not result and i < len(node.ops) - 1:
            return result
        left = right
    return result


def _compare(b, op, left, right, node):
    from .builder import CMPOPS
    if isinstance(op, (ast.In, ast.NotIn)):
        out = _contains(b, right, left, node)
        if isinstance(op, ast.NotIn):
            if isinstance(out, GraphTensor):
                from .. import ops
                return ops.logical_not(out)
            return not out
        return out
    return CMPOPS[type(op)](left, right)


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


# -- loops ----------------------------------------------------------------------------------------
@dataclass
class LoopSpec:
    sliced: List[GraphTensor]            # outer values sliced along axis 0
    trip: Any                            # None (-1), a Python int or an int graph value
    make: Callable                       # (iteration value, slices) -> loop target value
    describe: str = ""


def loop_spec(b, it, node) -> LoopSpec:
    from .. import ops
    if isinstance(it, DynamicList):
        it = it.stacked(0)
    if isinstance(it, GraphTensor):
        if it.type.shape is not None and len(it.type.shape) == 0:
            raise TypeError("iteration over a 0-d tensor")
        return LoopSpec([it], None, lambda i, s: ops.squeeze(s[0], 0),
                        f"rows of a tensor ({describe(it)})")
    if isinstance(it, GraphRange):
        start, stop, step = it.start, it.stop, it.step
        if step > 0:
            n = (stop - start + (step - 1)) // step if step != 1 else stop - start
        else:
            n = (start - stop + (-step - 1)) // (-step)
        n = ops.maximum(n, 0) if isinstance(n, GraphTensor) else max(n, 0)

        def make(i, s):
            v = i if (start == 0 and step == 1) else start + i * step
            if isinstance(v, GraphTensor):
                v.weak = True
            return v
        return LoopSpec([], n, make, "range with a tensor bound" + (
            f" ({describe(stop)})" if isinstance(stop, GraphTensor) else ""))
    if isinstance(it, GraphEnumerate):
        inner = loop_spec(b, it.inner, node)
        st = it.start

        def make_e(i, s):
            k = i + st if st else i
            if isinstance(k, GraphTensor):
                k.weak = True
            return (k, inner.make(i, s))
        return LoopSpec(inner.sliced, inner.trip, make_e, "enumerate of " + inner.describe)
    if isinstance(it, GraphZip):
        specs = [loop_spec(b, x, node) for x in it.inners]
        sliced, offsets = [], []
        for s in specs:
            offsets.append(len(sliced))
            sliced.extend(s.sliced)
        trips = [s.trip for s in specs if s.trip is not None]
        trip = None
        for t in trips:
            trip = t if trip is None else ops.minimum(trip, t) if isinstance(
                trip, GraphTensor) or isinstance(t, GraphTensor) else min(trip, t)

        def make_z(i, s):
            return tuple(sp.make(i, s[o:o + len(sp.sliced)]) for sp, o in zip(specs, offsets))
        return LoopSpec(sliced, trip, make_z, "zip of " + ", ".join(s.describe for s in specs))
    raise TypeError(f"cannot build a Loop over {type(it).__name__}")


def build_for(b: FunctionBuilder, node: ast.For):
    loc = b.loc(node)
    it = b.eval(node.iter)
    graph_iter = isinstance(it, (GraphTensor, DynamicList, GraphRange, GraphEnumerate,
                                 GraphZip))
    if not graph_iter:
        items = it if isinstance(it, range) else list(it) if not isinstance(it, list) else it
        n = len(items)
        if isinstance(items, range) and n > b.c.max_unroll:
            ok = _try_rolled_range(b, node, items, loc)
            if ok:
                return
        elif n > b.c.max_unroll:
            msg = (f"line {loc.line}: this `for` loop runs {n} times (more than max_unroll="
                   f"{b.c.max_unroll}) over a Python {type(it).__name__}; it is unrolled")
            b.c.warnings.append(msg)
        b.c.record(Record("for", loc, "constant", f"unrolled {n} times",
                          f"iterates a Python {type(it).__name__}"))
        _unrolled_for(b, node, list(items))
        return
    spec = loop_spec(b, it, node)
    rec = b.c.record(Record("for", loc, "variable", "Loop", spec.describe))
    build_loop(b, node, "for", spec=spec, record=rec)


def _try_rolled_range(b, node, r: range, loc) -> bool:
    """A constant range longer than max_unroll becomes a Loop if its body allows it."""
    env0, locs0 = dict(b.env), dict(b.locs)
    graph = active().graph
    n_nodes = len(graph.nodes)
    lists = [(l, list(l)) for l in _lists_in(env0)]
    n_rec = len(b.c.records)
    try:
        rec = b.c.record(Record("for", loc, "constant", "Loop",
                                f"range of {len(r)} > max_unroll={b.c.max_unroll}"))
        build_loop(b, node, "for", spec=LoopSpec([], len(r), _range_maker(r),
                                                 f"range({r.start}, {r.stop}, {r.step})"),
                   record=rec)
        b.c.warnings.append(f"line {loc.line}: `for` over range({len(r)}) exceeds max_unroll="
                            f"{b.c.max_unroll}; built as a Loop instead of unrolling")
        return True
    except (GraphJitError, TypeError, ValueError, IndexError) as e:
        b.env, b.locs = env0, locs0
        del graph.nodes[n_nodes:]
        for l, old in lists:
            l[:] = old
        del b.c.records[n_rec:]
        msg = (f"line {loc.line}: `for` over range({len(r)}) exceeds max_unroll="
               f"{b.c.max_unroll}, but its body needs the loop index as a Python number "
               f"({type(e).__name__}: {str(e).splitlines()[0]}); it is unrolled")
        b.c.warnings.append(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=2)
        return False


def _range_maker(r: range):
    def make(i, s):
        v = i if (r.start == 0 and r.step == 1) else r.start + i * r.step
        v.weak = True
        return v
    return make


def _unrolled_for(b: FunctionBuilder, node, items):
    from .. import ops
    saved = {f: b.env.get(f, _MISSING) for f in (BRK, CONT)}
    b.loop_depth += 1
    b.env[BRK] = False
    try:
        for item in items:
            b.env[CONT] = False
            state = _loop_stop(b)
            if state is True:
                break

            def iteration(item=item):
                b.assign(node.target, item, node)
                b.exec_block(node.body)
            if state is False:
                iteration()
            else:
                branch(b, ops.logical_not(state), iteration, lambda: None, b.loc(node),
                       ("iteration that runs", "iteration skipped by break/return"))
        b.env[CONT] = False
        _run_orelse(b, node)
    finally:
        b.loop_depth -= 1
        _restore_flags(b, saved)


def _loop_stop(b):
    """Like stop_state, for the head of a loop iteration (continue does not stop it)."""
    from .. import ops
    flags = []
    for f in (RET, BRK):
        v = b.env.get(f, False)
        if v is True:
            return True
        if isinstance(v, GraphTensor):
            flags.append(v)
    if not flags:
        return False
    return flags[0] if len(flags) == 1 else ops.logical_or(flags[0], flags[1])


def _run_orelse(b, node):
    from .. import ops
    if not node.orelse:
        return
    brk = b.env.get(BRK, False)
    ret = b.env.get(RET, False)
    if brk is True or ret is True:
        return
    stop = brk if isinstance(brk, GraphTensor) else None
    if isinstance(ret, GraphTensor):
        stop = ret if stop is None else ops.logical_or(stop, ret)
    if stop is None:
        b.exec_block(node.orelse)
    else:
        def run():
            b.env[BRK] = False
            if isinstance(b.env.get(RET), GraphTensor):
                b.env[RET] = False
            b.exec_block(node.orelse)
        branch(b, ops.logical_not(stop), run, lambda: None, b.loc(node.orelse[0]),
               ("loop that ended normally", "loop left by break"))


def _restore_flags(b, saved):
    for f, v in saved.items():
        if v is _MISSING:
            b.env.pop(f, None)
        else:
            b.env[f] = v


def build_while(b: FunctionBuilder, node: ast.While):
    from .. import ops
    loc = b.loc(node)
    saved = {f: b.env.get(f, _MISSING) for f in (BRK, CONT)}
    b.loop_depth += 1
    b.env[BRK] = False
    count = 0
    limit = max(100000, b.c.max_unroll)
    try:
        while True:
            b.env[CONT] = False
            state = _loop_stop(b)
            if state is True:
                break
            cond = condition_value(b, b.eval(node.test), node.test)
            if isinstance(state, GraphTensor):
                if cond is False:
                    break
                cond = ops.logical_not(state) if cond is True else ops.logical_and(
                    ops.logical_not(state), cond)
            if isinstance(cond, GraphTensor):
                rec = b.c.record(Record("while", loc, "variable",
                                        "Loop" + (f" (after {count} unrolled iterations)"
                                                  if count else ""), describe(cond)))
                build_loop(b, node, "while", cond0=cond, record=rec)
                _restore_flags(b, saved)
                return
            if not cond:
                break
            b.exec_block(node.body)
            count += 1
            if count > limit:
                raise UnsupportedSyntaxError(
                    f"a while loop with a condition known at build time did not end after "
                    f"{limit} iterations", loc=loc,
                    hint="make the condition depend on a tensor so it becomes a Loop")
        b.c.record(Record("while", loc, "constant", f"unrolled {count} times",
                          "condition known while building"))
        b.env[CONT] = False
        _run_orelse(b, node)
    finally:
        b.loop_depth -= 1
    _restore_flags(b, saved)


@dataclass
class _Slot:
    name: str
    entry: Any
    dtype: Any
    shape: Any
    weak: bool
    kind: str = "var"    # var, flag, local


class _Collector(list):
    """Stands for a list appended to inside a Loop body: records one iteration's
    appends and refuses reads (the list's content is known only at run time)."""

    def __init__(self, name):
        super().__init__()
        self.name = name

    def _refuse(self, *a, **k):
        raise UnsupportedSyntaxError(
            f"the list '{self.name}' is appended to in a loop that depends on a tensor value, "
            f"so it can only be appended to inside the loop",
            hint="read it after the loop (for example ops.stack(" + self.name + "))")

    __getitem__ = __len__ = __iter__ = __contains__ = pop = _refuse

    def __bool__(self):
        self._refuse()


def _entry_slot(name, v, widened, promote) -> Optional[_Slot]:
    if name in widened:
        d, s, w = widened[name]
        return _Slot(name, v, d, s, w)
    if isinstance(v, GraphTensor):
        return _Slot(name, v, v.dtype, v.type.shape, v.weak)
    if isinstance(v, Tensor) and v.has_data:
        return _Slot(name, v, v.dtype, tuple(v.shape), False)
    if name in promote:
        d, w = promote[name]
        return _Slot(name, v, d, (), w)
    return None


def build_loop(b: FunctionBuilder, node, kind, spec: LoopSpec = None, cond0=None,
               record: Record = None):
    """Build a Loop node for the rest of a loop; see the module docstring."""
    outer = active()
    loc = b.loc(node)
    env0, locs0 = b.env, b.locs
    targets = analysis.target_names(node.target) if kind == "for" else []
    assigned = targets + [n for n in analysis.assigned_names(node.body) if n not in targets]
    has_ret = analysis.contains(node.body, ast.Return)
    appended = [n for n in analysis.appended_names(node.body)
                if type(env0.get(n)) is list and n not in assigned]
    names = list(assigned) + ([RET, RETVAL] if has_ret else []) + \
        ([BRK] if node.orelse else [])
    widened: Dict[str, tuple] = {}
    promote: Dict[str, tuple] = {}
    local_entry: Dict[str, Any] = {}
    for attempt in range(12):
        p = _loop_pass(b, node, kind, spec, names, widened, promote, local_entry, appended,
                       has_ret, outer)
        if not _loop_update(b, node, p, widened, promote, local_entry, loc):
            break
    else:
        raise UnsupportedSyntaxError("the types of the loop's variables did not settle",
                                     loc=loc)
    _emit_loop(b, node, kind, spec, cond0, p, outer, record, loc)


@dataclass
class _Pass:
    ctx: GraphContext
    slots: List[_Slot]
    exit_env: Dict[str, Any]
    exit_locs: Dict[str, Any]
    cond: Any
    collected: Dict[str, list]
    n_sliced: int
    locals_py: Dict[str, Any]
    env0: Dict[str, Any]


def _loop_pass(b, node, kind, spec, names, widened, promote, local_entry, appended,
               has_ret, outer) -> _Pass:
    from .. import ops
    env0, locs0 = b.env, b.locs
    slots: List[_Slot] = []
    for n in names:
        v = env0.get(n, _MISSING)
        if n in (RET, BRK):
            slots.append(_Slot(n, v if not isinstance(v, Undefined) else False, dt.bool_, (),
                               False, "flag"))
            continue
        if n in local_entry or (n == RETVAL and n in widened):
            d, s, w = widened[n]
            slots.append(_Slot(n, local_entry.get(n, v), d, s, w, "local"))
            continue
        if isinstance(v, Undefined):
            continue
        s = _entry_slot(n, v, widened, promote)
        if s is not None:
            slots.append(s)
    ctx = GraphContext(Graph(f"{kind}_body"), parent=outer)
    g = ctx.graph
    it_param = g.add_param(TensorType(dt.int64, ()), "iteration")
    params = [g.add_param(TensorType(s.dtype, s.shape), s.name.strip("<>").replace(" ", "_"))
              for s in slots]
    sliced = spec.sliced if spec is not None else []
    slice_params = [g.add_param(sliced_type(x.type, 0), "slice") for x in sliced]
    for prm, s in zip(params, slots):
        PARAM_SOURCE[id(prm)] = s.entry.value if isinstance(s.entry, GraphTensor) else None
        if PARAM_SOURCE[id(prm)] is None:
            del PARAM_SOURCE[id(prm)]
    for prm, x in zip(slice_params, sliced):
        PARAM_SOURCE[id(prm)] = x.value
    env = dict(env0)
    for prm, s in zip(params, slots):
        env[s.name] = GraphTensor(prm, weak=s.weak)
    env[BRK] = False
    env[CONT] = False
    if has_ret:
        env[RET] = False
    collectors = {n: _Collector(n) for n in appended}
    env.update(collectors)
    b.env, b.locs = env, dict(locs0)
    b.loop_depth += 1
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
    finally:
        b.env, b.locs = env0, locs0
        b.loop_depth -= 1
    locals_py = {}
    collected = {n: list(list.__iter__(c)) for n, c in collectors.items()}
    return _Pass(ctx, slots, exit_env, exit_locs, cond, collected, len(sliced), locals_py,
                 env0)


def _loop_update(b, node, p: _Pass, widened, promote, local_entry, loc) -> bool:
    """Compare exit with entry; widen, promote or add carried values. True if changed."""
    changed = False
    slot_names = {s.name for s in p.slots}
    for s in p.slots:
        ev = p.exit_env.get(s.name, _MISSING)
        label = s.name.strip("<>")
        if s.name == RETVAL and ev is None and s.kind == "local":
            continue
        if isinstance(ev, Undefined):
            raise UnsupportedSyntaxError(f"'{label}' is deleted inside a loop that depends on a "
                                         f"tensor value", loc=loc, names=(label,))
        info = _info(ev)
        if info is None:
            raise TypeJoinError(
                f"'{label}' is a tensor before the loop but {_fmt_side(ev, None)} after one "
                f"iteration", loc=loc, names=(label,),
                hint=f"keep '{label}' a tensor inside the loop")
        d, shape, weak, k = info
        new_dtype, new_weak = s.dtype, s.weak
        if d is None:  # Python number at exit
            if not _fits(ev, s.dtype) and not s.weak:
                raise _carry_type_error(label, s, ev, p, loc)
            if s.weak and _KORDER[k] > _KORDER[s.dtype.kind]:
                new_dtype = _WEAK_DEFAULT[k]
        elif s.weak and not weak:
            if not _fits(s.entry, d) if not isinstance(s.entry, GraphTensor) else (
                    s.dtype.kind == "f" and not d.is_floating):
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
            eloc = p.exit_locs.get(s.name)
            e.with_context(
                loc=loc, names=(label,),
                detail=f"'{label}' enters the loop with shape {format_shape_ms(s.shape)} and "
                       f"has shape {format_shape_ms(shape)} after one iteration"
                       + (f" (assigned at line {eloc.line}: `{eloc.text.strip()}`)"
                          if eloc is not None and eloc.text else "")
                       + f"; ShapeJoin {e.rule}",
                hint=f"keep the shape of '{label}' the same in every iteration, or make the "
                     f"changing dim unknown before the loop (TensorSpec with None)")
            if eloc is not None:
                e.extra_locs += ((f"'{label}' changes shape here", eloc),)
            raise
        if (new_dtype, new_shape, new_weak) != (s.dtype, s.shape, s.weak):
            widened[s.name] = (new_dtype, new_shape, new_weak)
            changed = True
    for n, entry in p.env0.items():
        if n in slot_names or n.startswith("<"):
            continue
        ev = p.exit_env.get(n, _MISSING)
        if ev is entry or _same_static(ev, entry):
            continue
        if isinstance(ev, _Collector):
            continue
        label = n
        ei = _info(entry)
        xi = _info(ev)
        if ei is not None and xi is not None:
            if xi[0] is not None and not xi[2]:
                promote[n] = (xi[0], False)
            else:
                k = max(ei[3], xi[3], key=_KORDER.__getitem__)
                promote[n] = (_WEAK_DEFAULT[k], True)
            changed = True
            continue
        if isinstance(entry, Undefined):
            continue
        if isinstance(entry, (tuple, list)) and isinstance(ev, type(entry)):
            raise UnsupportedSyntaxError(
                f"the {type(entry).__name__} '{label}' changes inside a loop that depends on a "
                f"tensor value", loc=loc, names=(label,),
                hint=f"keep each item of '{label}' in its own variable, or stack it into a "
                     f"tensor before the loop")
        raise TypeJoinError(
            f"'{label}' is {_fmt_side(entry, None)} before the loop and "
            f"{_fmt_side(ev, p.exit_locs.get(n))} after one iteration of a loop that depends on "
            f"a tensor value", loc=loc, names=(label,),
            hint=f"give '{label}' a tensor value before the loop (for example ops.zeros(...))")
    for n, ev in p.exit_env.items():
        if n in slot_names or n.startswith("<") or n in p.env0 and not isinstance(
                p.env0[n], Undefined):
            continue
        info = _info(ev)
        if isinstance(ev, GraphTensor):
            d, shape, weak, _ = info
            widened[n] = (d, shape, weak)
            local_entry[n] = placeholder_like(ev)
            changed = True
        elif not isinstance(ev, (Undefined, _Collector)):
            p.locals_py[n] = ev
    if RETVAL in p.exit_env and RETVAL not in slot_names:
        rv = p.exit_env[RETVAL]
        if rv is not None and p.exit_env.get(RET) is not False:
            info = _info(rv)
            if info is None or isinstance(rv, tuple):
                raise UnsupportedSyntaxError(
                    "returning a tuple or a non-tensor from inside a loop that depends on a "
                    "tensor value", loc=loc,
                    hint="assign the result to a variable, break, and return after the loop")
            entry_rv = p.env0.get(RETVAL)
            if isinstance(entry_rv, GraphTensor):
                widened[RETVAL] = (entry_rv.dtype, entry_rv.type.shape, entry_rv.weak)
            else:
                d = info[0] or _WEAK_DEFAULT[info[3]]
                widened[RETVAL] = (d, info[1], info[2])
                local_entry[RETVAL] = placeholder_like(rv) if info[0] is not None else \
                    np.zeros((), d.np)[()]
            changed = True
    return changed


def _carry_type_error(label, s, ev, p, loc):
    eloc = p.exit_locs.get(s.name)
    return TypeJoinError(
        f"Cannot join the return values of different branches, perhaps you need to make them "
        f"equal.\nType Join Failed: dtype1 = {s.dtype}, dtype2 = "
        f"{ev.dtype if isinstance(ev, (GraphTensor, Tensor)) else type(ev).__name__}.",
        loc=loc, names=(label,),
        detail=f"'{label}' enters the loop as {s.dtype} and is "
               f"{_fmt_side(ev, eloc)} after one iteration",
        hint=f"cast '{label}' inside the loop so it keeps dtype {s.dtype}")


def _emit_loop(b, node, kind, spec, cond0, p: _Pass, outer: GraphContext, record, loc):
    from .. import ops
    ctx, g = p.ctx, p.ctx.graph
    slots = p.slots
    with ctx:
        cond_v = materialize(ctx, p.cond, dt.bool_)
        if cond_v.type.shape != ():
            cond_v = g.add_node("Reshape", (cond_v,), {"shape": ()}).outputs[0]
        exits = [materialize(ctx, p.exit_env[s.name] if not (
            s.name == RETVAL and p.exit_env.get(s.name) is None) else placeholder_like(
            s.entry), s.dtype) for s in slots]
        scans, scan_names = [], []
        for n, items in p.collected.items():
            for item in items:
                if not isinstance(item, (GraphTensor, Tensor)) and _kind(item) is None:
                    raise UnsupportedSyntaxError(
                        f"appending a {type(item).__name__} to '{n}' inside a loop that "
                        f"depends on a tensor value", loc=loc, names=(n,),
                        hint="append tensors only")
                t = item if isinstance(item, (GraphTensor, Tensor)) else item
                v = materialize(ctx, t, _info(t)[0] or _WEAK_DEFAULT[_kind(t)])
                scans.append(g.add_node("ExpandDims", (v,), {"axis": 0}).outputs[0])
                scan_names.append(n)
        g.set_results([cond_v] + exits + scans)
    n_c = len(slots)
    captured = list(ctx.captured)
    for prm, v in zip(g.params[1 + n_c + p.n_sliced:], captured):
        PARAM_SOURCE[id(prm)] = v
    # outer inputs
    if kind == "while":
        trip = outer.const(np.asarray(-1, np.int64))
        c0 = outer.lift(cond0.value)
        if c0.type.shape != ():
            c0 = outer.graph.add_node("Reshape", (c0,), {"shape": ()}).outputs[0]
    else:
        t = spec.trip
        if t is None:
            trip = outer.const(np.asarray(-1, np.int64))
        elif isinstance(t, GraphTensor):
            trip = materialize(outer, t, dt.int64)
            if trip.type.shape != ():
                trip = outer.graph.add_node("Reshape", (trip,), {"shape": ()}).outputs[0]
        else:
            trip = outer.const(np.asarray(int(t), np.int64))
        c0 = outer.const(np.asarray(True))
    entries = []
    for s in slots:
        e = s.entry
        if isinstance(e, Undefined) or e is None:
            e = False if s.kind == "flag" else np.zeros(s.shape or (), s.dtype.np)
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
    names = [s.name.strip("<>").replace(" ", "_") for s in slots] + scan_names
    node_ = outer.graph.add_node(
        "Loop", inputs, {"body": g, "input_map": input_map, "output_map": output_map,
                         "back_edges": back_edges, "current_iteration": 0,
                         "condition_result": 0}, loc=loc, names=names)
    outs = node_.outputs
    env = dict(p.env0)
    for s, o in zip(slots, outs[:n_c]):
        env[s.name] = GraphTensor(o, weak=s.weak)
    for n, v in p.locals_py.items():
        env[n] = v
    k = n_c
    for n, items in p.collected.items():
        stacks = [GraphTensor(o) for o in outs[k:k + len(items)]]
        k += len(items)
        if stacks:
            prev = p.env0[n]
            env[n] = DynamicList(list(prev), stacks)
    b.env = env
    b.locs.update({n: l for n, l in p.exit_locs.items() if n in env})
    if record is not None:
        record.details.update({
            "carried": [s.name.strip("<>") for s in slots if s.kind != "flag"],
            "sliced": n_s, "concatenated": sorted(set(scan_names))})
    if node.orelse:
        _run_orelse(b, node)


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
    if ret is True:
        return b.env[RETVAL]
    if ret is False:
        return None
    if analysis.always_returns(fndef.body):
        return b.env[RETVAL]
    rv = b.env.get(RETVAL)
    if rv is None:
        return None
    raise TypeJoinError(
        f"'{fndef.name}' returns a value on some paths and falls off its end (returning None) "
        f"on others, depending on a tensor value", loc=b.loc(fndef.body[-1]),
        names=(fndef.name,), hint="end the function with a return statement")
