"""Source locations of the user's code, carried by nodes and by errors."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

__all__ = ["SourceLoc"]


@dataclass(frozen=True)
class SourceLoc:
    """Where in the user's file a node or an error comes from.

    `text` is the full source line (as in the file, not dedented); columns are
    0-based offsets into that line, as in `ast`.
    """

    file: str
    line: int
    col: int = 0
    end_line: Optional[int] = None
    end_col: Optional[int] = None
    function: str = ""
    text: str = ""

    def short(self) -> str:
        import os
        return f"{os.path.basename(self.file)}:{self.line}"

    def render(self) -> str:
        """`File "f.py", line 12, in construct` plus the line and a caret underline."""
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
