"""More of mindspore.numpy's array functions: joins and splits (column_stack, dstack,
append, hsplit/vsplit/dsplit, broadcast_arrays), axis moves (rollaxis, atleast_3d),
selection (select, choose, piecewise, apply_along_axis, apply_over_axes), index helpers
(unravel_index, ravel_multi_index, indices, ix_, diag_indices, tri*_indices, mgrid,
ogrid), constructors (diagflat, geomspace, vander, window functions), pad, diagonal,
searchsorted/digitize/histograms/bincount, in1d/isin, unique and polynomials."""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..common.tensor import Tensor, TensorLike
from ._utils import check_dtype, const_array, normalize_axis, to_tensor
from .array_ops import concatenate

__all__ = ["rollaxis", "atleast_3d", "column_stack", "dstack", "broadcast_arrays", "append",
           "vsplit", "hsplit", "dsplit", "select", "choose", "array_str", "apply_along_axis",
           "piecewise", "unravel_index", "ravel_multi_index", "apply_over_axes", "diagonal",
           "mgrid", "ogrid", "diagflat", "diag_indices", "ix_", "indices", "geomspace",
           "vander", "hamming", "hanning", "bartlett", "blackman", "triu_indices",
           "tril_indices", "triu_indices_from", "tril_indices_from", "pad", "unique"]

_S = builtins.slice


def rollaxis(x, axis, start=0):
    """x with axis rolled back until it lies before position start."""
    x = to_tensor(x)
    nd = x.ndim
    axis = normalize_axis(axis, nd)
    if isinstance(start, bool) or not isinstance(start, int):
        raise TypeError(f"mindspore.numpy.rollaxis: start must be an int, got {start!r}")
    if not -nd <= start <= nd:
        raise ValueError(f"mindspore.numpy.rollaxis: start {start} is out of range")
    start = start + nd if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return x
    perm = [i for i in range(nd) if i != axis]
    perm.insert(start, axis)
    return ops.transpose(x, tuple(perm))


def atleast_3d(*arys):
    """Each input with at least 3 dims: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)."""
    out = []
    for a in arys:
        t = to_tensor(a)
        if t.ndim == 0:
            t = ops.reshape(t, (1, 1, 1))
        elif t.ndim == 1:
            t = ops.reshape(t, (1, -1, 1))
        elif t.ndim == 2:
            t = ops.expand_dims(t, -1)
        out.append(t)
    return out[0] if len(out) == 1 else out


def column_stack(tup):
    """1-D inputs as columns and 2-D ones as they are, joined along axis 1."""
    ts = [to_tensor(t) for t in tup]
    ts = [ops.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in ts]
    return ops.concat(ts, 1)


def dstack(tup):
    """The inputs (at least 3-D: atleast_3d) joined along axis 2."""
    ts = [atleast_3d(t) for t in tup]
    return ops.concat(ts, 2)


def broadcast_arrays(*args):
    """The inputs broadcast to their common shape (a list)."""
    ts = [to_tensor(a) for a in args]
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in ts])
    return [ops.broadcast_to(t, shape) if tuple(t.shape) != shape else t for t in ts]


def append(arr, values, axis=None):
    """values joined to the end of arr along axis (both flattened when None)."""
    a, v = to_tensor(arr), to_tensor(values)
    if v.dtype is not a.dtype:
        v = ops.cast(v, a.dtype)
    if axis is None:
        return ops.concat((ops.reshape(a, (-1,)), ops.reshape(v, (-1,))), 0)
    return concatenate((a, v), axis)


def _split(x, ios, axis, what):
    x = to_tensor(x)
    if isinstance(ios, int) and not isinstance(ios, bool):
        n = x.shape[axis]
        if ios <= 0 or n % ios:
            raise ValueError(f"mindspore.numpy.{what}: array split does not result in an "
                             f"equal division")
    elif isinstance(ios, TensorLike):
        ios = [int(i) for i in ios.asnumpy().reshape(-1)]
    return list(ops.tensor_split(x, list(ios) if isinstance(ios, tuple) else ios, axis))


def hsplit(x, indices_or_sections):
    """Split along axis 1 (axis 0 of a 1-D x)."""
    x = to_tensor(x)
    return _split(x, indices_or_sections, 1 if x.ndim > 1 else 0, "hsplit")


def vsplit(x, indices_or_sections):
    """Split along axis 0 (x must have rank 2 or more)."""
    x = to_tensor(x)
    if x.ndim < 2:
        raise ValueError("mindspore.numpy.vsplit: x must have rank 2 or more")
    return _split(x, indices_or_sections, 0, "vsplit")


