"""ONNX node -> graphjit nodes: window functions (HannWindow, HammingWindow,
BlackmanWindow, constants of a constant size), linear quantization (QuantizeLinear,
DequantizeLinear, DynamicQuantizeLinear: int8, uint8, int16 and uint16, per tensor, per
axis or blocked), integer products (MatMulInteger, ConvInteger) and Det (the Leibniz sum over
permutations, matrices up to 5x5), as the ONNX reference computes them."""
from __future__ import annotations

import itertools

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_nn import _norm
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_RANGES = {D.uint8: (0, 255), D.int8: (-128, 127), D.int16: (-32768, 32767),
           D.uint16: (0, 65535)}


# -- windows --------------------------------------------------------------------------------------
@op("HannWindow", "HammingWindow", "BlackmanWindow")
def _window(cx):
    size = cx.ints(0, "size")
    if size is None or len(size) != 1 or size[0] < 0:
        raise cx.where.damaged("size must be one non-negative integer")
    n = size[0]
    dtype = cx.dtype_attr("output_datatype", 1)
    periodic = cx.attrs.int("periodic", 1)
    denom = n if periodic == 1 else n - 1
    ni = np.arange(n, dtype=np.float64)
    kind = cx.node.op_type
    with np.errstate(all="ignore"):
        if kind == "HannWindow":
            w = np.sin(ni * np.pi / denom) ** 2
        elif kind == "HammingWindow":
            alpha = 25.0 / 46.0
            w = alpha - np.cos(ni * np.pi * 2 / denom) * (1 - alpha)
        else:
            w = np.cos(ni * np.pi * 2 / denom) * -0.5 + np.cos(ni * np.pi * 4 / denom) * 0.08 \
                + 0.42
    return [cx.emit("Identity", cx.array(w.astype(dtype.np)))]


# -- quantization ---------------------------------------------------------------------------------
def _along(cx: NodeCx, v, shape, axis, block):
    """A scale or zero point shaped to broadcast over x: a scalar as it is, a vector
    along axis, a blocked one (axis dim ceil(d / block)) repeated block times there."""
    if v.shape is None:
        raise cx.refuse("the scale's shape must be known while building")
    r = len(shape)
    if len(v.shape) == 0 or v.shape == (1,):
        return v if len(v.shape) == 0 else cx.emit("Reshape", v, shape=())
    a = _norm(cx, axis, r)
    if block:
        if len(v.shape) != r:
            raise cx.where.damaged(f"a blocked scale must have the input's rank, got {v.type}")
        idx = np.arange(shape[a], dtype=np.int64) // block
        return cx.emit("Gather", v, cx.array(idx), axis=a)
    if len(v.shape) != 1 or v.shape[0] != shape[a]:
        raise cx.where.damaged(f"a per-axis scale must have {shape[a]} entries, got {v.type}")
    return cx.emit("Reshape", v, shape=tuple(-1 if i == a else 1 for i in range(r)))


def _quant_dtype(cx, zp):
    if zp is not None:
        dt = zp.dtype
    elif cx.attrs.has("output_dtype") and cx.attrs.int("output_dtype"):
        dt = cx.dtype_attr("output_dtype")
    else:
        dt = D.uint8
    if dt not in _RANGES:
        raise cx.refuse(f"quantization to {dt} is not supported (int8, uint8, int16, uint16)")
    return dt


def quantize(cx, x, scale, zp, dt):
    """clip(rint(x / scale) + zp) in dt (scale and zp already broadcastable)."""
    q = cx.emit("Round", cx.emit("RealDiv", x, scale))
    q = cx.emit("Cast", q, dtype=D.int32)
    if zp is not None:
        q = cx.emit("Add", q, cx.keep(zp, D.int32))
    lo, hi = _RANGES[dt]
    q = cx.emit("Minimum", cx.emit("Maximum", q, cx.array(np.int32(lo))), cx.array(np.int32(hi)))
    return cx.emit("Cast", q, dtype=dt)


@op("QuantizeLinear")
def _quantize(cx):
    x, scale, zp = cx.x(0), cx.x(1), cx.opt(2)
    shape = _static(cx, x)
    axis, block = cx.attrs.int("axis", 1), cx.attrs.int("block_size", 0)
    dt = _quant_dtype(cx, zp)
    if cx.attrs.has("precision") and cx.attrs.int("precision"):
        p = cx.dtype_attr("precision")
        x, scale = cx.keep(x, p), cx.keep(scale, p)
    s = _along(cx, scale, shape, axis, block)
    z = None if zp is None else _along(cx, zp, shape, axis, block)
    return [quantize(cx, x, s, z, dt)]


