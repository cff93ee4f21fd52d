"""MindSpore's `mindspore.ops.function.debug_func`: print_, and the print/assert/check that
run when the graph runs (the front-end calls them)."""
from __future__ import annotations

import numpy as np

from .array_func import cast
from .._dispatch import apply
from .._utils import _t
from ...ir import dtypes as dt
from ...common.tensor import current_recorder, SymbolicTensor

__all__ = ["runtime_print", "runtime_assert", "runtime_check", "print_"]


def runtime_print(args, sep=" ", end="\n"):
    """print(*args) when the graph runs (eagerly: now)."""
    sep, end = " " if sep is None else sep, "\n" if end is None else end
    if not isinstance(sep, str) or not isinstance(end, str):
        raise TypeError(f"print: sep and end must be str or None, got "
                        f"{type(sep).__name__} and {type(end).__name__}")
    tensors, template = [], []
    for a in args:
        if isinstance(a, SymbolicTensor):
            template.append(len(tensors))
            tensors.append(a)
        else:
            template.append(str(a))
    if not tensors:
        recorder = current_recorder()
        if recorder is not None:   # building: print each time the graph runs, as eager mode
            recorder.emit("Print", (), {"template": tuple(template), "sep": sep, "end": end})
        else:
            print(*args, sep=sep, end=end)
        return None
    apply("Print", *tensors, template=tuple(template), sep=sep, end=end)
    return None


def runtime_assert(cond, message=""):
    """Raise AssertionError(message) when the graph runs and cond is false."""
    c = _t(cond)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    if isinstance(c, SymbolicTensor):
        apply("Assert", c, message=message)
        return None
    if not bool(np.all(c._need_data())):
        raise AssertionError(message)
    return None


def runtime_check(ok, error=ValueError, message=""):
    """Raise error(message) where ok is false: now for eager values, when the graph runs
    for graph values."""
    if not (isinstance(error, type) and issubclass(error, BaseException)):
        raise TypeError(f"runtime_check: error must be an exception class, got "
                        f"{type(error).__name__}")
    c = _t(ok)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    if isinstance(c, SymbolicTensor):
        apply("Check", c, error=error.__name__, message=message)
        return None
    if not bool(np.all(c._need_data())):
        raise error(message)
    return None


def print_(*inputs):
    """Print when the program runs (in graph mode: each time the graph runs)."""
    runtime_print(inputs)
    return None
