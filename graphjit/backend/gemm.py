"""Matrix products by a constant matrix run as row blocks that BLAS computes with its
small-matrix kernel, where that gives eager mode's bits in less time.

OpenBLAS on AVX-512 cores (SkylakeX, Cooperlake, SapphireRapids) computes a float
GEMM with M * N * K <= 100**3 by a "small kernel" reading its operands in place; a
larger one packs both operands into aligned panels first. For the sizes of a small
MLP the packing costs more than it saves: 64x256 @ 256x256 in float32 takes 69 us as
one call and 57 us as eight 8x256 @ 256x256 calls of the small kernel (numpy's
matmul of a [8, 8, 256] view by the matrix runs those eight calls in one go), when
the constant matrix is 64-byte aligned (75 us when it is not). So for `x @ W` with
W a graph constant:

    v3 = _dot(v0, c1)        ->        v3 = _blocked2(v0)
                                       # matmul(x.reshape(8, 8, 256), W64).reshape(64, 256)
                                       # W64: c1 copied to 64-byte aligned memory

A constant used transposed (`x @ W.T`, a Dense layer's weight) is transposed once
into W64: the blocked NN product takes 57 us where numpy's NT call takes 92.

Bit for bit: eager mode computes x @ W with one BLAS call (the MatMul kernel). Both
OpenBLAS kernels accumulate each output as one fused multiply-add chain over k, so
they agree while K fits one block of the packed kernel (K <= 256 here; K = 512 does
not). Which it is depends on the BLAS and its build, so a shape is blocked only after
the blocked product and the kernel gave the same bits on random operands of exactly
that shape and transpose (a different order of the sum changes the last bits of some
of the thousands of outputs); a non-contiguous x at run time takes the kernel.
"""
from __future__ import annotations

import ctypes
import os
from functools import lru_cache
from typing import Callable, Dict, Optional, Tuple

import numpy as np

from ..ir.memory import aligned_copy

__all__ = ["small_kernel_limit", "blocked_matmul"]

# the AVX-512 cores whose OpenBLAS sgemm/dgemm take M * N * K <= 100**3 to the small
# kernel (kernel/x86_64/*gemm_small_kernel_permit_skylakex.c)
_SMALL_KERNEL_CORES = ("skylakex", "cooperlake", "sapphirerapids")
_SMALL_MNK = 100 ** 3
_MIN_ROWS = 4          # smaller blocks leave the kernel's tiles half empty
_CORENAME_SYMBOLS = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename")


def _loaded_openblas_cores():
    """The core names reported by the OpenBLAS libraries loaded in this process."""
    paths = set()
    try:            # Linux: the mapped files (threadpoolctl walks the same list)
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and "openblas" in os.path.basename(parts[5]).lower():
                    paths.add(parts[5].strip())
    except OSError:
        return []
    cores = []
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for sym in _CORENAME_SYMBOLS:
            fn = getattr(lib, sym, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                cores.append((fn() or b"").decode("ascii", "replace").lower())
                break
    return cores


@lru_cache(maxsize=None)
def small_kernel_limit() -> Optional[int]:
    """The largest M * N * K numpy's BLAS computes with a small-matrix kernel, or None
    when its BLAS is not known to have one (then no product is blocked)."""
    cores = _loaded_openblas_cores()
    if cores and all(c in _SMALL_KERNEL_CORES for c in cores):
        return _SMALL_MNK
    return None


def _block_rows(m: int, k: int, n: int, itemsize: int, limit: int) -> Optional[int]:
    """Rows per block: the most that divide m and keep a block within the small kernel
    (None if the whole product is already small, or no such block exists; the columns
    must fill whole 64-byte vectors, else the kernel's edge code loses the gain)."""
    if m * k * n <= limit or (n * itemsize) % 64:
        return None
    for rows in range(min(m - 1, limit // (k * n)), _MIN_ROWS - 1, -1):
        if m % rows == 0:
            return rows
    return None


def _aligned(a: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous copy of a on a 64-byte boundary (ir.memory's)."""
    out = aligned_copy(np.ascontiguousarray(a), min_bytes=0)
    out.flags.writeable = False
    return out


_SAME_BITS: Dict[Tuple, bool] = {}


def _same_bits(kernel: Callable, shape_x, shape_w, dtype, transpose_b: bool,
               rows: int, order: str = "C") -> bool:
    """Whether the blocked product gives kernel's bits on random operands of these
    shapes, the matrix in this memory order (which picks numpy's BLAS call); cached:
    the answer is the BLAS's order of summation."""
    key = (np.dtype(dtype).str, tuple(shape_x), tuple(shape_w), transpose_b, rows, order)
    same = _SAME_BITS.get(key)
    if same is None:
        rng = np.random.default_rng(20261203)     # uniform in [-1, 1): quick to draw
        x = rng.random(shape_x, dtype=dtype) * 2 - 1
        w = np.asarray(rng.random(shape_w, dtype=dtype) * 2 - 1, order=order)
        wt = _aligned(w.T if transpose_b else w)
        m, k = shape_x
        got = np.matmul(x.reshape(m // rows, rows, k), wt).reshape(m, wt.shape[1])
        want = np.asarray(kernel(x, w))
        same = _SAME_BITS[key] = bool(want.dtype == got.dtype and want.shape == got.shape
                                      and want.tobytes() == got.tobytes())
    return same


def blocked_matmul(kernel: Callable, shape_x, w, transpose_b: bool) -> Optional[Callable]:
    """`f(x)` computing `kernel(x, w)` (x @ w, or x @ w.T) for a C-contiguous float
    matrix x of the static shape_x as row blocks of the small kernel, or None where
    that is not known to be both faster and bit-identical.

    Args:
        kernel: the MatMul kernel eager mode runs for these types (two arguments).
        shape_x: x's static shape (m, k), every dim known.
        w: the constant matrix (k, n), or (n, k) with transpose_b.
        transpose_b: whether the product is x @ w.T.
    """
    limit = small_kernel_limit()
    w = np.asarray(w)
    if limit is None or w.ndim != 2 or w.dtype not in (np.float32, np.float64) or \
            len(shape_x) != 2 or not all(isinstance(d, int) for d in shape_x):
        return None
    m, k = shape_x
    n = w.shape[0] if transpose_b else w.shape[1]
    if (w.shape[1] if transpose_b else w.shape[0]) != k:
        return None
    rows = _block_rows(m, k, n, w.itemsize, limit)
    order = "C" if w.flags.c_contiguous else "F" if w.flags.f_contiguous else None
    if rows is None or order is None or \
            not _same_bits(kernel, shape_x, w.shape, w.dtype, transpose_b, rows, order):
        return None
    wt = _aligned(w.T if transpose_b else w)
    blocks, out = (m // rows, rows, k), (m, n)
    matmul = np.matmul

    def blocked(x):
        if x.flags.c_contiguous:
            return matmul(x.reshape(blocks), wt).reshape(out)
        return kernel(x, w)
    return blocked
