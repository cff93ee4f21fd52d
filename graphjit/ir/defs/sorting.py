"""Operators that order or pick elements by value or by index: Sort, TopK, Unique (an
output dim known only at run time) and GatherD (gather_elements).

Equal values keep their input order (a stable sort) in both directions, so the
indices are deterministic: the lower index comes first.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..registry import REQUIRED, register_op
from ..types import TensorType
from .common import fail, norm_axis

__all__ = ["stable_order"]


def stable_order(x, axis, descending):
    """Indices that sort x along axis, ties in input order, NaN counting as largest."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(rev, axis)


def _sortable(op, x):
    if x.dtype.is_bool:
        raise fail(op, "is not defined for bool tensors", hint="cast the input to int32")


# -- Sort ----------------------------------------------------------------------------------
def _sort_infer(ts, attrs):
    (x,) = ts
    _sortable("Sort", x)
    if x.rank == 0:
        raise fail("Sort", "needs a tensor of rank >= 1, got a scalar")
    norm_axis("Sort", attrs["axis"], x.rank)
    return x, TensorType(dt.int32, x.shape)


def _sort_kernel(x, axis, descending):
    x = np.asarray(x)
    idx = stable_order(x, axis, descending)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int32)


register_op("Sort", ("x",), {"axis": -1, "descending": False}, infer=_sort_infer,
            kernel=_sort_kernel, exact_dtype=True, family="extern",
            doc="x sorted along axis, and the int32 indices of the sorted elements")


# -- TopK ----------------------------------------------------------------------------------
def _topk_infer(ts, attrs):
    (x,) = ts
    _sortable("TopK", x)
    k = attrs["k"]
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0:
        raise fail("TopK", f"k must be a non-negative int, got {k!r}")
    if x.rank == 0:
        raise fail("TopK", "needs a tensor of rank >= 1, got a scalar")
    if x.shape is None:
        return x, TensorType(dt.int32, None)
    a = norm_axis("TopK", attrs["axis"], len(x.shape))
    n = x.shape[a]
    if n is not None and k > n:
        raise fail("TopK", f"k = {k} is larger than the size {n} of axis {a} of {x}")
    shape = x.shape[:a] + (int(k),) + x.shape[a + 1:]
    return TensorType(x.dtype, shape), TensorType(dt.int32, shape)


def _topk_kernel(x, k, axis, largest, sorted):
    x = np.asarray(x)
    if k > x.shape[axis]:
        raise ValueError(f"topk: k = {k} is larger than the size {x.shape[axis]} of axis "
                         f"{axis}")
    # an unsorted top k is returned sorted too: one valid order, the same in both modes
    idx = np.take(stable_order(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int32)


register_op("TopK", ("x",), {"k": REQUIRED, "axis": -1, "largest": True, "sorted": True},
            infer=_topk_infer, kernel=_topk_kernel, exact_dtype=True, family="extern",
            doc="the k largest (or smallest) elements along axis, largest first, and their "
                "int32 indices; equal elements keep input order")


# -- Unique --------------------------------------------------------------------------------
def _unique_index_dtype(d):
    return dt.int64 if d is dt.int64 else dt.int32


def _unique_infer(ts, attrs):
    (x,) = ts
    return TensorType(x.dtype, (None,)), TensorType(_unique_index_dtype(x.dtype), x.shape)


def _unique_factory(in_types, out_types, attrs):
    idt = out_types[1].dtype.np

    def k(x):
        x = np.asarray(x)
        flat = x.reshape(-1)
        if flat.size == 0:
            return flat.copy(), np.zeros(x.shape, dtype=idt)
        values, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")        # first-occurrence order
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse.reshape(-1)].reshape(x.shape).astype(idt)
    return k


register_op("Unique", ("x",), infer=_unique_infer, kernel_factory=_unique_factory,
            exact_dtype=True, family="extern",
            doc="the distinct elements of x (flattened) in order of first occurrence, and "
                "for each element of x the index of its value among them (x's shape; int64 "
                "for int64 input, else int32). The first output's length is known only at "
                "run time")


# -- GatherD (gather_elements) -------------------------------------------------------------
def _gather_d_infer(ts, attrs):
    x, idx = ts
    if not idx.dtype.is_integer:
        raise fail("GatherD", f"index must be integers, got {idx.dtype}")
    if x.shape is None or idx.shape is None:
        rank = x.rank if x.rank is not None else idx.rank
        if rank is not None:
            norm_axis("GatherD", attrs["dim"], rank)
        return TensorType(x.dtype, idx.shape)
    if len(x.shape) != len(idx.shape):
        raise fail("GatherD", f"input {x} and index {idx} must have the same rank")
    if not x.shape:
        raise fail("GatherD", "cannot gather from a scalar (rank 0)")
    a = norm_axis("GatherD", attrs["dim"], len(x.shape))
    for i, (n, m) in enumerate(zip(x.shape, idx.shape)):
        if i != a and None not in (n, m) and m > n:
            raise fail("GatherD", f"index {idx} is larger than input {x} at dim {i} ({m} > {n})",
                       hint=f"every dim of index but dim {a} must be at most the input's")
    return TensorType(x.dtype, idx.shape)


def _gather_d_kernel(x, idx, dim):
    x, i = np.asarray(x), np.asarray(idx)
    a = dim % x.ndim
    n = x.shape[a]
    if i.size and (i.min() < -n or i.max() >= n):
        bad = int(i.max() if i.max() >= n else i.min())
        raise IndexError(f"gather_elements: index {bad} is out of range for dim {a} of size {n}")
    if any(m > s for d, (m, s) in enumerate(zip(i.shape, x.shape)) if d != a):
        raise ValueError(f"gather_elements: index of shape {i.shape} is larger than the "
                         f"input {x.shape} outside dim {a}")
    x = x[tuple(slice(0, m) if d != a else slice(None) for d, m in enumerate(i.shape))]
    return np.take_along_axis(x, np.where(i < 0, i + n, i), axis=a)


register_op("GatherD", ("x", "index"), {"dim": 0}, infer=_gather_d_infer,
            kernel=_gather_d_kernel, exact_dtype=True, family="extern",
            doc="out[i][j][k] = x[index[i][j][k]][j][k] along dim (gather_elements): the "
                "index's shape; negative indices count from the end")