def dsplit(x, indices_or_sections):
    """Split along axis 2 (x must have rank 3 or more)."""
    x = to_tensor(x)
    if x.ndim < 3:
        raise ValueError("mindspore.numpy.dsplit: x must have rank 3 or more")
    return _split(x, indices_or_sections, 2, "dsplit")


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, default where none does."""
    if len(condlist) != len(choicelist):
        raise ValueError("mindspore.numpy.select: list of cases must be same length as list "
                         "of conditions")
    if not condlist:
        raise ValueError("mindspore.numpy.select: select with an empty condition list is not "
                         "possible")
    conds = [ops.cast(to_tensor(c), dt.bool_) for c in condlist]
    choices = [to_tensor(c) for c in choicelist]
    out = to_tensor(default)
    d = choices[0].dtype
    for c in choices[1:]:
        d = ops.add(ops.zeros((), d), ops.zeros((), c.dtype)).dtype
    out = ops.cast(out, d)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = ops.where(c, ops.cast(v, d), out)
    return out


def choose(a, choices, mode="clip"):
    """out[i] = choices[a[i]][i] (choices broadcast with a); out-of-range indices are
    clipped ('clip') or wrapped ('wrap')."""
    idx = to_tensor(a)
    cs = [to_tensor(c) for c in choices]
    n = len(cs)
    if mode == "clip":
        idx = ops.clamp(idx, 0, n - 1)
    elif mode == "wrap":
        idx = ops.remainder(idx, n)
    else:
        raise ValueError(f"mindspore.numpy.choose: mode must be 'clip' or 'wrap', got "
                         f"{mode!r}")
    shape = np.broadcast_shapes(tuple(idx.shape), *[tuple(c.shape) for c in cs])
    stacked = ops.stack([ops.broadcast_to(c, shape) for c in cs], 0)
    idx = ops.expand_dims(ops.broadcast_to(ops.cast(idx, dt.int64), shape), 0)
    return ops.squeeze(ops.gather_elements(stacked, 0, idx), 0)


def array_str(a):
    """The string numpy prints for a's data (eager tensors only: a graph value has no data
    while the graph is built)."""
    if isinstance(a, TensorLike) and not isinstance(a, Tensor):
        raise TypeError("mindspore.numpy.array_str needs the tensor's data, which a graph "
                        "does not have while it is built; call it outside the graph")
    return np.array_str(to_tensor(a).asnumpy())


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to each 1-D slice of arr along axis; the results stacked in place
    of that axis."""
    arr = to_tensor(arr)
    nd = arr.ndim
    axis = normalize_axis(axis, nd)
    moved = ops.moveaxis(arr, axis, -1)
    lead = tuple(moved.shape[:-1])
    results = [to_tensor(func1d(moved[idx], *args, **kwargs)) for idx in np.ndindex(*lead)]
    if not results:
        raise ValueError("mindspore.numpy.apply_along_axis: cannot apply to an empty array")
    out = ops.stack(results, 0)
    out = ops.reshape(out, lead + tuple(results[0].shape))
    if results[0].ndim == 0:
        return out
    k = results[0].ndim
    perm = list(range(len(lead)))
    perm[axis:axis] = [len(lead) + i for i in range(k)]
    return ops.transpose(out, tuple(perm))


def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, keeping the rank (a reduced axis is
    given back as size 1)."""
    out = to_tensor(a)
    for ax in ((axes,) if isinstance(axes, int) else axes):
        ax = normalize_axis(ax, out.ndim)
        res = to_tensor(func(out, ax))
        if res.ndim == out.ndim - 1:
            res = ops.expand_dims(res, ax)
        elif res.ndim != out.ndim:
            raise ValueError("mindspore.numpy.apply_over_axes: function is not returning an "
                             "array of the correct shape")
        out = res
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[i](x) (or the constant funclist[i]) where condlist[i] holds; one extra
    function is the default where no condition holds (zero otherwise)."""
    x = to_tensor(x)
    if isinstance(condlist, TensorLike) and condlist.ndim == x.ndim:
        condlist = [condlist]
    conds = [ops.cast(to_tensor(c), dt.bool_) for c in condlist]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"mindspore.numpy.piecewise: with {n} condition(s), either {n} or "
                         f"{n + 1} functions are expected")
    if len(funclist) == n + 1:
        none = ops.logical_not(ops.any(ops.stack(conds, 0), 0)) if n else ops.ones_like(
            x, dtype=dt.bool_)
        conds.append(none)
    out = ops.zeros_like(x)
    for c, f in zip(conds, funclist):
        v = f(x, *args, **kw) if callable(f) else f
        out = ops.where(c, ops.cast(to_tensor(v), x.dtype), out)
    return out


