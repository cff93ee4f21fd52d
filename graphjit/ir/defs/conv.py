"""Windowed operators over the last two (spatial) dims: Conv2D (NCHW), MaxPool and
AvgPool, with MindSpore's pad modes ('valid', 'same', 'pad'), strides and dilations.

Output sizes follow MindSpore (and TensorFlow for 'same'):
    valid: floor((n - e) / s) + 1              e = d * (k - 1) + 1, the dilated window
    same:  ceil(n / s), padded by max((out - 1) * s + e - n, 0), the odd one at the end
    pad:   floor((n + p0 + p1 - e) / s) + 1    (ceil with ceil_mode, as PyTorch)
Unknown input dims give unknown output dims; the kernels work the padding out from
the actual sizes.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import dtypes as dt
from ..registry import REQUIRED, register_op
from ..types import TensorType
from .common import fail, promote

__all__ = ["window_out", "window_pads", "window_padding", "im2col", "conv2d_nchw"]

PAD_MODES = ("valid", "same", "pad")


def _pair(op, name, v, n=2):
    if not isinstance(v, tuple) or len(v) != n or not all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in v):
        raise fail(op, f"{name} must be a tuple of {n} ints, got {v!r}")
    return tuple(int(i) for i in v)


def _check_window(op, attrs, kernel_key, stride_key):
    k = _pair(op, kernel_key, attrs[kernel_key])
    s = _pair(op, stride_key, attrs[stride_key])
    d = _pair(op, "dilation", attrs.get("dilation", (1, 1)))
    p = _pair(op, "pad", attrs["pad"], 4)
    mode = attrs["pad_mode"]
    if mode not in PAD_MODES:
        raise fail(op, f"pad_mode must be one of {', '.join(PAD_MODES)}, got {mode!r}")
    if min(k) < 1 or min(s) < 1 or min(d) < 1:
        raise fail(op, f"kernel size, stride and dilation must be positive, got {k}, {s}, {d}")
    if min(p) < 0:
        raise fail(op, f"padding must be non-negative, got {p}")
    if mode != "pad" and any(p):
        raise fail(op, f"padding {p} needs pad_mode='pad', got pad_mode={mode!r}")
    return k, s, d, p, mode


def window_out(n, k, s, d, mode, p0=0, p1=0, ceil_mode=False):
    """The output size along one dim (None if n is unknown); see the module docstring."""
    if n is None:
        return None
    e = d * (k - 1) + 1
    if mode == "same":
        return -(-n // s)
    span = n + p0 + p1 - e
    if span < 0:
        return 0
    if not ceil_mode:
        return span // s + 1
    out = -(-span // s) + 1
    if (out - 1) * s >= n + p0:      # the last window must start inside the input or pad
        out -= 1
    return out


def window_pads(n, k, s, d, mode, p0, p1, ceil_mode=False):
    """(before, after, overhang) padding along one dim of size n: the overhang is the
    extra room the last window of ceil_mode needs past the padding."""
    e = d * (k - 1) + 1
    out = window_out(n, k, s, d, mode, p0, p1, ceil_mode)
    if mode == "same":
        total = max((out - 1) * s + e - n, 0)
        return total // 2, total - total // 2, 0
    need = (out - 1) * s + e if out > 0 else 0
    return p0, p1, max(need - (n + p0 + p1), 0)


def _spatial_out(op, x, k, s, d, p, mode, ceil_mode=False):
    h, w = x.shape[-2], x.shape[-1]
    oh = window_out(h, k[0], s[0], d[0], mode, p[0], p[1], ceil_mode)
    ow = window_out(w, k[1], s[1], d[1], mode, p[2], p[3], ceil_mode)
    for n, o, axis in ((h, oh, "height"), (w, ow, "width")):
        if n is not None and o == 0:
            raise fail(op, f"the window ({k[0]}x{k[1]}, dilation {d}) is larger than the padded "
                           f"input {x} along the {axis}",
                       hint="use a smaller kernel, padding, or pad_mode='same'")
    return oh, ow


def window_padding(shape, k, s, d, mode, p, ceil_mode=False):
    """(top, bottom, overhang, left, right, overhang) around the last two dims of an
    array of `shape` (window_pads along each)."""
    t, b, ob = window_pads(shape[-2], k[0], s[0], d[0], mode, p[0], p[1], ceil_mode)
    lft, r, orr = window_pads(shape[-1], k[1], s[1], d[1], mode, p[2], p[3], ceil_mode)
    return t, b, ob, lft, r, orr


def _windows(x, k, s, d, mode, p, ceil_mode, fill):
    """A view (..., oh, ow, kh, kw) of the windows of x padded with `fill`, and the pads
    (top, bottom + overhang, left, right + overhang) it used."""
    h, w = x.shape[-2], x.shape[-1]
    t, b, ob, lft, r, orr = window_padding(x.shape, k, s, d, mode, p, ceil_mode)
    pads = (t, b + ob, lft, r + orr)
    if any(pads):
        width = [(0, 0)] * (x.ndim - 2) + [(pads[0], pads[1]), (pads[2], pads[3])]
        x = np.pad(x, width, constant_values=fill)
    eh, ew = d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1
    if x.shape[-2] < eh or x.shape[-1] < ew:      # only unknown dims reach here
        raise ValueError(f"the window ({k[0]}x{k[1]}, dilation {d}) is larger than the padded "
                         f"input of shape {x.shape}")
    win = sliding_window_view(x, (eh, ew), axis=(-2, -1))
    oh = window_out(h, k[0], s[0], d[0], mode, p[0], p[1], ceil_mode)
    ow = window_out(w, k[1], s[1], d[1], mode, p[2], p[3], ceil_mode)
    win = win[..., ::s[0], ::s[1], ::d[0], ::d[1]]
    return win[..., :oh, :ow, :, :], (t, b, ob, lft, r, orr)


# -- Conv2D --------------------------------------------------------------------------------
def _conv_infer(ts, attrs):
    x, wt = ts
    k, s, d, p, mode = _check_window("Conv2D", attrs, "kernel_size", "stride")
    dtype = promote(x.dtype, wt.dtype)
    if not dtype.is_floating:
        raise fail("Conv2D", f"needs floating inputs, got {x} and {wt}",
                   hint="cast the input and weight to float32")
    out_c, group = attrs["out_channel"], attrs["group"]
    if not isinstance(group, int) or group < 1 or not isinstance(out_c, int) or out_c < 1:
        raise fail("Conv2D", f"out_channel and group must be positive ints, got {out_c!r} "
                             f"and {group!r}")
    if out_c % group:
        raise fail("Conv2D", f"out_channel {out_c} is not divisible by group {group}")
    if wt.shape is not None:
        if len(wt.shape) != 4:
            raise fail("Conv2D", f"the weight must have rank 4 (out, in / group, kh, kw), got {wt}")
        if wt.shape[0] not in (None, out_c):
            raise fail("Conv2D", f"the weight {wt} has {wt.shape[0]} output channels, "
                                 f"out_channel is {out_c}")
        if any(a is not None and a != b for a, b in zip(wt.shape[2:], k)):
            raise fail("Conv2D", f"the weight {wt} does not fit kernel_size {k}")
    if x.shape is None:
        return TensorType(dtype, (None, out_c, None, None))
    if len(x.shape) != 4:
        raise fail("Conv2D", f"the input must have rank 4 (N, C, H, W), got {x}")
    c = x.shape[1]
    if c is not None:
        if c % group:
            raise fail("Conv2D", f"the input's {c} channels are not divisible by group {group}")
        if wt.shape is not None and wt.shape[1] is not None and wt.shape[1] * group != c:
            raise fail("Conv2D", f"the input {x} has {c} channels but the weight {wt} "
                                 f"expects {wt.shape[1] * group} (in / group = {wt.shape[1]})")
    oh, ow = _spatial_out("Conv2D", x, k, s, d, p, mode)
    return TensorType(dtype, (x.shape[0], out_c, oh, ow))


def im2col(x, k, s, d, mode, p):
    """The windows of x (N, C, H, W) as one contiguous (N, C, kh, kw, oh, ow) array (each
    image's im2col matrix: rows C * kh * kw in a weight's order, a column per output
    position), and the pads _windows used. A copy, but for a 1x1 window with stride 1 and
    no padding, which is x itself."""
    win, pads = _windows(x, k, s, d, mode, p, False, 0)               # N,C,oh,ow,kh,kw
    # the copy runs along ow, contiguous in x when the stride is 1
    return np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)), pads


DEPTHWISE_CHUNK = 1 << 18        # elements of the running sum of a depthwise convolution


def _depthwise(x, w, k, s, d, mode, p):
    """Conv2D with one input channel per group and one output channel per input channel:
    the kh * kw products of each window element with its weight, summed tap by tap in
    row-major order, a few images at a time (so that the running sum stays in cache)."""
    win, _ = _windows(x, k, s, d, mode, p, False, 0)                  # N,C,oh,ow,kh,kw
    n, c, oh, ow = win.shape[:4]
    out = np.empty((n, c, oh, ow), dtype=np.result_type(x, w))
    taps = [(i, j, w[:, 0, i, j, None, None]) for i in range(k[0]) for j in range(k[1])]
    step = max(1, DEPTHWISE_CHUNK // max(1, c * oh * ow))
    tmp = np.empty((min(step, n), c, oh, ow), dtype=out.dtype)
    for b in range(0, n, step):
        o, t = out[b:b + step], tmp[:min(step, n - b)]
        for m, (i, j, wij) in enumerate(taps):
            if m == 0:
                np.multiply(win[b:b + step, ..., i, j], wij, out=o)
            else:
                np.multiply(win[b:b + step, ..., i, j], wij, out=t)
                np.add(o, t, out=o)
    return out


def conv2d_nchw(x, w, stride, dilation, pad_mode, pad, group):
    """Cross-correlation of x (N, C, H, W) with w (O, C / group, kh, kw), written straight
    into NCHW: per image (and group) one matrix product of the weight (O, C * kh * kw)
    with the image's im2col matrix (C * kh * kw, oh * ow); a depthwise convolution sums
    its kh * kw weighted taps instead."""
    o, cg, kh, kw = w.shape
    if group > 1 and cg == 1 and o == group:
        return _depthwise(x, w, (kh, kw), stride, dilation, pad_mode, pad)
    cols, _ = im2col(x, (kh, kw), stride, dilation, pad_mode, pad)
    n, c, _, _, oh, ow = cols.shape
    if group == 1:
        out = np.matmul(w.reshape(o, c * kh * kw), cols.reshape(n, c * kh * kw, oh * ow))
    else:
        out = np.matmul(w.reshape(group, o // group, cg * kh * kw),
                        cols.reshape(n, group, cg * kh * kw, oh * ow))
    return out.reshape(n, o, oh, ow)


def _conv_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    work = np.float32 if odt == np.float16 else odt     # float16 accumulates in float32
    s, d, p = tuple(attrs["stride"]), tuple(attrs["dilation"]), tuple(attrs["pad"])
    mode, group = attrs["pad_mode"], attrs["group"]

    def k(x, w):
        out = conv2d_nchw(np.asarray(x, dtype=work), np.asarray(w, dtype=work), s, d, mode,
                          p, group)
        return out.astype(odt, copy=False)
    return k


register_op("Conv2D", ("x", "weight"),
            {"out_channel": REQUIRED, "kernel_size": REQUIRED, "pad_mode": "valid",
             "pad": (0, 0, 0, 0), "stride": (1, 1), "dilation": (1, 1), "group": 1},
            infer=_conv_infer, kernel_factory=_conv_factory, exact_dtype=True,
            family="extern",
            doc="2-D cross-correlation of x (N, C, H, W) with weight (O, C / group, kh, kw)")


# -- MaxPool, AvgPool ----------------------------------------------------------------------
def _pool_infer(op):
    def infer(ts, attrs):
        (x,) = ts
        k, s, d, p, mode = _check_window(op, attrs, "kernel_size", "strides")
        half = [(d[i // 2] * (k[i // 2] - 1) + 1) // 2 for i in range(4)]
        if mode == "pad" and any(pi > h for pi, h in zip(p, half)):
            # as PyTorch and MindSpore: a wider pad would make windows of padding alone
            raise fail(op, f"padding {p} is larger than half the window "
                           f"({k[0]}x{k[1]}, dilation {d}) allows: at most "
                           f"{tuple(half)}", hint="use a smaller padding or a larger kernel")
        if x.dtype.is_bool or (op == "AvgPool" and not x.dtype.is_floating):
            raise fail(op, f"is not defined for {x.dtype} tensors",
                       hint="cast the input to float32")
        if x.shape is not None and len(x.shape) not in (3, 4):
            raise fail(op, f"the input must have rank 4 (N, C, H, W) or 3 (C, H, W), got {x}")
        if x.shape is None:
            out = TensorType(x.dtype, None)
        else:
            oh, ow = _spatial_out(op, x, k, s, d, p, mode, attrs["ceil_mode"])
            out = TensorType(x.dtype, x.shape[:-2] + (oh, ow))
        if op == "MaxPool" and attrs["return_indices"]:
            return out, TensorType(dt.int64, out.shape)
        return out
    return infer


def _lowest(dtype):
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _window_reduce(ufunc, win):
    """ufunc (np.maximum, np.add) folded over each window of win (..., oh, ow, kh, kw),
    tap by tap in row-major order: kh * kw passes over the output, where numpy's
    reduction over the two short strided axes is 10-30x slower; small outputs (a global
    pooling) take the reduction itself."""
    kh, kw = win.shape[-2:]
    if win[..., 0, 0].size < 2048 or kh * kw == 1:
        return ufunc.reduce(win, axis=(-2, -1))
    out = np.array(win[..., 0, 0])
    for i in range(kh):
        for j in range(kw):
            if i or j:
                ufunc(out, win[..., i, j], out=out)
    return out


def _max_pool_factory(in_types, out_types, attrs):
    k, s, d = tuple(attrs["kernel_size"]), tuple(attrs["strides"]), tuple(attrs["dilation"])
    p, mode, ceil = tuple(attrs["pad"]), attrs["pad_mode"], attrs["ceil_mode"]
    indices = attrs["return_indices"]

    def kern(x):
        x = np.asarray(x)
        win, pads = _windows(x, k, s, d, mode, p, ceil, _lowest(x.dtype))
        if not indices:
            return _window_reduce(np.maximum, win)
        flat = win.reshape(win.shape[:-2] + (k[0] * k[1],))
        arg = flat.argmax(axis=-1)
        out = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
        oh, ow = arg.shape[-2:]
        rows = np.arange(oh)[:, None] * s[0] - pads[0] + (arg // k[1]) * d[0]
        cols = np.arange(ow)[None, :] * s[1] - pads[3] + (arg % k[1]) * d[1]
        return out, (rows * x.shape[-1] + cols).astype(np.int64)
    return kern


def _avg_pool_factory(in_types, out_types, attrs):
    k, s = tuple(attrs["kernel_size"]), tuple(attrs["strides"])
    p, mode, ceil = tuple(attrs["pad"]), attrs["pad_mode"], attrs["ceil_mode"]
    include_pad, divisor = attrs["count_include_pad"], attrs["divisor_override"]
    odt = out_types[0].dtype.np
    work = np.float32 if odt == np.float16 else odt
    one = (1, 1)

    def kern(x):
        x = np.asarray(x, dtype=work)
        win, pads = _windows(x, k, s, one, mode, p, ceil, 0)
        total = _window_reduce(np.add, win)
        if divisor:
            return (total / divisor).astype(odt, copy=False)
        t, b, ob, lft, r, orr = pads
        h, w = x.shape[-2], x.shape[-1]
        # the divisor counts the input, and the explicit padding when count_include_pad;
        # never the padding of 'same' nor the overhang of ceil_mode
        keep_pad = include_pad and mode != "same"
        rows = np.zeros(t + h + b + ob, dtype=work)
        rows[(0 if keep_pad else t):t + h + (b if keep_pad else 0)] = 1
        cols = np.zeros(lft + w + r + orr, dtype=work)
        cols[(0 if keep_pad else lft):lft + w + (r if keep_pad else 0)] = 1
        rc = sliding_window_view(rows, k[0])[::s[0]].sum(-1)
        cc = sliding_window_view(cols, k[1])[::s[1]].sum(-1)
        count = np.outer(rc[:total.shape[-2]], cc[:total.shape[-1]])
        return (total / count).astype(odt, copy=False)
    return kern


_POOL_ATTRS = {"kernel_size": (1, 1), "strides": (1, 1), "pad_mode": "valid",
               "pad": (0, 0, 0, 0), "ceil_mode": False}
register_op("MaxPool", ("x",), dict(_POOL_ATTRS, dilation=(1, 1), return_indices=False),
            infer=_pool_infer("MaxPool"), kernel_factory=_max_pool_factory, exact_dtype=True,
            family="extern",
            doc="the maximum over each window of the last two dims (padding never wins); "
                "with return_indices also the flat index of it in the H * W input")
register_op("AvgPool", ("x",), dict(_POOL_ATTRS, count_include_pad=True, divisor_override=0),
            infer=_pool_infer("AvgPool"), kernel_factory=_avg_pool_factory, exact_dtype=True,
            family="extern",
            doc="the mean over each window of the last two dims; 'same' padding is never "
                "counted, explicit padding is when count_include_pad")
