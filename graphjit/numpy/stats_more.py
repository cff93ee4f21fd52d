"""mindspore.numpy's searching, counting and polynomial functions: searchsorted,
digitize, bincount, histogram_bin_edges, histogram, histogram2d, histogramdd, in1d,
isin, polyadd/polysub/polymul/polyval/polyder/polyint, and gradient, unwrap and
interp. Bin counts are sums of one-hot comparisons, so a histogram with a known bin
count has a known shape and runs in graphs; bincount without `length` depends on the
values and is eager-only."""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..common.tensor import Tensor, TensorLike
from ._utils import normalize_axis, to_tensor
from .math_more import convolve

_S = builtins.slice

__all__ = ["searchsorted", "digitize", "bincount", "histogram_bin_edges", "histogram",
           "histogram2d", "histogramdd", "in1d", "isin", "polyadd", "polysub", "polyval",
           "polyder", "polymul", "polyint", "gradient", "unwrap", "interp"]


def searchsorted(a, v, side="left", sorter=None):
    """The int32 indices where v's elements would be inserted into the sorted 1-D a
    ('left': before equal elements, 'right': after them)."""
    if side not in ("left", "right"):
        raise ValueError(f"mindspore.numpy.searchsorted: side must be 'left' or 'right', got "
                         f"{side!r}")
    a, v = to_tensor(a), to_tensor(v)
    if a.ndim != 1:
        raise ValueError("mindspore.numpy.searchsorted: a must be 1-D")
    if sorter is not None:
        a = ops.gather(a, to_tensor(sorter), 0)
    return ops.searchsorted(a, v, right=side == "right", out_int32=True)


def digitize(x, bins, right=False):
    """The index of the bin each element of x falls in (bins increasing or decreasing;
    right: bins[i-1] < x <= bins[i])."""
    x, b = to_tensor(x), to_tensor(bins)
    if b.ndim != 1:
        raise ValueError("mindspore.numpy.digitize: bins must be 1-D")
    if isinstance(b, Tensor) and b.shape[0] > 1:
        data = b.asnumpy()
        decreasing = data[0] > data[-1]
    else:
        decreasing = False
    if decreasing:
        n = b.shape[0]
        return n - ops.searchsorted(ops.flip(b, (0,)), x, right=not right, out_int32=True)
    return ops.searchsorted(b, x, right=not right, out_int32=True)


def bincount(x, weights=None, minlength=0, length=None):
    """The count (or the sum of weights) of each value of a 1-D integer x (negative values
    count as 0, as MindSpore's numpy does).
    With length the output has that many bins (values beyond are dropped) and runs in
    graphs; without it the length depends on the values (eager only)."""
    x = to_tensor(x)
    if x.ndim != 1 or not x.dtype.is_integer:
        raise TypeError("mindspore.numpy.bincount: x must be a 1-D integer tensor")
    if length is None:
        if not isinstance(x, Tensor):
            raise TypeError("mindspore.numpy.bincount: without `length` the number of bins "
                            "depends on x's values, which a graph does not know while it is "
                            "built; pass length=")
        data = x.asnumpy()
        length = builtins.max(int(data.max()) + 1 if data.size else 0, int(minlength))
    x = ops.maximum(x, 0)           # MindSpore's numpy counts negative values as 0
    hot = ops.one_hot(x, int(length), Tensor(np.ones((), np.bool_)),
                      Tensor(np.zeros((), np.bool_)))
    if weights is None:          # float32 counts, as MindSpore's numpy gives them
        return ops.sum(ops.cast(hot, dt.float32), 0)
    w = ops.cast(to_tensor(weights), dt.float32)
    return ops.sum(ops.where(hot, ops.expand_dims(w, -1), ops.zeros((), w.dtype)), 0)


