"""Losses and activations as functions, with MindSpore 2.x names, signatures and defaults
(ops.cross_entropy, ops.binary_cross_entropy_with_logits, ops.nll_loss, ops.mse_loss,
ops.hardswish, ops.mish, ops.prelu, ops.adaptive_avg_pool2d, ...), written over registry
ops so both modes and gradients agree. nn's loss and activation Cells call these."""
from __future__ import annotations

import builtins

from ..common.tensor import TensorLike
from ._dispatch import to_tensor
from . import math_ops as M
from .array_ops import concat, gather, reshape
from .nn_ops import log_softmax, one_hot, relu6, softplus

__all__ = [
    "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits",
    "binary_cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "hardswish", "hardsigmoid", "mish", "logsigmoid", "softsign", "hardtanh", "selu", "celu",
    "prelu", "adaptive_avg_pool2d", "adaptive_max_pool2d",
]

_REDUCTIONS = ("mean", "sum", "none")


def _t(x):
    return to_tensor(x)


def _reduction(reduction, what):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{what}: reduction must be one of {', '.join(_REDUCTIONS)}, got "
                         f"{reduction!r}")
    return reduction


def _reduce(x, reduction, what):
    r = _reduction(reduction, what)
    if r == "mean":
        return M.mean(x)
    if r == "sum":
        return M.sum(x)
    return x


def _weighted(x, weight):
    return x if weight is None else M.mul(x, weight)


# -- classification -----------------------------------------------------------------------
def _class_loss(logp, target, weight, ignore_index, reduction, label_smoothing, what):
    """-sum(target * logp * weight) per sample (class indices or probabilities), reduced
    as MindSpore's (and PyTorch's) cross entropy: 'mean' over index targets divides by
    the summed weights of the samples counted."""
    _reduction(reduction, what)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{what}: label_smoothing must be in [0, 1], got "
                         f"{label_smoothing!r}")
    n_classes = logp.shape[-1]
    cw = 1.0 if weight is None else weight
    if target.dtype.is_floating:         # class probabilities
        t = target
        if label_smoothing > 0:
            t = t * (1.0 - label_smoothing) + label_smoothing / n_classes
        return _reduce(-M.sum(t * logp * cw, -1), reduction, what)
    counted = M.not_equal(target, ignore_index)
    keep = M.cast(counted, logp.dtype)
    safe = M.where(counted, target, 0)
    t = M.cast(one_hot(safe, n_classes, 1.0, 0.0), logp.dtype)
    if label_smoothing > 0:
        t = t * (1.0 - label_smoothing) + label_smoothing / n_classes
    per = -M.sum(t * logp * cw, -1) * keep
    if reduction == "none":
        return per
    if reduction == "sum":
        return M.sum(per)
    sample_w = keep if weight is None else gather(weight, safe, 0) * keep
    return M.sum(per) / M.sum(sample_w)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """The cross entropy of logits input (N, C) and class indices (N,) or class
    probabilities (N, C)."""
    x = _t(input)
    return _class_loss(log_softmax(x, -1), _t(target), weight, int(ignore_index), reduction,
                       float(label_smoothing), "cross_entropy")


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """The negative log likelihood of log-probabilities inputs (N, C) at the class
    indices target (N,)."""
    t = _t(target)
    if t.dtype.is_floating:
        raise TypeError("nll_loss: target must be class indices (an integer tensor)")
    return _class_loss(_t(inputs), t, weight, int(ignore_index), reduction,
                       float(label_smoothing), "nll_loss")


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """-w * (pos_weight * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))), from the
    logits x (computed stably through softplus)."""
    x, y = _t(input), _t(target)
    log_p = -softplus(-x)           # log(sigmoid(x))
    log_not_p = -softplus(x)        # log(1 - sigmoid(x))
    pos = y * log_p if pos_weight is None else y * log_p * pos_weight
    loss = -(pos + (1.0 - y) * log_not_p)
    return _reduce(_weighted(loss, weight), reduction, "binary_cross_entropy_with_logits")


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """-w * (y * log(x) + (1 - y) * log(1 - x)) of probabilities x, as MindSpore's kernel
    (logs of x + 1e-12 and 1 - x + 1e-12)."""
    x, y = _t(input), _t(target)
    eps = 1e-12
    loss = -(y * M.log(x + eps) + (1.0 - y) * M.log(1.0 - x + eps))
    return _reduce(_weighted(loss, weight), reduction, "binary_cross_entropy")


