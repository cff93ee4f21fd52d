"""Floating-point powers with a small integer exponent, by repeated multiplication.

`x ** 3` on float32 through `np.power` calls the C library's `pow` per element,
about 70 times slower than `x * x * x`. As JAX's `integer_pow` and PyTorch's scalar
`pow`, a float Pow whose exponent is one element of integer value n, |n| <= 16, is
computed by binary exponentiation (x ** 6 is (x * x) * ((x * x) * (x * x))), and a
negative n as the reciprocal of x ** |n|. Eager mode's kernel and graph mode's fused
kernels both call `integer_power`, so the two modes agree bit for bit.

Accuracy. Multiplying in the input's own dtype rounds at every step: x ** 8 is 5 ulp
from the correctly rounded power in the worst case, and x ** -2 loses most of its
digits where x * x is subnormal although 1 / x ** 2 is finite. So the product is
formed in a wider dtype (float16 in float32, float32 in float64, float64 in the
80-bit long double where the platform has one) and rounded once to the result's
dtype: the result is then within one ulp of `np.power` (which is itself correctly
rounded or nearly so), and usually equal to it. The exponents 0, 1, 2 and -1 need no
wider dtype: 1, x, x * x and 1 / x are each one correctly rounded operation. Where
long double is no wider than float64 (Windows, ARM macOS), float64 powers multiply in
float64 and are within (2 |n| - 1) / 2 ulp of the exact power, not one.

Large arrays are widened a chunk at a time (the wide buffers stay in the cache), so
an integer power costs about twice `x * x * x` rather than the 70-fold of `np.power`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["MAX_EXPONENT", "integer_exponent", "integer_power", "wide_dtype"]

MAX_EXPONENT = 16
# bytes per wide buffer of a chunk: float32 powers of 1M elements took 1.4, 1.0, 0.85
# and 0.82 ms with buffers of 32, 64, 128 and 256 KiB (x * x * x: 0.6 ms)
CHUNK_BYTES = 128 * 1024

_LONG_IS_WIDER = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant
_WIDER = {np.dtype(np.float16): np.dtype(np.float32),
          np.dtype(np.float32): np.dtype(np.float64),
          np.dtype(np.float64): np.dtype(np.longdouble if _LONG_IS_WIDER else np.float64)}


def wide_dtype(dtype) -> Optional[np.dtype]:
    """The dtype an integer power of this float dtype is formed in (None: not a float
    dtype integer_power takes)."""
    return _WIDER.get(np.dtype(dtype))


def integer_exponent(e) -> Optional[int]:
    """The exponent as an int if it is one element of integer value within
    +-MAX_EXPONENT (a Python number or an array), else None."""
    e = np.asarray(e)
    if e.size != 1 or e.dtype.kind not in "iuf":
        return None
    v = e.reshape(-1)[0]
    if e.dtype.kind == "f":
        if not np.isfinite(v) or v != np.trunc(v):
            return None
    v = int(v)
    return v if -MAX_EXPONENT <= v <= MAX_EXPONENT else None


def integer_power(x: np.ndarray, n: int, out: Optional[np.ndarray] = None) -> np.ndarray:
    """x ** n for a float array x and an int n (|n| <= MAX_EXPONENT), into `out` (an
    array of x's shape and dtype, which may be x itself) or a new array.

    Args:
        x: a float16, float32 or float64 array.
        n: the exponent.
        out: where to write the result; None allocates it.

    Returns:
        The result (`out` when given).
    """
    x = np.asarray(x)
    if out is None:
        out = np.empty(x.shape, x.dtype)
    if n == 0:
        out[...] = 1                      # nan ** 0 and inf ** 0 are 1, as np.power
    elif n == 1:
        np.copyto(out, x)
    elif n == 2:
        np.multiply(x, x, out=out)
    elif n == -1:
        np.true_divide(x.dtype.type(1), x, out=out)
    else:
        _widened(x, n, out, _WIDER[x.dtype])
    return out


def _widened(x, n, out, wide):
    size = x.size
    chunk = CHUNK_BYTES // wide.itemsize
    if size <= chunk or not out.flags.c_contiguous:
        acc = _power_into(x, n, np.empty(x.shape, wide), np.empty(x.shape, wide))
        np.copyto(out, acc, casting="unsafe")
        return
    xf = x.reshape(-1)                    # a copy only for x not C-contiguous
    of = out.reshape(-1)
    b0, b1 = np.empty(chunk, wide), np.empty(chunk, wide)
    for i in range(0, size, chunk):
        j = min(i + chunk, size)
        if j - i < chunk:
            b0, b1 = b0[:j - i], b1[:j - i]
        acc = _power_into(xf[i:j], n, b0, b1)
        np.copyto(of[i:j], acc, casting="unsafe")


def _power_into(x, n, b0, b1):
    """x ** n (n not 0) formed in the buffers b0 and b1 (x's shape, the wide dtype);
    returns the one holding it."""
    np.copyto(b0, x)
    m = abs(n)
    base, spare, acc = b0, b1, None
    while True:
        if m & 1:
            if acc is None:
                acc = base
            else:
                np.multiply(acc, base, out=acc)
        m >>= 1
        if not m:
            break
        if acc is base:                   # keep the accumulator; square into the spare
            np.multiply(base, base, out=spare)
            base, spare = spare, None
        else:
            np.multiply(base, base, out=base)
    if n < 0:
        np.true_divide(acc.dtype.type(1), acc, out=acc)
    return acc
