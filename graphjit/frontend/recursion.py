"""Recursion whose depth is known only when the graph runs: found while building (a call
re-enters a function with the same Python arguments, so building it would never end),
and built as a Loop when every recursive call is a tail call.

    def f(self, x, n):                  def f(self, x, n):
        if x.sum() > n:                     while True:
            return self.f(x - 1, n)   ->        if x.sum() > n:
        return x                                    x, n = x - 1, n
                                                    continue
                                                return x
"""
from __future__ import annotations

import ast
import copy
import sys
from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np

from ..ir.errors import UnsupportedSyntaxError
from ..common.tensor import Tensor
from .values import DynamicList, GraphTensor

__all__ = ["Activation", "Recursion", "static_key", "find_recursion", "deepest_recursion",
           "tail_loop", "recursion_error", "default_name", "counted_loop", "located"]


@dataclass
class Activation:
    """A user function being built (the builder's call stack)."""

    code: Any            # the function's code object
    name: str
    self_id: int         # id of its self (0 for a plain function)
    key: Any             # its Python arguments and the types of its graph arguments
    ctx: Any             # the graph context it started in


class Recursion(Exception):
    """Raised where a call re-enters a function whose build would never end; caught by
    the first activation of that function, which builds the recursion as a Loop (or
    refuses it). Not a GraphJitError: it only unwinds the build."""

    def __init__(self, first: "Activation", loc, under_condition: bool):
        super().__init__(first.name)
        self.first, self.name = first, first.name   # the activation that builds the Loop
        self.loc, self.under_condition = loc, under_condition


def static_key(args, kwargs) -> Any:
    """What the build of a call depends on: Python values, graph values' types."""
    return (tuple(_key(a) for a in args), tuple(sorted((k, _key(v)) for k, v in
                                                       kwargs.items())))


def _key(v):
    if isinstance(v, GraphTensor):
        return ("graph", v.dtype.name, v.type.shape, v.weak)
    if isinstance(v, DynamicList):
        return ("list", id(v))
    if isinstance(v, (bool, int, float, str, bytes, type(None), np.generic)):
        return (type(v).__name__, v)
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(_key(x) for x in v)
    if isinstance(v, dict):
        return ("dict",) + tuple((k, _key(x)) for k, x in v.items())
    if isinstance(v, Tensor):
        return ("tensor", id(v))
    return ("object", id(v))


def find_recursion(stack: List[Activation], act: Activation, loc) -> Optional[Recursion]:
    """A Recursion if `act` repeats an activation on the stack (same function, same
    arguments as far as the build can tell), else None."""
    for earlier in stack:
        if earlier.code is act.code and earlier.self_id == act.self_id and \
                earlier.key == act.key:
            return Recursion(earlier, loc, act.ctx is not earlier.ctx)
    return None


def deepest_recursion(stack: List[Activation], loc) -> Optional[Recursion]:
    """Where the build nests too deeply: the function with the most activations on the
    stack (its arguments change at every call, so find_recursion missed it)."""
    counts = {}
    for a in stack:
        counts[(a.code, a.self_id)] = counts.get((a.code, a.self_id), 0) + 1
    if not counts:
        return None
    fn, n = max(counts.items(), key=lambda kv: kv[1])
    if n < 2:
        return None
    first = next(a for a in stack if (a.code, a.self_id) == fn)
    return Recursion(first, loc, True)


def default_name(param: str) -> str:
    """The hidden variable holding a parameter's default inside the built loop."""
    return f"<default {param}>"


def recursion_error(name, loc, reason="", call=None) -> UnsupportedSyntaxError:
    call = call or name
    return UnsupportedSyntaxError(
        f"'{name}' calls itself under a condition that depends on a tensor value, so how "
        f"deep the recursion goes is known only when the graph runs" +
        (f"; {reason}" if reason else ""), loc=loc, names=(name,),
        hint=f"write it as a loop (while ...), or let each call call {call}() at most "
             f"once (outside loops and `if` tests) so that graph mode builds Loops")


DEPTH = "_recursion_depth"      # the Loop's count of calls (not a name users write)


