"""Neural-network operators: MatMul (with batching), Softmax, LogSoftmax, OneHot."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..registry import REQUIRED, register_op
from ..types import TensorType
from .common import broadcast_shapes, fail, float_result, norm_axis, promote


def _matmul_infer(ts, attrs):
    a, b = ts
    dtype = promote(a.dtype, b.dtype)
    if dtype.is_bool:
        raise fail("MatMul", "is not defined for bool tensors")
    if a.shape is None or b.shape is None:
        return TensorType(dtype, None)
    sa, sb = list(a.shape), list(b.shape)
    if not sa or not sb:
        raise fail("MatMul", f"inputs must have rank >= 1, got {a} and {b}")
    if attrs["transpose_a"] and len(sa) >= 2:
        sa[-1], sa[-2] = sa[-2], sa[-1]
    if attrs["transpose_b"] and len(sb) >= 2:
        sb[-1], sb[-2] = sb[-2], sb[-1]
    va, vb = len(sa) == 1, len(sb) == 1
    if va:
        sa = [1] + sa
    if vb:
        sb = sb + [1]
    k1, k2 = sa[-1], sb[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise fail("MatMul", f"shapes {a} and {b} do not fit: the contracted dims are "
                             f"{k1} and {k2}",
                   hint="the last dim of the first operand must equal the second-to-last of "
                        "the second; transpose one (ops.transpose, or "
                        "ops.MatMul(transpose_b=True))")
    batch = broadcast_shapes("MatMul", tuple(sa[:-2]), tuple(sb[:-2]))
    out = list(batch) + ([] if va else [sa[-2]]) + ([] if vb else [sb[-1]])
    return TensorType(dtype, tuple(out))


_DOT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _matmul_factory(in_types, out_types, attrs):
    kernel = _matmul_kernel(in_types, out_types, attrs)
    odt = out_types[0].dtype.np
    if odt.kind == "V" or odt.type.__module__.startswith("ml_dtypes"):
        # numpy's matmul of bfloat16 (ml_dtypes) gives float32: rounded back to the
        # inferred dtype, as the other kernels keep theirs
        return lambda a, b: kernel(a, b).astype(odt)
    return kernel


def _matmul_kernel(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    ca, cb = in_types[0].dtype.np != odt, in_types[1].dtype.np != odt
    if not ca and not cb and in_types[0].rank == 2 and in_types[1].rank == 2:
        # matrices of the output dtype: the transposes are views (.T), no call; float
        # matrices go through np.dot, the same BLAS product as np.matmul (same bits)
        # for a third less call overhead (1.05 us against 1.45 for 16x64 @ 64x64)
        if odt in _DOT_DTYPES:
            return {(False, False): np.dot, (False, True): lambda a, b: np.dot(a, b.T),
                    (True, False): lambda a, b: np.dot(a.T, b),
                    (True, True): lambda a, b: np.dot(a.T, b.T)}[(bool(ta), bool(tb))]
        return {(False, False): np.matmul, (False, True): lambda a, b: a @ b.T,
                (True, False): lambda a, b: a.T @ b, (True, True): lambda a, b: a.T @ b.T
                }[(bool(ta), bool(tb))]

    def k(a, b):
        if ca:
            a = np.asarray(a, dtype=odt)
        if cb:
            b = np.asarray(b, dtype=odt)
        if ta and a.ndim >= 2:
            a = np.swapaxes(a, -1, -2)
        if tb and b.ndim >= 2:
            b = np.swapaxes(b, -1, -2)
        return np.matmul(a, b)
    return k


register_op("MatMul", ("x", "y"), {"transpose_a": False, "transpose_b": False},
            infer=_matmul_infer, kernel=np.matmul, kernel_factory=_matmul_factory,
            family="extern", doc="matrix product with numpy's batching and 1-D rules")


# rows at least this long (and shorter than numpy's ufunc buffer) are broadcast against
# with a buffer of one row: see backend/fusion.py _row_buffer
_ROW_BUFFER_MIN = 256


def _row_buffer(x, axis) -> int:
    """A ufunc buffer size of at most one row for x op reduced(x) along the last axis of
    rows 256..8191 long (0: numpy's default). numpy's default buffer spans rows and
    copies the broadcast operand element by element: x - max on [256, 1000] float32
    takes 97 us, 43 us with a buffer of one row; the values are the same (subtract and
    divide are correctly rounded whatever the loop)."""
    d = x.shape[-1] if x.ndim >= 2 else 0
    last = axis in (-1, x.ndim - 1) or (isinstance(axis, tuple) and len(axis) == 1 and
                                        axis[0] in (-1, x.ndim - 1))
    if not last or not _ROW_BUFFER_MIN <= d < np.getbufsize():
        return 0
    return d // 16 * 16


def _broadcast_op(ufunc, a, b, rows: int, out=None):
    """ufunc(a, b, out) with numpy's ufunc buffer set to `rows` elements (if not 0)."""
    if not rows:
        return ufunc(a, b, out=out)
    old = np.setbufsize(rows)
    try:
        return ufunc(a, b, out=out)
    finally:
        np.setbufsize(old)


def _softmax(name, log):
    def infer(ts, attrs):
        (x,) = ts
        axes = attrs["axis"]
        for a in (axes if isinstance(axes, tuple) else (axes,)):
            if x.rank == 0:
                continue
            norm_axis(name, a, x.rank)
        return TensorType(float_result(x.dtype), x.shape)

    def kernel(x, axis):
        x = np.asarray(x)
        if x.ndim == 0:
            return np.zeros_like(x) if log else np.ones_like(x)
        m = np.max(x, axis=axis, keepdims=True)
        rows = _row_buffer(x, axis)
        d = _broadcast_op(np.subtract, x, m, rows)
        e = np.exp(d, out=d) if d.dtype.kind == "f" and not log else np.exp(d)
        s = np.sum(e, axis=axis, keepdims=True)
        if log:
            return _broadcast_op(np.subtract, d, np.log(s), rows, out=d)
        return _broadcast_op(np.true_divide, e, s, rows, out=e)

    def factory(in_types, out_types, attrs):
        odt, axis = out_types[0].dtype.np, attrs["axis"]
        return lambda x: kernel(np.asarray(x, dtype=odt), axis)

    register_op(name, ("x",), {"axis": -1}, infer=infer, kernel=kernel,
                kernel_factory=factory, family="extern",
                doc=("log of " if log else "") + "exp(x) / sum(exp(x)) along axis")


_softmax("Softmax", False)
_softmax("LogSoftmax", True)


def _one_hot_infer(ts, attrs):
    (idx,) = ts
    if not idx.dtype.is_integer:
        raise fail("OneHot", f"indices must be integers, got {idx.dtype}")
    depth = attrs["depth"]
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 0:
        raise fail("OneHot", f"depth must be a non-negative int, got {depth!r}")
    out = dt.as_dtype(attrs["dtype"])
    if idx.shape is None:
        return TensorType(out, None)
    a = norm_axis("OneHot", attrs["axis"], len(idx.shape), extra=1)
    return TensorType(out, idx.shape[:a] + (int(depth),) + idx.shape[a:])


def _one_hot_factory(in_types, out_types, attrs):
    depth, axis = int(attrs["depth"]), attrs["axis"]
    odt = out_types[0].dtype.np
    on, off = np.asarray(attrs["on_value"], dtype=odt), np.asarray(attrs["off_value"], dtype=odt)

    def k(idx):
        idx = np.asarray(idx)
        hot = np.expand_dims(idx, -1) == np.arange(depth)   # out-of-range rows are all off
        return np.moveaxis(np.where(hot, on, off), -1, axis)
    return k


register_op("OneHot", ("indices",), {"depth": REQUIRED, "on_value": 1, "off_value": 0,
                                     "axis": -1, "dtype": dt.float32},
            infer=_one_hot_infer, kernel_factory=_one_hot_factory, family="extern",
            doc="on_value where the new axis equals the index, off_value elsewhere")


# -- BatchDot (ops.batch_dot) ---------------------------------------------------------------
def _batch_dot_infer(ts, attrs):
    a, b = ts
    dtype = promote(a.dtype, b.dtype)
    if dtype.is_bool:
        raise fail("BatchDot", "is not defined for bool tensors")
    axes = attrs["axes"]
    if not (isinstance(axes, tuple) and len(axes) == 2 and all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 1 for i in axes)):
        raise fail("BatchDot", f"axes must be a pair of positive axes (not the batch axis 0), "
                               f"got {axes!r}")
    if a.shape is None or b.shape is None:
        return TensorType(dtype, None)
    ra, rb = len(a.shape), len(b.shape)
    if ra < 2 or rb < 2:
        raise fail("BatchDot", f"inputs must have rank >= 2 (the batch axis and more), got "
                               f"{a} and {b}")
    i, j = axes
    if i >= ra or j >= rb:
        raise fail("BatchDot", f"axes {axes} are out of range for {a} and {b}")
    for x, y, what in ((a.shape[0], b.shape[0], "batch sizes"), (a.shape[i], b.shape[j],
                                                                  "contracted dims")):
        if None not in (x, y) and x != y:
            raise fail("BatchDot", f"{what} of {a} and {b} differ ({x} vs {y})")
    batch = a.shape[0] if a.shape[0] is not None else b.shape[0]
    free_a = tuple(d for k, d in enumerate(a.shape) if k not in (0, i))
    free_b = tuple(d for k, d in enumerate(b.shape) if k not in (0, j))
    if ra == 2 and rb == 2:
        return TensorType(dtype, (batch, 1))    # MindSpore keeps one dim for two vectors
    return TensorType(dtype, (batch,) + free_a + free_b)


def _batch_dot_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    i, j = attrs["axes"]

    def k(a, b):
        a, b = np.asarray(a, dtype=odt), np.asarray(b, dtype=odt)
        am = np.moveaxis(a, i, -1)                        # batch, free_a..., c
        bm = np.moveaxis(b, j, 1)                         # batch, c, free_b...
        n, c = a.shape[0], a.shape[i]
        fa, fb = int(np.prod(am.shape[1:-1])), int(np.prod(bm.shape[2:]))
        out = np.matmul(am.reshape(n, fa, c), bm.reshape(n, c, fb))
        if a.ndim == 2 and b.ndim == 2:
            return out.reshape(n, 1)
        return out.reshape((n,) + am.shape[1:-1] + bm.shape[2:])
    return k


register_op("BatchDot", ("x1", "x2"), {"axes": REQUIRED}, infer=_batch_dot_infer,
            kernel_factory=_batch_dot_factory, exact_dtype=True, family="extern",
            doc="per batch (axis 0), the dot product of x1 and x2 over axes (i, j): output "
                "(batch, free dims of x1, free dims of x2)")
