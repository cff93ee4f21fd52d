"""Linear recursion whose depth is known only when the graph runs (one recursive call on
each path, not in tail position), built as two loops over an explicit stack: the first
runs each call's code up to its recursive call and pushes the frame (which call site, the
locals the rest of that call reads), the second pops the frames and runs the rest of
each call with the inner call's result.

    def f(x):                           def f(x):
        if x > 0:                           sites = []; saved_x = []
            return x * f(x - 1)             while True:                 # descend
        return ONE                              if x > 0:
                                                    sites.append(0); saved_x.append(x)
                                                    x = x - 1; continue
                                                result = ONE; break
                                            i = len(sites) - 1
                                            while i >= 0:               # return
                                                x = saved_x[i]; i = i - 1
                                                result = x * result; continue
                                            return result

Calls in a loop, in an `if` test, two calls on one path, or a `return` inside a loop
are refused (recursion.recursion_error).
"""
from __future__ import annotations

import ast
import copy
from typing import Callable, List, Set, Tuple

import numpy as np

from ..common.tensor import Tensor
from . import analysis
from .recursion import _rebind, counted_loop, located, recursion_error
from .values import GraphTensor, active

__all__ = ["linear_loop", "frame_constants"]

RESULT = "_recursion_result"
SITES = "_recursion_sites"
INDEX = "_recursion_index"
SITE = "_recursion_site"
GO = "_recursion_go"
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _walk(node):
    """ast.walk without entering nested functions, classes and lambdas."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _NESTED):
                todo.append(c)


def _names(node, ctx) -> Set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


class _Call(ast.NodeTransformer):
    """Replaces the recursive call by the name RESULT."""

    def __init__(self, call):
        self.call = call

    def visit_Call(self, node):
        if node is self.call:
            return ast.copy_location(ast.Name(id=RESULT, ctx=ast.Load()), node)
        return self.generic_visit(node)


def _needed(stmts) -> Set[str]:
    """Names the statements read before they assign them (at their top level)."""
    defined, needed = set(), set()
    for st in stmts:
        if isinstance(st, ast.Assign):
            needed |= _names(st.value, ast.Load) - defined
            for t in st.targets:
                needed |= _names(t, ast.Load) - defined
                defined |= _names(t, ast.Store)
        elif isinstance(st, ast.AugAssign):
            needed |= (_names(st.value, ast.Load) | _names(st.target, ast.Store)) - defined
        else:
            needed |= _names(st, ast.Load) - defined
    return needed - {RESULT}


def linear_loop(fndef: ast.FunctionDef, name: str, is_method: bool, loc,
                refuse_as: Exception) -> ast.FunctionDef:
    """fndef rebuilt as a descending and a returning loop (see the module docstring).

    Raises:
        refuse_as: the recursion is not linear in the way described above.
    """
    a = fndef.args
    params = [p.arg for p in a.posonlyargs + a.args]
    kwonly = [p.arg for p in a.kwonlyargs]
    self_name = params[0] if is_method and params else None
    positional = params[1:] if self_name else params
    call_text = f"{self_name}.{name}" if self_name else name
    with_default = set(params[len(params) - len(a.defaults):]) | {
        p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}

    def refuse(reason):
        return recursion_error(name, loc, reason, call_text)
    if a.vararg or a.kwarg:
        raise refuse("it takes *args or **kwargs")

    def is_self_call(node):
        if not isinstance(node, ast.Call):
            return False
        f = node.func
        if self_name is not None:
            return isinstance(f, ast.Attribute) and f.attr == name and \
                isinstance(f.value, ast.Name) and f.value.id == self_name
        return isinstance(f, ast.Name) and f.id == name

    def calls(node) -> List[ast.Call]:
        return [n for n in _walk(node) if is_self_call(n)]

    # each site: (its statement, the call, [(block, index)] from the body inwards)
    sites: List[Tuple[ast.stmt, ast.Call, list]] = []

    def scan(block, chain):
        for i, st in enumerate(block):
            found = calls(st)
            if not found:
                continue
            if isinstance(st, ast.If) and calls(st.test):
                raise refuse("it calls itself in an `if` test")
            if isinstance(st, ast.If):
                scan(st.body, chain + [(block, i)])
                scan(st.orelse, chain + [(block, i)])
            elif not isinstance(st, (ast.If, ast.Return, ast.Assign, ast.AugAssign,
                                     ast.Expr)):
                raise refuse(f"it calls itself inside a `{type(st).__name__.lower()}` "
                             f"statement")
            elif len(found) != 1:
                raise refuse("it can call itself more than once in one call")
            else:
                sites.append((st, found[0], chain + [(block, i)]))

    body = fndef.body
    scan(body, [])
    if not sites:
        raise refuse_as
    for outer in (ast.For, ast.While, ast.AsyncFor, ast.Try, ast.With):
        for n in _walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(n, outer) and any(isinstance(r, ast.Return) for r in _walk(n)):
                raise refuse("it returns from inside a loop")

    local = set(positional) | set(kwonly) | _names(ast.Module(body=body, type_ignores=[]),
                                                    ast.Store)
    local.discard(self_name)
    rest, saved = [], []
    for k, (st, call, chain) in enumerate(sites):
        memo = {}
        mine = copy.deepcopy(st, memo)
        cont = [_Call(memo[id(call)]).visit(mine)]
        for block, i in reversed(chain):
            cont += copy.deepcopy(block[i + 1:])
        if calls(ast.Module(body=cont, type_ignores=[])):
            raise refuse("it can call itself more than once in one call")
        rest.append(cont)
        saved.append(sorted(_needed(cont) & local))

    def gen(text) -> list:
        return located(ast.parse(text).body, fndef)

    def returns_to(stmts, after: Callable[[], ast.stmt]):
        """Each `return v` as `RESULT = v; <after>` (break or continue)."""
        out = []
        for st in stmts:
            if isinstance(st, ast.Return):
                value = st.value or ast.copy_location(ast.Constant(None), st)
                assign = ast.Assign(targets=[ast.Name(id=RESULT, ctx=ast.Store())],
                                    value=value)
                out += [ast.copy_location(assign, st), ast.copy_location(after(), st)]
                continue
            if isinstance(st, ast.If):
                st.body = returns_to(st.body, after) or gen("pass")
                st.orelse = returns_to(st.orelse, after)
            out.append(st)
        return out

    # the descending loop: each site pushes its frame and calls again (as a tail call)
    def descend(stmts):
        out = []
        for st in stmts:
            k = site_of.get(id(st))
            if k is not None:
                out += gen(f"{SITES}.append({SITE}_{k})")
                out += [gen(f"_recursion_{k}_{v}.append({v})")[0] for v in saved[k]]
                out += _rebind(st, sites[k][1], positional, kwonly, with_default, refuse)
                continue
            if isinstance(st, ast.If):
                st.body = descend(st.body) or gen("pass")
                st.orelse = descend(st.orelse)
            out.append(st)
        return out

    memo = {}
    down = copy.deepcopy(body, memo)
    site_of = {id(memo[id(st)]): k for k, (st, _, _) in enumerate(sites)}
    down = returns_to(descend(down), ast.Break)
    if not analysis.always_returns(down):
        down += gen(f"{RESULT} = None\nbreak")
    start = gen(f"{SITES} = []")
    for k, names in enumerate(saved):
        start += [gen(f"_recursion_{k}_{v} = []")[0] for v in names]

    # the returning loop: pop a frame, run the rest of its call
    back = gen(f"{INDEX} = len({SITES}) - 1")
    for k, names in enumerate(saved):
        if names:
            back += gen(f"_recursion_{k}_n = len(_recursion_{k}_{names[0]})")
    cases = []
    for k, names in enumerate(saved):
        case = []
        if names:
            case += gen(f"_recursion_{k}_n = _recursion_{k}_n - 1")
            case += [gen(f"{v} = _recursion_{k}_{v}[_recursion_{k}_n]")[0] for v in names]
        case += returns_to(rest[k], ast.Continue)
        if not analysis.always_returns(rest[k]):
            case += gen(f"{RESULT} = None\ncontinue")
        cases.append(case)
    dispatch = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
        test = located([ast.Expr(ast.parse(f"{SITE} == {k}", mode="eval").body)], fndef)
        dispatch = [ast.copy_location(ast.If(test=test[0].value, body=cases[k],
                                             orelse=dispatch), fndef)]
    step = gen(f"{SITE} = {SITES}[{INDEX}]\n{INDEX} = {INDEX} - 1")
    test = located([ast.Expr(ast.parse(f"{INDEX} >= 0", mode="eval").body)], fndef)
    back.append(ast.copy_location(ast.While(test=test[0].value, body=step + dispatch,
                                            orelse=[]), fndef))
    back += gen(f"return {RESULT}")

    new = copy.deepcopy(fndef)
    # the site numbers pushed are tensors: a Loop carries lists of tensors only
    new.constants = {f"{SITE}_{k}": Tensor(np.array(k, np.int32)) for k in range(len(sites))}
    # GO: a True known only when the graph runs (given by the builder), so that the
    # descent is a Loop from its first iteration (frames pushed under a condition)
    site_ids = {id(st) for st, _, _ in sites}

    def always_recurses(stmts) -> bool:
        for st in stmts:
            if id(st) in site_ids:
                return True
            if isinstance(st, ast.Raise):
                return True             # leaves without a result, as a call does
            if isinstance(st, ast.Return):
                return False
            if isinstance(st, ast.If) and always_recurses(st.body) and \
                    always_recurses(st.orelse):
                return True
        return False

    descent = start + counted_loop(down, name, fndef, GO)
    if always_recurses(body):
        # every path calls again: the descent ends only at the depth limit (a Raise)
        back = gen(f"raise RuntimeError('maximum recursion depth exceeded: {name} never "
                   f"returns without calling itself (an endless loop)')")
    new.body = descent + back
    ast.fix_missing_locations(new)
    return new


def frame_constants(node) -> dict:
    """The names linear_loop's function reads besides the user's: the site numbers, and
    GO (built here, in the graph being built)."""
    return {**node.constants, GO: GraphTensor(active().const(np.array(True)))}
