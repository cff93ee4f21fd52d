"""Operators gradients are made of, where a shape is known only when the graph runs:
SumToLike (undo broadcasting), ReshapeLike, BroadcastLike, GatherGrad, BooleanMaskGrad,
TileGrad, ConcatGrad, ReduceProdGrad, PadLike, SliceRows, ReshapeDynamic; and
StopGradient, the identity that blocks gradients.

Each `...Like(g, x)` takes x only for its shape: its output has g's dtype and x's
shape. When the shapes are known while the graph is built, the rules use the static
ops (ReduceSum, Reshape, BroadcastTo) instead, with identical results.
"""
from __future__ import annotations

import numpy as np

from ..registry import NOT_DIFFERENTIABLE, REQUIRED, register_op, set_grad
from ..types import TensorType
from .common import norm_axis

__all__ = ["sum_to_shape"]


def _like_infer(name):
    def infer(ts, attrs):
        g, x = ts[0], ts[-1]
        return TensorType(g.dtype, x.shape)
    return infer


def _acc(dtype):
    """The accumulation dtype of ReduceSum's kernel (float16 sums in float32)."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def sum_to_shape(g, shape):
    """g summed over the dims broadcasting added to reach it from `shape`: the same
    axes, and the same numpy call, as the static rule (ReduceSum, then Reshape)."""
    g = np.asarray(g)
    gs = g.shape
    if gs == tuple(shape):
        return g
    lead = len(gs) - len(shape)
    axes = list(range(max(lead, 0)))
    for k, d in enumerate(shape):
        j = lead + k
        if j >= 0 and d == 1 and gs[j] != 1:
            axes.append(j)
    if axes:
        g = np.asarray(np.sum(g, axis=tuple(axes), keepdims=False, dtype=_acc(g.dtype)),
                       dtype=g.dtype)
    return g.reshape(shape)


register_op("SumToLike", ("g", "like"), infer=_like_infer("SumToLike"),
            kernel=lambda g, like: sum_to_shape(g, np.shape(like)), exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="g summed over the dims numpy broadcasting added to reach it from the "
                "shape of `like` (the adjoint of a broadcast)")

register_op("ReshapeLike", ("g", "like"), infer=_like_infer("ReshapeLike"),
            kernel=lambda g, like: np.reshape(g, np.shape(like)), exact_dtype=True,
            family="shape", grad=NOT_DIFFERENTIABLE,
            doc="g in the shape of `like` (same number of elements)")

register_op("BroadcastLike", ("g", "like"), infer=_like_infer("BroadcastLike"),
            kernel=lambda g, like: np.broadcast_to(g, np.shape(like)), exact_dtype=True,
            family="shape", grad=NOT_DIFFERENTIABLE,
            doc="g broadcast to the shape of `like`")


def _gather_grad(g, idx, like, axis):
    shape = np.shape(like)
    out = np.zeros(shape, dtype=np.asarray(g).dtype)
    a = axis % len(shape)
    i = np.asarray(idx)
    i = np.where(i < 0, i + shape[a], i)
    # rows picked twice get both adjoints: moveaxis views let np.add.at work on axis 0
    np.add.at(np.moveaxis(out, a, 0), i, np.moveaxis(
        np.asarray(g), list(range(a, a + i.ndim)), list(range(i.ndim))))
    return out


register_op("GatherGrad", ("g", "indices", "like"), {"axis": 0},
            infer=_like_infer("GatherGrad"), kernel=_gather_grad, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="zeros of like's shape with g's slices added at the gathered indices "
                "(the adjoint of Gather)")


def _mask_grad(g, mask, like):
    out = np.zeros(np.shape(like), dtype=np.asarray(g).dtype)
    out[np.asarray(mask, dtype=bool)] = g
    return out


register_op("BooleanMaskGrad", ("g", "mask", "like"), infer=_like_infer("BooleanMaskGrad"),
            kernel=_mask_grad, exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="zeros of like's shape with g's rows where mask is true (the adjoint of "
                "BooleanMask)")


def _tile_grad(g, like, multiples):
    g = np.asarray(g)
    shape = np.shape(like)
    reps = tuple(multiples)
    full = (1,) * (len(reps) - len(shape)) + tuple(shape)
    reps = (1,) * (len(full) - len(reps)) + reps
    split = []
    for r, d in zip(reps, full):
        split.extend((r, d))
    s = g.reshape(split).sum(axis=tuple(range(0, 2 * len(full), 2)), dtype=_acc(g.dtype))
    return np.asarray(s, dtype=g.dtype).reshape(shape)


register_op("TileGrad", ("g", "like"), {"multiples": REQUIRED},
            infer=_like_infer("TileGrad"), kernel=_tile_grad, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="g summed over the copies Tile made (the adjoint of Tile)")


def _concat_grad_infer(ts, attrs):
    g, xs = ts[0], ts[1:]
    return tuple(TensorType(g.dtype, x.shape) for x in xs)


def _concat_grad(g, *xs, axis):
    g = np.asarray(g)
    a = axis % g.ndim
    bounds = np.cumsum([np.shape(x)[a] for x in xs])[:-1]
    return tuple(np.split(g, bounds, axis=a))


register_op("ConcatGrad", ("g", "*xs"), {"axis": 0}, infer=_concat_grad_infer,
            kernel=_concat_grad, exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="g split along axis into pieces the sizes of xs (the adjoint of Concat)")


def _prod_grad(x, g, axis, keep_dims):
    """d prod / d x_i = the product of the other elements, exact where x has zeros:
    the products of the elements before and after each one (exclusive cumprods)."""
    x = np.asarray(x)
    g = np.asarray(g)
    r = x.ndim
    axes = tuple(range(r)) if axis is None or axis == () else tuple(
        sorted({a % r for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)}))
    keep = [a for a in range(r) if a not in axes]
    perm = keep + list(axes)
    xt = np.transpose(x, perm)
    lead = xt.shape[:len(keep)]
    flat = xt.reshape(lead + (-1,))
    ones = np.ones(lead + (1,), dtype=x.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], -1), -1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], -1), -1),
                    -1)
    others = (before * after).reshape(xt.shape)
    gk = g if keep_dims else np.expand_dims(g, axes) if axes else g
    gt = np.transpose(np.broadcast_to(gk, x.shape), perm)
    return np.transpose(others * gt, np.argsort(perm)).astype(x.dtype, copy=False)


register_op("ReduceProdGrad", ("x", "g"), {"axis": None, "keep_dims": False},
            infer=lambda ts, attrs: ts[0], kernel=_prod_grad, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="g times the product of the other reduced elements (the adjoint of "
                "ReduceProd, exact where x has zeros)")


def _pad_like_infer(ts, attrs):
    g, x = ts
    if g.rank is not None:
        norm_axis("PadLike", attrs["axis"], g.rank)
    return TensorType(g.dtype, x.shape)


def _pad_like(g, like, axis):
    g = np.asarray(g)
    n = np.shape(like)[axis]
    a = axis % g.ndim
    if g.shape[a] == n:
        return g
    pad = [(0, 0)] * g.ndim
    pad[a] = (0, n - g.shape[a])
    return np.pad(g, pad)


register_op("PadLike", ("g", "like"), {"axis": 0}, infer=_pad_like_infer, kernel=_pad_like,
            exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="g with zeros appended along axis up to like's size there (the adjoint of "
                "the slices a Loop did not reach)")


def _stop_infer(ts, attrs):
    return ts[0]


register_op("StopGradient", ("x",), infer=_stop_infer, kernel=lambda x: x, exact_dtype=True,
            family="elementwise", grad=NOT_DIFFERENTIABLE,
            doc="x itself; no gradient flows through it")


def _weight_read_infer(ts, attrs):
    return ts[1]


def _weight_read_grad(b, n):
    return [n.g if n.differentiable(0) else None, None]


register_op("WeightRead", ("weight", "value"), infer=_weight_read_infer,
            kernel=lambda weight, value: value, exact_dtype=True, family="extern",
            grad=_weight_read_grad,
            doc="value (a Parameter's current data, read from its state) whose gradient "
                "goes to weight (the Parameter as a differentiated input): a weight the "
                "program also updates")


# -- values whose shape changes from one Loop iteration to the next, saved flat -----------
def _slice_rows_infer(ts, attrs):
    x = ts[0]
    if x.shape is None:
        return x
    return TensorType(x.dtype, (None,) + x.shape[1:])


register_op("SliceRows", ("x", "start", "stop"), infer=_slice_rows_infer,
            kernel=lambda x, start, stop: np.asarray(x)[int(start):int(stop)],
            exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="x[start:stop] along axis 0, the bounds known only at run time")


def _reshape_dynamic_infer(ts, attrs):
    hint = attrs["shape_hint"]
    return TensorType(ts[0].dtype, None if hint is None else tuple(hint))


register_op("ReshapeDynamic", ("x", "shape"), {"shape_hint": None},
            infer=_reshape_dynamic_infer,
            kernel=lambda x, shape, shape_hint: np.reshape(x, tuple(int(d) for d in shape)),
            exact_dtype=True, family="extern", grad=NOT_DIFFERENTIABLE,
            doc="x in the shape a 1-D int tensor holds; shape_hint is the static shape "
                "(None for dims known only at run time)")


# -- item assignment with array indices (recorded by the PYNATIVE tape only) ---------------
def _advanced_key(key):
    """A stored advanced index back as numpy's: ('slice', a, b, c) entries become slices,
    '...' Ellipsis; ints, None and integer or bool arrays stay."""
    out = []
    for k in key:
        if isinstance(k, tuple):
            out.append(slice(*k[1:]))
        elif isinstance(k, str):
            out.append(Ellipsis)
        else:
            out.append(k)
    return tuple(out)


def _index_take_infer(ts, attrs):
    (x,) = ts
    if x.shape is None or any(d is None for d in x.shape):
        return TensorType(x.dtype, None)
    return TensorType(x.dtype, np.empty(x.shape, dtype=np.bool_)[_advanced_key(attrs["key"])]
                      .shape)


def _index_put(x, v, key):
    y = np.array(x, copy=True)
    y[_advanced_key(key)] = np.asarray(v).astype(y.dtype, copy=False)
    return y


register_op("IndexTake", ("x",), {"key": REQUIRED}, infer=_index_take_infer,
            kernel=lambda x, key: np.asarray(x)[_advanced_key(key)], exact_dtype=True,
            family="extern", doc="x[key] with numpy's advanced indexing (integer and bool "
                                 "arrays); eager mode's record of such a read")
register_op("IndexPut", ("x", "value"), {"key": REQUIRED},
            infer=lambda ts, attrs: ts[0], kernel=_index_put, exact_dtype=True,
            family="extern", doc="a copy of x with x[key] = value, key a numpy advanced index; "
                                 "eager mode's record of such an item assignment")


def _index_take(b, n):
    if not n.differentiable(0):
        return [None]
    zeros = n.zeros_like_input(0, b.type(n.g).dtype)
    return [b.apply("IndexAddAt", zeros, n.g, key=n.attrs["key"])]


def _index_add_at(x, v, key):
    y = np.array(x, copy=True)
    np.add.at(y, _advanced_key(key), np.asarray(v).astype(y.dtype, copy=False))
    return y


register_op("IndexAddAt", ("x", "value"), {"key": REQUIRED},
            infer=lambda ts, attrs: ts[0], kernel=_index_add_at, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="a copy of x with value added at key (indices picked twice get both): the "
                "adjoint of IndexTake")


def _index_put_grad(b, n):
    g, key = n.g, n.attrs["key"]
    dx = dv = None
    if n.differentiable(0):
        dx = b.apply("IndexPut", g, b.scalar(0, b.type(g).dtype), key=key)
    if n.differentiable(1):
        dv = n.like(b.apply("IndexTake", g, key=key), 1)
    return [dx, dv]


set_grad("IndexTake", _index_take)
set_grad("IndexPut", _index_put_grad)
