"""Gradients of the reductions and scans (reduction.py), MindSpore's bprop formulas.

ReduceMax and ReduceMin split the adjoint equally among tied elements (MindSpore's
`_min_or_max_grad`: indicators / (count + 1e-24) * dout); ReduceProd is exact where
the input has zeros (ReduceProdGrad); CumProd divides by the input, as MindSpore.
"""
from __future__ import annotations

from ..grad import restore_reduced_dims
from ..registry import NOT_DIFFERENTIABLE, set_grad
from ..types import is_static, num_elements


def _restored(b, n, v):
    """v (shaped like the output) with the reduced dims back as size-1 dims."""
    t = n.in_types[0]
    return restore_reduced_dims(b, v, n.attrs["axis"], n.attrs["keep_dims"], t.rank)


def _unreduce(b, n, g):
    """The adjoint of a sum: g broadcast back over the reduced dims."""
    r = _restored(b, n, g)
    if r is None:
        return b.apply("BroadcastLike", b.apply("ReshapeLike", g, _reduced_like(b, n)),
                       n.x(0))
    return n.broadcast_to_input(r, 0)


def _reduced_like(b, n):
    """A value with the input's rank whose reduced dims are 1 (unknown-rank inputs)."""
    return b.apply("ReduceSum", n.x(0), axis=n.attrs["axis"], keep_dims=True)


def _sum(b, n):
    if not n.differentiable(0):
        return [None]
    return [b.cast(_unreduce(b, n, n.g), n.in_types[0].dtype)]


def _count(b, n):
    """How many elements each output element averages, in the adjoint's dtype."""
    d = b.type(n.g).dtype
    t_in, t_out = n.in_types[0], n.out_types[0]
    if t_in.shape is not None and is_static(t_in.shape) and is_static(t_out.shape):
        n_in, n_out = num_elements(t_in.shape), num_elements(t_out.shape)
        return b.scalar(n_in // max(n_out, 1), d)
    size_in = b.apply("ReduceProd", b.apply("Shape", n.x(0)), axis=None, keep_dims=False)
    size_out = b.apply("ReduceProd", b.apply("Shape", n.y()), axis=None, keep_dims=False)
    one = b.scalar(1, b.type(size_out).dtype)
    count = b.apply("FloorDiv", size_in, b.apply("Maximum", size_out, one))
    return b.cast(count, d)


def _mean(b, n):
    if not n.differentiable(0):
        return [None]
    return [b.cast(_unreduce(b, n, b.div(n.g, _count(b, n))), n.in_types[0].dtype)]


def _extremum(b, n):
    if not n.differentiable(0):
        return [None]
    x, g = n.x(0), n.g
    d = b.type(g).dtype
    y = _restored(b, n, n.y())
    gk = _restored(b, n, g)
    if y is None:
        like = _reduced_like(b, n)
        y, gk = b.apply("ReshapeLike", n.y(), like), b.apply("ReshapeLike", g, like)
    ind = b.cast(b.apply("Equal", y, x), d)
    num = b.apply("ReduceSum", ind, axis=n.attrs["axis"], keep_dims=True)
    num = b.add(num, b.scalar(1e-24, d))
    return [b.mul(b.div(ind, num), gk)]


def _prod(b, n):
    if not n.differentiable(0):
        return [None]
    return [b.apply("ReduceProdGrad", n.x(0), n.g, axis=n.attrs["axis"],
                    keep_dims=n.attrs["keep_dims"])]


def _cumsum(b, n):
    if not n.differentiable(0):
        return [None]
    a = n.attrs
    return [b.apply("CumSum", n.g, axis=a["axis"], exclusive=a["exclusive"],
                    reverse=not a["reverse"])]


def _cumprod(b, n):
    if not n.differentiable(0):
        return [None]
    a = n.attrs
    s = b.apply("CumSum", b.mul(n.y(), n.g), axis=a["axis"], exclusive=a["exclusive"],
                reverse=not a["reverse"])
    return [b.div(s, n.x(0))]


GRADS = {
    "ReduceSum": _sum, "ReduceMean": _mean, "ReduceMax": _extremum,
    "ReduceMin": _extremum, "ReduceProd": _prod, "ArgMax": NOT_DIFFERENTIABLE,
    "ArgMin": NOT_DIFFERENTIABLE, "CumSum": _cumsum, "CumProd": _cumprod,
}

for _name, _rule in GRADS.items():
    set_grad(_name, _rule)