def unravel_index(indices, shape, order="C"):
    """The coordinates (a tuple of tensors) of flat indices into an array of shape;
    negative indices count from the end."""
    if order not in ("C", "F"):
        raise ValueError(f"mindspore.numpy.unravel_index: order must be 'C' or 'F', got "
                         f"{order!r}")
    idx = to_tensor(indices)
    shape = tuple(int(s) for s in ((shape,) if isinstance(shape, int) else shape))
    size = math.prod(shape)
    idx = ops.where(ops.less(idx, 0), idx + size, idx)
    dims = shape if order == "C" else shape[::-1]
    out = []
    for d in reversed(dims):
        out.append(ops.remainder(idx, d))
        idx = ops.floor_divide(idx, d)
    out = out[::-1]
    return tuple(out if order == "C" else out[::-1])


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """The flat indices (float32, as MindSpore's numpy sums them) of the coordinates in
    multi_index (a tuple of index tensors, or an array whose first dim runs over dims)
    into an array of shape dims; mode 'clip' or 'wrap' for out-of-range coordinates."""
    dims = tuple(int(d) for d in ((dims,) if isinstance(dims, int) else dims))
    if isinstance(multi_index, (tuple, list)) and not all(
            isinstance(i, (int, float)) for i in multi_index):
        idx = [to_tensor(i) for i in multi_index]
    else:
        t = to_tensor(multi_index)
        idx = [t[k] for k in range(t.shape[0])] if t.ndim else [t]
    if len(idx) != len(dims):
        raise ValueError(f"mindspore.numpy.ravel_multi_index: parameter multi_index must be a "
                         f"sequence of length {len(dims)}")
    if any(i.dtype.is_floating for i in idx):
        raise TypeError("mindspore.numpy.ravel_multi_index: only int indices permitted")
    if mode not in ("clip", "wrap"):
        raise ValueError("mindspore.numpy.ravel_multi_index: invalid mode. Expected 'wrap' "
                         "or 'clip'")
    if order not in ("C", "F"):
        raise ValueError("mindspore.numpy.ravel_multi_index: invalid order. Expected 'C' or "
                         "'F'")
    strides = [int(np.prod(dims[k + 1:])) if order == "C" else int(np.prod(dims[:k]))
               for k in range(len(dims))]
    out = None
    for i, d, st in zip(idx, dims, strides):
        i = ops.clamp(i, 0, d - 1) if mode == "clip" else ops.remainder(i, d)
        term = ops.cast(i, dt.float32) * float(st)
        out = term if out is None else out + term
    return out


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal over axis1 and axis2, as the last dim."""
    return ops.diagonal(to_tensor(a), offset, axis1, axis2)


class _Grid:
    """mgrid/ogrid: numpy's index tricks, as int32/float32 tensors."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        arr = (np.ogrid if self.sparse else np.mgrid)[key]
        if isinstance(arr, (list, tuple)):
            return [self._tensor(a) for a in arr]
        return self._tensor(arr)

    @staticmethod
    def _tensor(a):
        return const_array(a, dt.float32 if a.dtype.kind == "f" else dt.int32)


mgrid = _Grid(False)
ogrid = _Grid(True)


