"""MindSpore 2.x array functions composed from the registry's ops: ranges and grids
(linspace, meshgrid, range), axis moves and splits, rot90, argsort/searchsorted/bucketize,
running extremes (cummax, cummin), segment reductions and the scatter family
(tensor_scatter_*, scatter_nd_*, tensor_scatter_elements, index_add, index_fill),
argwhere, bincount, ravel and dropout2d."""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import array_func as A
from . import math_func as M
from .array_func import cast, expand_dims, getitem, reshape, transpose, where
from .index_func import _scatter_parts, nonzero
from .layer_func import apply_random
from .nn_func import flip, pad
from .parameter_func import assign
from .._dispatch import PY_SCALARS, to_tensor
from .._utils import _axis_of, _const, _int, _int_tuple, _known_shape, _pair, _rank, _t
from ...common.parameter import Parameter
from ...common.tensor import Tensor, TensorLike
from ...ir import dtypes as dt

__all__ = ["linspace", "meshgrid", "range", "movedim", "moveaxis", "tensor_split", "hsplit",
           "vsplit", "dsplit", "rot90", "argsort", "searchsorted", "bucketize", "cummax",
           "cummin", "unsorted_segment_sum", "unsorted_segment_min", "unsorted_segment_max",
           "unsorted_segment_prod", "gather_d", "tensor_scatter_elements", "tensor_scatter_sub",
           "tensor_scatter_mul", "tensor_scatter_div", "tensor_scatter_min",
           "tensor_scatter_max", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul",
           "scatter_nd_div", "scatter_nd_max", "scatter_nd_min", "index_add", "index_fill",
           "argwhere", "bincount", "ravel", "dropout2d"]

_S = builtins.slice
_range = builtins.range


def _value(v, what):
    """A Python number from a number or an eager 0-d/1-element tensor."""
    if isinstance(v, Tensor):
        return v.asnumpy().reshape(-1)[0].item()
    if isinstance(v, TensorLike):
        return None
    if isinstance(v, PY_SCALARS):
        return v.item() if isinstance(v, np.generic) else v
    raise TypeError(f"For '{what}', expected a number or a 0-d tensor, got {v!r}")


