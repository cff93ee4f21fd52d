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

Besides its mode, an entry over two 0-d inputs of one dtype may have a SMALL table
(small_results): the integer + - * and the comparisons of SMALL_OPS, computed on the
inputs' Python values (exact: Python ints do not wrap, a float's value is exact as a
Python float), whose result, when it lies in the table's range (no wrap-around then),
is a shared read-only 0-d array of the table: 0-d loop counters and conditions skip the
ufunc (0.24 us) and the new array. Out of the range (a wrap, a large value) the ufunc
runs as before. The arrays are read-only as Parameters' are: a write into one (a
Tensor's __setitem__) copies it first.
"""
from __future__ import annotations

import operator

import numpy as np

from ..ir.fp_errors import RUN_IGNORING

__all__ = ["GENERAL", "PURE", "UFUNC", "QUIET", "OUT_ARRAY", "NO_FP_ERRORS", "PURE_OPS",
           "SMALL_OPS", "kernel_mode", "small_results", "small_table"]

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


#: the ufuncs a SMALL table serves, and the Python operator that gives their value (the
#: arithmetic on integer dtypes only: on bools np.add is "or"; on floats Python's double
#: would round otherwise than the dtype)
SMALL_OPS = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
             np.less: operator.lt, np.less_equal: operator.le, np.greater: operator.gt,
             np.greater_equal: operator.ge, np.equal: operator.eq, np.not_equal: operator.ne}
_ARITHMETIC = (np.add, np.subtract, np.multiply)
SMALL_LOW, SMALL_HIGH = -256, 1024      # the integers an integer table holds
_TABLES: dict = {}                      # numpy dtype -> (table, its first value, past its last)


def _frozen(v, dtype):
    a = np.array(v, dtype)
    a.flags.writeable = False
    return a


def small_table(np_dtype):
    """(the shared read-only 0-d arrays of the integers SMALL_LOW..SMALL_HIGH, or False
    and True, in np_dtype (an integer or bool numpy dtype) that it holds, the first
    value, past the last); None for other dtypes."""
    t = _TABLES.get(np_dtype)
    if t is None:
        if np_dtype.kind not in "biu":
            return None
        if np_dtype.kind == "b":
            t = ((_frozen(False, np_dtype), _frozen(True, np_dtype)), 0, 2)
        else:
            info = np.iinfo(np_dtype)
            lo, hi = max(SMALL_LOW, int(info.min)), min(SMALL_HIGH, int(info.max) + 1)
            t = (tuple(_frozen(v, np_dtype) for v in range(lo, hi)), lo, hi)
        _TABLES[np_dtype] = t
    return t


def small_results(kernel, in_types, out_dtype):
    """The SMALL table of an entry (the module docstring): (Python operator, results,
    the first value they hold, past the last), so that over inputs of these types with
    Python values x and y, when lo <= (r := operator(x, y)) < hi, results[r - lo] is
    the kernel's array (of out_dtype, a graphjit DType); None where it does not apply."""
    pyop = SMALL_OPS.get(kernel) if type(kernel) is np.ufunc else None
    if pyop is None or len(in_types) != 2 or out_dtype is None:
        return None
    x, y = in_types
    if x.shape != () or y.shape != () or x.dtype is not y.dtype:
        return None
    kind = x.dtype.np.kind
    if kernel in _ARITHMETIC:
        if kind not in "iu" or out_dtype is not x.dtype:
            return None
    elif kind not in "biuf" or out_dtype.np.kind != "b":
        return None
    return (pyop, *small_table(out_dtype.np))
