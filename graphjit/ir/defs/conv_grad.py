"""Gradients of the windowed operators (conv.py): Conv2D (Conv2DBackpropInput and
Conv2DBackpropFilter), MaxPool (the adjoint goes to the first maximum of each window,
as MindSpore's MaxPoolGrad) and AvgPool (shared equally by each window's counted
elements). The helpers re-derive the padding from the actual sizes, as the forward
kernels do, so unknown dims are fine."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..registry import NOT_DIFFERENTIABLE, register_op, set_grad
from ..types import TensorType
from .conv import _POOL_ATTRS, _window_reduce, _windows, im2col, window_padding

__all__ = ["scatter_windows"]


def _work(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def scatter_windows(dwin, shape, k, s, d, pads):
    """The adjoint of the window view: dwin (..., oh, ow, kh, kw) added back into an
    array of `shape` (..., H, W) at the positions each window element was read from
    (padding dropped)."""
    t, b, ob, lft, r, orr = pads
    h, w = shape[-2], shape[-1]
    out = np.zeros(tuple(shape[:-2]) + (t + h + b + ob, lft + w + r + orr), dtype=dwin.dtype)
    oh, ow = dwin.shape[-4], dwin.shape[-3]
    for p in range(k[0]):
        for q in range(k[1]):
            r0, c0 = p * d[0], q * d[1]
            out[..., r0:r0 + s[0] * (oh - 1) + 1:s[0], c0:c0 + s[1] * (ow - 1) + 1:s[1]] += \
                dwin[..., p, q]
    return out[..., t:t + h, lft:lft + w]


def _conv_attrs(attrs):
    return (tuple(attrs["stride"]), tuple(attrs["dilation"]), attrs["pad_mode"],
            tuple(attrs["pad"]), attrs["group"])


def _conv_grads(g, x, w, attrs, want_x, want_w):
    """Conv2D's adjoints through the im2col matrices of the forward kernel (conv.py): per
    image and group, the weight's is g (og, oh * ow) times the matrix transposed, summed
    over the images; the input's is the weight transposed times g, scattered back from
    the windows it was read from."""
    s, d, mode, p, group = _conv_attrs(attrs)
    work = _work(g.dtype)
    g, x, w = (np.asarray(a, dtype=work) for a in (g, x, w))
    o, cg, kh, kw = w.shape
    k = (kh, kw)
    n, c = x.shape[:2]
    oh, ow = g.shape[-2:]
    gg = g.reshape(n, group, o // group, oh * ow)
    dx = dw = None
    if want_w:
        cols, _ = im2col(x, k, s, d, mode, p)                       # N,C,kh,kw,oh,ow
        cols = cols.reshape(n, group, cg * kh * kw, oh * ow)
        dw = np.matmul(gg, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w.shape)
    if want_x:
        pads = window_padding(x.shape, k, s, d, mode, p)         # x itself is not read
        dcols = np.matmul(w.reshape(group, o // group, cg * kh * kw).transpose(0, 2, 1), gg)
        dwin = dcols.reshape(n, c, kh, kw, oh, ow).transpose(0, 1, 4, 5, 2, 3)
        dx = scatter_windows(dwin, x.shape, k, s, d, pads)
    return dx, dw


def _conv_input_kernel_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    return lambda g, w, x: _conv_grads(g, x, w, attrs, True, False)[0].astype(odt, copy=False)


def _conv_filter_kernel_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    return lambda g, x, w: _conv_grads(g, x, w, attrs, False, True)[1].astype(odt, copy=False)


_CONV_ATTRS = {"out_channel": 1, "kernel_size": (1, 1), "pad_mode": "valid",
               "pad": (0, 0, 0, 0), "stride": (1, 1), "dilation": (1, 1), "group": 1}


def _like_last(ts, attrs):
    return TensorType(ts[0].dtype, ts[-1].shape)


register_op("Conv2DBackpropInput", ("g", "weight", "x"), dict(_CONV_ATTRS),
            infer=_like_last, kernel_factory=_conv_input_kernel_factory, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="the adjoint of Conv2D's input: g correlated back through the weight")
register_op("Conv2DBackpropFilter", ("g", "x", "weight"), dict(_CONV_ATTRS),
            infer=_like_last, kernel_factory=_conv_filter_kernel_factory, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="the adjoint of Conv2D's weight: g against the input's windows")


def _conv2d(b, n):
    g, attrs = n.g, dict(n.attrs)
    dx = dw = None
    if n.differentiable(0):
        dx = b.cast(b.apply("Conv2DBackpropInput", g, n.x(1), n.x(0), **attrs),
                    n.in_types[0].dtype)
    if n.differentiable(1):
        dw = b.cast(b.apply("Conv2DBackpropFilter", g, n.x(0), n.x(1), **attrs),
                    n.in_types[1].dtype)
    return [dx, dw]


# -- pooling -------------------------------------------------------------------------------
def _pool_window(attrs):
    return (tuple(attrs["kernel_size"]), tuple(attrs["strides"]),
            tuple(attrs.get("dilation", (1, 1))), attrs["pad_mode"], tuple(attrs["pad"]),
            attrs["ceil_mode"])


def _max_pool_grad(x, g, **attrs):
    """g routed to the first maximum of each window (row-major, a NaN before any number,
    as argmax), tap by tap: each tap takes the windows whose maximum it is and that no
    earlier tap took, and adds their g at the positions it read."""
    k, s, d, mode, p, ceil = _pool_window(attrs)
    x, g = np.asarray(x), np.asarray(g)
    floating = np.issubdtype(x.dtype, np.floating)
    lowest = -np.inf if floating else np.iinfo(x.dtype).min
    win, pads = _windows(x, k, s, d, mode, p, ceil, lowest)
    t, b, ob, lft, r, orr = pads
    h, w = x.shape[-2], x.shape[-1]
    out = np.zeros(tuple(x.shape[:-2]) + (t + h + b + ob, lft + w + r + orr), dtype=g.dtype)
    oh, ow = win.shape[-4], win.shape[-3]
    top = _window_reduce(np.maximum, win)                   # NaN where a window holds one
    taken = np.zeros(top.shape, dtype=bool)
    zero = g.dtype.type(0)
    for i in range(k[0]):
        for j in range(k[1]):
            v = win[..., i, j]
            hit = v == top
            if floating:
                hit |= v != v
            hit &= ~taken
            taken |= hit
            r0, c0 = i * d[0], j * d[1]
            out[..., r0:r0 + s[0] * (oh - 1) + 1:s[0], c0:c0 + s[1] * (ow - 1) + 1:s[1]] += \
                np.where(hit, g, zero)
    return out[..., t:t + h, lft:lft + w]


def _avg_pool_grad(g, x, **attrs):
    k, s, _, mode, p, ceil = _pool_window(attrs)
    g = np.asarray(g)
    work = _work(g.dtype)
    x = np.asarray(x, dtype=work)
    win, pads = _windows(x, k, s, (1, 1), mode, p, ceil, 0)
    count = _avg_count(x.shape, k, s, mode, p, ceil, attrs, pads, g.shape[-2:], work)
    share = (np.asarray(g, dtype=work) / count)[..., None, None]
    dwin = np.broadcast_to(share, win.shape)
    return scatter_windows(np.ascontiguousarray(dwin), x.shape, k, s, (1, 1),
                           pads).astype(g.dtype, copy=False)


def _avg_count(shape, k, s, mode, p, ceil, attrs, pads, out_hw, work):
    """Each window's divisor, as AvgPool's kernel counts it."""
    divisor = attrs["divisor_override"]
    if divisor:
        return work.type(divisor)
    t, b, ob, lft, r, orr = pads
    h, w = shape[-2], shape[-1]
    keep_pad = attrs["count_include_pad"] and mode != "same"
    rows = np.zeros(t + h + b + ob, dtype=work)
    rows[(0 if keep_pad else t):t + h + (b if keep_pad else 0)] = 1
    cols = np.zeros(lft + w + r + orr, dtype=work)
    cols[(0 if keep_pad else lft):lft + w + (r if keep_pad else 0)] = 1
    rc = sliding_window_view(rows, k[0])[::s[0]].sum(-1)
    cc = sliding_window_view(cols, k[1])[::s[1]].sum(-1)
    return np.outer(rc[:out_hw[0]], cc[:out_hw[1]])


register_op("MaxPoolGrad", ("x", "g"), dict(_POOL_ATTRS, dilation=(1, 1)),
            infer=lambda ts, attrs: TensorType(ts[1].dtype, ts[0].shape),
            kernel=_max_pool_grad, exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="the adjoint of MaxPool: g at the first maximum of each window")
register_op("AvgPoolGrad", ("g", "x"),
            dict(_POOL_ATTRS, count_include_pad=True, divisor_override=0),
            infer=lambda ts, attrs: TensorType(ts[0].dtype, ts[1].shape),
            kernel=_avg_pool_grad, exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="the adjoint of AvgPool: g shared by the counted elements of each window")


def _max_pool(b, n):
    if not n.differentiable(0) or n.gs[0] is None:
        return [None]
    attrs = {k: v for k, v in n.attrs.items() if k != "return_indices"}
    return [b.apply("MaxPoolGrad", n.x(0), n.gs[0], **attrs)]


def _avg_pool(b, n):
    if not n.differentiable(0):
        return [None]
    return [b.apply("AvgPoolGrad", n.g, n.x(0), **n.attrs)]


for _name, _rule in (("Conv2D", _conv2d), ("MaxPool", _max_pool), ("AvgPool", _avg_pool)):
    set_grad(_name, _rule)