# -- ranges and grids ------------------------------------------------------------------------
def linspace(start, end, steps):
    """steps evenly spaced float32 values from start to end (both included)."""
    steps = _int(steps, "linspace's steps")
    if steps < 1:
        raise ValueError(f"For 'linspace', steps must be positive, got {steps}")
    s = start if isinstance(start, TensorLike) else to_tensor(float(start), dt.float32)
    e = end if isinstance(end, TensorLike) else to_tensor(float(end), dt.float32)
    s, e = reshape(cast(s, dt.float32), ()), reshape(cast(e, dt.float32), ())
    if steps == 1:
        return expand_dims(s, 0)
    step = M.div(M.sub(e, s), float(steps - 1))
    i = _const(np.arange(steps, dtype=np.float32))
    out = M.add(M.mul(i, step), s)
    last = _const(np.arange(steps) == steps - 1)
    return where(last, e, out)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids from 1-D tensors: 'xy' (the default) swaps the first two dims of
    the output, 'ij' keeps input order."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', indexing must be 'xy' or 'ij', got {indexing!r}")
    ts = [_t(t) for t in inputs]
    if builtins.any(t.ndim != 1 for t in ts):
        raise ValueError("For 'meshgrid', every input must be 1-D")
    n = len(ts)
    sizes = [_known_shape(t, "meshgrid")[0] for t in ts]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for k, t in enumerate(ts):
        pos = k
        if indexing == "xy" and n >= 2 and k < 2:
            pos = 1 - k
        shape = [1] * n
        shape[pos] = -1
        out.append(A.broadcast_to(reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


def range(start, end, step):
    """start, start + step, ... below end (above it for a negative step); the dtype is
    the inputs' (numbers or 0-d tensors known while the graph is built)."""
    vals = [_value(v, "range") for v in (start, end, step)]
    if builtins.any(v is None for v in vals):
        raise TypeError("For 'range', start, end and step must be known while the graph is "
                        "built (numbers or constant tensors)")
    if vals[2] == 0:
        raise ValueError("For 'range', step must not be 0")
    dts = [v.dtype for v in (start, end, step) if isinstance(v, TensorLike)]
    dtype = dts[0] if dts else (dt.float32 if builtins.any(isinstance(v, float) for v in vals)
                                else dt.int64)
    return A.arange(*vals, dtype=dtype)


# -- axes and splits -------------------------------------------------------------------------
def moveaxis(x, source, destination):
    """x with the dims at source moved to destination (ints or tuples of ints)."""
    t = _t(x)
    r = _rank(t, "moveaxis")
    src = [_axis_of(a, r, "moveaxis' source") for a in _int_tuple(source, "source")]
    dst = [_axis_of(a, r, "moveaxis' destination") for a in _int_tuple(destination,
                                                                          "destination")]
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"For 'moveaxis', source {source} and destination {destination} "
                         f"must hold the same number of distinct axes")
    order = [i for i in _range(r) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(t, tuple(order)) if order != list(_range(r)) else t


movedim = moveaxis


def tensor_split(input, indices_or_sections, axis=0):
    """Split along axis into n nearly equal pieces (the first size % n one longer), or at
    the indices of a list."""
    x = _t(input)
    axis, n = A._dim_size(x, _int(axis, "tensor_split's axis"), "tensor_split")
    if isinstance(indices_or_sections, (tuple, list)):
        cuts = [builtins.min(builtins.max(i + n if i < 0 else i, 0), n)
                for i in _int_tuple(indices_or_sections, "tensor_split's indices")]
        bounds = [0] + cuts + [n]
    else:
        k = _int(indices_or_sections, "tensor_split's sections")
        if k <= 0:
            raise ValueError(f"For 'tensor_split', sections must be positive, got {k}")
        q, rem = divmod(n, k)
        bounds = [0]
        for i in _range(k):
            bounds.append(bounds[-1] + q + (1 if i < rem else 0))
    pre = (_S(None),) * axis
    return tuple(getitem(x, pre + (_S(a, builtins.max(a, b)),))
                 for a, b in zip(bounds, bounds[1:]))


def _split_at(input, ios, axis, rank, what):
    """MindSpore's hsplit/vsplit/dsplit: tensor_split along axis of an input of rank >= rank
    (sections need not divide the dim evenly)."""
    x = _t(input)
    if _rank(x, what) < rank:
        raise ValueError(f"For '{what}', the input must have rank {rank} or more, got "
                         f"{x.ndim}")
    return tensor_split(x, ios, axis)


def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (the input must have rank 2 or more)."""
    return _split_at(input, indices_or_sections, 1, 2, "hsplit")


def vsplit(input, indices_or_sections):
    """tensor_split along dim 0 (the input must have rank 2 or more)."""
    return _split_at(input, indices_or_sections, 0, 2, "vsplit")


def dsplit(input, indices_or_sections):
    """tensor_split along dim 2 (the input must have rank 3 or more)."""
    return _split_at(input, indices_or_sections, 2, 3, "dsplit")


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by 90 degrees k times in the plane of dims (from the first toward
    the second)."""
    x = _t(input)
    r = _rank(x, "rot90")
    dims = _int_tuple(dims, "rot90's dims")
    if len(dims) != 2:
        raise ValueError(f"For 'rot90', dims must hold two dims, got {dims}")
    d0, d1 = (_axis_of(d, r, "rot90's dims") for d in dims)
    if d0 == d1:
        raise ValueError(f"For 'rot90', the two dims must differ, got {dims}")
    k = _int(k, "rot90's k") % 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, (d0,)), (d1,))
    perm = list(_range(r))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 1:
        return transpose(flip(x, (d1,)), tuple(perm))
    return flip(transpose(x, tuple(perm)), (d1,))


# -- sorting and searching -------------------------------------------------------------------
def argsort(input, axis=-1, descending=False):
    """The int32 indices that sort input along axis (equal values keep their order)."""
    return A.sort(input, axis, descending)[1]


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """For each value, the index where it would be inserted into sorted_sequence's last
    dim to keep it sorted: before equal elements, or after them if right (side='right').
    int64 unless out_int32."""
    seq, v = _t(sorted_sequence), _t(values)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For 'searchsorted', side must be 'left' or 'right', got "
                             f"{side!r}")
        if right and side == "left":
            raise ValueError("For 'searchsorted', side='left' contradicts right=True")
        right = side == "right"
    if sorter is not None:
        seq = A.gather_elements(seq, -1, _t(sorter))
    if seq.ndim > 1 and seq.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"For 'searchsorted', sorted_sequence {seq.shape} and values "
                         f"{v.shape} must agree on all dims but the last")
    if seq.dtype is not v.dtype:
        seq, v = _pair(seq, v)
    if seq.ndim <= 1:
        cmp = (M.less_equal if right else M.less)(seq, expand_dims(v, -1))
    else:
        cmp = (M.less_equal if right else M.less)(expand_dims(seq, -2), expand_dims(v, -1))
    out = M.sum(cast(cmp, dt.int32 if out_int32 else dt.int64), -1)
    return cast(out, dt.int32 if out_int32 else dt.int64)


