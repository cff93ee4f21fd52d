"""Reductions over axes (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ArgMax,
ArgMin) and the scans along one axis (CumSum, CumProd)."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..registry import register_op
from ..types import TensorType, format_shape
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


def _check_not_empty(op, shape, axis):
    """max, min and their indices have no value over an empty dim: refuse a dim known
    to be 0 now, rather than fail when the graph runs."""
    if shape is None:
        return
    axes = norm_axes(op, axis, len(shape))
    axes = range(len(shape)) if axes is None else axes
    if any(shape[a] == 0 for a in axes):
        raise fail(op, f"cannot reduce over an empty dim of {format_shape(shape)}",
                   hint="reduce over dims that hold at least one element")


def _int_to_i64(d):
    return dt.int64 if not d.is_floating else d


# op: numpy function, output dtype of an input dtype, doc
_RULES = {
    "ReduceSum": (np.sum, _int_to_i64, "sum; integer and bool inputs give int64"),
    "ReduceProd": (np.prod, _int_to_i64, "product; integer and bool inputs give int64"),
    "ReduceMean": (np.mean, float_result, "mean; integer and bool inputs give float32"),
    "ReduceMax": (np.max, lambda d: d, "maximum"),
    "ReduceMin": (np.min, lambda d: d, "minimum"),
}


_ACCUMULATING = (np.sum, np.prod, np.mean)
# the ufunc reductions numpy's functions call (without their Python wrapper, a
# microsecond per call)
_UFUNC_REDUCE = {np.sum: np.add.reduce, np.prod: np.multiply.reduce,
                 np.max: np.maximum.reduce, np.min: np.minimum.reduce}


# numpy >= 2.3 takes out=... for "give an array, even 0-d" (no np.asarray after it)
try:
    _OUT_ARRAY = type(np.add.reduce(np.zeros(2), None, out=...)) is np.ndarray
except TypeError:
    _OUT_ARRAY = False


def _axis_arg(axis):
    if axis is None or axis == ():
        return None
    return axis if isinstance(axis, int) else tuple(axis)


def _make(name, fn, out_dtype, doc):
    def infer(ts, attrs):
        (x,) = ts
        if fn not in _ACCUMULATING:
            _check_not_empty(name, x.shape, attrs["axis"])
        shape = _reduced_shape(name, x.shape, attrs["axis"], attrs["keep_dims"])
        return TensorType(out_dtype(x.dtype), shape)

    def factory(in_types, out_types, attrs):
        axis, kd = _axis_arg(attrs["axis"]), bool(attrs["keep_dims"])
        odt = out_types[0].dtype.np
        reduce = _UFUNC_REDUCE.get(fn)       # np.max(x, ...) is np.maximum.reduce(x, ...)
        if fn in _ACCUMULATING:
            # float16 accumulates in float32 (as MindSpore and PyTorch do), then rounds once
            acc = np.dtype(np.float32) if odt == np.float16 else odt
            if reduce is not None:
                if acc == odt and _OUT_ARRAY:      # the result is an array of odt already
                    return lambda x: reduce(x, axis, acc, out=..., keepdims=kd)
                return lambda x: np.asarray(reduce(x, axis, acc, None, kd), dtype=odt)
            return lambda x: np.asarray(fn(x, axis=axis, keepdims=kd, dtype=acc), dtype=odt)
        if reduce is not None:
            if in_types[0].dtype.np == odt and _OUT_ARRAY:
                return lambda x: reduce(x, axis, out=..., keepdims=kd)
            return lambda x: np.asarray(reduce(x, axis, None, None, kd), dtype=odt)
        return lambda x: np.asarray(fn(x, axis=axis, keepdims=kd), dtype=odt)

    register_op(name, ("x",), {"axis": None, "keep_dims": False}, infer=infer,
                kernel=lambda x, axis, keep_dims: fn(x, axis=_axis_arg(axis),
                                                     keepdims=keep_dims),
                kernel_factory=factory, family="reduction", doc=doc)


for _n, (_f, _o, _d) in _RULES.items():
    _make(_n, _f, _o, _d)


def _arg_infer(name):
    def infer(ts, attrs):
        (x,) = ts
        axis, out = attrs["axis"], dt.as_dtype(attrs["output_type"])
        if not out.is_integer:
            raise fail(name, f"output_type must be an integer dtype, got {out}")
        if axis is not None and x.shape is not None and len(x.shape) == 0:
            raise fail(name, "needs a tensor of rank >= 1 when an axis is given")
        _check_not_empty(name, x.shape, axis)
        if axis is None:
            shape = () if not attrs["keep_dims"] else (
                None if x.shape is None else (1,) * len(x.shape))
        else:
            norm_axis(name, axis, x.rank)
            shape = _reduced_shape(name, x.shape, axis, attrs["keep_dims"])
        return TensorType(out, shape)
    return infer


def _arg(name, fn):
    def factory(in_types, out_types, attrs):
        axis, kd, odt = attrs["axis"], bool(attrs["keep_dims"]), out_types[0].dtype.np
        return lambda x: np.asarray(fn(x, axis=axis, keepdims=kd), dtype=odt)

    register_op(name, ("x",), {"axis": None, "keep_dims": False, "output_type": dt.int64},
                infer=_arg_infer(name), kernel_factory=factory, family="reduction",
                kernel=lambda x, axis, keep_dims, output_type: np.asarray(
                    fn(x, axis=axis, keepdims=keep_dims), dtype=dt.as_dtype(output_type).np),
                doc=f"index of the {name[3:].lower()} along axis (of the flattened tensor if "
                    f"axis is None), as output_type (int64 unless given)")


_arg("ArgMax", np.argmax)
_arg("ArgMin", np.argmin)


# -- scans ---------------------------------------------------------------------------------
def _scan(name, fn, doc):
    def infer(ts, attrs):
        (x,) = ts
        if x.rank == 0:
            raise fail(name, "needs a tensor of rank >= 1")
        norm_axis(name, attrs["axis"], x.rank)
        return TensorType(dt.int64 if x.dtype.is_bool else x.dtype, x.shape)

    def factory(in_types, out_types, attrs):
        axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]
        odt = out_types[0].dtype.np
        acc = np.dtype(np.float32) if odt == np.float16 else odt
        identity = 0 if fn is np.cumsum else 1

        def k(x):
            x = np.asarray(x)
            if reverse:
                x = np.flip(x, axis)
            r = fn(x, axis=axis, dtype=acc)
            if exclusive and r.shape[axis]:
                r = np.roll(r, 1, axis=axis)
                idx = [slice(None)] * r.ndim
                idx[axis] = 0
                r[tuple(idx)] = identity
            if reverse:
                r = np.flip(r, axis)
            return np.asarray(r, dtype=odt)
        return k

    register_op(name, ("x",), {"axis": 0, "exclusive": False, "reverse": False},
                infer=infer, kernel_factory=factory, family="extern", doc=doc)


_scan("CumSum", np.cumsum, "running sum along axis (bool gives int64, others keep their "
                           "dtype); exclusive starts from 0, reverse runs from the end")
_scan("CumProd", np.cumprod, "running product along axis (bool gives int64, others keep "
                             "their dtype); exclusive starts from 1, reverse runs from the end")
