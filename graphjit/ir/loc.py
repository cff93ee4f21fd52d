"""Source locations of the user's code, carried by nodes and by errors."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import List, Optional

__all__ = ["SourceLoc"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass(frozen=True)
class SourceLoc:
    """Where in the user's file a node or an error comes from.

    `text` is the full source line (as in the file, not dedented); columns are
    0-based offsets into that line, as in `ast`. `caller` is, for a line of one of
    graphjit's own layers or functions, the line that called it (the user's, or
    another library line with its own caller): the chain of calls MindSpore prints
    as "The Traceback of Net Construct Code". It takes no part in equality.
    """

    file: str
    line: int
    col: int = 0
    end_line: Optional[int] = None
    end_col: Optional[int] = None
    function: str = ""
    text: str = ""
    caller: Optional["SourceLoc"] = field(default=None, compare=False, repr=False)

    @property
    def in_library(self) -> bool:
        """Whether this line is in graphjit's own files (a built-in layer...)."""
        return os.path.abspath(self.file).startswith(_PACKAGE)

    def with_caller(self, caller: Optional["SourceLoc"]) -> "SourceLoc":
        return self if caller is None else replace(self, caller=caller)

    def chain(self) -> List["SourceLoc"]:
        """The calls that led here, outermost (the user's line) first, this one last."""
        out, loc = [], self
        while loc is not None and len(out) < 64:
            out.append(loc)
            loc = loc.caller
        return out[::-1]

    def user(self) -> "SourceLoc":
        """The innermost line of the chain that is the user's (not graphjit's own);
        this one if there is none."""
        loc = self
        while loc is not None:
            if not loc.in_library:
                return loc
            loc = loc.caller
        return self

    def short(self) -> str:
        import os
        return f"{os.path.basename(self.file)}:{self.line}"

    def render(self) -> str:
        """`File "f.py", line 12, in construct` plus the line and a caret underline;
        with a caller, the whole chain of calls, outermost first."""
        if self.caller is not None:
            return "\n".join(loc._render_one() for loc in self.chain())
        return self._render_one()

    def _render_one(self) -> str:
        head = f'  File "{self.file}", line {self.line}, column {self.col + 1}'
        if self.function:
            head += f", in {self.function}"
        if not self.text:
            return head
        line = self.text.rstrip("\n")
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        start = max(self.col - indent, 0)
        if self.end_line == self.line and self.end_col is not None:
            width = max(self.end_col - self.col, 1)
        else:
            width = max(len(line) - self.col, 1)
        width = min(width, max(len(stripped) - start, 1))
        return f"{head}\n    {stripped}\n    {' ' * start}{'^' * width}"