def bucketize(input, boundaries, *, right=False):
    """The int32 bucket of each element among the sorted float boundaries (a list):
    the number of boundaries below it (at or below it if right), as MindSpore's Bucketize
    with its 1e-6 shift for right=False."""
    x = _t(input)
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError(f"For 'bucketize', boundaries must be a list of floats, got "
                        f"{type(boundaries).__name__}")
    eps = 0.0 if right else 1e-6
    cdt = dt.float64 if x.dtype is dt.float64 else dt.float32
    b = _const(np.asarray([float(v) + eps for v in boundaries], dtype=cdt.np))
    cmp = M.less_equal(b, expand_dims(cast(x, cdt), -1))
    return cast(M.sum(cast(cmp, dt.int32), -1), dt.int32)


def _cum_extreme(input, axis, take_max, what):
    x = _t(input)
    r = _rank(x, what)
    if r == 0:
        raise ValueError(f"For '{what}', the input must have rank 1 or more")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{what}', axis must be an int, got {axis!r}")
    a = _axis_of(axis, r, f"{what}'s axis")
    n = _known_shape(x, what)[a]
    t = moveaxis(x, a, -1)                                          # (..., n)
    tri = _const(np.tril(np.ones((n, n), dtype=bool)))              # j <= i
    if x.dtype.is_floating:
        fill = -math.inf if take_max else math.inf
    elif x.dtype.is_bool:
        fill = not take_max
    else:
        info = np.iinfo(x.dtype.np)
        fill = int(info.min if take_max else info.max)
    rows = expand_dims(t, -2)                                       # (..., 1, n): x_j
    masked = where(tri, rows, to_tensor(fill, x.dtype))             # (..., n_i, n_j)
    vals = (M.amax if take_max else M.amin)(masked, -1)
    if x.dtype.is_floating:     # a NaN, once seen, stays (as the running comparison does)
        seen = M.any(M.logical_and(tri, M.isnan(rows)), -1)
        vals = where(seen, to_tensor(math.nan, x.dtype), vals)
        hit = M.logical_or(M.equal(rows, expand_dims(vals, -1)),
                           M.logical_and(M.isnan(rows), expand_dims(seen, -1)))
    else:
        hit = M.equal(rows, expand_dims(vals, -1))
    j = _const(np.arange(n, dtype=np.int64))
    idx = M.amax(where(M.logical_and(tri, hit), j, to_tensor(-1, dt.int64)), -1)
    # MindSpore's Cummax gives int64 indices and its Cummin int32 (core/ops infer types)
    idx = idx if take_max else cast(idx, dt.int32)
    return moveaxis(vals, -1, a), moveaxis(idx, -1, a)


def cummax(input, axis):
    """(values, int64 indices): the running maximum along axis and where it was reached
    (the last index on ties)."""
    return _cum_extreme(input, axis, True, "cummax")


def cummin(input, axis):
    """(values, int32 indices): the running minimum along axis and where it was reached
    (the last index on ties)."""
    return _cum_extreme(input, axis, False, "cummin")


# -- segments --------------------------------------------------------------------------------
def _segments(input_x, segment_ids, num_segments, what):
    x, ids = _t(input_x), _t(segment_ids)
    if not ids.dtype.is_integer:
        raise TypeError(f"For '{what}', segment_ids must be integers, got {ids.dtype}")
    ns = _value(num_segments, what)
    if ns is None or isinstance(ns, float):
        raise TypeError(f"For '{what}', num_segments must be an int known while the graph is "
                        f"built")
    xs, ish = _known_shape(x, what), _known_shape(ids, what)
    if xs[:len(ish)] != ish:
        raise ValueError(f"For '{what}', segment_ids' shape {ish} must be a prefix of "
                         f"input_x's {xs}")
    m = math.prod(ish)
    rest = xs[len(ish):]
    hot = A.one_hot(reshape(ids, (m,)), int(ns), Tensor._wrap(np.ones((), np.bool_)),
                    Tensor._wrap(np.zeros((), np.bool_)))                        # (m, S)
    return x, reshape(x, (m, math.prod(rest))), transpose(hot, (1, 0)), int(ns), rest


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """out[s] = the sum of input_x's slices whose segment id is s (ids outside
    [0, num_segments) are dropped)."""
    x, flat, hot, ns, rest = _segments(input_x, segment_ids, num_segments,
                                       "unsorted_segment_sum")
    # one matmul of the (segments, rows) one-hot; integers in float64 (exact below
    # 2 ** 53), cast back
    cdt = x.dtype if x.dtype.is_floating else dt.float64
    out = cast(M.matmul(cast(hot, cdt), cast(flat, cdt)), x.dtype)
    return reshape(out, (ns,) + rest)


