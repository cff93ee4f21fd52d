"""MindSpore's `mindspore.ops.primitive`: Primitive and the constexpr decorator."""
from __future__ import annotations

import functools

from .primitives import Primitive

__all__ = ["Primitive", "constexpr"]


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Mark a function whose results are computed while the graph is built, from Python
    constants (shapes, dtypes, ints): graphjit evaluates such calls as Python already,
    so the function is returned as it is. Works with or without arguments:
    `@constexpr` and `@constexpr(reuse_result=False)`."""
    def mark(f):
        functools.update_wrapper(f, f)
        f.__graphjit_constexpr__ = True
        return f
    if fn is None:
        return mark
    return mark(fn)
