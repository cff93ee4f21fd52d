"""`raise` and `assert` in a compiled function.

On a path known while the graph is built (no enclosing condition or loop depends on a
tensor value) they raise then, as Python, unless the graph built so far has effects (a
Raise on a tensor-chosen path, a print, a state update): eager mode does those first,
so the exception waits for the run as a Raise node. On a path chosen by tensor values they
become a Raise node in that path's branch or loop body: the exception, with its
message formatted from the run's values, is raised when the graph runs and takes
that path.

    if x > 5:                            If(x > 5)
        raise ValueError(f"big: {x}")      then: Raise[ValueError("big: {x}")](x)
    return x + 1                         Add(x, 1)

After it, the path has left (state.RAISED): nothing more is built on it, and where it
joins another path the names take that path's values.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .. import ops
from ..ir.errors import (RaiseError, UndefinedVariableError, UnknownExceptionError,
                         UnsupportedSyntaxError)
from ..ir.text import exception_class
from .control_flow import branch, condition_value
from .state import LEFT, RAISED
from .strings import encode, has_runtime
from .values import GraphTensor, active

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["build_raise", "build_assert", "mark_raised", "raise_exception"]

_NO_CAUSE = object()


def _instance(x, what):
    if isinstance(x, type) and issubclass(x, BaseException):
        return x()
    if not isinstance(x, BaseException):
        raise TypeError(f"exceptions must derive from BaseException ({what} is "
                        f"{type(x).__name__})")
    return x


def mark_raised(b: FunctionBuilder) -> None:
    """Every path reaching this point of b has raised."""
    b.env[RAISED] = True
    b.env[LEFT] = True


def build_raise(b: FunctionBuilder, node: ast.Raise):
    if node.exc is None:
        raise UnsupportedSyntaxError(
            "a bare 'raise' re-raises the exception being handled, and a compiled function "
            "handles none (it has no try/except)", loc=b.loc(node),
            hint="raise an exception: raise ValueError(...)")
    try:
        exc = _instance(b.eval(node.exc), "the raised value")
    except UndefinedVariableError as e:
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(target, ast.Name) and e.names == (target.id,):
            # MindSpore: RuntimeError "Unsupported exception type"; Python: NameError
            raise UnknownExceptionError(
                f"Unsupported exception type: {target.id}: name '{target.id}' is not "
                f"defined", loc=b.loc(node), names=(target.id,), hint=e.hint) from None
        raise
    cause = _NO_CAUSE
    if node.cause is not None:
        cause = b.eval(node.cause)
        if cause is not None:
            cause = _instance(cause, "the cause")
    raise_exception(b, exc, cause, node)


def raise_exception(b: FunctionBuilder, exc, cause, node):
    """Raise exc (from cause) now if this path is known while building, else build a
    Raise node and mark the path raised."""
    values = exc.args + (() if cause in (_NO_CAUSE, None) else cause.args)
    ctx = active()
    known_path = ctx.parent is None
    if (known_path and not has_runtime(values) and _rebuildable(exc, cause)
            and ctx.graph.has_effects()):
        # the graph built so far does something when it runs (a Raise on a path chosen
        # by tensor values, a check, a print, a state update): in eager mode that comes
        # first, so this exception must wait for the run too, not be raised while building
        known_path = False
    if known_path:
        if has_runtime(values):
            raise RaiseError(
                "Should not raise with variable under a constant condition: the exception's "
                "message is made from tensor values, on a path taken whatever they are",
                loc=b.loc(node),
                hint="raise it under a condition that depends on a tensor (if x > 5: "
                     "raise ...), or leave the tensor out of the message")
        if cause is _NO_CAUSE:
            raise exc
        raise exc from cause
    inputs = []
    attrs = {"exception": _spec(exc, inputs, b, node), "cause": None, "from_none": False}
    if cause is None:
        attrs["from_none"] = True
    elif cause is not _NO_CAUSE:
        attrs["cause"] = _spec(cause, inputs, b, node)
    GraphTensor._apply("Raise", tuple(inputs), attrs)
    mark_raised(b)


def _rebuildable(exc, cause) -> bool:
    """Whether a Raise node can raise exc (from cause) when the graph runs: built-in
    exception classes only."""
    return all(exception_class(type(e).__name__) is type(e)
               for e in (exc, cause) if e not in (_NO_CAUSE, None))


def _spec(exc, inputs, b, node):
    cls = type(exc)
    if exception_class(cls.__name__) is not cls:
        raise RaiseError(
            f"Unsupported exception type: {cls.__name__}. Only built-in exception classes "
            f"can be raised when the graph runs (on a path chosen by tensor values)",
            loc=b.loc(node), names=(cls.__name__,),
            hint=f"raise a built-in class (ValueError, RuntimeError, ...), or derive "
                 f"nothing: {cls.__name__} cannot be rebuilt when the graph runs")
    return cls.__name__, encode(exc.args, inputs)


def build_assert(b: FunctionBuilder, node: ast.Assert):
    """assert test, msg: AssertionError(msg) where test is false (a Python test on a path
    known while building raises now; a graph test or a path chosen by tensors, when the
    graph runs)."""
    test = b.eval(node.test)
    cond = condition_value(b, test, node.test)
    if isinstance(cond, GraphTensor):
        where = b.loc(node)
        located = f"(assert at {where.file}:{where.line}: `{where.text.strip()}`)"
        msg = None if node.msg is None else b.eval(node.msg)
        if not has_runtime(msg):
            text = "" if msg is None else msg if isinstance(msg, str) else str(msg)
            GraphTensor._apply("Assert", (cond,), {"message": text, "note": located})
            return
        branch(b, ops.logical_not(cond),
               lambda: raise_exception(b, AssertionError(msg), _NO_CAUSE, node),
               lambda: None, b.loc(node), ("failing assert", "passing assert"))
        return
    if cond:
        return
    msg = None if node.msg is None else b.eval(node.msg)
    raise_exception(b, AssertionError() if msg is None else AssertionError(msg), _NO_CAUSE,
                    node)


