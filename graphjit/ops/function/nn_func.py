"""MindSpore's `mindspore.ops.function.nn_func`: dense, the activations, softmax, dropout,
pad/flip/bias_add, cosine_similarity, kl_div and the losses; the convolution, pooling and
normalization functions of layer_func are re-exported here, as MindSpore has them."""
from __future__ import annotations

import builtins
import math

from .array_func import (_dim_size, _float, broadcast_to, cast, concat, full, gather, getitem,
                         one_hot, reshape, where, zeros_like)
from .clip_func import clamp
from .math_func import (abs, add, div, erf, exp, expm1, greater, greater_equal, less, log, log1p,
                        mean, minimum, mul, not_equal, relu, sigmoid, sqrt, square, sub, sum, tanh)
from .._dispatch import apply
from .._utils import _axis_of, _int_tuple, _known_shape, _t

# MindSpore's nn_func also holds these: the layer functions (layer_func.py), relu and sigmoid
from .layer_func import apply_random
from .layer_func import (conv2d, max_pool2d, avg_pool2d, batch_norm, layer_norm,
                         adaptive_avg_pool2d, adaptive_max_pool2d, interpolate, upsample, conv1d,
                         conv_transpose2d, group_norm, instance_norm)

__all__ = ["pad", "flip", "bias_add", "dropout", "cross_entropy", "nll_loss",
           "binary_cross_entropy_with_logits", "binary_cross_entropy", "mse_loss", "l1_loss",
           "smooth_l1_loss", "huber_loss", "hardswish", "hardsigmoid", "mish", "logsigmoid",
           "softsign", "hardtanh", "selu", "celu", "prelu", "kl_div", "cosine_similarity", "dense",
           "softmax", "log_softmax", "relu6", "leaky_relu", "gelu", "silu", "softplus", "elu",
           "conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "layer_norm", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "interpolate", "upsample", "conv1d", "conv_transpose2d",
           "group_norm", "instance_norm", "relu", "sigmoid", "fast_gelu"]


def flip(input, dims):
    """input with the order of the elements reversed along each dim in dims."""
    x = _t(input)
    r = x.ndim
    dims = _int_tuple(dims, "flip's dims")
    key = [builtins.slice(None)] * r
    for d in dims:
        key[_axis_of(d, r, "flip's dims")] = builtins.slice(None, None, -1)
    return getitem(x, tuple(key))


def bias_add(input_x, bias, data_format="NCHW"):
    """input_x + bias along the channel axis (1 for NCHW/NCDHW, the last for NHWC)."""
    x, b = _t(input_x), _t(bias)
    if b.ndim != 1:
        raise ValueError(f"bias_add: bias must be 1-D, got rank {b.ndim}")
    if data_format not in ("NCHW", "NHWC", "NCDHW"):
        raise ValueError(f"bias_add: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got "
                         f"{data_format!r}")
    if x.ndim < 2:
        raise ValueError(f"bias_add: input_x must have rank 2 or more, got {x.ndim}")
    if data_format == "NHWC" or x.ndim == 2:
        return x + b
    return x + reshape(b, (-1,) + (1,) * (x.ndim - 2))