def _edges(a, bins, range):
    """(the bin edges as a float32 tensor, their count - 1, the edges as returned: given
    edges keep their dtype, as in MindSpore's examples)."""
    if isinstance(bins, (list, tuple)) or (isinstance(bins, TensorLike) and bins.ndim == 1):
        e = ops.cast(to_tensor(bins), dt.float32)
        return e, e.shape[0] - 1, to_tensor(bins)
    if isinstance(bins, str):
        raise ValueError("mindspore.numpy: string bin rules are not supported; give a number "
                         "of bins or the edges")
    n = int(bins)
    if n < 1:
        raise ValueError("mindspore.numpy: bins must be positive")
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
        if lo > hi:
            raise ValueError("mindspore.numpy: max must be larger than min in range parameter")
        lo_t, hi_t = to_tensor(lo), to_tensor(hi)
    else:
        flat = ops.cast(ops.reshape(a, (-1,)), dt.float32)
        lo_t, hi_t = ops.amin(flat), ops.amax(flat)
    same = ops.equal(lo_t, hi_t)
    lo_t = ops.where(same, lo_t - 0.5, lo_t)
    hi_t = ops.where(same, hi_t + 0.5, hi_t)
    t = Tensor(np.linspace(0, 1, n + 1).astype(np.float32))
    edges = lo_t + t * (hi_t - lo_t)
    last = Tensor(np.arange(n + 1) == n)
    edges = ops.where(last, ops.broadcast_to(hi_t, (n + 1,)), edges)
    return edges, n, edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges histogram would use (float32)."""
    return _edges(to_tensor(a), bins, range)[2]


def _bin_of(x, edges, n):
    """The bin index of each element (the last bin closed on the right), and whether it
    falls inside the edges."""
    idx = ops.searchsorted(edges, x, right=True) - 1
    idx = ops.where(ops.equal(x, edges[n]), ops.full_like(idx, n - 1), idx)
    inside = ops.logical_and(ops.greater_equal(x, edges[0]), ops.less_equal(x, edges[n]))
    return idx, inside


def histogram(a, bins=10, range=None, weights=None, density=False):
    """(counts, bin edges): how many elements (or how much weight) fall in each bin;
    density divides by the total and the bin widths."""
    a = ops.reshape(ops.cast(to_tensor(a), dt.float32), (-1,))
    edges, n, shown = _edges(a, bins, range)
    idx, inside = _bin_of(a, edges, n)
    hot = ops.logical_and(ops.equal(ops.expand_dims(idx, -1),
                                    Tensor(np.arange(n, dtype=np.int64))),
                          ops.expand_dims(inside, -1))
    if weights is None:      # MindSpore's counts are float32 (its documented examples)
        counts = ops.sum(ops.cast(hot, dt.float32), 0)
    else:
        w = ops.reshape(ops.cast(to_tensor(weights), dt.float32), (-1,))
        counts = ops.sum(ops.where(hot, ops.expand_dims(w, -1), ops.zeros((), w.dtype)), 0)
    if density:
        counts = counts / ops.sum(counts) / (edges[1:] - edges[:-1])
    return counts, shown


def histogramdd(sample, bins=10, range=None, weights=None, density=False):
    """(counts of shape bins, per-dim edges) of the N points in sample (N, D)."""
    s = to_tensor(sample)
    if isinstance(sample, (list, tuple)) and not isinstance(sample[0], (int, float)):
        s = ops.stack([ops.cast(to_tensor(v), dt.float32) for v in sample], -1)
    s = ops.cast(s, dt.float32)
    if s.ndim == 1:
        s = ops.reshape(s, (-1, 1))
    d = s.shape[1]
    bins_per = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    ranges = list(range) if range is not None else [None] * d
    if len(bins_per) != d or len(ranges) != d:
        raise ValueError(f"mindspore.numpy.histogramdd: the dimension of bins and range must "
                         f"equal the dimension of the sample ({d})")
    flat = None
    sizes, all_edges = [], []
    ok = None
    for k in builtins.range(d):
        col = s[:, k]
        edges, n, shown = _edges(col, bins_per[k], ranges[k])
        idx, inside = _bin_of(col, edges, n)
        flat = idx if flat is None else flat * n + idx
        ok = inside if ok is None else ops.logical_and(ok, inside)
        sizes.append(n)
        all_edges.append(shown)
    total = int(np.prod(sizes))
    hot = ops.logical_and(ops.equal(ops.expand_dims(flat, -1),
                                    Tensor(np.arange(total, dtype=np.int64))),
                          ops.expand_dims(ok, -1))
    if weights is None:
        counts = ops.cast(ops.sum(ops.cast(hot, dt.int32), 0), dt.float32)
    else:
        w = ops.reshape(ops.cast(to_tensor(weights), dt.float32), (-1, 1))
        counts = ops.sum(ops.where(hot, w, ops.zeros((), dt.float32)), 0)
    counts = ops.reshape(counts, tuple(sizes))
    if density:
        vol = None
        for k, e in enumerate(all_edges):
            shape = [1] * d
            shape[k] = -1
            e = ops.cast(e, dt.float32)
            wk = ops.reshape(e[1:] - e[:-1], tuple(shape))
            vol = wk if vol is None else vol * wk
        counts = counts / ops.sum(counts) / vol
    return counts, all_edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):
    """(counts, x edges, y edges) of the points (x[i], y[i])."""
    xs = ops.cast(ops.reshape(to_tensor(x), (-1,)), dt.float32)
    ys = ops.cast(ops.reshape(to_tensor(y), (-1,)), dt.float32)
    counts, edges = histogramdd(ops.stack((xs, ys), -1), bins, range, weights, density)
    return counts, edges[0], edges[1]


def in1d(ar1, ar2, invert=False):
    """Whether each element of the flattened ar1 is in ar2."""
    a = ops.reshape(to_tensor(ar1), (-1,))
    return isin(a, ar2, invert)


def isin(element, test_elements, invert=False):
    """Whether each element is among test_elements (element's shape)."""
    e, t = to_tensor(element), ops.reshape(to_tensor(test_elements), (-1,))
    hit = ops.any(ops.equal(ops.expand_dims(e, -1), t), -1)
    return ops.logical_not(hit) if invert else hit


# -- polynomials (coefficients highest power first, as numpy.poly1d) -------------------------
def _poly(p):
    t = to_tensor(p)
    if t.ndim != 1:
        raise ValueError("mindspore.numpy: polynomial coefficients must be 1-D")
    return t


def _align(a, b):
    a, b = _poly(a), _poly(b)
    n, m = a.shape[0], b.shape[0]
    if n < m:
        a = ops.concat((ops.zeros((m - n,), a.dtype), a), 0)
    elif m < n:
        b = ops.concat((ops.zeros((n - m,), b.dtype), b), 0)
    return a, b


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a, b = _align(a1, a2)
    return a + b


def polysub(a1, a2):
    """The difference of two polynomials."""
    a, b = _align(a1, a2)
    return a - b


def polymul(a1, a2):
    """The product of two polynomials."""
    return convolve(_poly(a1), _poly(a2))


def polyval(p, x):
    """The polynomial p evaluated at x: sum(p * x ** [N-1, ..., 0]) with float32
    exponents, as MindSpore's numpy computes it (so the result is floating)."""
    p, x = _poly(p), to_tensor(x)
    n = p.shape[0]
    exps = Tensor(np.arange(n - 1, -1, -1, dtype=np.float32))
    powers = ops.pow(ops.expand_dims(x, -1), exps)
    return ops.sum(p * powers, -1)


def polyder(p, m=1):
    """The m-th derivative of polynomial p."""
    p = _poly(p)
    if m < 0:
        raise ValueError("mindspore.numpy.polyder: order of derivative must be positive")
    if m >= p.shape[0]:          # MindSpore's numpy: an empty (float32) tensor
        return ops.zeros((0,), dt.float32)
    for _ in builtins.range(m):
        n = p.shape[0] - 1
        p = p[:-1] * Tensor(np.arange(n, 0, -1).astype(p.dtype.np))
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative of polynomial p, with integration constants k (zeros by
    default)."""
    p = _poly(p)
    if m < 0:
        raise ValueError("mindspore.numpy.polyint: order of integral must be positive")
    if not p.dtype.is_floating:
        p = ops.cast(p, dt.float32)
    ks = [0.0] * m if k is None else list(np.broadcast_to(np.asarray(
        k.asnumpy() if isinstance(k, Tensor) else k, dtype=np.float64), (m,)))
    for i in builtins.range(m):
        n = p.shape[0]
        p = p / Tensor(np.arange(n, 0, -1).astype(p.dtype.np))
        p = ops.concat((p, ops.fill(p.dtype, (1,), float(ks[i]))), 0)
    return p


# -- sampled functions: differences, phase unwrapping, interpolation ---------------------------
def _sl(nd, axis, s):
    key = [_S(None)] * nd
    key[axis] = s
    return tuple(key)


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient by second-order central differences inside and first-order one-sided
    differences at the edges (edge_order 1), along each axis (uniform spacings)."""
    f = to_tensor(f)
    if f.dtype is not dt.float64:
        f = ops.cast(f, dt.float32)
    nd = f.ndim
    axes = list(range(nd)) if axis is None else [
        normalize_axis(a, nd) for a in ((axis,) if isinstance(axis, int) else axis)]
    if edge_order != 1:
        raise ValueError("mindspore.numpy.gradient: only edge_order=1 is supported")
    if len(varargs) == 0:
        dxs = [1.0] * len(axes)
    elif len(varargs) == 1:
        dxs = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        dxs = list(varargs)
    else:
        raise TypeError("mindspore.numpy.gradient: invalid number of spacing arguments")
    for d in dxs:
        if isinstance(d, TensorLike) and d.ndim != 0:
            raise TypeError("mindspore.numpy.gradient: only scalar spacings are supported")
    out = []
    for a, dx in zip(axes, dxs):
        n = f.shape[a]
        if n < 2:
            raise ValueError("mindspore.numpy.gradient: each dimension must have at least 2 "
                             "elements")
        first = (f[_sl(nd, a, _S(1, 2))] - f[_sl(nd, a, _S(0, 1))]) / dx
        last = (f[_sl(nd, a, _S(n - 1, n))] - f[_sl(nd, a, _S(n - 2, n - 1))]) / dx
        parts = [first]
        if n > 2:
            parts.append((f[_sl(nd, a, _S(2, None))] - f[_sl(nd, a, _S(None, -2))]) / (2.0 * dx))
        parts.append(last)
        out.append(ops.concat(parts, a))
    return out[0] if len(out) == 1 else out


def unwrap(p, discont=3.141592653589793, axis=-1):
    """p with jumps larger than discont between neighbours along axis replaced by their
    2*pi complement."""
    p = to_tensor(p)
    if not p.dtype.is_floating:
        p = ops.cast(p, dt.float32)
    nd = p.ndim
    a = normalize_axis(axis, nd)
    dd = ops.diff(p, 1, a)
    pi = math.pi
    ddmod = ops.remainder(dd + pi, 2 * pi) - pi
    ddmod = ops.where(ops.logical_and(ops.equal(ddmod, -pi), ops.greater(dd, 0)),
                      ops.full_like(ddmod, pi), ddmod)
    corr = ops.where(ops.less(ops.abs(dd), discont), ops.zeros_like(dd), ddmod - dd)
    cum = ops.cumsum(corr, a)
    return ops.concat((p[_sl(nd, a, _S(0, 1))], p[_sl(nd, a, _S(1, None))] + cum), a)


def interp(x, xp, fp, left=None, right=None):
    """One-dimensional linear interpolation of (xp, fp) at x (xp increasing), in float32
    and with MindSpore's formula (y0 (x1 - x) + y1 (x - x0)) / (x1 - x0); left and right
    (default fp[0], fp[-1]) outside."""
    x, xp, fp = (ops.cast(to_tensor(t), dt.float32) for t in (x, xp, fp))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("mindspore.numpy.interp: xp and fp must be 1-d sequences")
    n = xp.shape[0]
    if fp.shape[0] != n:
        raise ValueError("mindspore.numpy.interp: the y-coordinates must have the same "
                         "length as `xp`")
    i1 = ops.clamp(ops.searchsorted(xp, x), 0, n - 1)
    i0 = ops.clamp(i1 - 1, 0, n - 1)
    x0, x1 = ops.gather(xp, i0, 0), ops.gather(xp, i1, 0)
    y0, y1 = ops.gather(fp, i0, 0), ops.gather(fp, i1, 0)
    out = (y0 * (x1 - x) + y1 * (x - x0)) / (x1 - x0)
    out = ops.where(ops.equal(x0, x1), y0, out)
    lo = fp[0] if left is None else ops.cast(to_tensor(left), dt.float32)
    hi = fp[-1] if right is None else ops.cast(to_tensor(right), dt.float32)
    out = ops.where(ops.less(x, xp[0]), ops.broadcast_to(lo, tuple(out.shape)), out)
    return ops.where(ops.greater(x, xp[-1]), ops.broadcast_to(hi, tuple(out.shape)), out)
