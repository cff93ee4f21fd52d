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
from typing import TYPE_CHECKING, Any, Callable, Dict, List

import numpy as np

from .. import ops
from ..ir.errors import (ShapeInferenceError, ShapeJoinError, TypeJoinError,
                         UnsupportedSyntaxError)
from ..ir.graph import Graph
from ..ir.types import num_elements
from . import analysis
from .indexing import contains_text
from .membership import contains, involves_tensors
from .strings import RuntimeString
from .operators import CMPOPS
from .state import BRK, CONT, FLAGS, LEFT, RAISED, RET, RETVAL
from .values import (Collector, DynamicList, GraphContext, GraphTensor, MaybeUndefined,
                     Undefined, Unjoinable, active, as_graph)

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["Record", "condition_value", "build_if_stmt", "build_guarded", "build_ifexp",
           "build_boolop", "build_compare", "finish_return", "branch",
           "describe", "certainly_left", "already_left"]

from .joins import (_MISSING, _container_name, _info, _kind,
                    _lists_in, _ListTemplate, _Pair, fill_holes, join_trees, materialize,
                    placeholder_like, restore, snapshot)


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
    v = as_graph(v)
    if isinstance(v, GraphTensor):
        n = num_elements(v.type.shape)
        if n is not None and n != 1:
            shape = tuple(v.type.shape)
            raise ShapeInferenceError(
                f"Only tensor which shape is () or (1,) can be converted to bool, but got "
                f"tensor shape is {shape}: the truth value of a tensor with {n} elements "
                f"({v.type}) is ambiguous",
                loc=b.loc(node) if node is not None else None,
                hint="reduce it first: use (x > 0).all() or .any()")
        if v.type.shape is not None and len(v.type.shape) > 1:
            v = ops.reshape(v, ())
        return v if v.dtype.is_bool else ops.not_equal(v, 0)
    if isinstance(v, DynamicList):      # a list is true when it has items
        n = v.length()
        return ops.greater(n, 0) if isinstance(n, GraphTensor) else n > 0
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
            elif x.name and x.name not in names and x.graph is not None and \
                    x.type.kind != "state":     # the state token is no value of the user's
                names.append(x.name)
            continue
        stack.extend(x.producer.inputs)
    return "depends on " + ", ".join(sorted(names)) if names else "depends on tensor values"


