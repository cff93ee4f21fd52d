"""More of mindspore.numpy: diag, take_along_axis, diff, sort, argsort, and the random
constructors rand, randn, randint (MindSpore's shapes and dtypes; the values come from
graphjit's seeded generator, not MindSpore's)."""
from __future__ import annotations

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..common.tensor import Tensor
from ._utils import check_dtype, normalize_axis, to_tensor

__all__ = ["diag", "take_along_axis", "diff", "sort", "argsort", "rand", "randn", "randint"]


def diag(v, k=0):
    """The k-th diagonal of a 2-D v, or a 2-D tensor with 1-D v on its k-th diagonal."""
    v = to_tensor(v)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        i = np.arange(v.shape[0])
        idx = np.stack([i + max(-k, 0), i + max(k, 0)], -1).astype(np.int64)
        return ops.scatter_nd(Tensor(idx), v, (n, n))
    if v.ndim != 2:
        raise ValueError(f"mindspore.numpy.diag: input must be 1-D or 2-D, got rank {v.ndim}")
    rows, cols = v.shape
    i = np.arange(max(min(rows, cols - k) if k >= 0 else min(rows + k, cols), 0))
    r, c = (i, i + k) if k >= 0 else (i - k, i)
    return ops.gather_nd(v, Tensor(np.stack([r, c], -1).astype(np.int64)))


def take_along_axis(arr, indices, axis):
    """arr's elements at indices along axis (indices broadcast against arr elsewhere)."""
    arr, indices = to_tensor(arr), to_tensor(indices)
    if axis is None:
        arr, axis = ops.reshape(arr, (-1,)), 0
    axis = normalize_axis(axis, arr.ndim)
    shape = list(np.broadcast_shapes(tuple(arr.shape[:axis]) + (1,) + tuple(arr.shape[axis + 1:]),
                                     tuple(indices.shape)))
    shape[axis] = indices.shape[axis]
    return ops.gather_elements(arr, axis, ops.broadcast_to(indices, tuple(shape)))


def diff(a, n=1, axis=-1):
    """The n-th discrete difference along axis."""
    a = to_tensor(a)
    axis = normalize_axis(axis, a.ndim)
    for _ in range(n):
        hi = [slice(None)] * a.ndim
        lo = [slice(None)] * a.ndim
        hi[axis], lo[axis] = slice(1, None), slice(None, -1)
        a = a[tuple(hi)] - a[tuple(lo)]
    return a


def sort(a, axis=-1):
    """a sorted ascending along axis (the flattened a when None)."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.sort(a, normalize_axis(axis, a.ndim))[0]


def argsort(a, axis=-1):
    """The indices that sort a along axis."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.sort(a, normalize_axis(axis, a.ndim))[1]


def _shape_of(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape) if shape else (1,)


def _float_dtype(dtype, what):
    dtype = check_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"mindspore.numpy.{what}: dtype must be a float type, got {dtype}")
    return dtype


def rand(*shape, dtype=dt.float32):
    """Uniform samples in [0, 1) of the shape (float32 unless dtype says)."""
    return ops.rand(*_shape_of(shape), dtype=_float_dtype(dtype, "rand"))


def randn(*shape, dtype=dt.float32):
    """Standard normal samples of the shape (float32 unless dtype says)."""
    return ops.randn(*_shape_of(shape), dtype=_float_dtype(dtype, "randn"))


def randint(minval, maxval=None, shape=None, dtype=dt.int32):
    """Integers in [minval, maxval) ([0, minval) without maxval), int32 by default."""
    if maxval is None:
        if minval <= 0:
            raise ValueError("mindspore.numpy.randint: minval must be > 0 when maxval is None")
        minval, maxval = 0, minval
    elif minval >= maxval:
        raise ValueError("mindspore.numpy.randint: minval must be less than maxval")
    dtype = check_dtype(dtype)
    if not dtype.is_integer:
        raise ValueError(f"mindspore.numpy.randint: dtype must be an int type, got {dtype}")
    shape = (1,) if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    return ops.randint(minval, maxval, shape, dtype=dtype)