def diagflat(v, k=0):
    """A 2-D tensor with the flattened v on its k-th diagonal."""
    v = ops.reshape(to_tensor(v), (-1,))
    n = v.shape[0] + builtins.abs(k)
    i = np.arange(v.shape[0])
    mask = np.zeros((v.shape[0], n, n), dtype=bool)
    mask[i, i + builtins.max(-k, 0), i + builtins.max(k, 0)] = True
    picked = ops.where(Tensor(mask), ops.reshape(v, (-1, 1, 1)), ops.zeros((), v.dtype))
    return ops.sum(picked, 0).astype(v.dtype) if v.shape[0] else ops.zeros((n, n), v.dtype)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array (ndim tensors)."""
    r = const_array(np.arange(n, dtype=np.int32))
    return tuple(r for _ in range(ndim))


def ix_(*args):
    """Open meshes from 1-D sequences, each shaped to broadcast along its own axis."""
    n = len(args)
    out = []
    for k, a in enumerate(args):
        t = to_tensor(a)
        if t.ndim != 1:
            raise ValueError("mindspore.numpy.ix_: cross index must be 1 dimensional")
        if t.dtype.is_bool:
            t = ops.nonzero(t)[:, 0]
        shape = [1] * n
        shape[k] = -1
        out.append(ops.reshape(t, tuple(shape)))
    return tuple(out)


def indices(dimensions, dtype=dt.int32, sparse=False):
    """The coordinate grids of an array of shape dimensions (stacked, or a tuple of
    broadcastable ones if sparse)."""
    d = check_dtype(dtype)
    if sparse:
        return tuple(const_array(a, d) for a in np.indices(tuple(dimensions), sparse=True))
    return const_array(np.indices(tuple(dimensions)), d)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """num numbers spaced evenly on a log scale from start to stop (scalars of one sign);
    the ends are exactly start and stop."""
    s, e = to_tensor(start), to_tensor(stop)
    if s.ndim or e.ndim:
        raise ValueError("mindspore.numpy.geomspace: start and stop must be scalars here")
    if axis not in (0, -1):
        raise ValueError("mindspore.numpy.geomspace: axis must be 0 for scalar start and stop")
    d = dt.float32 if dtype is None else check_dtype(dtype)
    s, e = ops.cast(s, dt.float32), ops.cast(e, dt.float32)
    div = (num - 1) if endpoint else num
    t = Tensor(np.arange(num, dtype=np.float32) / np.float32(builtins.max(div, 1)))
    ls, le = ops.log10(ops.abs(s)), ops.log10(ops.abs(e))
    out = ops.sign(s) * ops.pow(10.0, ls + t * (le - ls))
    if num:
        idx = np.arange(num)
        out = ops.where(Tensor(idx == 0), s, out)
        if endpoint and num > 1:
            out = ops.where(Tensor(idx == num - 1), e, out)
    return ops.cast(out, d)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix: column j is x ** (N - 1 - j) (x ** j if increasing)."""
    x = to_tensor(x)
    if x.ndim != 1:
        raise ValueError("mindspore.numpy.vander: x should be a one-dimensional array")
    out = ops.vander(x, N)
    return ops.flip(out, (1,)) if increasing else out


def _window(m, fn):
    if not isinstance(m, int) or isinstance(m, bool):
        raise TypeError(f"mindspore.numpy: M must be an int, got {m!r}")
    return const_array(np.asarray(fn(m), dtype=np.float32))


def hamming(M):
    """The Hamming window (float32)."""
    return _window(M, np.hamming)


def hanning(M):
    """The Hann window (float32)."""
    return _window(M, np.hanning)


def bartlett(M):
    """The Bartlett window (float32)."""
    return _window(M, np.bartlett)


def blackman(M):
    """The Blackman window (float32)."""
    return _window(M, np.blackman)


def _tri_indices(fn, n, k, m):
    return tuple(const_array(a.astype(np.int32)) for a in fn(n, k, m))


def triu_indices(n, k=0, m=None):
    """The (row, column) indices of the upper triangle of an n x m array."""
    return _tri_indices(np.triu_indices, n, k, m)


def tril_indices(n, k=0, m=None):
    """The (row, column) indices of the lower triangle of an n x m array."""
    return _tri_indices(np.tril_indices, n, k, m)


def triu_indices_from(arr, k=0):
    """triu_indices for arr's (2-D) shape."""
    arr = to_tensor(arr)
    if arr.ndim != 2:
        raise ValueError("mindspore.numpy.triu_indices_from: input array must be 2-d")
    return triu_indices(arr.shape[0], k, arr.shape[1])


def tril_indices_from(arr, k=0):
    """tril_indices for arr's (2-D) shape."""
    arr = to_tensor(arr)
    if arr.ndim != 2:
        raise ValueError("mindspore.numpy.tril_indices_from: input array must be 2-d")
    return tril_indices(arr.shape[0], k, arr.shape[1])


def _pairs(width, nd, what):
    w = np.broadcast_to(np.asarray(width, dtype=np.int64), (nd, 2))
    if (w < 0).any():
        raise ValueError(f"mindspore.numpy.pad: {what} must be non-negative")
    return w


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even"):
    """arr padded by pad_width (numpy's forms: an int, (before, after), or one pair per
    axis) in mode 'constant', 'edge', 'reflect', 'symmetric', 'wrap', 'maximum', 'minimum',
    'mean', 'median' or 'empty' (zeros)."""
    x = to_tensor(arr)
    nd = x.ndim
    w = _pairs(pad_width, nd, "pad_width")
    modes = ("constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean",
             "median", "empty", "linear_ramp")
    if mode not in modes:
        raise ValueError(f"mindspore.numpy.pad: mode must be one of {modes}, got {mode!r}")
    if reflect_type != "even":
        raise ValueError("mindspore.numpy.pad: only reflect_type='even' is supported")
    cv = np.broadcast_to(np.asarray(constant_values, dtype=np.float64), (nd, 2))
    ev = np.broadcast_to(np.asarray(end_values, dtype=np.float64), (nd, 2))
    for ax in range(nd):
        lo, hi = int(w[ax, 0]), int(w[ax, 1])
        if lo == 0 and hi == 0:
            continue
        x = _pad_axis(x, ax, lo, hi, mode, cv[ax], ev[ax], stat_length)
    return x


