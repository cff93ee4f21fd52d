"""ONNX node -> graphjit nodes: windowed ops built on graphjit's 2-D convolution
(ConvTranspose as Conv2DBackpropInput, LpPool as a convolution by ones, DeformConv,
CausalConvWithState); a 1-D window is a 2-D one of height 1. A 3-D ConvTranspose is a
matrix product scattered by a constant table, a 3-D LpPool import_pool's."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import NodeCx, check_elements, op

__all__: list = []    # the translations register themselves in import_ops.OPS


def _spatial(cx: NodeCx, x, what="input", dims=(1, 2)):
    shape = _static(cx, x, what)
    k = len(shape) - 2
    if k not in dims:
        raise cx.refuse(f"{cx.node.op_type} over {k} spatial dims: graphjit has 2-D windows "
                        f"only")
    return shape, k


def _per_dim(cx, name, k, default):
    v = cx.attrs.ints(name, None)
    v = tuple(default for _ in range(k)) if v is None else tuple(v)
    if len(v) != k:
        raise cx.where.damaged(f"{name} {list(v)} needs {k} entries")
    return v


def _as_2d(cx, x, k):
    """(N, C, L) -> (N, C, 1, L) for a 1-D window."""
    return x if k == 2 else cx.emit("ExpandDims", x, axis=2)


@op("ConvTranspose")
def _conv_transpose(cx):
    x, w, b = cx.x(0), cx.x(1), cx.opt(2)
    shape, k = _spatial(cx, x, dims=(1, 2, 3))
    wshape = _static(cx, w, "weight")
    group = cx.attrs.int("group", 1)
    if len(wshape) != k + 2 or wshape[0] != shape[1] or group <= 0 or shape[1] % group:
        raise cx.where.damaged(f"the weight {w.type} does not fit the input {x.type} with "
                               f"group {group}")
    kernel = _per_dim(cx, "kernel_shape", k, None) if cx.attrs.has("kernel_shape") \
        else tuple(wshape[2:])
    strides = _per_dim(cx, "strides", k, 1)
    dil = _per_dim(cx, "dilations", k, 1)
    outpad = _per_dim(cx, "output_padding", k, 0)
    auto = cx.attrs.string("auto_pad", "NOTSET")
    out_shape = cx.attrs.ints("output_shape", None)
    if out_shape is not None:
        out_shape = tuple(out_shape[-k:])
    ins = shape[2:]
    span = [(kernel[i] - 1) * dil[i] + 1 for i in range(k)]
    if auto in ("SAME_UPPER", "SAME_LOWER") and not cx.attrs.has("pads"):
        want = out_shape or tuple(ins[i] * strides[i] for i in range(k))
        total = [strides[i] * (ins[i] - 1) + outpad[i] + span[i] - want[i] for i in range(k)]
        if auto == "SAME_UPPER":
            begin, end = [t // 2 for t in total], [t - t // 2 for t in total]
        else:
            begin, end = [t - t // 2 for t in total], [t // 2 for t in total]
        out = list(want)
    else:
        if auto not in ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"):
            raise cx.where.damaged(f"unknown auto_pad {auto!r}")
        pads = _per_dim(cx, "pads", 2 * k, 0)
        begin, end = list(pads[:k]), list(pads[k:])
        out = list(out_shape) if out_shape is not None else [
            strides[i] * (ins[i] - 1) + outpad[i] + span[i] - begin[i] - end[i]
            for i in range(k)]
    if any(p < 0 for p in begin + end) or any(o <= 0 for o in out):
        raise cx.refuse(f"ConvTranspose with pads {begin + end} and output {out} is not "
                        f"supported")
    if k == 3:
        return [_conv_transpose_nd(cx, x, w, b, group, strides, dil, begin, out)]
    if k == 1:
        kernel, strides, dil = (1,) + kernel, (1,) + strides, (1,) + dil
        begin, end, out = [0] + begin, [0] + end, [1] + out
    c_out = wshape[1] * group
    like = cx.emit("Fill", shape=(shape[0], c_out) + tuple(out), dtype=x.dtype, value=0)
    pad = (begin[0], end[0], begin[1], end[1])
    y = cx.emit("Conv2DBackpropInput", _as_2d(cx, x, k), _as_2d(cx, w, k), like,
                out_channel=shape[1], kernel_size=tuple(kernel),
                pad_mode="pad" if any(pad) else "valid", pad=pad, stride=tuple(strides),
                dilation=tuple(dil), group=group)
    if k == 1:
        y = cx.emit("Squeeze", y, axis=2)
    if b is not None:
        y = cx.emit("Add", y, cx.emit("Reshape", b, shape=(-1,) + (1,) * k))
    return [y]


def _conv_transpose_nd(cx, x, w, b, group, strides, dil, begin, out):
    """ConvTranspose over 3-D windows: the weight times each input position (grouped
    matrix products), scattered onto the output by a constant 0/1 table (import_grid's,
    the one Col2Im uses)."""
    from .import_grid import scatter_table
    n, c_in = _static(cx, x)[:2]
    ins = _static(cx, x)[2:]
    ws = _static(cx, w, "weight")
    kernel = ws[2:]
    cg, og = c_in // group, ws[1]
    kk, ll = int(np.prod(kernel)), int(np.prod(ins))
    check_elements(cx, (kk * ll, int(np.prod(out))))
    xg = cx.emit("Reshape", x, shape=(n, group, cg, ll))
    wg = cx.emit("Reshape", w, shape=(group, cg, og * kk))
    cols = cx.emit("MatMul", wg, xg, transpose_a=True)                 # (N, g, og*K, L)
    cols = cx.emit("Reshape", cols, shape=(n, group * og, kk * ll))
    table = scatter_table(out, kernel, ins, strides, begin, dil, x.dtype.np)
    y = cx.emit("Reshape", cx.emit("MatMul", cols, cx.array(table)),
                shape=(n, group * og) + tuple(out))
    if b is not None:
        y = cx.emit("Add", y, cx.emit("Reshape", b, shape=(-1, 1, 1, 1)))
    return y


@op("LpPool")
def _lp_pool(cx):
    """(sum over each window of |x|^p)^(1/p): the window sums a convolution of each
    channel by ones (padding adds zeros)."""
    x = cx.x(0)
    if not x.dtype.is_floating:
        raise cx.where.damaged(f"LpPool takes floats, got {x.type}")
    if x.shape is not None and len(x.shape) == 5:
        from .import_pool import pool_nd
        return [pool_nd(cx, x, "lp", cx.attrs.int("p", 2))]
    shape, k = _spatial(cx, x)
    kernel = _per_dim(cx, "kernel_shape", k, None)
    strides = _per_dim(cx, "strides", k, 1)
    dil = _per_dim(cx, "dilations", k, 1)
    if cx.attrs.int("ceil_mode", 0):
        raise cx.refuse("LpPool with ceil_mode=1 is not supported")
    p = cx.attrs.int("p", 2) if cx.opset >= 11 else int(cx.attrs.float("p", 2.0))
    auto = cx.attrs.string("auto_pad", "NOTSET")
    ins = shape[2:]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for i in range(k):
            o = -(-ins[i] // strides[i])
            total = max((o - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - ins[i], 0)
            small, big = total // 2, total - total // 2
            begin.append(small if auto == "SAME_UPPER" else big)
            end.append(big if auto == "SAME_UPPER" else small)
    elif auto in ("NOTSET", "VALID"):
        pads = _per_dim(cx, "pads", 2 * k, 0) if auto == "NOTSET" else (0,) * (2 * k)
        begin, end = list(pads[:k]), list(pads[k:])
    else:
        raise cx.where.damaged(f"unknown auto_pad {auto!r}")
    if k == 1:
        kernel, strides, dil = (1,) + kernel, (1,) + strides, (1,) + dil
        begin, end = [0] + begin, [0] + end
    n, c = shape[:2]
    a = cx.emit("Abs", x)
    powered = cx.emit("Mul", a, a) if p == 2 else cx.emit("Pow", a, cx.scalar(p, a))
    flat = cx.emit("Reshape", powered, shape=(n * c, 1) + ((1,) if k == 1 else ()) + tuple(ins))
    pad = (begin[0], end[0], begin[1], end[1])
    ones = cx.array(np.ones((1, 1) + tuple(kernel), x.dtype.np))
    s = cx.emit("Conv2D", flat, ones, out_channel=1, kernel_size=tuple(kernel),
                pad_mode="pad" if any(pad) else "valid", pad=pad, stride=tuple(strides),
                dilation=tuple(dil), group=1)
    oshape = _static(cx, s)[2:]
    s = cx.emit("Reshape", s, shape=(n, c) + (oshape if k == 2 else oshape[1:]))
    root = cx.emit("Sqrt", s) if p == 2 else cx.emit("Pow", s, cx.scalar(1.0 / p, s))
    return [root]


@op("CausalConvWithState")
def _causal_conv(cx):
    """A depthwise 1-D convolution over past_state (zeros when absent) then the input,
    silu/swish after it if asked; present_state is the last k - 1 steps it read."""
    x, w, b, past = cx.x(0), cx.x(1), cx.opt(2), cx.opt(3)
    batch, c, _ = _static(cx, x)
    wshape = _static(cx, w, "weight")
    if len(wshape) != 3 or wshape[:2] != (c, 1):
        raise cx.where.damaged(f"the weight must be ({c}, 1, k), got {w.type}")
    act = cx.attrs.string("activation", "none")
    if act not in ("none", "silu", "swish"):
        raise cx.where.damaged(f"unknown activation {act!r}")
    k = wshape[2]
    if k > 1:
        pad = past if past is not None else cx.emit("Fill", shape=(batch, c, k - 1),
                                                    dtype=x.dtype, value=0)
        padded = cx.emit("Concat", pad, x, axis=2)
    else:
        padded = x
    y = cx.emit("Conv2D", cx.emit("ExpandDims", padded, axis=2), cx.emit("ExpandDims", w, axis=2),
                out_channel=c, kernel_size=(1, k), pad_mode="valid", pad=(0, 0, 0, 0),
                stride=(1, 1), dilation=(1, 1), group=c)
    y = cx.emit("Squeeze", y, axis=2)
    if b is not None:
        y = cx.emit("Add", y, cx.emit("Reshape", b, shape=(-1, 1)))
    if act != "none":
        f = cx.keep(y, x.dtype if x.dtype.np.itemsize >= 4 else D.float32)
        y = cx.keep(cx.emit("Mul", f, cx.emit("Sigmoid", f)), x.dtype)
    n = _static(cx, padded)[2]
    present = cx.emit("Index", padded, index=(("slice", None, None, None),) * 2 +
                      (("slice", n - (k - 1), None, None),))
    return [y, present]


@op("DeformConv")
def _deform_conv(cx):
    """A 2-D convolution whose taps read the input at positions moved by `offset`
    (bilinear, zero outside), scaled by `mask`: the taps' samples are gathered per
    offset group, then one grouped matrix product by the weight."""
    x, w, off, b, mask = cx.x(0), cx.x(1), cx.x(2), cx.opt(3), cx.opt(4)
    n, ic, ih, iw = _static(cx, x)
    ws = _static(cx, w, "weight")
    oshape = _static(cx, off, "offset")
    if len(ws) != 4:
        raise cx.refuse("DeformConv over other than 2 spatial dims is not supported")
    kh, kw = cx.attrs.ints("kernel_shape", tuple(ws[2:]))
    sh, sw = cx.attrs.ints("strides", (1, 1))
    dh, dw = cx.attrs.ints("dilations", (1, 1))
    pads = cx.attrs.ints("pads", (0, 0, 0, 0))
    group, og = cx.attrs.int("group", 1), cx.attrs.int("offset_group", 1)
    oc = ws[0]
    k = kh * kw
    oh, ow = oshape[2:]
    if ic != ws[1] * group or oc % group or ic % og or oshape[1] != og * k * 2:
        raise cx.where.damaged(f"the weight {w.type}, offset {off.type} and input {x.type} "
                               f"do not fit group {group} and offset_group {og}")
    p = oh * ow
    f64 = D.float64
    off = cx.emit("Reshape", cx.keep(off, f64), shape=(n, og, k, 2, p))
    base_y = (np.arange(kh) * dh)[:, None].repeat(kw, 1).reshape(k, 1) + \
        (-pads[0] + sh * np.arange(oh))[:, None].repeat(ow, 1).reshape(1, p)
    base_x = (np.arange(kw) * dw)[None, :].repeat(kh, 0).reshape(k, 1) + \
        (-pads[1] + sw * np.arange(ow))[None, :].repeat(oh, 0).reshape(1, p)
    pick = lambda i: cx.emit("Squeeze", cx.emit("Index", off, index=(  # noqa: E731
        ("slice", None, None, None),) * 3 + (("slice", i, i + 1, None),)), axis=3)
    ys = cx.emit("Add", pick(0), cx.array(base_y.astype(np.float64)))      # (N, OG, K, P)
    xs = cx.emit("Add", pick(1), cx.array(base_x.astype(np.float64)))
    ys, xs = (cx.emit("Cast", cx.emit("Cast", v, dtype=D.float32), dtype=f64) for v in (ys, xs))
    weight_mask = None if mask is None else cx.emit(
        "Reshape", cx.keep(mask, f64), shape=(n, og, k, p))
    images = cx.emit("Reshape", x, shape=(n, og, ic // og, ih * iw))
    total = None
    y0, x0 = cx.emit("Floor", ys), cx.emit("Floor", xs)
    for ty in (0, 1):
        for tx in (0, 1):
            yi = cx.emit("Add", y0, cx.array(np.float64(ty)))
            xi = cx.emit("Add", x0, cx.array(np.float64(tx)))
            wy = cx.emit("Sub", ys, y0) if ty else cx.emit("Sub", cx.array(np.float64(1)),
                                                          cx.emit("Sub", ys, y0))
            wx = cx.emit("Sub", xs, x0) if tx else cx.emit("Sub", cx.array(np.float64(1)),
                                                          cx.emit("Sub", xs, x0))
            ok = cx.emit("LogicalAnd", cx.emit("LogicalAnd", cx.emit(
                "GreaterEqual", yi, cx.array(np.float64(0))), cx.emit(
                "Less", yi, cx.array(np.float64(ih)))), cx.emit("LogicalAnd", cx.emit(
                    "GreaterEqual", xi, cx.array(np.float64(0))), cx.emit(
                    "Less", xi, cx.array(np.float64(iw)))))
            lin = cx.emit("Add", cx.emit("Mul", yi, cx.array(np.float64(iw))), xi)
            lin = cx.emit("Cast", cx.emit("Select", ok, lin, cx.array(np.float64(0))),
                          dtype=D.int64)
            wt = cx.emit("Select", ok, cx.emit("Mul", wy, wx), cx.array(np.float64(0)))
            if weight_mask is not None:
                wt = cx.emit("Mul", wt, weight_mask)
            index = cx.emit("BroadcastTo", cx.emit("Reshape", lin, shape=(n, og, 1, k * p)),
                            shape=(n, og, ic // og, k * p))
            v = cx.emit("Mul", cx.emit("GatherD", images, index, dim=3),
                        cx.keep(cx.emit("Reshape", wt, shape=(n, og, 1, k * p)), x.dtype))
            total = v if total is None else cx.emit("Add", total, v)
    cols = cx.emit("Reshape", total, shape=(n, group, (ic // group) * k, p))
    wmat = cx.emit("Reshape", w, shape=(group, oc // group, (ic // group) * k))
    y = cx.emit("Reshape", cx.emit("MatMul", wmat, cols), shape=(n, oc, oh, ow))
    if b is not None:
        y = cx.emit("Add", y, cx.emit("Reshape", b, shape=(1, -1, 1, 1)))
    return [y]
