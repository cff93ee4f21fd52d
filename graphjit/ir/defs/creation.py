"""Operators that make tensors: Const, Fill, ZerosLike, OnesLike, Range."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..registry import NOT_DIFFERENTIABLE, REQUIRED, register_op, set_grad
from ..types import TensorType
from .common import fail


def _const_infer(ts, attrs):
    v = attrs["value"]
    if not isinstance(v, np.ndarray):
        raise fail("Const", f"value must be a numpy array, got {type(v).__name__}")
    return TensorType(dt.from_numpy(v.dtype), tuple(v.shape))


def _const_factory(in_types, out_types, attrs):
    v = attrs["value"]
    return lambda: v


register_op("Const", (), {"value": REQUIRED}, infer=_const_infer, kernel=lambda value: value,
            kernel_factory=_const_factory, exact_dtype=True, family="creation",
            doc="a constant array (never modified by kernels)")


def _check_shape(op, shape):
    if not isinstance(shape, tuple) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
            for d in shape):
        raise fail(op, f"shape must be a tuple of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def _fill_infer(ts, attrs):
    v = attrs["value"]
    if not isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise fail("Fill", f"value must be a Python number, got {v!r}")
    return TensorType(dt.as_dtype(attrs["dtype"]), _check_shape("Fill", attrs["shape"]))


def _fill_factory(in_types, out_types, attrs):
    shape, v, d = attrs["shape"], attrs["value"], out_types[0].dtype.np
    return lambda: np.full(shape, v, dtype=d)


register_op("Fill", (), {"shape": REQUIRED, "dtype": dt.float32, "value": 0},
            infer=_fill_infer,
            kernel=lambda shape, dtype, value: np.full(shape, value,
                                                       dtype=dt.as_dtype(dtype).np),
            kernel_factory=_fill_factory, family="creation",
            doc="a tensor of the given shape and dtype, every element `value`")


def _fill_to_infer(ts, attrs):
    (s,) = ts
    hint = attrs["shape_hint"]
    if not s.dtype.is_integer or s.shape is None or len(s.shape) != 1 or \
            s.shape[0] != len(hint):
        raise fail("FillTo", f"shape must be a 1-D integer tensor of {len(hint)} dims, got {s}")
    v = attrs["value"]
    if not isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise fail("FillTo", f"value must be a Python number, got {v!r}")
    return TensorType(dt.as_dtype(attrs["dtype"]), tuple(hint))


def _fill_to_factory(in_types, out_types, attrs):
    v, d = attrs["value"], out_types[0].dtype.np

    def k(shape):
        dims = tuple(int(n) for n in shape)
        if any(n < 0 for n in dims):
            raise ValueError(f"negative dimensions are not allowed: {dims}")
        return np.full(dims, v, dtype=d)
    return k


register_op("FillTo", ("shape",), {"shape_hint": REQUIRED, "dtype": dt.float32, "value": 0},
            infer=_fill_to_infer, kernel_factory=_fill_to_factory, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="a tensor of `value` in the shape the 1-D int tensor `shape` holds; "
                "shape_hint its dims known while building (None where known only at run "
                "time): ops.zeros((x.shape[0], H)) with a batch dim of unknown size")


def _like(name, value):
    def infer(ts, attrs):
        d = ts[0].dtype if attrs["dtype"] is None else dt.as_dtype(attrs["dtype"])
        return TensorType(d, ts[0].shape)

    def factory(in_types, out_types, attrs):
        d = out_types[0].dtype.np
        return lambda x: np.full(np.shape(x), value, dtype=d)

    register_op(name, ("x",), {"dtype": None}, infer=infer,
                kernel=lambda x, dtype: np.full(np.shape(x), value, dtype=x.dtype),
                kernel_factory=factory, family="creation",
                doc=f"a tensor of {value}s with the shape of x")


_like("ZerosLike", 0)
_like("OnesLike", 1)


def _range_infer(ts, attrs):
    start, limit, delta = attrs["start"], attrs["limit"], attrs["delta"]
    for name, v in (("start", start), ("limit", limit), ("delta", delta)):
        if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
            raise fail("Range", f"{name} must be a Python number, got {v!r}")
    if delta == 0:
        raise fail("Range", "delta must not be 0")
    n = max(0, int(np.ceil((limit - start) / delta)))
    return TensorType(dt.as_dtype(attrs["dtype"]), (n,))


register_op("Range", (), {"start": 0, "limit": REQUIRED, "delta": 1, "dtype": dt.int64},
            infer=_range_infer,
            kernel=lambda start, limit, delta, dtype: np.arange(
                start, limit, delta, dtype=dt.as_dtype(dtype).np),
            family="creation", doc="start, start + delta, ... below limit")


# tensors made from attributes or from an input's shape only: no gradient flows back
for _name in ("Const", "Fill", "Range", "ZerosLike", "OnesLike"):
    set_grad(_name, NOT_DIFFERENTIABLE)