def _take(x, ax, idx):
    return ops.gather(x, Tensor(np.asarray(idx, dtype=np.int64)), ax)


def _pad_axis(x, ax, lo, hi, mode, cv, ev, stat_length):
    n = x.shape[ax]
    shape = list(x.shape)

    def block(k, value):
        s = list(shape)
        s[ax] = k
        return ops.broadcast_to(ops.cast(value, x.dtype), tuple(s))
    if mode in ("constant", "empty"):
        vals = (0, 0) if mode == "empty" else cv
        parts = [block(lo, to_tensor(float(vals[0]) if x.dtype.is_floating else int(vals[0]))),
                 x, block(hi, to_tensor(float(vals[1]) if x.dtype.is_floating
                                        else int(vals[1])))]
    elif mode in ("edge", "reflect", "symmetric", "wrap"):
        i = np.arange(-lo, n + hi)
        if mode == "edge":
            j = np.clip(i, 0, n - 1)
        elif mode == "wrap":
            j = np.mod(i, n)
        else:
            period = 2 * n - 2 if mode == "reflect" else 2 * n
            if period == 0:
                j = np.zeros_like(i)
            else:
                j = np.mod(i, period)
                j = np.where(j >= n, period - j - (0 if mode == "reflect" else 1), j)
        return _take(x, ax, j)
    elif mode == "linear_ramp":
        edge_lo, edge_hi = _take(x, ax, [0]), _take(x, ax, [n - 1])
        parts = [x]
        if lo:
            t = np.arange(lo, dtype=np.float64) / lo
            r = _ramp(edge_lo, ev[0], t, ax, x)
            parts.insert(0, r)
        if hi:
            t = 1.0 - np.arange(1, hi + 1, dtype=np.float64) / hi
            parts.append(_ramp(edge_hi, ev[1], t, ax, x))
        return ops.concat(parts, ax)
    else:
        k = n if stat_length is None else builtins.min(int(np.asarray(stat_length).reshape(
            -1)[0]), n)
        red = {"maximum": ops.amax, "minimum": ops.amin}.get(mode)
        head, tail = _take(x, ax, np.arange(k)), _take(x, ax, np.arange(n - k, n))

        def stat(t):
            if red is not None:
                return red(t, ax, True)
            if mode == "mean":
                m = ops.mean(ops.cast(t, dt.float32) if not t.dtype.is_floating else t, ax, True)
                return ops.round(m) if not x.dtype.is_floating else m
            srt = ops.sort(t, ax)[0]
            a = _take(srt, ax, [(k - 1) // 2])
            b = _take(srt, ax, [k // 2])
            return (ops.cast(a, dt.float32) + ops.cast(b, dt.float32)) / 2
        parts = [block(lo, stat(head)), x, block(hi, stat(tail))]
    return ops.concat([p for p, k in zip(parts, (lo, 1, hi)) if k], ax)


def _ramp(edge, end, t, ax, x):
    shape = [1] * x.ndim
    shape[ax] = -1
    tt = Tensor(t.reshape(shape).astype(np.float32 if not x.dtype.is_floating else x.dtype.np))
    e = ops.cast(edge, tt.dtype)
    out = e * tt + float(end) * (1 - tt)
    return ops.cast(out, x.dtype) if x.dtype.is_floating else ops.cast(ops.round(out), x.dtype)


def unique(x, return_inverse=False):
    """The sorted distinct elements of the flattened x (and, if return_inverse, the index
    of each element of x among them). The length is known only when the program runs."""
    t = to_tensor(x)
    vals, inv = ops.unique(ops.reshape(t, (-1,)))
    order = ops.argsort(vals)
    srt = ops.gather(vals, order, 0)
    if not return_inverse:
        return srt
    rank = ops.argsort(order)                   # the sorted position of each distinct value
    return srt, ops.gather(rank, inv, 0)