# -- if -----------------------------------------------------------------------------------------
def branch(b: FunctionBuilder, cond: GraphTensor, then_fn: Callable, else_fn: Callable,
           loc, side_names=("if-branch", "else-branch")):
    """Build both branches in child graphs, join what they assign (and what they
    return, for expressions) into one If node; returns the joined expression value."""
    outer = active()
    env0, locs0 = b.env, b.locs
    lists = _lists_in(env0)
    saved_lists = [snapshot(l) for l in lists]
    objs = [o for o in b.c.created.values() if isinstance(getattr(o, "__dict__", None), dict)]
    saved_attrs = [dict(vars(o)) for o in objs]
    results = []
    for i, fn in enumerate((then_fn, else_fn)):
        ctx = GraphContext(Graph(("then" if i == 0 else "else")), parent=outer)
        b.env, b.locs = dict(env0), dict(locs0)
        outer_raised, b.c.raised_call = b.c.raised_call, False
        try:
            with ctx:
                value = fn()
                if b.c.raised_call:         # an expression whose call raises
                    b.env[RAISED] = True
        finally:
            b.c.raised_call = outer_raised
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
    raised = [r[1].get(RAISED) is True for r in results]
    if raised[0] and raised[1]:      # both paths raise: nothing after the If runs
        results = [(ctx, dict(env0, **{LEFT: True, RAISED: True}), locs0, None, saved_lists,
                    saved_attrs) for ctx, *_ in results]
    elif raised[0] or raised[1]:     # the names take the other path's values
        i = 0 if raised[0] else 1
        _, env_o, locs_o, val_o, lists_o, attrs_o = results[1 - i]
        results[i] = (results[i][0], {k: _mirror(v, env0.get(k, _MISSING))
                                      for k, v in env_o.items()}, locs_o,
                      _mirror(val_o, None), _mirror(lists_o, saved_lists),
                      _mirror(attrs_o, saved_attrs))
    (ctx_t, env_t, locs_t, val_t, lists_t, attrs_t), \
        (ctx_e, env_e, locs_e, val_e, lists_e, attrs_e) = results

    pairs: List[_Pair] = []
    merged, merged_locs = {}, {}
    names = [n for n in list(env_t) + [n for n in env_e if n not in env_t] if n != LEFT]
    ret_t, ret_e = env_t.get(RET, False), env_e.get(RET, False)
    left_t, left_e = certainly_left(env_t), certainly_left(env_e)
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
        elif n not in FLAGS:
            if left_t:
                a = _unbound_where_left(n, a, c, env_t)
            if left_e:
                c = _unbound_where_left(n, c, a, env_e)
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
    to_dynamic = {}           # id(list) -> the DynamicList that replaces it after the If
    for l, ta, tb in zip(lists, lists_t, lists_e):
        name = _container_name(env0, l)
        if isinstance(l, DynamicList) or (type(l) is list and len(ta) != len(tb)):
            # items appended on one path only: kept with flags saying where they were
            if isinstance(l, DynamicList):
                if any(x is not y for x, y in zip(ta[0] + ta[1] + ta[2], tb[0] + tb[1] + tb[2])):
                    raise UnsupportedSyntaxError(
                        f"the list '{name}' changes differently in the two branches of a "
                        f"condition that depends on a tensor value", loc=loc, names=(name,),
                        hint="only append to it inside the branches")
                head, sa, sb = ta[:3], list(zip(ta[3], ta[4])), list(zip(tb[3], tb[4]))
            else:
                if not all(_info(x) is not None for x in ta + tb):
                    raise UnsupportedSyntaxError(
                        f"the list '{name}' gets {len(ta)} items in the {side_names[0]} and "
                        f"{len(tb)} in the {side_names[1]} of a condition that depends on a "
                        f"tensor value, and not all of them are tensors", loc=loc,
                        names=(name,), hint="append tensors, or the same number on both paths")
                common = 0
                while common < min(len(ta), len(tb)) and ta[common] is tb[common]:
                    common += 1
                head = (ta[:common], [], [])
                sa = [(x, True) for x in ta[common:]]
                sb = [(x, True) for x in tb[common:]]
                to_dynamic[id(l)] = DynamicList([], [])
            n = max(len(sa), len(sb))
            sa = sa + [(placeholder_like(sb[i][0]), False) for i in range(len(sa), n)]
            sb = sb + [(placeholder_like(sa[i][0]), False) for i in range(len(sb), n)]
            list_templates.append((to_dynamic.get(id(l), l), _Appended(head, _ListTemplate(
                (join_trees(f"{name}[{i}]", va, vb, pairs, side_names, (None, None), loc),
                 join_trees(f"{name}[{i}] appended", fa, fb, pairs, side_names,
                            (None, None), loc))
                for i, ((va, fa), (vb, fb)) in enumerate(zip(sa, sb))))))
            continue      # (a Python list itself stays as it was before the If)
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
        if isinstance(l, Collector):
            # appends inside a Loop body: an append on one path only is kept with a flag
            # that says whether it happened (masked out of the list after the loop)
            n = max(len(ta), len(tb))
            ta = ta + [(placeholder_like(tb[i][0]), False) for i in range(len(ta), n)]
            tb = tb + [(placeholder_like(ta[i][0]), False) for i in range(len(tb), n)]
            list_templates.append((l, _ListTemplate(
                (join_trees(f"{name}[{i}]", va, vb, pairs, side_names, (None, None), loc),
                 join_trees(f"{name}[{i}] appended", fa, fb, pairs, side_names,
                            (None, None), loc))
                for i, ((va, fa), (vb, fb)) in enumerate(zip(ta, tb)))))
            continue
        if len(ta) == len(tb) and all(x is y for x, y in zip(ta, tb)):
            restore(l, ta)
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
            if isinstance(tmpl, _Appended):
                filled = fill_holes(tmpl.items, outs)
                l.set_contents(list(tmpl.head) + [[v for v, _ in filled],
                                                  [f for _, f in filled]])
            elif type(l) is dict:
                restore(l, {k: fill_holes(v, outs) for k, v in tmpl.items()})
            else:
                restore(l, fill_holes(tmpl, outs))
        for o, attr, tmpl in attr_templates:
            setattr(o, attr, fill_holes(tmpl, outs))

    if left_t and left_e:
        merged[LEFT] = True

    def rebind_dynamic(env):
        """Names of a Python list that got items on one path only now name its
        DynamicList."""
        return {k: to_dynamic.get(id(v), v) if type(v) is list else v for k, v in env.items()}

    if not pairs and not (ctx_t.graph.has_effects() or ctx_e.graph.has_effects()):
        b.env = rebind_dynamic(merged)
        b.locs.update(merged_locs)
        store_objects(())
        return expr_template
    # a branch that updates state takes the state token and gives the next one back
    # (the other branch passes it through): the If keeps its place in the program order
    threads = ctx_t.token_param is not None or ctx_e.token_param is not None
    for ctx, side in ((ctx_t, "a"), (ctx_e, "b")):
        with ctx:
            results = [materialize(ctx, getattr(p, side), p.dtype) for p in pairs]
            if threads:
                results.append(ctx.current_token())
            ctx.graph.set_results(results)
    operands = _unify_params(b.c.param_source, ctx_t, ctx_e)
    if threads:
        for ctx in (ctx_t, ctx_e):
            ctx.token_param.index = len(ctx.graph.params)
            ctx.graph.params.append(ctx.token_param)
        operands.append(outer.current_token())
    node = outer.graph.add_node("If", [outer.lift(cond.value)] + operands,
                                {"then_graph": ctx_t.graph, "else_graph": ctx_e.graph},
                                loc=loc, names=[p.name for p in pairs] +
                                (["state"] if threads else []))
    if threads:
        outer.set_token(node.outputs[-1], wrote=True)
    outs = [GraphTensor(v, weak=p.weak) for v, p in zip(node.outputs, pairs)]
    b.env = rebind_dynamic({k: fill_holes(v, outs) for k, v in merged.items()})
    b.locs.update(merged_locs)
    store_objects(outs)
    return None if expr_template is None else fill_holes(expr_template, outs)


