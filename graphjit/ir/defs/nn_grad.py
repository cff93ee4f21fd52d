"""Gradients of the neural-network operators (nn.py): MatMul with its transposes,
batching and 1-D operands; Softmax and LogSoftmax (MindSpore's SoftmaxGrad and
LogSoftmaxGrad formulas)."""
from __future__ import annotations

import numpy as np

from ..registry import NOT_DIFFERENTIABLE, register_op, set_grad
from ..types import TensorType


def _matmul(b, n):
    """out = A @ B with A = a or a^T, B = b or b^T. For matrices dA = g @ B^T and
    dB = A^T @ g, written as one MatMul each whatever the transposes; a 1-D operand is
    a matrix with a size-1 dim, as numpy treats it; batch dims broadcasting added are
    summed away."""
    ta, tb = n.attrs["transpose_a"], n.attrs["transpose_b"]
    at, bt = n.in_types
    g = n.g
    ra, rb = at.rank, bt.rank
    if ra is None or rb is None:
        return _matmul_unknown_rank(b, n)
    va, vb = ra == 1, rb == 1
    a2 = (lambda: b.apply("ExpandDims", n.x(0), axis=0)) if va else (lambda: n.x(0))
    b2 = (lambda: b.apply("ExpandDims", n.x(1), axis=-1)) if vb else (lambda: n.x(1))
    ta, tb = ta and not va, tb and not vb
    g2 = g
    if va and vb:
        g2 = b.apply("Reshape", g, shape=(1, 1))
    elif va:
        g2 = b.apply("ExpandDims", g, axis=-2)
    elif vb:
        g2 = b.apply("ExpandDims", g, axis=-1)
    da = db = None
    if n.differentiable(0):
        if ta:
            da = b.apply("MatMul", b2(), g2, transpose_a=tb, transpose_b=True)
        else:
            da = b.apply("MatMul", g2, b2(), transpose_a=False, transpose_b=not tb)
        a2t = _expanded_type(at, 0) if va else at
        da = b.sum_to(da, a2t, a2)
        if va:
            da = b.apply("Squeeze", da, axis=0)
        da = b.cast(da, at.dtype)
    if n.differentiable(1):
        if tb:
            db = b.apply("MatMul", g2, a2(), transpose_a=True, transpose_b=ta)
        else:
            db = b.apply("MatMul", a2(), g2, transpose_a=not ta, transpose_b=False)
        b2t = _expanded_type(bt, -1) if vb else bt
        db = b.sum_to(db, b2t, b2)
        if vb:
            db = b.apply("Squeeze", db, axis=-1)
        db = b.cast(db, bt.dtype)
    return [da, db]


def _expanded_type(t: TensorType, axis: int) -> TensorType:
    (d,) = t.shape
    return TensorType(t.dtype, (1, d) if axis == 0 else (d, 1))


def _matmul_unknown_rank(b, n):
    from ..errors import ShapeInferenceError
    raise ShapeInferenceError(
        "MatMul: the gradient of a matrix product needs the ranks of both operands, and "
        f"one of {n.in_types[0]} and {n.in_types[1]} has an unknown rank",
        hint="give the inputs a known rank (a TensorSpec with a shape)")


def _softmax(b, n):
    if not n.differentiable(0) or n.in_types[0].rank == 0:
        return [None]
    y, g = n.y(), n.g
    s = b.apply("ReduceSum", b.mul(g, y), axis=n.attrs["axis"], keep_dims=True)
    return [b.mul(b.sub(g, s), y)]


def _log_softmax(b, n):
    if not n.differentiable(0) or n.in_types[0].rank == 0:
        return [None]
    g = n.g
    s = b.apply("ReduceSum", g, axis=n.attrs["axis"], keep_dims=True)
    return [b.sub(g, b.mul(b.apply("Exp", n.y()), s))]


def _batch_dot_grads(a, b, g, axes):
    """The adjoints of BatchDot's operands, by the forward kernel's reshapes."""
    i, j = axes
    odt = np.asarray(g).dtype
    a, b = np.asarray(a, dtype=odt), np.asarray(b, dtype=odt)
    am, bm = np.moveaxis(a, i, -1), np.moveaxis(b, j, 1)
    n, c = a.shape[0], a.shape[i]
    fa, fb = int(np.prod(am.shape[1:-1])), int(np.prod(bm.shape[2:]))
    a3, b3 = am.reshape(n, fa, c), bm.reshape(n, c, fb)
    g3 = np.asarray(g, dtype=odt).reshape(n, fa, fb)
    da = np.matmul(g3, np.swapaxes(b3, -1, -2)).reshape(am.shape)
    db = np.matmul(np.swapaxes(a3, -1, -2), g3).reshape(bm.shape)
    return np.moveaxis(da, -1, i), np.moveaxis(db, 1, j)


register_op("BatchDotGrad", ("x1", "x2", "g"), {"axes": (1, 1)},
            infer=lambda ts, attrs: (TensorType(ts[2].dtype, ts[0].shape),
                                     TensorType(ts[2].dtype, ts[1].shape)),
            kernel=_batch_dot_grads, exact_dtype=True, family="extern",
            grad=NOT_DIFFERENTIABLE, doc="the adjoints of BatchDot's two operands")


def _batch_dot(b, n):
    if n.g is None:
        return [None, None]
    da, db = b.apply("BatchDotGrad", n.x(0), n.x(1), n.g, axes=n.attrs["axes"])
    return [b.cast(da, n.in_types[0].dtype) if n.differentiable(0) else None,
            b.cast(db, n.in_types[1].dtype) if n.differentiable(1) else None]


GRADS = {"MatMul": _matmul, "Softmax": _softmax, "LogSoftmax": _log_softmax,
         "OneHot": NOT_DIFFERENTIABLE, "BatchDot": _batch_dot}

for _name, _rule in GRADS.items():
    set_grad(_name, _rule)
