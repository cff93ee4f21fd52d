"""ONNX MaxPool and AveragePool where graphjit's 2-D MaxPool/AvgPool cannot take them
(1-D and 3-D windows, AvgPool with dilations, padding larger than half the window), and
LpPool over 3-D windows:
pooling is separable, so each spatial axis is pooled in turn by constant tables made
while building, with the windows, the ceil_mode extra padding and the counted taps of
the ONNX reference (op_pool_common): a sum matrix and per-axis counts for averages, a
gather of the taps (the others -inf) for maxima."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import NodeCx, check_elements

__all__ = ["pool_nd"]


def _axis_windows(n, k, s, d, pb, pe, ceil):
    """(output length, taps (out, k) in input coordinates, tap counted (out, k)) of one
    axis, as the ONNX reference pads and slides its windows."""
    span = d * (k - 1) + 1
    size = (n + pb + pe - span) / s + 1
    if ceil:
        out = int(np.ceil(size))
        if (out - 1) * s >= n + pb:
            out -= 1
    else:
        out = int(np.floor(size))
    extra = (out - 1) * s + span - n - pb - pe
    shift = pb + (extra // 2 if extra > 0 else 0)
    start = np.arange(out)[:, None] * s + np.arange(k)[None, :] * d     # padded coords
    counted = start < n + pb + pe
    return out, start - shift, counted


def _explicit_pads(cx, shape, kernel, strides, dil):
    auto = cx.attrs.string("auto_pad", "NOTSET")
    k = len(kernel)
    if auto in ("NOTSET", "VALID"):
        pads = cx.attrs.ints("pads", (0,) * (2 * k)) if auto == "NOTSET" else (0,) * (2 * k)
        return list(pads[:k]), list(pads[k:])
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise cx.where.damaged(f"unknown auto_pad {auto!r}")
    begin, end = [], []
    for n, kk, s, d in zip(shape, kernel, strides, dil):
        o = -(-n // s)
        total = max((o - 1) * s + (kk - 1) * d + 1 - n, 0)
        small, big = total // 2, total - total // 2
        begin.append(small if auto == "SAME_UPPER" else big)
        end.append(big if auto == "SAME_UPPER" else small)
    return begin, end


def pool_nd(cx: NodeCx, x, kind: str, p: int = 2):
    """kind 'max', 'avg' or 'lp' (LpPool's p-norm of each window): the pooled x, one
    spatial axis at a time."""
    shape = _static(cx, x)
    k = len(shape) - 2
    kernel = tuple(cx.attrs.ints("kernel_shape"))
    if len(kernel) != k:
        raise cx.where.damaged(f"kernel_shape {list(kernel)} does not fit {x.type}")
    strides = tuple(cx.attrs.ints("strides", (1,) * k))
    dil = tuple(cx.attrs.ints("dilations", (1,) * k))
    ceil = bool(cx.attrs.int("ceil_mode", 0))
    include = bool(cx.attrs.int("count_include_pad", 0)) and kind == "avg"
    begin, end = _explicit_pads(cx, shape[2:], kernel, strides, dil)
    if cx.attrs.string("auto_pad", "NOTSET") not in ("NOTSET",) and ceil:
        raise cx.where.damaged("ceil_mode cannot be combined with auto_pad")
    r = len(shape)
    y = x if kind == "max" else (x if x.dtype.is_floating else cx.keep(x, D.float32))
    if kind == "lp":
        y = cx.emit("Pow", cx.emit("Abs", y), cx.scalar(p, y))
    divisor = None
    for i in range(k):
        a = 2 + i
        n = _static(cx, y)[a]
        out, pos, counted = _axis_windows(n, kernel[i], strides[i], dil[i], begin[i], end[i],
                                          ceil)
        if out <= 0:
            raise cx.where.damaged(f"the window does not fit dim {a} of {x.type}")
        real = counted & (pos >= 0) & (pos < n)
        check_elements(cx, (n, out))
        perm = tuple(j for j in range(r) if j != a) + (a,)
        back = tuple(int(j) for j in np.argsort(perm))
        t = cx.emit("Transpose", y, perm=perm)
        if kind != "max":
            table = np.zeros((n, out), y.dtype.np)
            for o in range(out):
                np.add.at(table[:, o], pos[o][real[o]], 1)
            t = cx.emit("MatMul", t, cx.array(table))
            cnt = (counted if include else real).sum(axis=1).astype(np.float64)
            cnt = cnt.reshape(tuple(out if j == a else 1 for j in range(r)))
            divisor = cnt if divisor is None else divisor * cnt
        else:
            idx = np.where(real, pos, 0).astype(np.int64)
            taps = cx.emit("Gather", t, cx.array(idx), axis=r - 1)       # (..., out, k)
            low = np.asarray(-np.inf if y.dtype.is_floating else np.iinfo(y.dtype.np).min,
                             y.dtype.np)
            taps = cx.emit("Select", cx.array(real), taps, cx.array(low))
            t = cx.emit("ReduceMax", taps, axis=-1, keep_dims=False)
        y = cx.emit("Transpose", t, perm=back)
    if kind == "avg":
        y = cx.keep(cx.emit("RealDiv", y, cx.array(divisor.astype(y.dtype.np))), x.dtype)
    elif kind == "lp":
        y = cx.keep(cx.emit("Pow", y, cx.scalar(1.0 / p, y)), x.dtype)
    return y
