"""Gradients of the ops that pick elements (sorting.py) and of Dropout (random.py):
Sort, TopK and GatherD send each output element's adjoint back to the element it was
taken from (ScatterAddAlongAxis; picked twice, it gets both); Unique's values carry no
gradient (MindSpore's bprop gives zeros); Dropout's adjoint is masked and scaled by the
mask the forward drew (never a new draw)."""
from __future__ import annotations

import numpy as np

from ..registry import NOT_DIFFERENTIABLE, register_op, set_grad
from ..types import TensorType


def _scatter_add_along_axis(g, index, like, axis):
    g, idx = np.asarray(g), np.asarray(index).astype(np.int64)
    shape = np.shape(like)
    a = axis % len(shape)
    idx = np.where(idx < 0, idx + shape[a], idx)
    out = np.zeros(shape, dtype=g.dtype)
    coords = list(np.indices(idx.shape, sparse=True))
    coords[a] = idx
    np.add.at(out, tuple(coords), g)
    return out


register_op("ScatterAddAlongAxis", ("g", "index", "like"), {"axis": 0},
            infer=lambda ts, attrs: TensorType(ts[0].dtype, ts[2].shape),
            kernel=_scatter_add_along_axis, exact_dtype=True, family="extern",
            grad=NOT_DIFFERENTIABLE,
            doc="zeros of like's shape with g added at index along axis (elsewhere at g's "
                "own coordinates): the adjoint of Sort, TopK and GatherD")


def _picked(axis_of):
    def rule(b, n):
        if not n.differentiable(0) or n.gs[0] is None:
            return [None] * len(n.in_types)
        index = n.y(1) if n.op in ("Sort", "TopK") else n.x(1)
        d = b.apply("ScatterAddAlongAxis", n.gs[0], index, n.x(0), axis=axis_of(n.attrs))
        return [d] + [None] * (len(n.in_types) - 1)
    return rule


def _dropout(b, n):
    if not n.differentiable(0) or n.gs[0] is None:
        return [None]
    keep = float(n.attrs["keep_prob"])
    dtype = n.in_types[0].dtype
    return [b.mul(b.mul(n.gs[0], n.y(1)), b.scalar(1.0 / keep, dtype))]


set_grad("Sort", _picked(lambda a: a["axis"]))
set_grad("TopK", _picked(lambda a: a["axis"]))
set_grad("GatherD", _picked(lambda a: a["dim"]))
set_grad("Unique", NOT_DIFFERENTIABLE)
set_grad("Dropout", _dropout)
