"""Tracebacks a user reads: graphjit's own frames removed from the errors the public
entry points raise (as JAX's traceback_util.filter_traceback), and, in eager mode, the
chain of calls from the user's line into a built-in layer (graph mode keeps it while
building: frontend/builder.py gives a layer's locations their caller)."""
from __future__ import annotations

import linecache
import os
import sys
import types
from typing import List, Optional

from .context import get_context
from .ir.errors import GraphJitError
from .ir.loc import SourceLoc

__all__ = ["user_facing", "eager_chain", "chain_of_traceback", "user_loc", "chain_around"]

_ROOT = os.path.dirname(os.path.abspath(__file__))


def user_facing(e: BaseException) -> BaseException:
    """The exception with graphjit's own frames removed from its traceback, unless
    set_context(show_internal_frames=True). A public entry point raises the result, so
    its frame is the one graphjit frame left. Errors of our own making (a bug) keep
    their frames: they are not the user's to read."""
    if get_context("show_internal_frames"):
        return e
    internal = isinstance(e, (KeyError, AttributeError, IndexError, AssertionError)) and \
        not getattr(e, "_graphjit_noted", False) and not isinstance(e, GraphJitError)
    if internal:
        return e
    tb = e.__traceback__
    kept = []
    while tb is not None:
        if not _is_graphjit_file(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    new_tb = None
    for t in reversed(kept):
        new_tb = types.TracebackType(new_tb, t.tb_frame, t.tb_lasti, t.tb_lineno)
    e.__suppress_context__ = True
    return e.with_traceback(new_tb)


def _is_graphjit_file(path: str) -> bool:
    return os.path.abspath(path).startswith(_ROOT + os.sep)


# -- the chain of calls in eager mode ------------------------------------------------------------
def _frame_loc(frame, lineno: int, lasti: int) -> SourceLoc:
    code = frame.f_code
    col, end_line, end_col = 0, None, None
    try:
        pos = list(code.co_positions())[lasti // 2] if lasti >= 0 else None
    except (IndexError, AttributeError):  # no position table (Python < 3.11)
        pos = None
    if pos is not None and pos[0] == lineno and pos[2] is not None:
        end_line, col, end_col = pos[1], pos[2], pos[3]
    text = linecache.getline(code.co_filename, lineno).rstrip("\n")
    return SourceLoc(code.co_filename, lineno, col, end_line, end_col, code.co_name, text)


def _chain(frames) -> Optional[SourceLoc]:
    """frames: (frame, lineno, lasti) outermost first. The innermost line of the user's
    that led into graphjit's layers, with the lines of the layers' `construct` methods
    it went through as a SourceLoc chain (the innermost one returned, each with its
    caller); None when no layer is involved."""
    frames = list(frames)
    user = None
    for k in range(len(frames) - 1, -1, -1):
        if not _is_graphjit_file(frames[k][0].f_code.co_filename):
            user = k
            break
    if user is None:
        return None
    loc = _frame_loc(*frames[user])
    inner = [f for f in frames[user + 1:] if f[0].f_code.co_name == "construct"]
    if not inner:
        return None
    for f in inner:
        loc = _frame_loc(*f).with_caller(loc)
    return loc


def eager_chain(skip: int = 1) -> Optional[SourceLoc]:
    """The chain of calls on the current Python stack from the user's line into the
    built-in layer now running (see _chain), for an error a layer raises in eager mode.

    Args:
        skip: frames to leave out at the top (this function's callers in graphjit).
    """
    frames = []
    f = sys._getframe(skip)
    while f is not None:
        frames.append((f, f.f_lineno, f.f_lasti))
        f = f.f_back
    return _chain(frames[::-1])


def chain_of_traceback(tb) -> Optional[SourceLoc]:
    """The same chain, from an exception's traceback (an eager error raised below a
    layer: a kernel's, a shape check's)."""
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno, tb.tb_lasti))
        tb = tb.tb_next
    # the frames below the innermost construct are graphjit's ops: cut them
    last = max((i for i, fr in enumerate(frames) if fr[0].f_code.co_name == "construct" and
                _is_graphjit_file(fr[0].f_code.co_filename)), default=None)
    if last is None:
        return None
    return _chain(frames[:last + 1])


def user_loc(skip: int = 1) -> Optional[SourceLoc]:
    """The innermost line of the user's on the current Python stack (the one that called
    into graphjit), or None."""
    f = sys._getframe(skip)
    while f is not None:
        if not _is_graphjit_file(f.f_code.co_filename):
            return _frame_loc(f, f.f_lineno, f.f_lasti)
        f = f.f_back
    return None


def chain_around(tb, skip: int = 1) -> Optional[SourceLoc]:
    """The chain of calls of an error caught in graphjit (eager mode): the frames above
    the catching one (the user's line) and those of its traceback below it (the
    layers' construct lines)."""
    above = []
    f = sys._getframe(skip)
    while f is not None:
        above.append((f, f.f_lineno, f.f_lasti))
        f = f.f_back
    below = []
    while tb is not None:
        below.append((tb.tb_frame, tb.tb_lineno, tb.tb_lasti))
        tb = tb.tb_next
    if below and above and below[0][0] is above[0][0]:
        above = above[1:]
    frames = above[::-1] + below
    last = max((i for i, fr in enumerate(frames) if fr[0].f_code.co_name == "construct" and
                _is_graphjit_file(fr[0].f_code.co_filename)), default=None)
    return None if last is None else _chain(frames[:last + 1])
