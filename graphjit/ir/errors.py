"""The error classes of graphjit, shared by every layer.

Each class subclasses the Python builtin MindSpore raises for the same mistake,
so `except ValueError` keeps working. Messages are built from structured fields:
a headline, the location in the user's code, details, and a fix.
"""
from __future__ import annotations

from typing import Optional, Sequence

__all__ = [
    "GraphJitError", "ShapeJoinError", "TypeJoinError", "UnsupportedSyntaxError",
    "UndefinedVariableError", "ShapeInferenceError", "OpNotFoundError",
    "MissingInferenceError", "GraphVerificationError", "GraphRuntimeError",
    "EquivalenceError", "ModelFileError", "MissingGradientError",
    "UnregisteredParameterError", "RaiseError",
]


class GraphJitError(Exception):
    """Base of graphjit's errors.

    Args:
        message: the headline: what is wrong.
        loc: the user's statement (a SourceLoc), if known.
        detail: further lines (both sides of a join, where each came from).
        hint: how to fix it.
        names: the user's variables involved.
        extra_locs: more (label, SourceLoc) pairs worth showing.
    """

    def __init__(self, message: str = "", *, loc=None, detail: str = "", hint: str = "",
                 names: Sequence[str] = (), extra_locs: Sequence = ()):
        self.message = message
        self.loc = loc
        self.detail = detail
        self.hint = hint
        self.names = tuple(names)
        self.extra_locs = tuple(extra_locs)
        Exception.__init__(self, message)

    # SyntaxError and NameError have attributes of their own; keep ours authoritative.
    def __str__(self) -> str:
        parts = [self.message]
        if self.loc is not None:
            parts.append(self.loc.render())
        if self.detail:
            parts.append(self.detail)
        for label, loc in self.extra_locs:
            parts.append(f"{label}:\n{loc.render()}")
        if self.hint:
            parts.append(f"Fix: {self.hint}")
        return "\n".join(parts)

    def with_context(self, *, loc=None, names: Sequence[str] = (), detail: str = "",
                     hint: str = "", prefix: str = "") -> "GraphJitError":
        """Fill in what this error does not know yet (first location wins)."""
        if self.loc is None and loc is not None:
            self.loc = loc
        if names and not self.names:
            self.names = tuple(names)
        if detail:
            self.detail = f"{self.detail}\n{detail}" if self.detail else detail
        if hint and not self.hint:
            self.hint = hint
        if prefix:
            self.message = prefix + self.message
        self.args = (self.message,)
        return self

    @property
    def line(self) -> Optional[int]:
        """The user's line (for an error inside a built-in layer, the line that called
        it: the first of the chain the message shows)."""
        if self.loc is None:
            return None
        user = getattr(self.loc, "user", None)
        return user().line if user is not None else self.loc.line


# Where MindSpore raises one builtin for some cases of a mistake and another for the
# rest (a join of branch outputs: TypeError when their types differ, ValueError when
# their shapes do; an operator's inputs: TypeError for dtypes, ValueError for shapes),
# the class is both, so `except` clauses written for MindSpore catch it either way.
class ShapeJoinError(GraphJitError, ValueError, TypeError):
    """Two shapes that must be one (branch outputs, loop-carried values) do not join."""


class TypeJoinError(GraphJitError, TypeError, ValueError):
    """Dtypes or kinds (tensor, number, tuple...) differ where they must be one."""


class UnsupportedSyntaxError(GraphJitError, SyntaxError):
    """Python the graph compiler cannot take."""

    def __init__(self, message: str = "", **kw):
        GraphJitError.__init__(self, message, **kw)
        loc = kw.get("loc")
        if loc is not None:
            self.filename, self.lineno = loc.file, loc.line
        self.msg = message


class UndefinedVariableError(GraphJitError, UnboundLocalError):
    """A name read where it is defined on some paths only, or on none (a NameError;
    an UnboundLocalError, as MindSpore raises for a name some branch did not bind)."""


class ShapeInferenceError(GraphJitError, ValueError, TypeError):
    """An operator's inputs do not fit it (shapes, dtypes or attributes)."""


class OpNotFoundError(GraphJitError, LookupError):
    """No operator of that name is registered."""


class MissingInferenceError(GraphJitError, NotImplementedError):
    """An operator was registered without a shape inference function."""


class MissingGradientError(GraphJitError, NotImplementedError):
    """A gradient was asked through an operator that declares none."""


class UnregisteredParameterError(GraphJitError, ValueError):
    """A graph reads a Parameter that no Cell registers (it would not be trained,
    saved or loaded)."""


class GraphVerificationError(GraphJitError, ValueError):
    """A graph breaks an IR invariant (types, port maps, dominance...)."""


class GraphRuntimeError(GraphJitError, RuntimeError):
    """A kernel failed while a graph ran; names the node and its source line."""


class RaiseError(GraphJitError, RuntimeError):
    """A `raise` graph mode cannot make: a message made from tensor values on a path
    known while the graph is built (MindSpore: "Should not raise with variable under a
    constant condition"), or an exception class that is not a built-in one."""


class UnknownExceptionError(UndefinedVariableError, RaiseError):
    """`raise X(...)` where X is not defined: a NameError (as Python raises) that is also
    MindSpore's RuntimeError "Unsupported exception type"."""


class EquivalenceError(GraphJitError, AssertionError):
    """check_equivalence found graph mode and eager mode disagreeing."""


class ModelFileError(GraphJitError, ValueError):
    """An exported model file is damaged or not a graphjit model.

    Args:
        message: what is wrong.
        path: the file (or a description of the stream) being read.
        part: where in the file: `graph.json`, `arrays/3.npy`, or a path through
            the graph such as `graph 'Net' > node 4 (Loop) > attribute 'body'`.
    """

    def __init__(self, message: str = "", *, path=None, part: Optional[str] = None, **kw):
        self.path = path
        self.part = part
        self.reason = message
        headline = f"{part}: {message}" if part else message
        if path is not None:
            headline = f"cannot load the graphjit model file '{path}': {headline}"
        GraphJitError.__init__(self, headline, **kw)


def _install_str(cls):
    # NameError/SyntaxError define __str__ in C; make ours win in the MRO.
    cls.__str__ = GraphJitError.__str__
    return cls


for _cls in (ShapeJoinError, TypeJoinError, UnsupportedSyntaxError, UndefinedVariableError,
             ShapeInferenceError, OpNotFoundError, MissingInferenceError,
             MissingGradientError, GraphVerificationError, GraphRuntimeError,
             EquivalenceError, ModelFileError, RaiseError, UnknownExceptionError):
    _install_str(_cls)
