"""numpy's floating-point error state, set cheaply: kernels run with every error
ignored (overflow, division by zero, invalid values), as eager mode does.

numpy keeps the state in a context variable (numpy >= 2); setting it to a saved
"ignore all" state costs 0.4 us where `with np.errstate(...)` costs 3 us, which is a
third of a small graph's run and most of an eager op's overhead.
(FP_STATE.set(FP_IGNORED) and FP_STATE.reset(token), where FP_STATE is not None, are
what the two functions below do, for callers that cannot afford a function call.)

RUN_IGNORING(fn, *args, **kwargs) calls fn in a context of its own in which the state
ignores every error (contextvars.Context.run): 15 ns where setting and resetting the
state cost 250 ns. fn sees no other context variable set by the caller, so it is only
for functions that read none (numpy's ufuncs); and a context is entered by one caller
at a time: a second entry (another thread, or fn calling RUN_IGNORING) raises
RuntimeError at once, before fn runs, and callers then take ignore_fp_errors.
"""
from __future__ import annotations

import contextvars

import numpy as np

__all__ = ["FP_STATE", "FP_IGNORED", "RUN_IGNORING", "ignore_fp_errors", "restore_fp_errors",
           "ignored_with_buffer"]

try:
    from numpy._core._ufunc_config import _extobj_contextvar as FP_STATE
    with np.errstate(all="ignore"):
        FP_IGNORED = FP_STATE.get()
except (ImportError, AttributeError):      # older numpy: seterr, as errstate does there
    FP_STATE = FP_IGNORED = None

if FP_STATE is not None:
    _IGNORING = contextvars.Context()
    _IGNORING.run(FP_STATE.set, FP_IGNORED)
    RUN_IGNORING = _IGNORING.run
else:
    RUN_IGNORING = None


def ignore_fp_errors():
    """Stop numpy warning about floating-point errors in this thread; returns the
    token that restore_fp_errors takes."""
    if FP_STATE is not None:
        return FP_STATE.set(FP_IGNORED)
    return np.seterr(all="ignore")


def restore_fp_errors(token) -> None:
    """Undo ignore_fp_errors."""
    if FP_STATE is not None:
        FP_STATE.reset(token)
    else:
        np.seterr(**token)


_WITH_BUFFER = {}


def ignored_with_buffer(size: int):
    """FP_IGNORED with numpy's ufunc buffer of `size` elements (a multiple of 16), to
    set as FP_STATE around one ufunc call; None on numpy without FP_STATE."""
    if FP_STATE is None:
        return None
    state = _WITH_BUFFER.get(size)
    if state is None:
        with np.errstate(all="ignore"):
            old = np.setbufsize(size)
            try:
                state = _WITH_BUFFER[size] = FP_STATE.get()
            finally:
                np.setbufsize(old)
    return state