def tail_loop(fndef: ast.FunctionDef, name: str, is_method: bool, loc) -> ast.FunctionDef:
    """fndef with its body in a `while True:` loop and each recursive tail call
    `return f(args)` replaced by assigning args to the parameters and `continue`.

    Raises:
        UnsupportedSyntaxError (recursion_error) if a recursive call is not a tail
        call outside loops, or passes *args/**kwargs.
    """
    params = [a.arg for a in fndef.args.posonlyargs + fndef.args.args]
    kwonly = [a.arg for a in fndef.args.kwonlyargs]
    self_name = params[0] if is_method and params else None
    call = f"{self_name}.{name}" if self_name else name

    def refuse(reason):
        return recursion_error(name, loc, reason, call)
    positional = params[1:] if self_name else params
    n_defaults = len(fndef.args.defaults)
    with_default = set(params[len(params) - n_defaults:]) | {
        a.arg for a, d in zip(fndef.args.kwonlyargs, fndef.args.kw_defaults) if d is not None}

    def is_self_call(node):
        if not isinstance(node, ast.Call):
            return False
        f = node.func
        if self_name is not None:
            return isinstance(f, ast.Attribute) and f.attr == name and \
                isinstance(f.value, ast.Name) and f.value.id == self_name
        return isinstance(f, ast.Name) and f.id == name

    new = copy.deepcopy(fndef)
    tail_sites = []

    def rewrite(stmts, in_loop):
        out = []
        for st in stmts:
            if isinstance(st, ast.Return) and is_self_call(st.value):
                if in_loop:
                    raise refuse("a recursive call inside a loop cannot become the loop's "
                                 "next iteration")
                out.extend(_rebind(st, st.value, positional, kwonly, with_default, refuse))
                tail_sites.append(st)
                continue
            for field in ("body", "orelse"):
                block = getattr(st, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt) and \
                        not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef,
                                            ast.ClassDef)):
                    setattr(st, field, rewrite(block, in_loop or (
                        field == "body" and isinstance(st, (ast.For, ast.While)))))
            out.append(st)
        return out

    body = rewrite(new.body, False)
    if not tail_sites:
        raise refuse(f"it is not a tail call (`return {call}(...)`)")
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if is_self_call(node):
            raise refuse(f"not every recursive call is a tail call (`return {call}(...)`)")
    new.body = counted_loop(body, name, fndef)
    return new


def counted_loop(body, name: str, where, test: str = "True") -> list:
    """`DEPTH = 0; while True: <count a call, refuse past the limit>; body`: eager
    Python stops a recursion that never ends with RecursionError; the Loop counts its
    iterations and raises RuntimeError (RecursionError's base, and what MindSpore raises)
    past the same limit: a graph that never ends is no answer."""
    limit = sys.getrecursionlimit()
    guard = ast.parse(
        f"{DEPTH} = {DEPTH} + 1\n"
        f"if {DEPTH} > {limit}:\n"
        f"    raise RuntimeError('maximum recursion depth exceeded: {name!s} called itself "
        f"more than {limit} times (an endless loop?)')\n").body
    start = ast.parse(f"{DEPTH} = 0").body
    test = located([ast.Expr(ast.parse(test, mode="eval").body)], where)[0].value
    loop = ast.While(test=test, body=located(guard, where) + body, orelse=[])
    ast.copy_location(loop, where)
    ast.fix_missing_locations(loop)
    return located(start, where) + [loop]


def located(stmts, where) -> list:
    """Generated statements with every node at where's source location."""
    for st in stmts:
        for sub in ast.walk(st):
            ast.copy_location(sub, where)
    return stmts


def _rebind(ret: ast.Return, call: ast.Call, positional, kwonly, with_default, refuse):
    """`p1, p2, ... = a1, a2, ...; continue` for the tail call `return f(a1, a2, ...)`."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        raise refuse("the recursive call passes *args or **kwargs")
    if len(call.args) > len(positional):
        raise refuse("the recursive call passes too many arguments")
    values = dict(zip(positional, call.args))
    for k in call.keywords:
        values[k.arg] = k.value
    targets, exprs = [], []
    for p in positional + kwonly:
        if p in values:
            e = values[p]
        elif p in with_default:
            e = ast.Name(id=default_name(p), ctx=ast.Load())
        else:
            raise refuse(f"the recursive call does not pass '{p}'")
        targets.append(ast.Name(id=p, ctx=ast.Store()))
        exprs.append(e)
    out = []
    if targets:
        out.append(ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
                              value=ast.Tuple(elts=exprs, ctx=ast.Load())))
    out.append(ast.Continue())
    for st in out:
        ast.copy_location(st, ret)
        ast.fix_missing_locations(st)
    return out
