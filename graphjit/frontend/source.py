"""Getting, dedenting and parsing the source of user functions; SourceLoc making."""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass
from typing import Optional

from ..ir.errors import UnsupportedSyntaxError
from ..ir.loc import SourceLoc

__all__ = ["FunctionSource", "get_source", "SourceLoc", "refuse_iterator_function"]


@dataclass
class FunctionSource:
    """A parsed function: its AST (FunctionDef or Lambda) and how to map AST
    positions back to the user's file."""

    fn: object
    node: ast.AST
    file: str
    line_offset: int   # add to AST line numbers
    col_offset: int    # add to AST column offsets (the removed indent)
    name: str
    lines: tuple = ()  # the lines parsed, as in the file (line_offset + 1 is the first)

    def loc(self, node: ast.AST) -> Optional[SourceLoc]:
        """Where node is in the user's file (kept per node: an unrolled loop asks for
        the same nodes at every step)."""
        locs = self.__dict__.setdefault("_locs", {})
        hit = locs.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        loc = self._make_loc(node)
        locs[id(node)] = (node, loc)
        return loc

    def _make_loc(self, node: ast.AST) -> Optional[SourceLoc]:
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        line = lineno + self.line_offset
        end_line = getattr(node, "end_lineno", None)
        end_line = None if end_line is None else end_line + self.line_offset
        col = node.col_offset + (self.col_offset if lineno > 0 else 0)
        end_col = getattr(node, "end_col_offset", None)
        if end_col is not None:
            end_col += self.col_offset
        # the text parsed, not the file as it is now (edited, moved, or gone from linecache)
        i = line - self.line_offset - 1
        text = self.lines[i] if 0 <= i < len(self.lines) else linecache.getline(self.file, line)
        return SourceLoc(self.file, line, col, end_line, end_col, self.name, text.rstrip("\n"))


_CACHE = {}


def get_source(fn) -> FunctionSource:
    """Parse the source of a function or method.

    Raises:
        UnsupportedSyntaxError: the source cannot be found (built in a REPL, by exec,
            or a C function) or is not a plain function.
    """
    code = getattr(fn, "__code__", None)
    # equal code objects can come from different files (== ignores the file name)
    key = (code, code.co_filename) if code is not None else fn
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    try:
        lines, start = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as e:
        raise UnsupportedSyntaxError(
            f"cannot read the source of {getattr(fn, '__qualname__', fn)!r} ({e})",
            hint="define the function in a .py file; graph mode builds graphs from source") \
            from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = 0
    for a, b in zip(raw.splitlines(), text.splitlines()):
        if b.strip():
            indent = len(a) - len(b)
            break
    is_lambda = code is not None and code.co_name == "<lambda>"
    try:
        tree = ast.parse(text)
    except SyntaxError:
        if not is_lambda:
            raise UnsupportedSyntaxError(
                f"cannot parse the source of {fn.__qualname__}") from None
        tree = None
    node = None
    if is_lambda:
        node = _find_lambda(tree, text, code, start, indent)
        if node is None:
            raise UnsupportedSyntaxError(
                "cannot find this lambda's source unambiguously",
                hint="use a def function instead of a lambda")
    else:
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == code.co_name:
                node = n
                break
        if node is None:
            raise UnsupportedSyntaxError(f"cannot find the definition of {fn.__qualname__}")
    src = FunctionSource(fn, node, file, start - 1, indent, code.co_name if code else str(fn),
                         tuple(lines))
    _CACHE[key] = src
    return src


def _find_lambda(tree, text, code, first_line=1, indent=0):
    """The ast.Lambda of code in text (whose first line is first_line of the file and
    which was dedented by indent columns), or None if it cannot be told apart."""
    line0, col0 = 0, indent    # where the parsed text starts, relative to `text`
    if tree is None:
        # the lambda sits inside a larger expression: try to parse from 'lambda'
        i = text.find("lambda")
        for end in range(len(text), i, -1):
            try:
                tree = ast.parse("(" + text[i:end] + ")")
                break
            except SyntaxError:
                continue
        if tree is None:
            return None
        line0 = text.count("\n", 0, i)
        col0 = indent + i - (text.rfind("\n", 0, i) + 1) - 1    # the "(" added in front
    nargs = code.co_argcount
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
             len(n.args.args) == nargs]
    if len(found) > 1:
        # several lambdas (a list of them, or a lambda beside another one on the next
        # line): keep the one whose body holds the positions of the code's instructions
        found = [n for n in found if _holds(n.body, code, first_line + line0, col0, indent)]
    return found[0] if len(found) == 1 else None


def _holds(body, code, line_base, col_first, col_rest):
    """Whether every source position of code's instructions lies inside body (a node of
    text parsed with its line 1 at line_base of the file; columns shifted by col_first on
    that line, by col_rest on the others)."""
    def pos(line, col):
        return (line_base + line - 1, col + (col_first if line == 1 else col_rest))
    start = pos(body.lineno, body.col_offset)
    end = pos(body.end_lineno, body.end_col_offset)
    seen = False
    for line, end_line, col, end_col in code.co_positions():
        if line is None or col is None or (line, col) == (end_line, end_col):
            continue    # no position, or an empty one (RESUME, the implicit return)
        seen = True
        if not (start <= (line, col) and (end_line, end_col) <= end):
            return False
    return seen


def refuse_iterator_function(fn, src: FunctionSource) -> None:
    """Refuse a generator or coroutine function: calling it gives an iterator or a
    coroutine object, no values a graph computes.

    Raises:
        UnsupportedSyntaxError: at its first yield or await (its def if none).
    """
    if not (inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or
            inspect.isasyncgenfunction(fn)):
        return
    gen = inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)
    is_async = inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn)
    kind = "a generator (it contains yield)" if gen else "a coroutine (async def)"
    if inspect.isasyncgenfunction(fn):
        kind = "an async generator (async def with yield)"
    found = [n for n in ast.walk(src.node) if isinstance(
        n, (ast.Yield, ast.YieldFrom, ast.Await))]
    where = min(found, key=lambda n: (n.lineno, n.col_offset)) if found else src.node
    gives = "an iterator" if gen else "a coroutine object"
    hint = "return a tuple or list of the values instead of yielding them"
    if is_async:
        hint = (f"define it with a plain `def {fn.__name__}` (graph mode runs no "
                f"coroutines: drop `async`" + (" and `await`" if any(
                    isinstance(n, ast.Await) for n in found) else "") + ")" +
                ("; return a tuple or list of the values instead of yielding them"
                 if gen else ""))
    raise UnsupportedSyntaxError(
        f"'{fn.__name__}' is {kind}; calling it returns {gives}, not values a graph "
        f"can compute", loc=src.loc(where), names=(fn.__name__,), hint=hint)