@op("DequantizeLinear")
def _dequantize(cx):
    x, scale, zp = cx.x(0), cx.x(1), cx.opt(2)
    shape = _static(cx, x)
    if x.dtype not in _RANGES and x.dtype is not D.int32:
        raise cx.refuse(f"dequantization of {x.type} is not supported")
    axis, block = cx.attrs.int("axis", 1), cx.attrs.int("block_size", 0)
    dx = cx.emit("Cast", x, dtype=D.float32)
    if zp is not None:
        if zp.dtype is not x.dtype:
            raise cx.where.damaged(f"the zero point {zp.type} must have x's dtype {x.type}")
        dx = cx.emit("Sub", dx, cx.keep(_along(cx, zp, shape, axis, block), D.float32))
    y = cx.emit("Mul", dx, _along(cx, scale, shape, axis, block))
    out = cx.dtype_attr("output_dtype") if cx.attrs.has("output_dtype") and \
        cx.attrs.int("output_dtype") else scale.dtype
    return [cx.keep(y, out)]


@op("DynamicQuantizeLinear")
def _dynamic_quantize(cx):
    """uint8 quantization of x over its range stretched to hold 0: scale
    (max - min) / 255, zero point round(-min / scale) clipped."""
    x = cx.x(0)
    if x.dtype is not D.float32:
        raise cx.where.damaged(f"DynamicQuantizeLinear takes float32, got {x.type}")
    zero = cx.scalar(0, x)
    hi = cx.emit("Maximum", cx.emit("ReduceMax", x, axis=None, keep_dims=False), zero)
    lo = cx.emit("Minimum", cx.emit("ReduceMin", x, axis=None, keep_dims=False), zero)
    scale = cx.emit("RealDiv", cx.emit("Sub", hi, lo), cx.scalar(255, x))
    zp = cx.emit("Round", cx.emit("RealDiv", cx.emit("Neg", lo), scale))
    zp = cx.emit("Cast", cx.emit("Minimum", cx.emit("Maximum", zp, zero), cx.scalar(255, x)),
                 dtype=D.uint8)
    return [quantize(cx, x, scale, zp, D.uint8), scale, zp]


# -- integer products -----------------------------------------------------------------------------
def _shifted(cx, v, zp, row_vector=False):
    v = cx.emit("Cast", v, dtype=D.int32)
    if zp is None:
        return v
    z = cx.emit("Cast", zp, dtype=D.int32)
    if row_vector and zp.shape is not None and len(zp.shape) == 1 and zp.shape[0] != 1:
        z = cx.emit("ExpandDims", z, axis=-1)
    return cx.emit("Sub", v, z)


@op("MatMulInteger")
def _matmul_integer(cx):
    a = _shifted(cx, cx.x(0), cx.opt(2), row_vector=True)
    b = _shifted(cx, cx.x(1), cx.opt(3))
    return [cx.keep(cx.emit("MatMul", a, b), D.int32)]


@op("ConvInteger")
def _conv_integer(cx):
    """The convolution of the shifted int32 values, computed in float64 (exact while the
    sums stay below 2 ** 53) and cast back to int32."""
    from .import_net import _window_attrs
    x = _shifted(cx, cx.x(0), cx.opt(2))
    wz = cx.opt(3)
    w = cx.emit("Cast", cx.x(1), dtype=D.int32)
    if wz is not None:
        z = cx.emit("Cast", wz, dtype=D.int32)
        if wz.shape is not None and len(wz.shape) == 1 and wz.shape[0] != 1:
            z = cx.emit("Reshape", z, shape=(-1, 1, 1, 1))
        w = cx.emit("Sub", w, z)
    ws = _static(cx, w, "weight")
    kernel = cx.attrs.ints("kernel_shape", tuple(ws[2:]))
    k, s, d, mode, pad = _window_attrs(cx, x, kernel)
    y = cx.emit("Conv2D", cx.emit("Cast", x, dtype=D.float64),
                cx.emit("Cast", w, dtype=D.float64), out_channel=int(ws[0]),
                kernel_size=tuple(k), pad_mode=mode, pad=tuple(pad), stride=tuple(s),
                dilation=tuple(d), group=cx.attrs.int("group", 1))
    return [cx.emit("Cast", cx.emit("Round", y), dtype=D.int32)]


