"""Reductions over axes: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
ArgMax and ArgMin."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..registry import register_op
from ..types import TensorType
from .common import fail, float_result, norm_axes, norm_axis


def _reduced_shape(op, shape, axis, keep_dims):
    if shape is None:
        return None
    axes = norm_axes(op, axis, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _int_to_i64(d):
    return dt.int64 if not d.is_floating else d


_RULES = {
    "ReduceSum": (np.sum, _int_to_i64, "sum; integer and bool inputs give int64"),
    "ReduceProd": (np.prod, _int_to_i64, "product; integer and bool inputs give int64"),
    "ReduceMean": (np.mean, float_result, "mean; integer and bool inputs give float32"),
    "ReduceMax": (np.max, lambda d: d, "maximum"),
    "ReduceMin": (np.min, lambda d: d, "minimum"),
}


def _axis_arg(axis):
    if axis is None or axis == ():
        return None
    return axis if isinstance(axis, int) else tuple(axis)


def _make(name, fn, out_dtype, doc):
    def infer(ts, attrs):
        (x,) = ts
        shape = _reduced_shape(name, x.shape, attrs["axis"], attrs["keep_dims"])
        return TensorType(out_dtype(x.dtype), shape)

    def factory(in_types, out_types, attrs):
        axis, kd = _axis_arg(attrs["axis"]), bool(attrs["keep_dims"])
        odt = out_types[0].dtype.np
        if fn is np.sum or fn is np.prod or fn is np.mean:
            return lambda x: np.asarray(fn(x, axis=axis, keepdims=kd, dtype=odt), dtype=odt)
        return lambda x: np.asarray(fn(x, axis=axis, keepdims=kd), dtype=odt)

    register_op(name, ("x",), {"axis": None, "keep_dims": False}, infer=infer,
                kernel=lambda x, axis, keep_dims: fn(x, axis=_axis_arg(axis),
                                                     keepdims=keep_dims),
                kernel_factory=factory, family="reduction", doc=doc)


for _n, (_f, _o, _d) in _RULES.items():
    _make(_n, _f, _o, _d)


def _arg(name, fn):
    def infer(ts, attrs):
        (x,) = ts
        axis = attrs["axis"]
        if axis is None:
            shape = () if not attrs["keep_dims"] else (
                None if x.shape is None else (1,) * len(x.shape))
        else:
            if x.shape is not None and len(x.shape) == 0:
                raise fail(name, "needs a tensor of rank >= 1 when an axis is given")
            norm_axis(name, axis, x.rank)
            shape = _reduced_shape(name, x.shape, axis, attrs["keep_dims"])
        return TensorType(dt.int64, shape)

    def kernel(x, axis, keep_dims):
        return np.asarray(fn(x, axis=axis, keepdims=keep_dims), dtype=np.int64)

    register_op(name, ("x",), {"axis": None, "keep_dims": False}, infer=infer, kernel=kernel,
                exact_dtype=True, family="reduction",
                doc=f"index of the {name[3:].lower()} along axis (flattened if None), int64")


_arg("ArgMax", np.argmax)
_arg("ArgMin", np.argmin)
