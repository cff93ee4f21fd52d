"""ONNX node -> graphjit nodes: gathers and scatters with run-time indices (GatherND,
ScatterND, ScatterElements, Scatter, TensorScatter, ReverseSequence). The data's shape
must be known while building; every scatter becomes one over the rows of the data
seen as (N, R), at flat row indices:

- reduction 'none' and 'add': ScatterAddAlongAxis of the updates (and of ones, for
  which rows were written); for 'none', an update a later one overwrites is dropped
  first, so the last write wins as in the ONNX reference (found by a (U, U) table for
  up to 4096 updates; beyond, duplicate indices, which ONNX leaves undefined, add up);
- 'mul', 'max', 'min': a (U, N) one-hot of the row indices selects each update or the
  reduction's identity, reduced over the U updates (bounded in size)."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_nn import _norm, _rank
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_LIMIT = 1 << 24            # elements of the (U, N, R) table of a mul/max/min scatter
_PAIRS = 1 << 24            # elements of the (U, U) table that finds overwritten updates


def _wrap(cx, idx, dims):
    """Indices made non-negative: + dim where negative (dims broadcast against idx)."""
    idx = cx.keep(idx, D.int64)
    return cx.emit("Select", cx.emit("Less", idx, cx.array(np.int64(0))),
                   cx.emit("Add", idx, cx.array(np.asarray(dims, np.int64))), idx)


def _strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return list(reversed(out))


def scatter_rows(cx: NodeCx, data, rows, updates, reduction: str):
    """data (N, R) with updates (U, R) combined into rows (U,) by reduction."""
    n, r = _static(cx, data)
    u = _static(cx, updates)[0]
    if reduction not in ("none", "add", "mul", "max", "min"):
        raise cx.where.damaged(f"unknown reduction {reduction!r}")
    if reduction in ("none", "add"):
        if reduction == "none" and 1 < u and u * u <= _PAIRS:
            later = np.triu(np.ones((u, u), bool), 1)
            same = cx.emit("Equal", cx.emit("ExpandDims", rows, axis=1),
                           cx.emit("ExpandDims", rows, axis=0))
            over = cx.emit("ReduceMax", cx.emit("Cast", cx.emit(
                "LogicalAnd", same, cx.array(later)), dtype=D.int32), axis=1, keep_dims=True)
            keep = cx.emit("Equal", over, cx.array(np.int32(0)))
            updates = cx.emit("Select", keep, updates, cx.scalar(0, updates))
            ones = cx.emit("Cast", cx.emit("BroadcastTo", keep, shape=(u, r)), dtype=D.int32)
        else:
            ones = cx.emit("OnesLike", updates, dtype=D.int32)
        index = cx.emit("BroadcastTo", cx.emit("ExpandDims", rows, axis=1), shape=(u, r))
        summed = cx.emit("ScatterAddAlongAxis", updates, index, data, axis=0)
        if reduction == "add":
            return cx.keep(cx.emit("Add", data, summed), data.dtype)
        count = cx.emit("ScatterAddAlongAxis", ones, index,
                        cx.emit("ZerosLike", data, dtype=D.int32), axis=0)
        return cx.emit("Select", cx.emit("Greater", count, cx.array(np.int32(0))), summed, data)
    if u * n * max(r, 1) > _LIMIT:
        raise cx.refuse(f"a scatter with reduction '{reduction}' of {u} updates into {n} rows "
                        f"is too large for graphjit's one-hot form")
    hot = cx.emit("Equal", cx.emit("ExpandDims", rows, axis=1),
                  cx.array(np.arange(n, dtype=np.int64).reshape(1, n)))
    dt = data.dtype.np
    if reduction == "mul":
        ident = np.ones((), dt)
    elif data.dtype.is_floating:
        ident = np.asarray(-np.inf if reduction == "max" else np.inf, dt)
    else:
        info = np.iinfo(dt) if not data.dtype.is_bool else None
        if info is None:
            raise cx.refuse(f"reduction '{reduction}' of bool data is not supported")
        ident = np.asarray(info.min if reduction == "max" else info.max, dt)
    table = cx.emit("Select", cx.emit("ExpandDims", hot, axis=2),
                    cx.emit("ExpandDims", updates, axis=1), cx.array(ident))
    gj = {"mul": "ReduceProd", "max": "ReduceMax", "min": "ReduceMin"}[reduction]
    red = cx.keep(cx.emit(gj, table, axis=0, keep_dims=False), data.dtype)
    combine = {"mul": "Mul", "max": "Maximum", "min": "Minimum"}[reduction]
    return cx.keep(cx.emit(combine, data, red), data.dtype)


def _flat_rows(cx, idx, dims):
    """Row numbers of index tuples idx (..., k) into the first k dims `dims`: (U,)."""
    k = len(dims)
    idx = _wrap(cx, idx, dims)
    lin = cx.emit("ReduceSum", cx.emit("Mul", idx, cx.array(np.asarray(_strides(dims),
                                                                        np.int64))),
                  axis=-1, keep_dims=False)
    return cx.emit("Reshape", lin, shape=(-1,)) if k else lin


@op("GatherND")
def _gather_nd(cx):
    data, idx = cx.x(0), cx.x(1)
    shape = _static(cx, data)
    ishape = _static(cx, idx, "indices")
    b = cx.attrs.int("batch_dims", 0)
    if not ishape or ishape[-1] > len(shape) - b or ishape[:b] != shape[:b]:
        raise cx.where.damaged(f"indices {idx.type} do not fit data {data.type} with "
                               f"batch_dims {b}")
    k = ishape[-1]
    dims = shape[b:b + k]
    block = int(np.prod(dims, dtype=np.int64))
    rest = shape[b + k:]
    idx = _wrap(cx, idx, dims)
    lin = cx.emit("ReduceSum", cx.emit("Mul", idx, cx.array(np.asarray(_strides(dims),
                                                                        np.int64))),
                  axis=-1, keep_dims=False)
    if b:
        nb = int(np.prod(shape[:b], dtype=np.int64))
        base = (np.arange(nb, dtype=np.int64) * block).reshape(
            shape[:b] + (1,) * (len(ishape) - 1 - b))
        lin = cx.emit("Add", lin, cx.array(base))
    flat = cx.emit("Reshape", data, shape=(-1,) + rest)
    return [cx.emit("Gather", flat, lin, axis=0)]


@op("ScatterND")
def _scatter_nd(cx):
    data, idx, upd = cx.x(0), cx.x(1), cx.x(2)
    shape = _static(cx, data)
    ishape = _static(cx, idx, "indices")
    k = ishape[-1] if ishape else 0
    if not ishape or k > len(shape) or _static(cx, upd, "updates") != ishape[:-1] + shape[k:]:
        raise cx.where.damaged(f"indices {idx.type} and updates {upd.type} do not fit data "
                               f"{data.type}")
    rows = _flat_rows(cx, idx, shape[:k])
    r = int(np.prod(shape[k:], dtype=np.int64))
    u = int(np.prod(ishape[:-1], dtype=np.int64))
    out = scatter_rows(cx, cx.emit("Reshape", data, shape=(-1, r)), rows,
                       cx.emit("Reshape", upd, shape=(u, r)),
                       cx.attrs.string("reduction", "none"))
    return [cx.emit("Reshape", out, shape=shape)]


def scatter_elements(cx, data, idx, upd, axis, reduction):
    shape = _static(cx, data)
    ushape = _static(cx, upd, "updates")
    if _static(cx, idx, "indices") != ushape or len(ushape) != len(shape):
        raise cx.where.damaged(f"indices {idx.type} and updates {upd.type} do not fit data "
                               f"{data.type}")
    a = _norm(cx, axis, len(shape))
    idx = _wrap(cx, idx, shape[a])
    coords = np.indices(ushape, dtype=np.int64)
    strides = _strides(shape)
    lin = cx.array(sum(coords[d] * strides[d] for d in range(len(shape)) if d != a)
                   if len(shape) > 1 else np.zeros(ushape, np.int64))
    lin = cx.emit("Add", lin, cx.emit("Mul", idx, cx.array(np.int64(strides[a]))))
    out = scatter_rows(cx, cx.emit("Reshape", data, shape=(-1, 1)),
                       cx.emit("Reshape", lin, shape=(-1,)),
                       cx.emit("Reshape", upd, shape=(-1, 1)), reduction)
    return cx.emit("Reshape", out, shape=shape)


@op("ScatterElements", "Scatter")
def _scatter_elements(cx):
    red = cx.attrs.string("reduction", "none") if cx.node.op_type == "ScatterElements" \
        else "none"
    return [scatter_elements(cx, cx.x(0), cx.x(1), cx.x(2), cx.attrs.int("axis", 0), red)]


@op("TensorScatter")
def _tensor_scatter(cx):
    """past_cache with update written along axis from write_indices[batch] on (mod the
    axis length in circular mode), for every index of the dims before axis."""
    past, upd, write = cx.x(0), cx.x(1), cx.opt(2)
    shape, ushape = _static(cx, past), _static(cx, upd, "update")
    a = _norm(cx, cx.attrs.int("axis", -2), len(shape))
    mode = cx.attrs.string("mode", "linear")
    if mode not in ("linear", "circular"):
        raise cx.where.damaged(f"unknown mode {mode!r}")
    if a == 0 or len(ushape) != len(shape) or ushape[a] > shape[a] or \
            any(ushape[i] != shape[i] for i in range(len(shape)) if i != a):
        raise cx.where.damaged(f"update {upd.type} does not fit the cache {past.type} along "
                               f"axis {a}")
    start = cx.array(np.zeros(shape[0], np.int64)) if write is None else cx.keep(write, D.int64)
    grid = (1,) * len(shape)
    steps = np.arange(ushape[a], dtype=np.int64).reshape(
        tuple(ushape[a] if i == a else 1 for i in range(len(shape))))
    pos = cx.emit("Add", cx.emit("Reshape", start, shape=(shape[0],) + grid[1:]),
                  cx.array(steps))
    if mode == "circular":
        pos = cx.emit("FloorMod", pos, cx.array(np.int64(shape[a])))
    pos = cx.emit("BroadcastTo", pos, shape=ushape)
    return [scatter_elements(cx, past, pos, upd, a, "none")]


@op("ReverseSequence")
def _reverse_sequence(cx):
    x, lens = cx.x(0), cx.x(1)
    shape = _static(cx, x)
    r = len(shape)
    b = _norm(cx, cx.attrs.int("batch_axis", 1), r)
    t = _norm(cx, cx.attrs.int("time_axis", 0), r)
    if b == t:
        raise cx.where.damaged("batch_axis and time_axis must differ")
    steps = cx.array(np.arange(shape[t], dtype=np.int64).reshape(
        tuple(shape[t] if i == t else 1 for i in range(r))))
    n = cx.emit("Reshape", cx.keep(lens, D.int64),
                shape=tuple(shape[b] if i == b else 1 for i in range(r)))
    rev = cx.emit("Sub", cx.emit("Sub", n, cx.array(np.int64(1))), steps)
    idx = cx.emit("Select", cx.emit("Less", steps, n), rev, steps)
    idx = cx.emit("BroadcastTo", idx, shape=shape)
    return [cx.emit("GatherD", x, idx, dim=t)]


@op("DepthToSpace")
def _depth_to_space(cx):
    x = cx.x(0)
    n, c, h, w = _static(cx, x)
    bs = cx.attrs.int("blocksize")
    if bs <= 0 or c % (bs * bs):
        raise cx.where.damaged(f"{c} channels do not split into blocks of {bs}x{bs}")
    cc = c // (bs * bs)
    if cx.attrs.string("mode", "DCR") == "CRD":
        y = cx.emit("Reshape", x, shape=(n, cc, bs, bs, h, w))
        y = cx.emit("Transpose", y, perm=(0, 1, 4, 2, 5, 3))
    else:
        y = cx.emit("Reshape", x, shape=(n, bs, bs, cc, h, w))
        y = cx.emit("Transpose", y, perm=(0, 3, 4, 1, 5, 2))
    return [cx.emit("Reshape", y, shape=(n, cc, h * bs, w * bs))]


@op("SpaceToDepth")
def _space_to_depth(cx):
    x = cx.x(0)
    n, c, h, w = _static(cx, x)
    bs = cx.attrs.int("blocksize")
    if bs <= 0 or h % bs or w % bs:
        raise cx.where.damaged(f"{h}x{w} does not split into blocks of {bs}x{bs}")
    y = cx.emit("Reshape", x, shape=(n, c, h // bs, bs, w // bs, bs))
    crd = cx.attrs.string("mode", "DCR") == "CRD"
    y = cx.emit("Transpose", y, perm=(0, 1, 3, 5, 2, 4) if crd else (0, 3, 5, 1, 2, 4))
    return [cx.emit("Reshape", y, shape=(n, c * bs * bs, h // bs, w // bs))]


@op("CenterCropPad")
def _center_crop_pad(cx):
    from .import_nn import _pad_axis, _slice_along
    x = cx.x(0)
    shape = _static(cx, x)
    r = _rank(cx, x)
    target = cx.ints(1, "shape")
    axes = cx.attrs.ints("axes", None)
    axes = list(range(r)) if axes is None else [_norm(cx, a, r) for a in axes]
    if len(target) != len(axes):
        raise cx.where.damaged(f"shape {list(target)} must have one entry per axis {axes}")
    y = x
    zero = np.zeros((), x.dtype.np)
    for a, want in zip(axes, target):
        d = shape[a]
        if want < 0:
            raise cx.where.damaged(f"negative size {want}")
        if want < d:
            start = (d - want) // 2
            y = _slice_along(cx, y, a, start, start + want)
        elif want > d:
            before = (want - d) // 2
            y = _pad_axis(cx, y, a, before, want - d - before, "constant", zero)
    return [y if y is not x else cx.emit("Identity", x)]


@op("Unique")
def _unique(cx):
    """The distinct elements of the flattened x (sorted, or in order of first
    occurrence with sorted=0), the flat index of each one's first occurrence, each
    element's index among them, and their counts: graphjit's Unique (first-occurrence
    order, a length known only at run time), sorted by Sort, the rest from a
    (distinct, N) table of which element is which."""
    x = cx.x(0)
    if cx.attrs.has("axis"):
        return _unique_slices(cx, x, cx.attrs.int("axis"))
    n = int(np.prod(_static(cx, x), dtype=np.int64))
    flat = cx.emit("Reshape", x, shape=(n,))
    y, inverse = cx.emit("Unique", flat)
    inverse = cx.keep(inverse, D.int64)
    if cx.attrs.int("sorted", 1):
        y, perm = cx.emit("Sort", y, axis=-1, descending=False)
        _, rank = cx.emit("Sort", cx.keep(perm, D.int64), axis=-1, descending=False)
        inverse = cx.emit("Gather", cx.keep(rank, D.int64), inverse, axis=0)
    which = cx.emit("Sub", cx.emit("CumSum", cx.emit("OnesLike", y, dtype=D.int64), axis=0),
                    cx.array(np.int64(1)))
    table = cx.emit("Equal", cx.emit("ExpandDims", which, axis=1),
                    cx.emit("ExpandDims", inverse, axis=0))
    table = cx.emit("Cast", table, dtype=D.int32)
    first = cx.emit("ArgMax", table, axis=1, keep_dims=False, output_type=D.int64)
    counts = cx.keep(cx.emit("ReduceSum", table, axis=1, keep_dims=False), D.int64)
    return [y, first, inverse, counts]


def _unique_slices(cx, x, axis):
    """Unique along an axis: the N slices compared pairwise ((N, N) tables, N static):
    slice i equals j when all their elements do, and is below j when the first element
    where they differ is (lexicographic, as numpy sorts them); a slice is kept where no
    earlier one equals it. Sorted: by the count of distinct slices below each."""
    shape = _static(cx, x)
    a = _norm(cx, axis, len(shape))
    n = shape[a]
    perm = (a,) + tuple(i for i in range(len(shape)) if i != a)
    moved = cx.emit("Transpose", x, perm=perm) if a else x
    rows = cx.emit("Reshape", moved, shape=(n, -1))
    size = int(np.prod(shape, dtype=np.int64)) // max(n, 1)
    from .import_ops import check_elements
    check_elements(cx, (n, n, size))
    xi, xj = cx.emit("ExpandDims", rows, axis=1), cx.emit("ExpandDims", rows, axis=0)
    differ = cx.emit("NotEqual", xi, xj)                                  # (N, N, S)
    equal = cx.emit("LogicalNot", cx.emit("ReduceMax", cx.emit("Cast", differ, dtype=D.int32),
                                          axis=2, keep_dims=False))
    equal = cx.emit("Cast", equal, dtype=D.bool_)
    first = cx.emit("ArgMax", cx.emit("Cast", differ, dtype=D.int32), axis=2, keep_dims=True)
    vi = cx.emit("Squeeze", cx.emit("GatherD", cx.emit("BroadcastTo", xi, shape=(n, n, size)),
                                    first, dim=2), axis=2)
    vj = cx.emit("Squeeze", cx.emit("GatherD", cx.emit("BroadcastTo", xj, shape=(n, n, size)),
                                    first, dim=2), axis=2)
    below = cx.emit("LogicalAnd", cx.emit("Less", vi, vj), cx.emit("LogicalNot", equal))
    earlier = cx.array(np.tril(np.ones((n, n), bool), -1))                # j < i
    rep = cx.emit("LogicalNot", cx.emit("Cast", cx.emit("ReduceMax", cx.emit(
        "Cast", cx.emit("LogicalAnd", equal, earlier), dtype=D.int32), axis=1,
        keep_dims=False), dtype=D.bool_))                                 # (N,)
    ints = lambda v: cx.emit("Cast", v, dtype=D.int64)                    # noqa: E731
    if cx.attrs.int("sorted", 1):
        # rank of slice i: distinct (representative) slices j below it
        order = cx.emit("ReduceSum", cx.emit("Mul", ints(cx.emit("Transpose", below,
                                                                 perm=(1, 0))),
                                             cx.emit("ExpandDims", ints(rep), axis=0)),
                        axis=1, keep_dims=False)
    else:
        # position of slice i's first occurrence among the representatives
        firsts = cx.emit("ArgMax", cx.emit("Cast", equal, dtype=D.int32), axis=1,
                         keep_dims=False, output_type=D.int64)
        seen = cx.emit("Sub", cx.emit("CumSum", ints(rep), axis=0), cx.array(np.int64(1)))
        order = cx.emit("Gather", seen, firsts, axis=0)
    kept_order = cx.emit("BooleanMask", order, rep)
    _, pick = cx.emit("Sort", kept_order, axis=-1, descending=False)
    pick = cx.keep(pick, D.int64)
    reps = cx.emit("BooleanMask", cx.array(np.arange(n, dtype=np.int64)), rep)
    index = cx.emit("Gather", reps, pick, axis=0)
    y = cx.emit("Gather", moved, index, axis=0)
    if a:
        y = cx.emit("Transpose", y, perm=tuple(int(i) for i in np.argsort(perm)))
    counts = cx.emit("ReduceSum", ints(cx.emit("Equal", cx.emit("ExpandDims", order, axis=0),
                                                cx.emit("ExpandDims", cx.emit(
                                                    "Gather", order, index, axis=0), axis=1))),
                     axis=1, keep_dims=False)
    return [y, index, order, counts]
