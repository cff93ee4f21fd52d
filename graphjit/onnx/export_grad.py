"""The ONNX form of the ops gradients and advanced indexing use (see the table in
exporter.py): SliceRows, ReshapeDynamic, ReshapeTo, ReshapeLike, BroadcastLike, SumToLike,
ConcatGrad, PadLike, GatherGrad, BooleanMaskGrad, ScatterAddAlongAxis, IndexTake,
IndexPut and IndexAddAt.

The scatters share one pattern: `positions`, the flat index of every element of the
target (Range over its element count, Reshape to its shape), is indexed the way the
forward op indexed its input, and ScatterElements (reduction add where an element
may be picked twice) writes the values at those flat positions of zeros or of x.
"""
from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ..ir import dtypes as D
from ..ir.defs.grad_ops import _advanced_key
from .export_ops import cast, dt_in, dt_out, inp, op, rank_in
from .exporter import NoOnnxForm


def _positions(ex, like):
    """(positions of like's elements reshaped like it, Shape(like))."""
    shp = ex.one("Shape", [like])
    count = ex.one("ReduceProd", [shp], keepdims=0)
    pos = ex.one("Reshape", [ex.one("Range", [ex.i64(0), count, ex.i64(1)]), shp])
    return pos, shp


def _flat(ex, x):
    return ex.one("Reshape", [x, ex.i64([-1])])


def _scatter(ex, base_flat, pos, values, shp, add):
    out = ex.one("ScatterElements", [base_flat, _flat(ex, pos), _flat(ex, values)], axis=0,
                 **({"reduction": "add"} if add else {}))
    return ex.one("Reshape", [out, shp])


def _zeros_flat(ex, shp, d):
    count = ex.one("ReduceProd", [shp], keepdims=1)
    return ex.one("ConstantOfShape", [count],
                  value=numpy_helper.from_array(np.zeros(1, dtype=d.np)))


@op("SliceRows")
def _slice_rows(ex, node):
    bounds = [ex.one("Reshape", [cast(ex, inp(ex, node, i), dt_in(node, i), D.int64),
                                 ex.i64([1])]) for i in (1, 2)]
    return [ex.one("Slice", [inp(ex, node, 0)] + bounds + [ex.i64([0])])]


@op("ReshapeDynamic")
def _reshape_dynamic(ex, node):
    shape = cast(ex, inp(ex, node, 1), dt_in(node, 1), D.int64)
    return [ex.one("Reshape", [inp(ex, node, 0), shape], allowzero=1)]


@op("ReshapeTo")
def _reshape_to(ex, node):
    """Reshape (a 0 is a 0, as numpy's), then the Check pattern on the known dims of
    shape_hint (graphjit raises where the result's dims differ from them)."""
    from .export_ops import check_pattern
    shape = cast(ex, inp(ex, node, 1), dt_in(node, 1), D.int64)
    out = ex.one("Reshape", [inp(ex, node, 0), shape], allowzero=1)
    hint = node.attrs["shape_hint"]
    known = [k for k, h in enumerate(hint) if h is not None]
    if known:
        dims = ex.one("Gather", [ex.one("Shape", [out]), ex.i64(known)], axis=0)
        ok = ex.one("Equal", [dims, ex.i64([int(hint[k]) for k in known])])
        check_pattern(ex, ok, f"ValueError: cannot reshape to a shape other than {hint}")
    return [out]


@op("ReshapeLike")
def _reshape_like(ex, node):
    return [ex.one("Reshape", [inp(ex, node, 0), ex.one("Shape", [inp(ex, node, 1)])])]


@op("BroadcastLike")
def _broadcast_like(ex, node):
    return [ex.one("Expand", [inp(ex, node, 0), ex.one("Shape", [inp(ex, node, 1)])])]


@op("SumToLike")
def _sum_to_like(ex, node):
    """ReduceSum over the dims broadcasting added (float16 in float32), then Reshape to
    like's shape: graphjit's rule, which needs to know which of like's dims are 1."""
    g_t, l_t = node.inputs[0].type, node.inputs[1].type
    if g_t.shape is None or l_t.shape is None:
        raise NoOnnxForm("a value of unknown rank")
    lead = len(g_t.shape) - len(l_t.shape)
    axes = list(range(max(lead, 0)))
    for k, d in enumerate(l_t.shape):
        j = lead + k
        if j < 0:
            continue
        if d is None:
            raise NoOnnxForm("it needs to know whether each dim of its target is 1")
        if d == 1 and g_t.shape[j] != 1:
            axes.append(j)
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    g = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    if axes:
        g = ex.one("ReduceSum", [g, ex.i64(axes)], keepdims=0)
    return [ex.one("Reshape", [cast(ex, g, work, d), ex.one("Shape", [inp(ex, node, 1)])])]


@op("ConcatGrad")
def _concat_grad(ex, node):
    axis = int(node.attrs["axis"])
    sizes = [ex.one("Gather", [ex.one("Shape", [ex.name_of(v)]), ex.i64([axis])], axis=0)
             for v in node.inputs[1:]]
    split = sizes[0] if len(sizes) == 1 else ex.one("Concat", sizes, axis=0)
    return ex.emit("Split", [inp(ex, node, 0), split], n_out=len(node.outputs), axis=axis)


