"""Gradients of the data-movement operators (shape.py): each moves the adjoint back
where the forward op took its elements from. Index and IndexUpdate use the same
index on the adjoint; Gather and BooleanMask scatter it back (GatherGrad,
BooleanMaskGrad); Concat splits it (by static slices, or ConcatGrad when the sizes
are known only at run time); Stack indexes it."""
from __future__ import annotations

import numpy as np

from ..registry import NOT_DIFFERENTIABLE, set_grad
from .shape import encode_index


def _reshape(b, n):
    if not n.differentiable(0):
        return [None]
    return [n.reshape_to_input(n.g, 0)]


def _transpose(b, n):
    if not n.differentiable(0):
        return [None]
    perm = n.attrs["perm"]
    if perm is None:
        return [b.apply("Transpose", n.g, perm=None)]
    r = len(perm)
    inv = tuple(int(i) for i in np.argsort([p % r for p in perm]))
    return [b.apply("Transpose", n.g, perm=inv)]


def _expand_dims(b, n):
    if not n.differentiable(0):
        return [None]
    return [b.apply("Squeeze", n.g, axis=n.attrs["axis"])]


def at_axis(axis, item) -> tuple:
    """An index picking `item` along `axis` (negative axes count from the end)."""
    if axis >= 0:
        return encode_index((slice(None),) * axis + (item,))
    return encode_index((Ellipsis, item) + (slice(None),) * (-axis - 1))


def _concat(b, n):
    g, axis = n.g, n.attrs["axis"]
    sizes = []
    for t in n.in_types:
        if t.shape is None:
            sizes = None
            break
        sizes.append(t.shape[axis])
    if sizes is not None and all(d is not None for d in sizes):
        out, start = [], 0
        for i, d in enumerate(sizes):
            piece = b.apply("Index", g, index=at_axis(axis, slice(start, start + d)))
            out.append(n.like(piece, i))
            start += d
        return out
    pieces = b.apply("ConcatGrad", g, *[n.x(i) for i in range(len(n.in_types))], axis=axis)
    if not isinstance(pieces, tuple):
        pieces = (pieces,)
    return [n.like(p, i) for i, p in enumerate(pieces)]


def _stack(b, n):
    g, axis = n.g, n.attrs["axis"]
    return [n.like(b.apply("Index", g, index=at_axis(axis, i)), i)
            for i in range(len(n.in_types))]


def _index(b, n):
    if not n.differentiable(0):
        return [None]
    zeros = n.zeros_like_input(0, b.type(n.g).dtype)
    return [b.apply("IndexUpdate", zeros, n.g, index=n.attrs["index"])]


def _index_update(b, n):
    g, index = n.g, n.attrs["index"]
    dx = dv = None
    if n.differentiable(0):
        dx = b.apply("IndexUpdate", g, b.scalar(0, b.type(g).dtype), index=index)
    if n.differentiable(1):
        dv = n.like(b.apply("Index", g, index=index), 1)
    return [dx, dv]


def _gather(b, n):
    if not n.differentiable(0):
        return [None, None]
    return [b.apply("GatherGrad", n.g, n.x(1), n.x(0), axis=n.attrs["axis"]), None]


def _broadcast_to(b, n):
    return [n.like(n.g, 0)]


def _tile(b, n):
    if not n.differentiable(0):
        return [None]
    return [b.apply("TileGrad", n.g, n.x(0), multiples=n.attrs["multiples"])]


def _reshape_to(b, n):
    if not n.differentiable(0):
        return [None, None]
    return [n.reshape_to_input(n.g, 0), None]


def _boolean_mask(b, n):
    if not n.differentiable(0):
        return [None, None]
    return [b.apply("BooleanMaskGrad", n.g, n.x(1), n.x(0)), None]


GRADS = {
    "Reshape": _reshape, "Flatten": _reshape, "Squeeze": _reshape, "Transpose": _transpose,
    "ExpandDims": _expand_dims, "Concat": _concat, "Stack": _stack, "Index": _index,
    "IndexUpdate": _index_update, "Gather": _gather, "BroadcastTo": _broadcast_to,
    "Tile": _tile, "BooleanMask": _boolean_mask, "Shape": NOT_DIFFERENTIABLE,
    "ReshapeTo": _reshape_to,
}

for _name, _rule in GRADS.items():
    set_grad(_name, _rule)
