"""Tracebacks a user reads: graphjit's own frames removed from the errors the public
entry points raise (as JAX's traceback_util.filter_traceback)."""
from __future__ import annotations

import os
import types

from .context import get_context
from .ir.errors import GraphJitError

__all__ = ["user_facing"]

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