# -- padding ---------------------------------------------------------------------------------
def pad(input_x, padding, mode="constant", value=None):
    """input_x padded: padding is (left, right) for the last dim, then (top, bottom) for the
    one before, and so on; mode 'constant' (value, 0 by default), 'reflect' or
    'replicate'. Negative padding removes elements."""
    x = _t(input_x)
    p = _int_tuple(padding, "pad's padding")
    if len(p) % 2 or len(p) // 2 > x.ndim:
        raise ValueError(f"pad: padding {list(p)} must have an even length of at most twice "
                         f"the input's rank {x.ndim}")
    if mode not in ("constant", "reflect", "replicate"):
        raise ValueError(f"pad: mode must be 'constant', 'reflect' or 'replicate', got "
                         f"{mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"pad: value is only for mode 'constant', not {mode!r}")
    out = x
    for i in range(len(p) // 2):
        axis = x.ndim - 1 - i
        lo, hi = p[2 * i], p[2 * i + 1]
        out = _pad_axis(out, axis, lo, hi, mode, 0 if value is None else value)
    return out


def _pad_axis(x, axis, lo, hi, mode, value):
    pre = (builtins.slice(None),) * axis
    _, n = _dim_size(x, axis, "pad")
    if lo < 0:
        x, n, lo = getitem(x, pre + (builtins.slice(-lo, None),)), n + lo, 0
    if hi < 0:
        x, n, hi = getitem(x, pre + (builtins.slice(0, n + hi),)), n + hi, 0
    if lo == 0 and hi == 0:
        return x
    parts = []
    if mode == "constant":
        shape = _known_shape(x, "pad")
        for k in (lo, hi):
            block = None
            if k:
                block = cast(full(shape[:axis] + (k,) + shape[axis + 1:], value), x.dtype)
            parts.append(block)
    elif mode == "replicate":
        if n == 0:
            raise ValueError("pad: 'replicate' needs a non-empty dim")
        shape = x.shape
        for k, edge in ((lo, 0), (hi, n - 1)):
            block = None
            if k:
                e = getitem(x, pre + (builtins.slice(edge, edge + 1),))
                block = broadcast_to(e, (-1,) * axis + (k,) + (-1,) * (len(shape) - axis - 1))
            parts.append(block)
    else:   # reflect: the edge itself is not repeated
        if lo >= n or hi >= n:
            raise ValueError(f"pad: 'reflect' padding ({lo}, {hi}) must be less than the dim "
                             f"size {n}")
        left = getitem(x, pre + (builtins.slice(lo, 0, -1),)) if lo else None
        stop = n - 2 - hi if n - 2 - hi >= 0 else None
        right = getitem(x, pre + (builtins.slice(n - 2, stop, -1),)) if hi else None
        parts = [left, right]
    pieces = [t for t in (parts[0], x, parts[1]) if t is not None]
    return concat(pieces, axis)


# -- dropout -----------------------------------------------------------------------------------
def dropout(input, p=0.5, training=True, seed=None):
    """In training, zero each element with probability p and scale the rest by
    1 / (1 - p); otherwise (or with p = 0) the input itself."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(f"dropout: p must be a number in [0, 1), got {p!r}")
    if not training or p == 0:
        return input
    y, _ = apply_random("Dropout", _t(input), keep_prob=1.0 - float(p), seed=seed)
    return y


_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction, what):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{what}: reduction must be one of {', '.join(_REDUCTIONS)}, got "
                         f"{reduction!r}")
    return reduction


def _reduce_loss(x, reduction, what):
    r = _reduction(reduction, what)
    if r == "mean":
        return mean(x)
    if r == "sum":
        return sum(x)
    return x


def _weighted(x, weight):
    return x if weight is None else mul(x, weight)


# -- classification -----------------------------------------------------------------------
def _class_loss(logp, target, weight, ignore_index, reduction, label_smoothing, what):
    """-sum(target * logp * weight) per sample (class indices or probabilities), reduced
    as MindSpore's (and PyTorch's) cross entropy: 'mean' over index targets divides by
    the summed weights of the samples counted."""
    _reduction(reduction, what)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{what}: label_smoothing must be in [0, 1], got "
                         f"{label_smoothing!r}")
    if not isinstance(logp.ndim, int) or logp.ndim < 1:
        raise ValueError(f"{what}: the input must have a class dim (N, C) or (C,), got a "
                         f"tensor of shape {logp.shape}")
    n_classes = logp.shape[-1]
    cw = 1.0 if weight is None else weight
    if target.dtype.is_floating:         # class probabilities
        t = target
        if label_smoothing > 0:
            t = t * (1.0 - label_smoothing) + label_smoothing / n_classes
        return _reduce_loss(-sum(t * logp * cw, -1), reduction, what)
    counted = not_equal(target, ignore_index)
    keep = cast(counted, logp.dtype)
    safe = where(counted, target, 0)
    t = cast(one_hot(safe, n_classes, 1.0, 0.0), logp.dtype)
    if label_smoothing > 0:
        t = t * (1.0 - label_smoothing) + label_smoothing / n_classes
    per = -sum(t * logp * cw, -1) * keep
    if reduction == "none":
        return per
    if reduction == "sum":
        return sum(per)
    sample_w = keep if weight is None else gather(weight, safe, 0) * keep
    return sum(per) / sum(sample_w)


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
    return _reduce_loss(_weighted(loss, weight), reduction, "binary_cross_entropy_with_logits")


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """-w * (y * log(x) + (1 - y) * log(1 - x)) of probabilities x, as MindSpore's kernel
    (logs of x + 1e-12 and 1 - x + 1e-12)."""
    x, y = _t(input), _t(target)
    eps = 1e-12
    loss = -(y * log(x + eps) + (1.0 - y) * log(1.0 - x + eps))
    return _reduce_loss(_weighted(loss, weight), reduction, "binary_cross_entropy")


# -- regression -------------------------------------------------------------------------------
def mse_loss(input, target, reduction="mean"):
    return _reduce_loss(square(_t(input) - _t(target)), reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):
    return _reduce_loss(abs(_t(input) - _t(target)), reduction, "l1_loss")


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 * d ** 2 / beta where |d| < beta, else |d| - 0.5 * beta (d = input - target);
    MindSpore's default reduction is 'none'."""
    if not beta > 0:
        raise ValueError(f"smooth_l1_loss: beta must be positive, got {beta!r}")
    d = abs(_t(input) - _t(target))
    loss = where(less(d, beta), 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce_loss(loss, reduction, "smooth_l1_loss")


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 * d ** 2 where |d| < delta, else delta * (|d| - 0.5 * delta)."""
    if not delta > 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta!r}")
    d = abs(_t(input) - _t(target))
    loss = where(less(d, delta), 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce_loss(loss, reduction, "huber_loss")


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
    return t * tanh(softplus(t))


def logsigmoid(x):
    """log(sigmoid(x)), computed as -softplus(-x)."""
    return -softplus(-_t(x))


def softsign(x):
    """x / (1 + |x|)."""
    t = _t(x)
    return t / (1 + abs(t))


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val {min_val} must not exceed max_val {max_val}")
    return clamp(_t(input), min_val, max_val)


def selu(input_x):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))."""
    alpha, scale = 1.67326324235437728481, 1.05070098735548049342
    x = _t(input_x)
    return scale * where(greater(x, 0), x, alpha * expm1(x))


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ValueError("celu: alpha cannot be 0")
    t = _t(x)
    return where(greater(t, 0), t, alpha * expm1(t / alpha))


def prelu(x, weight):
    """x where x > 0, else weight * x, weight (1-D) along the channel axis 1."""
    t, w = _t(x), _t(weight)
    if w.ndim != 1:
        raise ValueError(f"prelu: weight must be 1-D, got rank {w.ndim}")
    if t.ndim >= 2:
        w = reshape(w, (-1,) + (1,) * (t.ndim - 2))
    return where(greater(t, 0), t, t * w)


# -- distances and divergences -------------------------------------------------------------
def kl_div(logits, labels, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence of labels from logits (log-probabilities):
    labels * (log(labels) - logits) (0 where labels is 0), or exp(labels) * (labels -
    logits) with log_target; reduction 'none', 'sum', 'mean' or 'batchmean' (the sum over
    the first dim's size)."""
    if reduction not in ("none", "sum", "mean", "batchmean"):
        raise ValueError(f"kl_div: reduction must be 'none', 'sum', 'mean' or 'batchmean', got "
                         f"{reduction!r}")
    x, y = _float(_t(logits)), _float(_t(labels))
    if log_target:
        loss = mul(exp(y), sub(y, x))
    else:
        pos = greater(y, 0)
        safe = where(pos, y, add(zeros_like(y), 1))
        loss = where(pos, mul(y, sub(log(safe), x)), zeros_like(mul(y, x)))
    if reduction == "none":
        return loss
    if reduction == "mean":
        return mean(loss)
    total = sum(loss)
    if reduction == "sum":
        return total
    n = x.shape[0] if x.ndim else 1
    if not isinstance(n, int):
        raise TypeError("kl_div's 'batchmean' needs a first dim known while the graph is built")
    return div(total, n)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / sqrt(max(sum(x1 * x1) * sum(x2 * x2), eps ** 2)) along dim."""
    a, b = _float(_t(x1)), _float(_t(x2))
    w12 = sum(mul(a, b), dim)
    w1 = sum(mul(a, a), dim)
    w2 = sum(mul(b, b), dim)
    n12 = sqrt(clamp(mul(w1, w2), eps * eps))
    return div(w12, n12)


def dense(input, weight, bias=None):
    """input @ weight.T + bias: weight is (out_channels, in_channels)."""
    out = apply("MatMul", _t(input), _t(weight), transpose_b=True)
    return out if bias is None else add(out, bias)


def _softmax(op, input, axis, dtype):
    x = _t(input)
    if dtype is not None:
        x = cast(x, dtype)
    if isinstance(axis, list):
        axis = tuple(axis)
    return apply(op, x, axis=axis)


def softmax(input, axis=-1, *, dtype=None):
    """exp(x) / sum(exp(x)) along axis (computed stably); integers give float32."""
    return _softmax("Softmax", input, axis, dtype)


def log_softmax(logits, axis=-1):
    """log(softmax(logits)) along axis, computed stably."""
    return _softmax("LogSoftmax", logits, axis, None)


def relu6(x):
    """min(max(x, 0), 6)."""
    return minimum(relu(x), 6)


def leaky_relu(input, alpha=0.2):
    """x where x >= 0, else alpha * x."""
    x = _t(input)
    return where(greater_equal(x, 0), x, mul(x, alpha))


def gelu(input_x, approximate="none"):
    """x * Phi(x): with the error function ('none') or the tanh approximation ('tanh')."""
    x = _t(input_x)
    if approximate == "none":
        inner = erf(mul(x, 1.0 / math.sqrt(2.0)))
    elif approximate == "tanh":
        cube = mul(mul(mul(x, x), x), 0.044715)
        inner = tanh(mul(add(x, cube), math.sqrt(2.0 / math.pi)))
    else:
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return mul(mul(x, 0.5), add(inner, 1.0))


def silu(input):
    """x * sigmoid(x)."""
    x = _t(input)
    return mul(x, sigmoid(x))


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold."""
    x = _t(input)
    bx = mul(x, beta)
    soft = div(log1p(exp(bx)), beta)
    return where(greater(bx, threshold), cast(x, soft.dtype), soft)


def elu(input_x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = _t(input_x)
    neg = mul(expm1(x), alpha)
    return where(greater(x, 0), cast(x, neg.dtype), neg)


def fast_gelu(x):
    """MindSpore's FastGeLU: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), which is
    x * sigmoid(1.702 x)."""
    x = _t(x)
    return mul(x, sigmoid(mul(x, 1.702)))
