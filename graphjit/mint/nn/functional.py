"""MindSpore's `mindspore.mint.nn.functional`: PyTorch-spelled neural-network functions
over graphjit.ops."""
from __future__ import annotations

from ... import ops
from ...ir.dtypes import int64 as _int64

__all__ = ["relu", "relu6", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax",
           "dropout", "linear", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
           "layer_norm", "group_norm", "batch_norm", "pad", "interpolate", "cross_entropy",
           "mse_loss", "l1_loss", "hardswish", "hardsigmoid", "leaky_relu", "elu", "mish",
           "softplus", "pool_padding", "conv_padding"]


def relu(input, inplace=False):
    return ops.relu(input)


def relu6(input, inplace=False):
    return ops.relu6(input)


def gelu(input, approximate="none"):
    return ops.gelu(input, approximate)


def silu(input, inplace=False):
    return ops.silu(input)


def sigmoid(input):
    return ops.sigmoid(input)


def tanh(input):
    return ops.tanh(input)


def hardswish(input, inplace=False):
    return ops.hardswish(input)


def hardsigmoid(input, inplace=False):
    return ops.hardsigmoid(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return ops.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return ops.elu(input, alpha)


def mish(input, inplace=False):
    return ops.mish(input)


def softplus(input, beta=1, threshold=20):
    return ops.softplus(input, beta, threshold)


def softmax(input, dim=-1, dtype=None):
    x = input if dtype is None else ops.cast(input, dtype)
    return ops.softmax(x, -1 if dim is None else dim)


def log_softmax(input, dim=-1, dtype=None):
    x = input if dtype is None else ops.cast(input, dtype)
    return ops.log_softmax(x, -1 if dim is None else dim)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p, scale the rest by 1 / (1 - p), in training;
    p = 1 gives zeros."""
    if not training or p == 0:
        return input
    if p == 1:
        return ops.zeros_like(input)
    return ops.dropout(input, p, True)


def linear(input, weight, bias=None):
    return ops.dense(input, weight, bias)


def _pair(v, what):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]), int(v[0]))
        if len(v) != 2:
            raise ValueError(f"{what} must be an int or a pair of ints, got {v!r}")
        return (int(v[0]), int(v[1]))
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what} must be an int or a pair of ints, got {v!r}")
    return (v, v)


def conv_padding(padding, what):
    """PyTorch's conv padding (an int, (h, w), 'same' or 'valid') as (pad_mode,
    (top, bottom, left, right))."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"{what} must be 'same', 'valid', an int or a pair of ints, "
                             f"got {padding!r}")
        return padding, 0
    ph, pw = _pair(padding, what)
    return "pad", (ph, ph, pw, pw)


def pool_padding(padding, what):
    ph, pw = _pair(padding, what)
    return (ph, ph, pw, pw)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    mode, pads = conv_padding(padding, "conv2d's padding")
    return ops.conv2d(input, weight, bias, _pair(stride, "conv2d's stride"), mode, pads,
                      _pair(dilation, "conv2d's dilation"), groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return ops.max_pool2d(input, kernel_size, kernel_size if stride is None else stride,
                          padding, dilation, return_indices, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    k = _pair(kernel_size, "avg_pool2d's kernel_size")
    s = k if stride is None else _pair(stride, "avg_pool2d's stride")
    return ops.avg_pool2d(input, k, s, pool_padding(padding, "avg_pool2d's padding"),
                          ceil_mode, count_include_pad, divisor_override or 0)


def adaptive_avg_pool2d(input, output_size):
    return ops.adaptive_avg_pool2d(input, output_size)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return ops.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return ops.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """PyTorch's momentum: running = (1 - momentum) * running + momentum * batch."""
    c = input.shape[1]
    if weight is None:
        weight = ops.ones((c,), input.dtype)
    if bias is None:
        bias = ops.zeros((c,), input.dtype)
    return ops.batch_norm(input, running_mean, running_var, weight, bias, training,
                          momentum, eps)


def pad(input, pad, mode="constant", value=0.0):
    return ops.pad(input, pad, mode, value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    return ops.interpolate(input, size, scale_factor, mode, align_corners,
                           recompute_scale_factor)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    return ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def mse_loss(input, target, reduction="mean"):
    return ops.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    return ops.l1_loss(input, target, reduction)


def logsigmoid(input):
    return ops.logsigmoid(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return ops.hardtanh(input, min_val, max_val)


def prelu(input, weight):
    return ops.prelu(input, weight)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p along dim, eps)."""
    if p == 2:
        norm = ops.sqrt(ops.sum(ops.mul(input, input), dim, True))
    else:
        norm = ops.pow(ops.sum(ops.pow(ops.abs(input), p), dim, True), 1.0 / p)
    return ops.div(input, ops.clamp(norm, eps, None))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    """The rows of weight at the indices in input."""
    if max_norm is not None:
        raise NotImplementedError("mint.nn.functional.embedding: max_norm is not supported")
    return ops.gather(weight, input, 0)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot vectors along a new last dim (num_classes -1: max + 1, known only
    eagerly)."""
    if num_classes == -1:
        num_classes = int(ops.amax(tensor).asnumpy()) + 1
    return ops.cast(ops.one_hot(tensor, num_classes, 1, 0, -1), _int64)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    return ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return ops.nll_loss(input, target, weight, ignore_index, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    return ops.smooth_l1_loss(input, target, beta, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    return ops.kl_div(input, target, reduction, log_target)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return ops.cosine_similarity(x1, x2, dim, eps)


__all__ += ["logsigmoid", "hardtanh", "prelu", "normalize", "embedding", "one_hot",
            "binary_cross_entropy_with_logits", "nll_loss", "smooth_l1_loss", "kl_div",
            "cosine_similarity"]
