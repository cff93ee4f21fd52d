"""ONNX node -> graphjit nodes: the network ops (Conv, MaxPool, AveragePool, global
pooling, BatchNormalization, LayerNormalization): graphjit's 2-D windows (a 1-D Conv as
one of height 1; other pools in import_pool.py)."""
from __future__ import annotations

import numpy as np

from .import_nn import _norm, _rank
from .import_ops import op

__all__: list = []    # the translations register themselves in import_ops.OPS

# -- network ops ----------------------------------------------------------------------------------
def _window_attrs(cx, x, kernel, one_d=False):
    """graphjit's (kernel, strides, dilation, pad_mode, pad) of an ONNX Conv or pool
    (one_d: a 1-D window, x already given a height of 1, as one of height 1)."""
    if one_d:
        kernel = (1,) + tuple(kernel)
        strides = (1,) + cx.attrs.ints("strides", (1,))
        dil = (1,) + cx.attrs.ints("dilations", (1,))
        p = cx.attrs.ints("pads", (0, 0))
        pads = (0, p[0], 0, p[1]) if len(p) == 2 else p
    elif len(kernel) != 2:
        raise cx.refuse(f"{cx.node.op_type} over {len(kernel)} spatial dims: graphjit has "
                        f"{'1-D and ' if cx.node.op_type == 'Conv' else ''}2-D windows only")
    else:
        strides = cx.attrs.ints("strides", (1, 1))
        dil = cx.attrs.ints("dilations", (1, 1))
        pads = cx.attrs.ints("pads", (0, 0, 0, 0))
    if len(strides) != 2 or len(dil) != 2 or len(pads) != 4:
        raise cx.where.damaged("strides and dilations need 2 entries and pads 4")
    auto = cx.attrs.string("auto_pad", "NOTSET")
    pad = (pads[0], pads[2], pads[1], pads[3])
    if auto == "NOTSET":
        return kernel, strides, dil, ("pad" if any(pad) else "valid"), pad
    if auto == "VALID":
        return kernel, strides, dil, "valid", (0, 0, 0, 0)
    if auto == "SAME_UPPER":
        return kernel, strides, dil, "same", (0, 0, 0, 0)
    if auto == "SAME_LOWER":
        if x.shape is None or x.shape[-1] is None or x.shape[-2] is None:
            raise cx.refuse("auto_pad SAME_LOWER needs the spatial dims known")
        pad = []
        for n, k, s, d in zip(x.shape[-2:], kernel, strides, dil):
            out = -(-n // s)
            total = max((out - 1) * s + d * (k - 1) + 1 - n, 0)
            pad.append((total - total // 2, total // 2))
        return kernel, strides, dil, "pad", (pad[0][0], pad[0][1], pad[1][0], pad[1][1])
    raise cx.where.damaged(f"unknown auto_pad {auto!r}")


@op("Conv")
def _conv(cx):
    x, w, b = cx.x(0), cx.x(1), cx.opt(2)
    if w.shape is None or w.shape[0] is None:
        raise cx.refuse("Conv needs the weight's output channels known while building")
    kernel = cx.attrs.ints("kernel_shape", tuple(w.shape[2:]))
    one_d = len(kernel) == 1
    if one_d:      # a 1-D window is a 2-D one of height 1
        x, w = cx.emit("ExpandDims", x, axis=2), cx.emit("ExpandDims", w, axis=2)
    k, s, d, mode, pad = _window_attrs(cx, x, kernel, one_d)
    y = cx.emit("Conv2D", x, w, out_channel=int(w.shape[0]), kernel_size=tuple(k),
                pad_mode=mode, pad=tuple(pad), stride=tuple(s), dilation=tuple(d),
                group=cx.attrs.int("group", 1))
    if one_d:
        y = cx.emit("Squeeze", y, axis=2)
    if b is not None:
        y = cx.emit("Add", y, cx.emit("Reshape", b, shape=(1, -1) + (1,) * (len(kernel))))
    return [y]


def _needs_nd(cx, kernel, avg):
    """Whether a pool goes to import_pool's separable form: a 1-D or 3-D window, an
    AveragePool with dilations, or padding wider than half the window (graphjit's own
    pools refuse it, as PyTorch and MindSpore do; ONNX defines it)."""
    if len(kernel) != 2:
        return True
    dil = cx.attrs.ints("dilations", (1, 1))
    if avg and tuple(dil) != (1, 1):
        return True
    pads = cx.attrs.ints("pads", (0, 0, 0, 0)) if cx.attrs.string("auto_pad", "NOTSET") == \
        "NOTSET" else (0, 0, 0, 0)
    if len(pads) != 4 or len(dil) != 2:
        return False       # _window_attrs names the damage
    return any(p > (dil[i % 2] * (kernel[i % 2] - 1) + 1) // 2 for i, p in enumerate(pads))


@op("MaxPool")
def _max_pool(cx):
    from .import_pool import pool_nd
    x = cx.x(0)
    indices = len(cx.node.output) > 1 and cx.node.output[1]
    kernel = cx.attrs.ints("kernel_shape")
    if _needs_nd(cx, kernel, False):
        if indices:
            raise cx.refuse("MaxPool's Indices output is supported for 2-D windows only")
        return [pool_nd(cx, x, "max")]
    k, s, d, mode, pad = _window_attrs(cx, x, kernel)
    attrs = dict(kernel_size=tuple(k), strides=tuple(s), dilation=tuple(d), pad_mode=mode,
                 pad=tuple(pad), ceil_mode=bool(cx.attrs.int("ceil_mode", 0)))
    if not indices:
        return [cx.emit("MaxPool", x, **attrs)]
    # graphjit's index is into each H * W plane; ONNX's into the whole N * C * H * W
    y, at = cx.emit("MaxPool", x, return_indices=True, **attrs)
    n, c, h, w = x.shape
    if any(v is None for v in (n, c, h, w)):
        raise cx.refuse("MaxPool's Indices output needs the input's shape known while "
                        "building")
    plane = (np.arange(n * c, dtype=np.int64) * h * w).reshape(n, c, 1, 1)
    from ..ir import dtypes as D
    at = cx.keep(at, D.int64)
    if cx.attrs.int("storage_order", 0):      # column-major within the plane: w * H + h
        width = cx.array(np.int64(w))
        at = cx.emit("Add", cx.emit("Mul", cx.emit("FloorMod", at, width), cx.array(np.int64(h))),
                     cx.emit("FloorDiv", at, width))
    return [y, cx.emit("Add", at, cx.array(plane))]


@op("AveragePool")
def _avg_pool(cx):
    from .import_pool import pool_nd
    x = cx.x(0)
    kernel = cx.attrs.ints("kernel_shape")
    if _needs_nd(cx, kernel, True):
        return [pool_nd(cx, x, "avg")]
    k, s, d, mode, pad = _window_attrs(cx, x, kernel)
    return [cx.emit("AvgPool", x, kernel_size=tuple(k), strides=tuple(s), pad_mode=mode,
                    pad=tuple(pad), ceil_mode=bool(cx.attrs.int("ceil_mode", 0)),
                    count_include_pad=bool(cx.attrs.int("count_include_pad", 0)))]


@op("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(cx):
    x = cx.x(0)
    r = _rank(cx, x)
    gj = "ReduceMean" if cx.node.op_type == "GlobalAveragePool" else "ReduceMax"
    return [cx.emit(gj, x, axis=tuple(range(2, r)), keep_dims=True)]


@op("BatchNormalization")
def _batch_norm(cx):
    if cx.attrs.int("training_mode", 0):
        return _batch_norm_training(cx)
    if len([o for o in cx.node.output if o]) > 1:
        raise cx.refuse("BatchNormalization's running statistics outputs need training_mode=1 "
                        "(opset 14+); the older training forms are not supported")
    x = cx.x(0)
    y = cx.emit("BatchNorm", x, cx.x(1), cx.x(2), cx.x(3), cx.x(4), is_training=False,
                epsilon=cx.attrs.float("epsilon", 1e-5))
    return [y[0]]


def _batch_norm_training(cx):
    """Normalized by the batch's mean and (biased) variance per channel; the running
    statistics come out updated: running * momentum + batch * (1 - momentum)."""
    x, scale, bias, mean, var = (cx.x(i) for i in range(5))
    r = _rank(cx, x)
    axes = (0,) + tuple(range(2, r))
    eps, momentum = cx.attrs.float("epsilon", 1e-5), cx.attrs.float("momentum", 0.9)
    m = cx.emit("ReduceMean", x, axis=axes, keep_dims=True)
    d = cx.emit("Sub", x, m)
    v = cx.emit("ReduceMean", cx.emit("Mul", d, d), axis=axes, keep_dims=True)
    shape = (-1,) + (1,) * (r - 2)
    y = cx.emit("RealDiv", d, cx.emit("Sqrt", cx.emit("Add", v, cx.scalar(eps, v))))
    y = cx.emit("Add", cx.emit("Mul", y, cx.emit("Reshape", scale, shape=shape)),
                cx.emit("Reshape", bias, shape=shape))
    flat = lambda t: cx.emit("Reshape", t, shape=(-1,))        # noqa: E731
    run = lambda old, new: cx.emit("Add", cx.emit("Mul", old, cx.scalar(momentum, old)),  # noqa
                                   cx.emit("Mul", flat(new), cx.scalar(1 - momentum, old)))
    return [y, run(mean, m), run(var, v)]


@op("LayerNormalization")
def _layer_norm(cx):
    x, scale, bias = cx.x(0), cx.x(1), cx.opt(2)
    r = _rank(cx, x)
    axis = _norm(cx, cx.attrs.int("axis", -1), r)
    want = x.shape[axis:]
    if scale.shape != want:
        if scale.shape is None or len(scale.shape) > len(want):
            raise cx.refuse(f"LayerNormalization's scale {scale.type} must have the normalized "
                            f"shape {list(want)}")
        scale = cx.emit("BroadcastTo", scale, shape=tuple(-1 if s is None else s
                                                          for s in want))
    if bias is None:
        bias = cx.emit("ZerosLike", scale)
    elif bias.shape != scale.shape:
        bias = cx.emit("BroadcastLike", bias, scale)
    eps = cx.attrs.float("epsilon", 1e-5)
    y, mean, var = cx.emit("LayerNorm", x, scale, bias, begin_norm_axis=axis,
                           begin_params_axis=axis, epsilon=eps)
    stash = cx.dtype_attr("stash_type", 1)
    inv = cx.emit("Rsqrt", cx.emit("Add", var, cx.scalar(eps, var)))
    return [y, cx.keep(mean, stash), cx.keep(inv, stash)]
