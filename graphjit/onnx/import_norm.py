"""ONNX node -> graphjit nodes: normalizations composed of reductions and elementwise
ops (InstanceNormalization, GroupNormalization, LpNormalization,
MeanVarianceNormalization, LRN), as the ONNX reference computes them."""
from __future__ import annotations

import math

import numpy as np

from .import_math import _static
from .import_nn import _norm, _rank
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS


def _float(cx: NodeCx, x):
    if not x.dtype.is_floating:
        raise cx.where.damaged(f"{cx.node.op_type} takes floats, got {x.type}")
    return x


def _standardize(cx, x, axes, eps):
    """(x - mean) / sqrt(var + eps) over axes (biased variance)."""
    mean = cx.emit("ReduceMean", x, axis=axes, keep_dims=True)
    d = cx.emit("Sub", x, mean)
    var = cx.emit("ReduceMean", cx.emit("Mul", d, d), axis=axes, keep_dims=True)
    return cx.emit("RealDiv", d, cx.emit("Sqrt", cx.emit("Add", var, cx.scalar(eps, var))))


def _per_channel(cx, v, r):
    """A (C,) vector shaped (C, 1, ...) to broadcast over (N, C, d...)."""
    return cx.emit("Reshape", v, shape=(-1,) + (1,) * (r - 2))


@op("InstanceNormalization")
def _instance_norm(cx):
    x = _float(cx, cx.x(0))
    r = _rank(cx, x)
    if r < 3:
        raise cx.where.damaged(f"the input must be (N, C, d...), got {x.type}")
    y = _standardize(cx, x, tuple(range(2, r)), cx.attrs.float("epsilon", 1e-5))
    y = cx.emit("Mul", y, _per_channel(cx, cx.x(1), r))
    return [cx.emit("Add", y, _per_channel(cx, cx.x(2), r))]


@op("GroupNormalization")
def _group_norm(cx):
    """Statistics per group of channels; scale and bias per channel (opset 21) or per
    group (opset 18, each repeated over its channels)."""
    x = _float(cx, cx.x(0))
    shape = _static(cx, x)
    r = len(shape)
    groups = cx.attrs.int("num_groups")
    if r < 3 or groups <= 0 or shape[1] % groups:
        raise cx.where.damaged(f"{groups} groups do not divide the channels of {x.type}")
    eps = cx.attrs.float("epsilon", 1e-5)
    g = cx.emit("Reshape", x, shape=(shape[0], groups, -1))
    stash = cx.dtype_attr("stash_type", 1) if cx.opset >= 21 else x.dtype
    g = cx.keep(_standardize(cx, cx.keep(g, stash), (2,), eps), x.dtype)
    y = cx.emit("Reshape", g, shape=shape)
    scale, bias = cx.x(1), cx.x(2)
    if cx.opset < 21:
        per = shape[1] // groups
        scale, bias = (cx.emit("Reshape", cx.emit("Tile", cx.emit("ExpandDims", v, axis=1),
                                                    multiples=(1, per)), shape=(-1,))
                       for v in (scale, bias))
    y = cx.emit("Mul", y, _per_channel(cx, scale, r))
    return [cx.emit("Add", y, _per_channel(cx, bias, r))]


@op("LpNormalization")
def _lp_norm(cx):
    x = _float(cx, cx.x(0))
    axis = _norm(cx, cx.attrs.int("axis", -1), _rank(cx, x))
    p = cx.attrs.int("p", 2)
    if p == 1:
        n = cx.emit("ReduceSum", cx.emit("Abs", x), axis=axis, keep_dims=True)
    elif p == 2:
        n = cx.emit("Sqrt", cx.emit("ReduceSum", cx.emit("Mul", x, x), axis=axis,
                                    keep_dims=True))
    else:
        raise cx.where.damaged(f"p must be 1 or 2, got {p}")
    zero = cx.emit("Equal", n, cx.scalar(0, n))
    safe = cx.emit("Select", zero, cx.scalar(1, n), n)
    return [cx.emit("Select", zero, cx.scalar(0, x), cx.emit("RealDiv", x, safe))]


@op("MeanVarianceNormalization")
def _mvn(cx):
    x = _float(cx, cx.x(0))
    r = _rank(cx, x)
    axes = tuple(_norm(cx, a, r) for a in cx.attrs.ints("axes", (0, 2, 3)))
    mean = cx.emit("ReduceMean", x, axis=axes, keep_dims=True)
    sq = cx.emit("ReduceMean", cx.emit("Mul", x, x), axis=axes, keep_dims=True)
    std = cx.emit("Sqrt", cx.emit("Sub", sq, cx.emit("Mul", mean, mean)))
    return [cx.emit("RealDiv", cx.emit("Sub", x, mean),
                    cx.emit("Add", std, cx.scalar(1e-9, std)))]


@op("LRN")
def _lrn(cx):
    """x / (bias + alpha / size * (sum of x^2 over the channels c - floor((size-1)/2) to
    c + ceil((size-1)/2)))^beta; the channel sums are a matrix product by a band."""
    x = _float(cx, cx.x(0))
    shape = _static(cx, x)
    if len(shape) < 3:
        raise cx.where.damaged(f"the input must be (N, C, d...), got {x.type}")
    size = cx.attrs.int("size")
    alpha, beta = cx.attrs.float("alpha", 1e-4), cx.attrs.float("beta", 0.75)
    bias = cx.attrs.float("bias", 1.0)
    c = shape[1]
    lo, hi = math.floor((size - 1) / 2), math.ceil((size - 1) / 2) + 1
    band = np.zeros((c, c), x.dtype.np)
    for j in range(c):
        band[max(0, j - lo):min(c, j + hi), j] = 1
    r = len(shape)
    to_last = (0,) + tuple(range(2, r)) + (1,)
    sq = cx.emit("Transpose", cx.emit("Mul", x, x), perm=to_last)
    ss = cx.emit("MatMul", sq, cx.array(band))
    ss = cx.emit("Transpose", ss, perm=tuple(int(i) for i in np.argsort(to_last)))
    den = cx.emit("Add", cx.scalar(bias, x), cx.emit("Mul", ss, cx.scalar(alpha / size, x)))
    return [cx.emit("RealDiv", x, cx.emit("Pow", den, cx.scalar(beta, x)))]
