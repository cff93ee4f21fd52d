"""Arrays on 64-byte boundaries for the constants kernels read again and again.

numpy allocates on 16-byte boundaries; BLAS reads a matrix quicker from a cache-line
boundary (an RNN's `h @ u`, 16x64 @ 64x64 float32: 0.98 us with u on 64 bytes, 1.06
us on 16, 32 or 48). The values, and so every result, are the same: BLAS's and
numpy's kernels give the same bits whatever the alignment of their operands (checked
for gemm and gemv over float32/float64 shapes and offsets in tests/backend).
"""
from __future__ import annotations

import numpy as np

__all__ = ["ALIGN", "aligned_copy"]

ALIGN = 64
# smaller arrays are copied as they are (no kernel gains from it)
MIN_BYTES = 256


def aligned_copy(arr: np.ndarray, min_bytes: int = MIN_BYTES) -> np.ndarray:
    """A copy of arr starting on an ALIGN-byte boundary, for a C-contiguous array of
    min_bytes or more; otherwise `np.array(arr)` (same layout: numpy's summation
    order follows the layout, so a Fortran-ordered constant stays one)."""
    arr = np.asarray(arr)
    if arr.nbytes < min_bytes or arr.dtype.hasobject or not arr.flags.c_contiguous:
        return np.array(arr)
    raw = np.empty(arr.nbytes + ALIGN, np.uint8)
    start = (-raw.ctypes.data) % ALIGN
    out = raw[start:start + arr.nbytes].view(arr.dtype).reshape(arr.shape)
    out[...] = arr
    return out