def _segment_reduce(input_x, segment_ids, num_segments, what, reduce, empty):
    x, flat, hot, ns, rest = _segments(input_x, segment_ids, num_segments, what)
    fill = to_tensor(empty(x.dtype), x.dtype)
    out = reduce(where(expand_dims(hot, -1), expand_dims(flat, 0), fill), 1)
    return reshape(cast(out, x.dtype), (ns,) + rest)


def _lowest(d):
    return float(np.finfo(d.np).min) if d.is_floating else int(np.iinfo(d.np).min)


def _highest(d):
    return float(np.finfo(d.np).max) if d.is_floating else int(np.iinfo(d.np).max)


def unsorted_segment_max(x, segment_ids, num_segments):
    """out[s] = the maximum of x's slices with segment id s (the dtype's lowest value for
    an empty segment)."""
    return _segment_reduce(x, segment_ids, num_segments, "unsorted_segment_max",
                           lambda v, a: M.amax(v, a), _lowest)


def unsorted_segment_min(x, segment_ids, num_segments):
    """out[s] = the minimum of x's slices with segment id s (the dtype's largest value for
    an empty segment)."""
    return _segment_reduce(x, segment_ids, num_segments, "unsorted_segment_min",
                           lambda v, a: M.amin(v, a), _highest)


def unsorted_segment_prod(x, segment_ids, num_segments):
    """out[s] = the product of x's slices with segment id s (1 for an empty segment)."""
    return _segment_reduce(x, segment_ids, num_segments, "unsorted_segment_prod",
                           lambda v, a: M.prod(v, a), lambda d: 1)


# -- scatters --------------------------------------------------------------------------------
def gather_d(x, dim, index):
    """gather_elements: out[i][j] = x[index[i][j]][j] for dim 0 (likewise other dims)."""
    return A.gather_elements(x, dim, index)


def _scatter_combine(input_x, indices, updates, what, kind):
    x = _t(input_x)
    lin, n, rest, u, r = _scatter_parts(x, indices, updates, what)
    hot = A.one_hot(lin, n, Tensor._wrap(np.ones((), np.bool_)),
                    Tensor._wrap(np.zeros((), np.bool_)))             # (m, n)
    hot3 = expand_dims(hot, -1)                                      # (m, n, 1)
    u3 = expand_dims(u, 1)                                           # (m, 1, r)
    xf = reshape(x, (n, r))
    touched = expand_dims(M.any(hot, 0), -1)                         # (n, 1)
    if kind in ("add", "sub"):     # the (slices, updates) one-hot times the updates
        cdt = x.dtype if x.dtype.is_floating else dt.float64
        added = M.matmul(transpose(cast(hot, cdt), (1, 0)), cast(u, cdt))
        res = (M.add if kind == "add" else M.sub)(cast(xf, cdt), added)
    elif kind in ("mul", "div"):
        p = M.prod(where(hot3, u3, to_tensor(1, x.dtype)), 0)
        res = M.mul(xf, p) if kind == "mul" else M.div(xf, p)
    elif kind == "max":
        res = where(touched, M.maximum(xf, M.amax(where(hot3, u3, to_tensor(
            _lowest(x.dtype), x.dtype)), 0)), xf)
    elif kind == "min":
        res = where(touched, M.minimum(xf, M.amin(where(hot3, u3, to_tensor(
            _highest(x.dtype), x.dtype)), 0)), xf)
    else:
        raise ValueError(f"{what}: unknown combination {kind!r}")
    return reshape(cast(res, x.dtype), tuple(x.shape))


def tensor_scatter_sub(input_x, indices, updates):
    """A copy of input_x with each updates slice subtracted at its index tuple."""
    return _scatter_combine(input_x, indices, updates, "tensor_scatter_sub", "sub")