# -- Det ------------------------------------------------------------------------------------------
@op("Det")
def _det(cx):
    """sum over the permutations p of sign(p) * prod_i x[..., i, p(i)] (n! terms, n <= 5)."""
    x = cx.x(0)
    shape = _static(cx, x)
    if len(shape) < 2 or shape[-1] != shape[-2] or not x.dtype.is_floating:
        raise cx.where.damaged(f"Det takes float square matrices (..., n, n), got {x.type}")
    n = shape[-1]
    if n > 5:
        raise cx.refuse(f"Det of {n}x{n} matrices is not supported (graphjit sums the "
                        f"permutations of up to 5x5)")
    if n == 0:
        return [cx.emit("Fill", shape=shape[:-2], dtype=x.dtype, value=1)]
    perms = np.array(list(itertools.permutations(range(n))), np.int64)
    signs = np.array([np.linalg.det(np.eye(n)[list(p)]) for p in perms]).round()
    flat = cx.emit("Reshape", x, shape=shape[:-2] + (n * n,))
    picked = cx.emit("Gather", flat, cx.array(np.arange(n) * n + perms), axis=len(shape) - 2)
    terms = cx.emit("ReduceProd", picked, axis=-1, keep_dims=False)
    y = cx.emit("ReduceSum", cx.emit("Mul", terms, cx.array(signs.astype(x.dtype.np))),
                axis=-1, keep_dims=False)
    return [cx.keep(y, x.dtype)]


def _requantize(cx, acc, ratio, zp, dtype, round_first=True):
    """clip(rint(acc * ratio + zp)) in dtype, computed in float64 as numpy promotes the
    int32 accumulator against the float scale ratio."""
    y = cx.emit("Mul", cx.emit("Cast", acc, dtype=D.float64), cx.keep(ratio, D.float64))
    if zp is not None:
        y = cx.emit("Add", y, cx.emit("Cast", zp, dtype=D.float64))
    lo, hi = _RANGES.get(dtype, (None, None))
    if lo is None:
        raise cx.refuse(f"requantization to {dtype} is not supported (int8, uint8, int16, uint16)")
    if round_first:
        y = cx.emit("Round", y)
    y = cx.emit("Minimum", cx.emit("Maximum", y, cx.array(np.float64(lo))),
                cx.array(np.float64(hi)))
    if not round_first:
        y = cx.emit("Round", y)
    return cx.emit("Cast", y, dtype=dtype)


@op("QLinearMatMul")
def _qlinear_matmul(cx):
    a, a_s, a_z, b, b_s, b_z, y_s, y_z = (cx.opt(i) for i in range(8))
    if a is None or b is None or a_s is None or b_s is None or y_s is None:
        raise cx.where.damaged("QLinearMatMul needs a, b and the three scales")
    acc = cx.emit("MatMul", _shifted(cx, a, a_z), _shifted(cx, b, b_z))
    ratio = cx.emit("RealDiv", cx.emit("Mul", a_s, b_s), y_s)
    return [_requantize(cx, cx.keep(acc, D.int32), ratio, y_z,
                        y_z.dtype if y_z is not None else a.dtype)]


@op("QLinearConv")
def _qlinear_conv(cx):
    """ConvInteger's accumulator (plus the int32 bias) requantized: clipped, then
    rounded, as the ONNX reference does."""
    from .import_net import _window_attrs
    x, x_s, x_z, w, w_s, w_z, y_s, y_z = (cx.opt(i) for i in range(8))
    bias = cx.opt(8)
    xi = _shifted(cx, x, x_z)
    wi = cx.emit("Cast", w, dtype=D.int32)
    ws = _static(cx, w, "weight")
    if w_z is not None:
        z = cx.emit("Cast", w_z, dtype=D.int32)
        if w_z.shape is not None and len(w_z.shape) == 1 and w_z.shape[0] == ws[0]:
            z = cx.emit("Reshape", z, shape=(-1,) + (1,) * (len(ws) - 1))
        wi = cx.emit("Sub", wi, z)
    kernel = cx.attrs.ints("kernel_shape", tuple(ws[2:]))
    k, s, d, mode, pad = _window_attrs(cx, xi, kernel)
    acc = cx.emit("Conv2D", cx.emit("Cast", xi, dtype=D.float64),
                  cx.emit("Cast", wi, dtype=D.float64), out_channel=int(ws[0]),
                  kernel_size=tuple(k), pad_mode=mode, pad=tuple(pad), stride=tuple(s),
                  dilation=tuple(d), group=cx.attrs.int("group", 1))
    acc = cx.emit("Cast", cx.emit("Round", acc), dtype=D.int32)
    if bias is not None:
        acc = cx.emit("Add", acc, cx.emit("Reshape", cx.keep(bias, D.int32), shape=(1, -1, 1, 1)))
    if w_s.shape is not None and len(w_s.shape) == 1 and w_s.shape[0] > 1:
        w_s = cx.emit("Reshape", w_s, shape=(1, -1, 1, 1))
    ratio = cx.emit("RealDiv", cx.emit("Mul", x_s, w_s), y_s)
    return [_requantize(cx, acc, ratio, y_z, y_z.dtype if y_z is not None else x.dtype,
                        round_first=False)]
