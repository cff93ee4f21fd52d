"""ONNX node -> graphjit nodes: DFT, STFT and MelWeightMatrix. graphjit has no complex
dtype: a signal is its real and imaginary parts, and a transform of a static length n
is a matrix product by the (n, n) cosine and sine tables (made in float64 while
building, cast to the input's dtype), as numpy's FFT defines it: the input cut or
zero-padded to n, one-sided outputs the first n // 2 + 1 bins, an inverse divides by n,
and a one-sided inverse is numpy's irfft (a real signal)."""
from __future__ import annotations

import numpy as np

from .import_math import _static
from .import_nn import _norm
from .import_ops import NodeCx, check_elements, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_ALL = ("slice", None, None, None)


def _last(cx, v, start, stop):
    r = len(v.shape)
    return cx.emit("Index", v, index=(_ALL,) * (r - 1) + (("slice", start, stop, None),))


def _fit(cx, v, n):
    """v's last dim cut or zero-padded to n."""
    m = _static(cx, v)[-1]
    if m > n:
        return _last(cx, v, 0, n)
    if m < n:
        shape = _static(cx, v)[:-1] + (n - m,)
        return cx.emit("Concat", v, cx.emit("Fill", shape=shape, dtype=v.dtype, value=0),
                       axis=-1)
    return v


