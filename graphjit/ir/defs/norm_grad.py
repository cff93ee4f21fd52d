"""Gradients of the normalizations (norm.py), in one numpy kernel each (the forward
formula differentiated, computing in float32 for float16 as the forward does):

    BatchNorm, inference:  y = (x - mean) * scale / sqrt(var + eps) + bias, every input
                           differentiable;
    BatchNorm, training:   mean and var are the batch's (axes all but 1): dx =
                           rstd * scale / M * (M g - sum g - xhat sum(g xhat)), plus what
                           flows into the batch mean and variance outputs;
    LayerNorm:             the same over the axes from begin_norm_axis, gamma and beta
                           summed over the axes before begin_params_axis.
"""
from __future__ import annotations

import numpy as np

from ..registry import NOT_DIFFERENTIABLE, register_op, set_grad
from ..types import TensorType
from .norm import _work


def _batch_norm_grad(g, g_mean, g_var, x, scale, mean, var, epsilon, is_training):
    work = _work(np.asarray(x).dtype)
    x, g = np.asarray(x, dtype=work), np.asarray(g, dtype=work)
    scale = np.asarray(scale, dtype=work)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    m = x.size // x.shape[1] if x.shape[1] else 0
    if is_training:
        mean = x.mean(axis=axes)
        var = np.square(x - mean.reshape(shape)).mean(axis=axes)
    mean, var = np.asarray(mean, dtype=work), np.asarray(var, dtype=work)
    rstd = 1.0 / np.sqrt(var + work.type(epsilon))
    xc = x - mean.reshape(shape)
    xhat = xc * rstd.reshape(shape)
    sum_g = g.sum(axis=axes)
    sum_gx = (g * xhat).sum(axis=axes)
    d_scale, d_bias = sum_gx, sum_g
    gm = np.asarray(g_mean, dtype=work).reshape(shape)
    gv = np.asarray(g_var, dtype=work).reshape(shape)
    if is_training:
        k = (scale * rstd).reshape(shape) / m
        dx = k * (m * g - sum_g.reshape(shape) - xhat * sum_gx.reshape(shape))
        dx = dx + gm / m + gv * 2.0 * xc / m
        d_mean = d_var = np.zeros_like(mean)
    else:
        dx = g * (scale * rstd).reshape(shape)
        d_mean = -sum_g * scale * rstd + np.asarray(g_mean, dtype=work)
        d_var = (g * xc).sum(axis=axes) * scale * (-0.5) * rstd ** 3 + \
            np.asarray(g_var, dtype=work)
    return dx, d_scale, d_bias, d_mean, d_var


def _bn_grad_factory(in_types, out_types, attrs):
    dts = [t.dtype.np for t in out_types]

    def k(g, g_mean, g_var, x, scale, mean, var):
        outs = _batch_norm_grad(g, g_mean, g_var, x, scale, mean, var, attrs["epsilon"],
                                attrs["is_training"])
        return tuple(np.asarray(o).astype(d, copy=False) for o, d in zip(outs, dts))
    return k


def _bn_grad_infer(ts, attrs):
    g, g_mean, g_var, x, scale, mean, var = ts
    return (TensorType(x.dtype, x.shape), scale, scale, mean, var)


register_op("BatchNormGrad", ("g", "g_mean", "g_var", "x", "scale", "mean", "variance"),
            {"is_training": False, "epsilon": 1e-5}, infer=_bn_grad_infer,
            kernel_factory=_bn_grad_factory, exact_dtype=True, family="extern",
            grad=NOT_DIFFERENTIABLE,
            doc="the adjoints of BatchNorm's x, scale, bias, mean and variance")


def _zeros_for(b, n, i):
    g = n.gs[i]
    return g if g is not None else b.apply("ZerosLike", n.y(i))


def _batch_norm(b, n):
    if n.gs[0] is None and n.gs[1] is None and n.gs[2] is None:
        return [None] * 5
    g = n.gs[0] if n.gs[0] is not None else b.apply("ZerosLike", n.y(0))
    outs = b.apply("BatchNormGrad", g, _zeros_for(b, n, 1), _zeros_for(b, n, 2), n.x(0),
                   n.x(1), n.x(3), n.x(4), **n.attrs)
    grads = [o if n.differentiable(i) else None for i, o in enumerate(outs)]
    if n.attrs["is_training"]:
        grads[3] = grads[4] = None      # the batch's statistics replace the inputs
    return grads


# -- LayerNorm -----------------------------------------------------------------------------
def _layer_norm_grad(g, g_mean, g_var, x, gamma, begin_norm_axis, begin_params_axis, epsilon):
    work = _work(np.asarray(x).dtype)
    x, g = np.asarray(x, dtype=work), np.asarray(g, dtype=work)
    gamma = np.asarray(gamma, dtype=work)
    axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    lead = tuple(range(begin_params_axis % x.ndim))
    m = int(np.prod([x.shape[a] for a in axes]))
    mean = x.mean(axis=axes, keepdims=True)
    xc = x - mean
    var = np.square(xc).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + work.type(epsilon))
    xhat = xc * rstd
    d_gamma = (g * xhat).sum(axis=lead) if lead else g * xhat
    d_beta = g.sum(axis=lead) if lead else g
    dxhat = g * gamma
    dx = rstd * (dxhat - dxhat.mean(axis=axes, keepdims=True) -
                 xhat * (dxhat * xhat).mean(axis=axes, keepdims=True))
    dx = dx + np.asarray(g_mean, dtype=work) / m + \
        np.asarray(g_var, dtype=work) * 2.0 * xc / m
    return dx, d_gamma, d_beta


def _ln_grad_factory(in_types, out_types, attrs):
    dts = [t.dtype.np for t in out_types]

    def k(g, g_mean, g_var, x, gamma):
        outs = _layer_norm_grad(g, g_mean, g_var, x, gamma, attrs["begin_norm_axis"],
                                attrs["begin_params_axis"], attrs["epsilon"])
        return tuple(np.asarray(o).astype(d, copy=False) for o, d in zip(outs, dts))
    return k


def _ln_grad_infer(ts, attrs):
    g, g_mean, g_var, x, gamma = ts
    return TensorType(x.dtype, x.shape), gamma, gamma


register_op("LayerNormGrad", ("g", "g_mean", "g_var", "x", "gamma"),
            {"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7},
            infer=_ln_grad_infer, kernel_factory=_ln_grad_factory, exact_dtype=True,
            family="extern", grad=NOT_DIFFERENTIABLE,
            doc="the adjoints of LayerNorm's x, gamma and beta")


def _layer_norm(b, n):
    if all(g is None for g in n.gs):
        return [None] * 3
    g = n.gs[0] if n.gs[0] is not None else b.apply("ZerosLike", n.y(0))
    outs = b.apply("LayerNormGrad", g, _zeros_for(b, n, 1), _zeros_for(b, n, 2), n.x(0),
                   n.x(1), **n.attrs)
    return [o if n.differentiable(i) else None for i, o in enumerate(outs)]


set_grad("BatchNorm", _batch_norm)
set_grad("LayerNorm", _layer_norm)