def certainly_left(env) -> bool:
    """Whether every path that reaches this point has returned, broken out, continued
    or raised."""
    return env.get(LEFT) is True or env.get(RAISED) is True or \
        any(env.get(f) is True for f in FLAGS)


def _mirror(other, before):
    """A path that raised, as the path `other` for a join: what `other` has unchanged
    since `before` is kept, the rest replaced by placeholders (nothing reads them: the
    path raised)."""
    if other is before:
        return other
    if type(other) in (list, tuple) and type(before) is type(other) and \
            len(other) == len(before):
        return type(other)(_mirror(x, y) for x, y in zip(other, before))
    if type(other) is dict and type(before) is dict:
        return {k: _mirror(v, before.get(k, _MISSING)) for k, v in other.items()}
    if isinstance(other, MaybeUndefined):
        return Undefined(other.name)
    if type(other) in (list, tuple, dict):
        return type(other)(placeholder_like(other))
    return placeholder_like(other)


def already_left(b: FunctionBuilder):
    """The side of a branch taken by paths that have left (return, break, continue)."""
    b.env[LEFT] = True


def _unbound_where_left(name, mine, other, env):
    """A name's value, for the join, on a side where every path has left while the name
    is unbound there. Such a path reads nothing more in this iteration: if it returned it
    reads nothing more at all (any value will do); if it broke out or continued, a read
    after the loop or in the next iteration must find the name unbound, so it is
    unbound exactly where the path did not return."""
    if not isinstance(mine, Undefined) or isinstance(mine, Unjoinable) or \
            isinstance(other, Undefined):
        return mine
    value = placeholder_like(other.value if isinstance(other, MaybeUndefined) else other)
    if env.get(BRK, False) is False and env.get(CONT, False) is False:
        return value                      # every path here returned
    return MaybeUndefined(name, value, env.get(RET, False))


