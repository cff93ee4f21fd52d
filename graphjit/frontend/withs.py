"""`with` on objects of @jit_class classes: __enter__ and __exit__ are built from their
source like any method, in Python's order.

    with mgr as v:          v = mgr.__enter__()
        body                body (return, break, continue: flags, as anywhere)
                            mgr.__exit__(None, None, None)

An exception raised while the graph is built (a path known then) reaches __exit__ as
Python passes it: __exit__(type, value, None), and a true result (known while
building) suppresses it. A raise on a path chosen by tensor values happens when the
graph runs, where __exit__ cannot see it: refused unless __exit__ has no effect a run
can see and returns a false constant (it would neither act nor suppress).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ir.errors import GraphJitError, UnsupportedSyntaxError
from .calls import call
from .control_flow import condition_value
from .values import GraphTensor, active

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["build_with"]


def _count(ctx, pred) -> int:
    """How many nodes of ctx's graph (and its subgraphs) satisfy pred."""
    n, stack = 0, [ctx.graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            n += bool(pred(node))
            stack.extend(v for v in node.attrs.values() if hasattr(v, "nodes"))
    return n


def _is_raise(node):
    return node.op == "Raise"


def _has_effects(node):
    return node.effects()


def build_with(b: FunctionBuilder, node: ast.With):
    _enter(b, node, 0)


def _enter(b: FunctionBuilder, node: ast.With, i: int):
    if i == len(node.items):
        b.exec_block(node.body)
        return
    item = node.items[i]
    mgr = b.eval(item.context_expr)
    cls = type(mgr)
    if not getattr(cls, "_graphjit_jit_class", False):
        raise UnsupportedSyntaxError(
            f"with is not supported in graph mode on an object of class {cls.__name__}: only "
            f"objects of @jit_class classes, whose __enter__ and __exit__ graphjit builds "
            f"from source, can be used in a with statement", loc=b.loc(node),
            hint="move the with-block outside the compiled function, or mark the class "
                 "@jit_class")
    for name in ("__enter__", "__exit__"):
        if not hasattr(cls, name):
            raise TypeError(f"'{cls.__name__}' object does not support the context manager "
                            f"protocol (missing {name})")
    value = call(b, getattr(mgr, "__enter__"), [], {}, item.context_expr)
    if item.optional_vars is not None:
        b.assign(item.optional_vars, value, node)
    raises_before = _count(active(), _is_raise)
    try:
        _enter(b, node, i + 1)
    except GraphJitError:
        raise
    except Exception as e:       # raised while building, on a path known then
        result = call(b, getattr(mgr, "__exit__"), [type(e), e, None], {}, node)
        suppress = condition_value(b, result, node)
        if isinstance(suppress, GraphTensor):
            raise UnsupportedSyntaxError(
                f"{cls.__name__}.__exit__ decides from tensor values whether to suppress an "
                f"exception raised in the with-block", loc=b.loc(node),
                hint="return a Python bool from __exit__") from e
        if suppress:
            return
        raise
    raised = _count(active(), _is_raise) != raises_before
    effects_before = _count(active(), _has_effects)
    result = call(b, getattr(mgr, "__exit__"), [None, None, None], {}, node)
    if raised and (_count(active(), _has_effects) != effects_before or
                   isinstance(result, GraphTensor) or result):
        # the Raise node skips __exit__: fine only where __exit__ does nothing a run can
        # see and does not suppress exceptions
        raise UnsupportedSyntaxError(
            f"a raise on a path chosen by tensor values inside a with-block on a "
            f"{cls.__name__}: it happens when the graph runs, where {cls.__name__}.__exit__ "
            f"(which prints, updates state or may suppress it) cannot receive it",
            loc=b.loc(node),
            hint="raise after the with-block, or under a condition known while building")
