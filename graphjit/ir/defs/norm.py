"""Normalizations: BatchNorm (over every axis but the channel axis 1) and LayerNorm
(over the trailing axes from begin_norm_axis)."""
from __future__ import annotations

import numpy as np

from ..registry import register_op
from ..types import TensorType
from .common import fail, norm_axis, unify_shapes

__all__ = ["batch_norm_stats"]


def _work(dtype):
    """Normalizations of float16 compute in float32 (as MindSpore's kernels do)."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


# -- BatchNorm -----------------------------------------------------------------------------
def _batch_norm_infer(ts, attrs):
    x, scale, bias, mean, var = ts
    if not x.dtype.is_floating:
        raise fail("BatchNorm", f"needs a floating input, got {x}", hint="cast it to float32")
    for name, t in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", var)):
        if not t.dtype.is_floating:
            raise fail("BatchNorm", f"{name} must be floating, got {t}")
        if t.shape is not None and len(t.shape) != 1:
            raise fail("BatchNorm", f"{name} must be 1-D (one value per channel), got {t}")
    c = unify_shapes("BatchNorm", [t.shape for t in (scale, bias, mean, var)],
                     "scale, bias, mean and variance")
    if x.shape is not None:
        if len(x.shape) < 2:
            raise fail("BatchNorm", f"the input must have rank >= 2 (N, C, ...), got {x}")
        if c is not None and None not in (c[0], x.shape[1]) and c[0] != x.shape[1]:
            raise fail("BatchNorm", f"the input {x} has {x.shape[1]} channels (axis 1), the "
                                    f"parameters have {c[0]}")
        if c is None or c[0] is None:
            c = (x.shape[1],)
    stat = TensorType(scale.dtype, c if c is not None else (None,))
    return TensorType(x.dtype, x.shape), stat, stat


def batch_norm_stats(x):
    """The mean and the biased variance of x over every axis but axis 1."""
    axes = (0,) + tuple(range(2, x.ndim))
    mean = x.mean(axis=axes)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    var = np.square(x - mean.reshape(shape)).mean(axis=axes)
    return mean, var


def _batch_norm_factory(in_types, out_types, attrs):
    odt, sdt = out_types[0].dtype.np, out_types[1].dtype.np
    work, eps, training = _work(odt), attrs["epsilon"], attrs["is_training"]

    def k(x, scale, bias, mean, var):
        x = np.asarray(x, dtype=work)
        if training:
            mean, var = batch_norm_stats(x)
        mean, var = np.asarray(mean, dtype=work), np.asarray(var, dtype=work)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        inv = np.asarray(scale, dtype=work) / np.sqrt(var + work.type(eps))
        y = (x - mean.reshape(shape)) * inv.reshape(shape) + \
            np.asarray(bias, dtype=work).reshape(shape)
        return y.astype(odt, copy=False), mean.astype(sdt), var.astype(sdt)
    return k


register_op("BatchNorm", ("x", "scale", "bias", "mean", "variance"),
            {"is_training": False, "epsilon": 1e-5},
            infer=_batch_norm_infer, kernel_factory=_batch_norm_factory, exact_dtype=True,
            family="extern",
            doc="(x - mean) / sqrt(variance + epsilon) * scale + bias per channel (axis 1); "
                "in training, mean and biased variance of the batch. Outputs y and the "
                "mean and variance used")


# -- LayerNorm -----------------------------------------------------------------------------
def _layer_norm_infer(ts, attrs):
    x, gamma, beta = ts
    if not x.dtype.is_floating:
        raise fail("LayerNorm", f"needs a floating input, got {x}", hint="cast it to float32")
    eps = attrs["epsilon"]
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or eps < 0:
        raise fail("LayerNorm", f"epsilon must be a non-negative number, got {eps!r}")
    params = unify_shapes("LayerNorm", [gamma.shape, beta.shape], "gamma and beta")
    if x.shape is None:
        return (TensorType(x.dtype, None),) * 3
    rank = len(x.shape)
    if rank == 0:
        raise fail("LayerNorm", "cannot normalize a scalar (rank 0)")
    a = norm_axis("LayerNorm", attrs["begin_norm_axis"], rank)
    b = norm_axis("LayerNorm", attrs["begin_params_axis"], rank)
    if params is not None:
        want = x.shape[b:]
        if len(params) != len(want) or any(None not in (p, w) and p != w
                                           for p, w in zip(params, want)):
            raise fail("LayerNorm", f"gamma and beta must have the shape {want} of the input's "
                                    f"dims from begin_params_axis {b}, got {params}")
    stat = x.shape[:a] + (1,) * (rank - a)
    return TensorType(x.dtype, x.shape), TensorType(x.dtype, stat), TensorType(x.dtype, stat)


def _layer_norm_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    work, eps = _work(odt), attrs["epsilon"]
    begin = attrs["begin_norm_axis"]

    def k(x, gamma, beta):
        x = np.asarray(x, dtype=work)
        axes = tuple(range(begin % x.ndim, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        var = np.square(x - mean).mean(axis=axes, keepdims=True)
        y = (x - mean) / np.sqrt(var + work.type(eps)) * np.asarray(gamma, dtype=work) + \
            np.asarray(beta, dtype=work)
        return y.astype(odt, copy=False), mean.astype(odt), var.astype(odt)
    return k


register_op("LayerNorm", ("x", "gamma", "beta"),
            {"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7},
            infer=_layer_norm_infer, kernel_factory=_layer_norm_factory, exact_dtype=True,
            family="extern",
            doc="(x - mean) / sqrt(var + epsilon) * gamma + beta, mean and (biased) var over "
                "the axes from begin_norm_axis; outputs y, mean and var (kept dims)")
