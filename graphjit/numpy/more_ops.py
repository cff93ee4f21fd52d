"""More of mindspore.numpy: diag, take_along_axis, diff, sort, argsort, and the random
constructors rand, randn, randint (MindSpore's shapes and dtypes; the values come from
graphjit's seeded generator, not MindSpore's)."""
from __future__ import annotations

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..common.tensor import Tensor
from ._utils import check_dtype, normalize_axis, to_tensor

__all__ = ["diag", "take_along_axis", "diff", "sort", "argsort", "rand", "randn", "randint",
           "trace", "tensordot", "nonzero", "array_equal"]


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


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of a's diagonal (offset from the main one) over axis1 and axis2."""
    a = to_tensor(a)
    a1, a2 = normalize_axis(axis1, a.ndim), normalize_axis(axis2, a.ndim)
    rest = [i for i in range(a.ndim) if i not in (a1, a2)]
    m = ops.transpose(a, tuple(rest) + (a1, a2))
    n1, n2 = m.shape[-2], m.shape[-1]
    i = np.arange(max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0))
    mask = np.zeros((n1, n2), bool)
    mask[(i, i + offset) if offset >= 0 else (i - offset, i)] = True
    out = ops.sum(ops.where(Tensor(mask), m, ops.zeros_like(m)), (-2, -1))
    return out if dtype is None else ops.cast(out, check_dtype(dtype))


def tensordot(a, b, axes=2):
    """Sum of products over the last `axes` dims of a and the first of b (an int), or
    over the axes listed in a pair of sequences."""
    a, b = to_tensor(a), to_tensor(b)
    if isinstance(axes, int):
        ax_a = list(range(a.ndim - axes, a.ndim))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
    ax_a = [normalize_axis(x, a.ndim) for x in ax_a]
    ax_b = [normalize_axis(x, b.ndim) for x in ax_b]
    if len(ax_a) != len(ax_b) or any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError("mindspore.numpy.tensordot: shape-mismatch for sum")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = int(np.prod([a.shape[i] for i in ax_a])) if ax_a else 1
    am = ops.reshape(ops.transpose(a, tuple(free_a + ax_a)), (-1, k))
    bm = ops.reshape(ops.transpose(b, tuple(ax_b + free_b)), (k, -1))
    return ops.reshape(ops.matmul(am, bm), tuple(a.shape[i] for i in free_a) +
                       tuple(b.shape[i] for i in free_b))


def nonzero(a):
    """The indices of a's non-zero elements, one tensor per axis."""
    a = to_tensor(a)
    idx = ops.nonzero(a)
    return tuple(idx[:, i] for i in range(a.ndim))


def array_equal(a1, a2, equal_nan=False):
    """Whether a1 and a2 have the same shape and elements (a bool tensor)."""
    a1, a2 = to_tensor(a1), to_tensor(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return Tensor(np.array(False))
    same = ops.equal(a1, a2)
    if equal_nan and a1.dtype.is_floating:
        same = ops.logical_or(same, ops.logical_and(ops.isnan(a1), ops.isnan(a2)))
    return ops.all(same)


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