def tensor_scatter_mul(input_x, indices, updates):
    """A copy of input_x with each slice at an index tuple multiplied by its update."""
    return _scatter_combine(input_x, indices, updates, "tensor_scatter_mul", "mul")


def tensor_scatter_div(input_x, indices, updates):
    """A copy of input_x with each slice at an index tuple divided by its update."""
    return _scatter_combine(input_x, indices, updates, "tensor_scatter_div", "div")


def tensor_scatter_max(input_x, indices, updates):
    """A copy of input_x with each slice at an index tuple the maximum of it and its
    updates."""
    return _scatter_combine(input_x, indices, updates, "tensor_scatter_max", "max")


def tensor_scatter_min(input_x, indices, updates):
    """A copy of input_x with each slice at an index tuple the minimum of it and its
    updates."""
    return _scatter_combine(input_x, indices, updates, "tensor_scatter_min", "min")


def _in_place(input_x, value):
    """MindSpore's scatter_nd_* and index_add update a Parameter and return it; a plain
    tensor gets the new value returned."""
    if isinstance(input_x, Parameter):
        return assign(input_x, value)
    return value


def _scatter_nd(kind):
    def fn(input_x, indices, updates, use_locking=False):
        return _in_place(input_x, _scatter_combine(input_x, indices, updates,
                                                   f"scatter_nd_{kind}", kind))
    fn.__name__ = fn.__qualname__ = f"scatter_nd_{kind}"
    fn.__doc__ = (f"input_x (a Parameter, updated in place and returned) with updates "
                  f"combined ({kind}) into the slices at indices' index tuples.")
    fn.__module__ = __name__
    return fn


scatter_nd_add = _scatter_nd("add")
scatter_nd_sub = _scatter_nd("sub")
scatter_nd_mul = _scatter_nd("mul")
scatter_nd_div = _scatter_nd("div")
scatter_nd_max = _scatter_nd("max")
scatter_nd_min = _scatter_nd("min")


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """A copy of input_x with updates[i][j] written (reduction 'none') or added ('add')
    at [indices[i][j]][j] for axis 0 (likewise other axes)."""
    x, idx, u = _t(input_x), _t(indices), _t(updates)
    if reduction not in ("none", "add"):
        raise ValueError(f"For 'tensor_scatter_elements', reduction must be 'none' or 'add', "
                         f"got {reduction!r}")
    if not idx.dtype.is_integer:
        raise TypeError(f"For 'tensor_scatter_elements', indices must be integers, got "
                        f"{idx.dtype}")
    xs, ish = _known_shape(x, "tensor_scatter_elements"), _known_shape(idx, "t")
    if _known_shape(u, "tensor_scatter_elements") != ish or len(ish) != len(xs):
        raise ValueError(f"For 'tensor_scatter_elements', indices {ish} and updates "
                         f"{u.shape} must have one shape, of input_x's rank {len(xs)}")
    a = _axis_of(axis, len(xs), "tensor_scatter_elements' axis")
    if builtins.any(i != a and p > q for i, (p, q) in enumerate(zip(ish, xs))):
        raise ValueError(f"For 'tensor_scatter_elements', indices {ish} may not exceed "
                         f"input_x {xs} outside axis {a}")
    n = xs[a]
    idx = cast(idx, dt.int64)
    idx = where(M.less(idx, 0), M.add(idx, n), idx)
    hot = A.one_hot(moveaxis(idx, a, -1), n, Tensor._wrap(np.ones((), np.bool_)),
                    Tensor._wrap(np.zeros((), np.bool_)))            # (..., j, n)
    uj = expand_dims(moveaxis(cast(u, x.dtype), a, -1), -1)          # (..., j, 1)
    added = M.sum(where(hot, uj, to_tensor(0, x.dtype)), -2)         # (..., n)
    touched = M.any(hot, -2)
    added, touched = moveaxis(added, -1, a), moveaxis(touched, -1, a)
    if ish[:a] + ish[a + 1:] != xs[:a] + xs[a + 1:]:     # indices smaller than input_x
        pads = [(0, 0 if i == a else xs[i] - ish[i]) for i in _range(len(xs))]
        flat = tuple(v for lo_hi in reversed(pads) for v in lo_hi)
        added = pad(added, flat)
        touched = cast(pad(cast(touched, dt.int32), flat), dt.bool_)
    if reduction == "add":
        return cast(M.add(x, added), x.dtype)
    return where(touched, cast(added, x.dtype), x)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x (a Parameter, updated in place and returned) with y's slices along axis added at
    x's slices indices[i] (an index given twice gets both)."""
    t, idx, v = _t(x), _t(indices), _t(y)
    r = _rank(t, "index_add")
    a = _axis_of(axis, r, "index_add's axis")
    if idx.ndim != 1:
        raise ValueError(f"For 'index_add', indices must be 1-D, got rank {idx.ndim}")
    n = _known_shape(t, "index_add")[a]
    hot = A.one_hot(idx, n, Tensor._wrap(np.ones((), np.bool_)),
                    Tensor._wrap(np.zeros((), np.bool_)))              # (k, n)
    vk = moveaxis(cast(v, t.dtype), a, 0)                               # (k, ...)
    rest = tuple(vk.shape[1:])
    vflat = reshape(vk, (vk.shape[0], -1))
    added = M.sum(where(expand_dims(hot, -1), expand_dims(vflat, 1),
                        to_tensor(0, t.dtype)), 0)                      # (n, r)
    added = moveaxis(reshape(cast(added, t.dtype), (n,) + rest), 0, a)
    return _in_place(x, M.add(t, added))