@dataclass
class _Appended:
    """How a list of run-time length looks after an If: its unchanged head (prefix,
    stacks, masks) and a template of (item, appended-flag) pairs for its tail."""

    head: tuple
    items: list


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
    loc = b.loc(stmts[0])

    def rest():
        for f in (RET, BRK, CONT):
            if isinstance(b.env.get(f), GraphTensor):
                b.env[f] = False
        b.exec_block(stmts)

    branch(b, ops.logical_not(flag), rest, lambda: already_left(b), loc,
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
    if isinstance(op, (ast.In, ast.NotIn)):
        out = _contains(b, right, left, node)
        if isinstance(op, ast.NotIn):
            if isinstance(out, GraphTensor):
                return ops.logical_not(out)
            return not out
        return out
    if isinstance(op, (ast.Is, ast.IsNot)):
        identity = _identity_of_weak_bool(left, right)
        if identity is not None:
            if isinstance(op, ast.IsNot):
                if not isinstance(identity, GraphTensor):
                    return not identity
                identity = ops.logical_not(identity)
                identity.weak = True
            return identity
    return CMPOPS[type(op)](left, right)


def _identity_of_weak_bool(a, b):
    """`flag is True` or `n is 3` where flag or n stands for a Python bool or int (a weak
    graph value), as CPython answers it: True and False are singletons and the ints from
    -5 to 256 are cached, so there identity is equality (of a value of that type); a
    float, or an int outside that range, made while the program runs is a new object."""
    for x, y in ((a, b), (b, a)):
        if not (isinstance(x, GraphTensor) and x.weak):
            continue
        if isinstance(y, GraphTensor) and y.weak:
            if x.dtype.is_bool != y.dtype.is_bool or x.dtype.is_floating or \
                    y.dtype.is_floating:
                return False
            out = ops.equal(x, y)
            if not x.dtype.is_bool:
                out = ops.logical_and(out, ops.logical_and(x >= -5, x <= 256))
        elif isinstance(y, (bool, np.bool_)):
            if not x.dtype.is_bool:
                return False
            out = ops.equal(x, bool(y))
        elif isinstance(y, (int, np.integer)):
            if x.dtype.is_bool or x.dtype.is_floating or not -5 <= int(y) <= 256:
                return False
            out = ops.equal(x, int(y))
        elif isinstance(y, (float, np.floating)):
            return False
        else:
            return None
        out.weak = True
        return out
    return None


def _contains(b, container, x, node):
    if isinstance(x, RuntimeString):
        return contains_text(container, x)
    if isinstance(container, (GraphTensor, DynamicList)) or (
            isinstance(container, (list, tuple)) and involves_tensors(container, x)):
        return contains(container, x, lambda v: condition_value(b, v, node))
    try:
        return x in container
    except TypeError as e:
        if "is not iterable" in str(e):     # MindSpore's sentence ends with a full stop
            raise TypeError(f"{e}.") from None
        raise


# -- return ---------------------------------------------------------------------------------------
def finish_return(b: FunctionBuilder, fndef):
    ret = b.env.get(RET, False)
    rv = b.env.get(RETVAL)
    if ret is False:
        return None
    if isinstance(rv, Undefined):
        raise rv.error(None)
    if ret is True or certainly_left(b.env) or analysis.always_returns(fndef.body):
        return rv
    if rv is None:
        return None
    raise TypeJoinError(
        f"'{fndef.name}' returns a value on some paths and falls off its end (returning None) "
        f"on others, depending on a tensor value", loc=b.loc(fndef.body[-1]),
        names=(fndef.name,), hint="end the function with a return statement")