# -- regression -------------------------------------------------------------------------------
def mse_loss(input, target, reduction="mean"):
    return _reduce(M.square(_t(input) - _t(target)), reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):
    return _reduce(M.abs(_t(input) - _t(target)), reduction, "l1_loss")


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 * d ** 2 / beta where |d| < beta, else |d| - 0.5 * beta (d = input - target);
    MindSpore's default reduction is 'none'."""
    if not beta > 0:
        raise ValueError(f"smooth_l1_loss: beta must be positive, got {beta!r}")
    d = M.abs(_t(input) - _t(target))
    loss = M.where(M.less(d, beta), 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction, "smooth_l1_loss")


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 * d ** 2 where |d| < delta, else delta * (|d| - 0.5 * delta)."""
    if not delta > 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta!r}")
    d = M.abs(_t(input) - _t(target))
    loss = M.where(M.less(d, delta), 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss, reduction, "huber_loss")


# -- activations ------------------------------------------------------------------------------
def hardswish(x):
    """x * relu6(x + 3) / 6."""
    t = _t(x)
    return t * relu6(t + 3) / 6


def hardsigmoid(input):
    """relu6(x + 3) / 6."""
    return relu6(_t(input) + 3) / 6


def mish(x):
    """x * tanh(softplus(x))."""
    t = _t(x)
    return t * M.tanh(softplus(t))


def logsigmoid(x):
    """log(sigmoid(x)), computed as -softplus(-x)."""
    return -softplus(-_t(x))


def softsign(x):
    """x / (1 + |x|)."""
    t = _t(x)
    return t / (1 + M.abs(t))


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val {min_val} must not exceed max_val {max_val}")
    return M.clamp(_t(input), min_val, max_val)


def selu(input_x):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))."""
    alpha, scale = 1.67326324235437728481, 1.05070098735548049342
    x = _t(input_x)
    return scale * M.where(M.greater(x, 0), x, alpha * M.expm1(x))


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ValueError("celu: alpha cannot be 0")
    t = _t(x)
    return M.where(M.greater(t, 0), t, alpha * M.expm1(t / alpha))


def prelu(x, weight):
    """x where x > 0, else weight * x, weight (1-D) along the channel axis 1."""
    t, w = _t(x), _t(weight)
    if w.ndim != 1:
        raise ValueError(f"prelu: weight must be 1-D, got rank {w.ndim}")
    if t.ndim >= 2:
        w = reshape(w, (-1,) + (1,) * (t.ndim - 2))
    return M.where(M.greater(t, 0), t, t * w)


# -- adaptive pooling -------------------------------------------------------------------------
def _out_size(output_size, h, w, what):
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size, output_size)
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 2:
        raise ValueError(f"{what}: output_size must be an int or a pair, got "
                         f"{output_size!r}")
    out = []
    for o, n in zip(output_size, (h, w)):
        if o is None:
            o = n
        if isinstance(o, TensorLike) or not isinstance(o, int) or o <= 0:
            raise ValueError(f"{what}: output sizes must be positive ints or None, got "
                             f"{output_size!r}")
        out.append(o)
    return out


def _adaptive(input, output_size, reduce, what):
    x = _t(input)
    shape = x.shape
    if not isinstance(shape, tuple) or len(shape) not in (3, 4) or not builtins.all(
            isinstance(d, int) for d in shape[-2:]):
        raise ValueError(f"{what} takes a (N, C, H, W) or (C, H, W) input whose H and W are "
                         f"known while the graph is built, got {x.type}")
    h, w = shape[-2:]
    oh, ow = _out_size(output_size, h, w, what)
    lead = (slice(None),) * (len(shape) - 2)
    rows = []
    for i in range(oh):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        cols = []
        for j in range(ow):
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            cols.append(reduce(x[lead + (slice(r0, r1), slice(c0, c1))], (-2, -1), True))
        rows.append(concat(cols, -1))
    return concat(rows, -2)


def adaptive_avg_pool2d(input, output_size):
    """The mean over adaptive windows: window i of H covers floor(i * H / out) up to
    ceil((i + 1) * H / out), likewise for W."""
    return _adaptive(input, output_size, M.mean, "adaptive_avg_pool2d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over the windows of adaptive_avg_pool2d."""
    if return_indices:
        raise ValueError("adaptive_max_pool2d: return_indices=True is not supported")
    return _adaptive(input, output_size, M.amax, "adaptive_max_pool2d")