def index_fill(x, axis, index, value):
    """A copy of x with value written into the slices along axis picked by index."""
    t, idx = _t(x), _t(index)
    r = _rank(t, "index_fill")
    if isinstance(axis, TensorLike):
        axis = _value(axis, "index_fill")
        if axis is None:
            raise TypeError("For 'index_fill', axis must be known while the graph is built "
                            "(a Python int or a constant tensor), not a tensor value of the "
                            "graph")
    a = _axis_of(axis, r, "index_fill's axis")
    n = _known_shape(t, "index_fill")[a]
    hot = A.one_hot(reshape(idx, (-1,)), n, Tensor._wrap(np.ones((), np.bool_)),
                    Tensor._wrap(np.zeros((), np.bool_)))
    mask = reshape(M.any(hot, 0), tuple(-1 if i == a else 1 for i in _range(r)))
    v = value if isinstance(value, TensorLike) else to_tensor(value, t.dtype)
    return where(mask, cast(v, t.dtype), t)


# -- data-dependent lengths ------------------------------------------------------------------
def argwhere(input):
    """The (N, rank) int64 indices of input's nonzero elements, in row-major order (N is
    known only when the program runs)."""
    return nonzero(input)


def bincount(input, weights=None, minlength=0):
    """The count (or the sum of weights) of each value 0..max(input) of a 1-D
    non-negative integer tensor, at least minlength long. The length depends on the
    values, so graphs refuse it."""
    x = _t(input)
    if not isinstance(x, Tensor):
        raise TypeError("bincount's output length depends on the input's values, which a "
                        "graph does not know while it is built; compute the counts with "
                        "ops.one_hot(input, length).sum(0) for a known length")
    if not x.dtype.is_integer or x.ndim != 1:
        raise TypeError(f"For 'bincount', input must be a 1-D integer tensor, got {x.type}")
    data = x.asnumpy()
    if data.size and data.min() < 0:
        raise ValueError("For 'bincount', input must be non-negative")
    length = builtins.max(int(data.max()) + 1 if data.size else 0, int(minlength))
    hot = A.one_hot(x, length, Tensor._wrap(np.ones((), np.bool_)),
                    Tensor._wrap(np.zeros((), np.bool_)))
    if weights is None:
        return M.sum(cast(hot, dt.int64), 0)
    w = _t(weights)
    if w.dtype.is_integer or w.dtype.is_bool:
        w = cast(w, dt.float64)
    return M.sum(where(hot, expand_dims(w, -1), to_tensor(0, w.dtype)), 0)


def ravel(input):
    """input flattened to 1-D."""
    return reshape(_t(input), (-1,))


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, H, W) input with probability p in training, the
    rest scaled by 1 / (1 - p)."""
    x = _t(input)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"For 'dropout2d', p must be a float in [0, 1], got {p!r}")
    if _rank(x, "dropout2d") != 4:
        raise ValueError(f"For 'dropout2d', the input must be 4-D (N, C, H, W), got rank "
                         f"{x.ndim}")
    if not training or p == 0:
        return x
    if p == 1:
        return M.mul(x, 0)
    n, c = _known_shape(x, "dropout2d")[:2]
    ones = Tensor._wrap(np.ones((n, c, 1, 1), dtype=x.dtype.np))
    scale, _ = apply_random("Dropout", ones, keep_prob=1.0 - float(p), seed=None)
    return M.mul(x, scale)
