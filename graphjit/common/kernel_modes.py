"""How an eager op's cached kernel is called: the cheapest call that gives the same
array as `np.asarray(kernel(*arrays))` under numpy's "ignore floating-point errors"
state (what eager mode has always run).

- GENERAL: any kernel, run under the ignore state; a scalar result becomes an array.
- UFUNC: a one-output ufunc, called with `out=...` (numpy >= 2.3), which returns a 0-d
  result as an array: the same values without the np.asarray after it; its result's
  dtype is known from the input dtypes (ufunc.resolve_dtypes). It runs through
  ir.fp_errors.RUN_IGNORING (a ufunc reads no context variable but numpy's error state),
  or under ignore_fp_errors when that context is taken.
- PURE: the kernel of a built-in op of PURE_OPS, whose kernels are numpy calls only (no
  Python callback, no context variable read but numpy's error state, no effect): run
  through RUN_IGNORING as UFUNC, its result made an array and its dtype looked up.
- QUIET: such a ufunc over integer and bool inputs only, from NO_FP_ERRORS: its loops
  set no floating-point error flag, so numpy's error state is not touched at all (the
  same warnings: none). tests/ops/test_eager_fast.py checks the list under "raise".
"""
from __future__ import annotations

import numpy as np

from ..ir.fp_errors import RUN_IGNORING

__all__ = ["GENERAL", "PURE", "UFUNC", "QUIET", "OUT_ARRAY", "NO_FP_ERRORS", "PURE_OPS",
           "kernel_mode"]

GENERAL, PURE, UFUNC, QUIET = "general", "pure", "ufunc", "quiet"

try:
    OUT_ARRAY = type(np.add(np.zeros(()), np.zeros(()), out=...)) is np.ndarray
except TypeError:                         # numpy < 2.3: out=... is not understood
    OUT_ARRAY = False

#: ufuncs whose loops over integer and bool arrays set no floating-point error flag
#: (integer overflow wraps silently in array loops; divisions are not among them)
NO_FP_ERRORS = frozenset({
    np.add, np.subtract, np.multiply, np.less, np.less_equal, np.greater,
    np.greater_equal, np.equal, np.not_equal, np.maximum, np.minimum, np.bitwise_and,
    np.bitwise_or, np.bitwise_xor, np.logical_and, np.logical_or, np.logical_xor,
    np.logical_not, np.negative, np.positive, np.absolute, np.invert, np.sign, np.square})

#: built-in ops whose kernels (ir/defs) are numpy calls only; ops._dispatch holds their
#: OpDefs as registered at import, so an op redefined with register_op is not among them
PURE_OPS = frozenset({
    "MatMul", "ReduceSum", "ReduceProd", "ReduceMean", "ReduceMax", "ReduceMin", "ArgMax",
    "ArgMin", "Gather", "Stack", "Concat", "Index", "Reshape", "Transpose", "ExpandDims",
    "Squeeze", "Cast"})


def kernel_mode(kernel, in_dtypes, by_numpy):
    """How to call `kernel` over inputs of these graphjit dtypes (the module docstring),
    and for UFUNC and QUIET the graphjit dtype of its result (`by_numpy` maps numpy
    dtypes to them): (mode, dtype or None)."""
    if OUT_ARRAY and RUN_IGNORING is not None and type(kernel) is np.ufunc and \
            kernel.nout == 1:
        try:     # the loop numpy picks for these dtypes (NEP 50: values play no part)
            out = by_numpy.get(kernel.resolve_dtypes(tuple(d.np for d in in_dtypes) +
                                                     (None,))[-1])
        except (TypeError, ValueError):
            out = None
        if out is not None:
            if kernel in NO_FP_ERRORS and all(d.kind in "biu" for d in in_dtypes):
                return QUIET, out
            return UFUNC, out
    return GENERAL, None