@op("PadLike")
def _pad_like(ex, node):
    r = rank_in(node)
    a = int(node.attrs["axis"]) % r
    g, like = inp(ex, node, 0), inp(ex, node, 1)
    n = ex.one("Gather", [ex.one("Shape", [like]), ex.i64([a])], axis=0)
    m = ex.one("Gather", [ex.one("Shape", [g]), ex.i64([a])], axis=0)
    pads = ex.one("Concat", [ex.i64([0] * (r + a)), ex.one("Sub", [n, m]),
                             ex.i64([0] * (r - a - 1))], axis=0)
    return [ex.one("Pad", [g, pads])]


@op("GatherGrad")
def _gather_grad(ex, node):
    g, idx, like = (inp(ex, node, i) for i in range(3))
    if dt_in(node, 1) not in (D.int32, D.int64):
        idx = cast(ex, idx, dt_in(node, 1), D.int64)
    pos, shp = _positions(ex, like)
    picked = ex.one("Gather", [pos, idx], axis=int(node.attrs["axis"]))
    return [_scatter(ex, _zeros_flat(ex, shp, dt_out(node)), picked, g, shp, add=True)]


@op("ScatterAddAlongAxis")
def _scatter_add_along_axis(ex, node):
    g, idx, like = (inp(ex, node, i) for i in range(3))
    if dt_in(node, 1) is not D.int64:
        idx = cast(ex, idx, dt_in(node, 1), D.int64)
    pos, shp = _positions(ex, like)
    picked = ex.one("GatherElements", [pos, idx], axis=int(node.attrs["axis"]))
    return [_scatter(ex, _zeros_flat(ex, shp, dt_out(node)), picked, g, shp, add=True)]


@op("BooleanMaskGrad")
def _boolean_mask_grad(ex, node):
    g, mask, like = (inp(ex, node, i) for i in range(3))
    pos, shp = _positions(ex, like)
    picked = ex.one("Compress", [pos, mask], axis=0)
    return [_scatter(ex, _zeros_flat(ex, shp, dt_out(node)), picked, g, shp, add=False)]


def _static_positions(node):
    """The flat positions x[key] picks (numpy's advanced indexing, done now: the key
    is a constant and x's shape must be static)."""
    t = node.inputs[0].type
    if t.shape is None or any(d is None for d in t.shape):
        raise NoOnnxForm("advanced indexing needs the input's shape known when exporting")
    n = int(np.prod(t.shape, dtype=np.int64))
    return np.arange(n, dtype=np.int64).reshape(t.shape)[_advanced_key(node.attrs["key"])]


@op("IndexTake")
def _index_take(ex, node):
    pos = _static_positions(node)
    return [ex.one("Gather", [_flat(ex, inp(ex, node, 0)), ex.const(pos)], axis=0)]


def _put(ex, node, add):
    pos = _static_positions(node)
    d = dt_out(node)
    x = inp(ex, node, 0)
    v = cast(ex, inp(ex, node, 1), dt_in(node, 1), d)
    v = _flat(ex, ex.one("Expand", [v, ex.i64(list(pos.shape))]))
    flat_pos = pos.reshape(-1)
    if not add:     # numpy's assignment: the last of repeated positions wins
        last = {p: k for k, p in enumerate(flat_pos.tolist())}
        keep = np.asarray(sorted(last.values()), dtype=np.int64)
        if keep.size != flat_pos.size:
            v = ex.one("Gather", [v, ex.const(keep)], axis=0)
            flat_pos = flat_pos[keep]
    shp = ex.one("Shape", [x])
    return [_scatter(ex, _flat(ex, x), ex.const(flat_pos), v, shp, add=add)]


@op("IndexPut")
def _index_put(ex, node):
    return _put(ex, node, add=False)


@op("IndexAddAt")
def _index_add_at(ex, node):
    return _put(ex, node, add=True)


@op("TileGrad")
def _tile_grad(ex, node):
    """graphjit's kernel: Reshape g to (r0, d0, r1, d1, ...) with like's dims, ReduceSum
    over the copies (float16 in float32), Reshape to like's shape."""
    reps = [int(r) for r in node.attrs["multiples"]]
    r = rank_in(node, 1, "target")
    full = max(r, len(reps))
    lead = full - r
    reps = [1] * (full - len(reps)) + reps
    like_shape = ex.one("Shape", [inp(ex, node, 1)])
    pieces = []
    for k, rep in enumerate(reps):
        pieces.append(ex.i64([rep]))
        pieces.append(ex.i64([1]) if k < lead else
                      ex.one("Slice", [like_shape, ex.i64([k - lead]), ex.i64([k - lead + 1])]))
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    g = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    split = ex.one("Reshape", [g, ex.one("Concat", pieces, axis=0)], allowzero=1)
    s = ex.one("ReduceSum", [split, ex.i64(list(range(0, 2 * full, 2)))], keepdims=0)
    return [ex.one("Reshape", [cast(ex, s, work, d), like_shape])]