def transform(cx: NodeCx, re, im, n: int, inverse: bool, onesided: bool):
    """The DFT of re + i im along their last dim: (real, imaginary or None)."""
    check_elements(cx, (n, n))
    dt = re.dtype.np
    if inverse and onesided:       # numpy's irfft: a Hermitian spectrum of n // 2 + 1 bins
        m = n // 2 + 1
        re, im = _fit(cx, re, m), (None if im is None else _fit(cx, im, m))
        k = np.arange(m)
        w = np.where((k == 0) | ((n % 2 == 0) & (k == n // 2)), 1.0, 2.0) / n
        ang = 2 * np.pi * np.outer(k, np.arange(n)) / n
        y = cx.emit("MatMul", re, cx.array((np.cos(ang) * w[:, None]).astype(dt)))
        if im is not None:
            y = cx.emit("Sub", y, cx.emit("MatMul", im, cx.array((np.sin(ang) * w[:, None])
                                                                 .astype(dt))))
        return y, None
    re, im = _fit(cx, re, n), (None if im is None else _fit(cx, im, n))
    bins = n // 2 + 1 if onesided and not inverse else n
    ang = 2 * np.pi * np.outer(np.arange(n), np.arange(bins)) / n
    scale = 1.0 / n if inverse else 1.0
    c = cx.array((np.cos(ang) * scale).astype(dt))
    s = cx.array((np.sin(ang) * scale * (1 if inverse else -1)).astype(dt))
    # (a + ib)(cos + i s) with s = -sin forward, +sin inverse
    y_re = cx.emit("MatMul", re, c)
    y_im = cx.emit("MatMul", re, s)
    if im is not None:
        y_re = cx.emit("Sub", y_re, cx.emit("MatMul", im, s))
        y_im = cx.emit("Add", y_im, cx.emit("MatMul", im, c))
    return y_re, y_im


def _parts(cx, x):
    """The real and imaginary parts (None for a real signal) of (..., 1 or 2)."""
    c = _static(cx, x)[-1]
    r = len(x.shape)
    pick = lambda i: cx.emit("Index", x, index=(_ALL,) * (r - 1) + (i,))   # noqa: E731
    if c == 1:
        return pick(0), None
    if c == 2:
        return pick(0), pick(1)
    raise cx.where.damaged(f"the last dim must be 1 (real) or 2 (complex), got {x.type}")


def _join(cx, re, im):
    if im is None:
        return cx.emit("ExpandDims", re, axis=-1)
    return cx.emit("Stack", re, im, axis=-1)


@op("DFT")
def _dft(cx):
    x = cx.x(0)
    if not x.dtype.is_floating:
        raise cx.where.damaged(f"DFT takes floats, got {x.type}")
    shape = _static(cx, x)
    r = len(shape)
    if cx.opset >= 20:
        ax = cx.ints(2, "axis", (-2,))
        axis = ax[0] if len(ax) == 1 else None
    else:
        axis = cx.attrs.int("axis", 1)
    if axis is None:
        raise cx.where.damaged("the axis must be one integer")
    axis = _norm(cx, axis, r)
    if axis == r - 1:
        raise cx.where.damaged("the axis cannot be the last (real/imaginary) dim")
    inverse, onesided = bool(cx.attrs.int("inverse", 0)), bool(cx.attrs.int("onesided", 0))
    length = cx.ints(1, "dft_length")
    if length is not None and (len(length) != 1 or length[0] <= 0):
        raise cx.where.damaged(f"dft_length must be one positive integer, got {list(length)}")
    n = length[0] if length else (2 * (shape[axis] - 1) if inverse and onesided
                                  else shape[axis])
    re, im = _parts(cx, x)
    perm = None
    if axis != r - 2:
        perm = tuple(i for i in range(r - 1) if i != axis) + (axis,)
        re, im = (None if v is None else cx.emit("Transpose", v, perm=perm) for v in (re, im))
    y_re, y_im = transform(cx, re, im, n, inverse, onesided)
    if perm is not None:
        back = tuple(int(i) for i in np.argsort(perm))
        y_re, y_im = (None if v is None else cx.emit("Transpose", v, perm=back)
                      for v in (y_re, y_im))
    return [_join(cx, y_re, y_im)]


@op("STFT")
def _stft(cx):
    """Frames of frame_length every frame_step along the signal, times the window,
    each transformed (one-sided by default): (batch, frames, bins, 2)."""
    x = cx.x(0)
    batch, length, _ = _static(cx, x)
    step = cx.ints(1, "frame step")
    window = cx.opt(2)
    flen = cx.ints(3, "frame length")
    if step is None or len(step) != 1 or step[0] <= 0:
        raise cx.where.damaged("frame_step must be one positive integer")
    if flen:
        n = flen[0]
    elif window is not None:
        n = _static(cx, window, "window")[0]
    else:
        n = length
    frames = 1 + (length - n) // step[0]
    if n <= 0 or n > length or frames <= 0:
        raise cx.where.damaged(f"frames of {n} do not fit a signal of {length}")
    idx = np.arange(frames)[:, None] * step[0] + np.arange(n)[None, :]
    framed = cx.emit("Gather", x, cx.array(idx.astype(np.int64)), axis=1)  # (B, F, n, c)
    re, im = _parts(cx, framed)
    if window is not None:
        re, im = (None if v is None else cx.emit("Mul", v, window) for v in (re, im))
    y_re, y_im = transform(cx, re, im, n, False, bool(cx.attrs.int("onesided", 1)))
    return [_join(cx, y_re, y_im)]


@op("MelWeightMatrix")
def _mel(cx):
    """The (dft_length // 2 + 1, num_mel_bins) triangular filter bank of the ONNX
    reference, a constant of constant inputs."""
    vals = [cx.const(i, w) for i, w in enumerate(("num_mel_bins", "dft_length", "sample_rate",
                                                   "lower_edge_hertz", "upper_edge_hertz"))]
    if any(v is None or v.size != 1 for v in vals):
        raise cx.where.damaged("the five inputs must be scalars")
    bins, dft, rate = (int(v.reshape(-1)[0]) for v in vals[:3])
    lo, hi = (v.reshape(-1)[0] for v in vals[3:])
    dtype = cx.dtype_attr("output_datatype", 1)
    spec = dft // 2 + 1
    check_elements(cx, (spec, bins))
    f = np.arange(0, bins + 2)
    lo_mel = 2595 * np.log1p(lo / 700) / np.log(10)
    hi_mel = 2595 * np.log1p(hi / 700) / np.log(10)
    f = f * ((hi_mel - lo_mel) / f.shape[0]) + lo_mel
    f = (((dft + 1) * (700 * np.expm1(f / 2595 * np.log(10)))) // rate).astype(int)
    out = np.zeros((spec, bins))
    for i in range(bins):
        a, c, b = f[i], f[i + 1], f[i + 2]
        if c == a:
            out[c, i] = 1
        else:
            for j in range(a, c + 1):
                out[j, i] = (j - a) / (c - a)
        for j in range(c, b):
            out[j, i] = (b - j) / (b - c)
    return [cx.emit("Identity", cx.array(out.astype(dtype.np)))]
