"""The functions MindSpore's layers are built from, with MindSpore 2.x names and
signatures: conv2d, max_pool2d, avg_pool2d, batch_norm, layer_norm and dropout.

Window sizes, strides, paddings and shapes are Python values known while the graph
is built. Random ops (dropout) draw from the generator `ms.set_seed` seeds, when the
program runs, in both modes.
"""
from __future__ import annotations

from ..common.tensor import SymbolicTensor, TensorLike, current_recorder
from ._dispatch import apply, to_tensor
from . import math_ops as M
from .array_ops import ones, reshape, zeros
from .misc_ops import assign

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "layer_norm", "dropout"]


def _t(x):
    return to_tensor(x)


def _ints(v, n, what):
    """v as a tuple of n ints: an int repeats, a tuple of n is kept."""
    if isinstance(v, TensorLike):
        raise TypeError(f"{what} must be Python ints known while the graph is built, not a "
                        f"tensor")
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * n
    if isinstance(v, (tuple, list)) and len(v) == n and all(
            isinstance(i, int) and not isinstance(i, bool) for i in v):
        return tuple(v)
    raise TypeError(f"{what} must be an int or a tuple of {n} ints, got {v!r}")


def pair(v, what):
    """An int or a tuple of 1, 2 (or, as MindSpore allows for strides, 4: N, C, H, W)
    ints, as (h, w)."""
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if isinstance(v, (tuple, list)) and len(v) == 4:
        v = tuple(v)[2:]
    return _ints(v, 2, what)


def pads(v, what):
    """Padding as (top, bottom, left, right): an int for all four sides, (h, w) for
    top and bottom, left and right, or the four values."""
    if isinstance(v, (tuple, list)) and len(v) == 2:
        h, w = _ints(tuple(v), 2, what)
        return (h, h, w, w)
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    return _ints(v, 4, what)


def pad_mode(mode, what):
    if not isinstance(mode, str) or mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"{what}: pad_mode must be 'valid', 'same' or 'pad', got {mode!r}")
    return mode.lower()


def check_format(data_format, what):
    if data_format != "NCHW":
        raise ValueError(f"{what}: only data_format='NCHW' is supported, got {data_format!r}")


def _known_shape(x, what):
    shape = x.type.shape
    if shape is None or any(d is None for d in shape):
        raise TypeError(f"{what} needs a weight of known shape, got {x.type}")
    return shape


# -- convolution and pooling -------------------------------------------------------------------
def conv_nchw(input, weight, stride, mode, padding, dilation, groups, what):
    """Conv2D of input with weight; the op's output channels and kernel come from the
    weight's (known) shape."""
    w = _t(weight)
    shape = _known_shape(w, what)
    if len(shape) != 4:
        raise ValueError(f"{what}: the weight must have rank 4 (out, in / groups, kh, kw), "
                         f"got {w.type}")
    return apply("Conv2D", _t(input), w, out_channel=shape[0], kernel_size=tuple(shape[2:]),
                 pad_mode=pad_mode(mode, what), pad=pads(padding, f"{what}'s padding"),
                 stride=pair(stride, f"{what}'s stride"),
                 dilation=pair(dilation, f"{what}'s dilation"), group=groups)


def add_channel_bias(out, bias):
    """out (N, C, ...) + bias (C,) along axis 1."""
    b = _t(bias)
    rank = out.type.rank
    if rank is None:
        raise TypeError("adding a per-channel bias needs an input of known rank")
    return M.add(out, reshape(b, (-1,) + (1,) * (rank - 2)))


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """2-D cross-correlation of input (N, C, H, W) with weight (O, C / groups, kh, kw),
    plus bias (O,) if given. pad_mode 'valid' (no padding), 'same' (output size
    ceil(H / stride)) or 'pad' (`padding`: an int, (h, w) or (top, bottom, left, right))."""
    if pad_mode.lower() != "pad" and padding != 0:
        raise ValueError(f"conv2d: padding {padding!r} needs pad_mode='pad'")
    out = conv_nchw(input, weight, stride, pad_mode, padding, dilation, groups, "conv2d")
    return out if bias is None else add_channel_bias(out, bias)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """The maximum over each kernel_size window (stride defaults to kernel_size);
    `padding` (an int or (h, w)) pads both sides with values that never win. With
    return_indices also the int64 index of each maximum in the flattened H * W input."""
    k = pair(kernel_size, "max_pool2d's kernel_size")
    p = pair(padding, "max_pool2d's padding")
    return apply("MaxPool", _t(x), kernel_size=k,
                 strides=k if stride is None else pair(stride, "max_pool2d's stride"),
                 pad_mode="pad", pad=(p[0], p[0], p[1], p[1]),
                 dilation=pair(dilation, "max_pool2d's dilation"), ceil_mode=bool(ceil_mode),
                 return_indices=bool(return_indices))


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """The mean over each window; `padding` (an int or (top, bottom, left, right)) pads
    with zeros that the mean counts when count_include_pad; divisor_override, if not 0,
    replaces the count."""
    return apply("AvgPool", _t(input_x), kernel_size=pair(kernel_size, "avg_pool2d's "
                                                                       "kernel_size"),
                 strides=pair(stride, "avg_pool2d's stride"), pad_mode="pad",
                 pad=pads(padding, "avg_pool2d's padding"), ceil_mode=bool(ceil_mode),
                 count_include_pad=bool(count_include_pad),
                 divisor_override=int(divisor_override or 0))


# -- normalization -----------------------------------------------------------------------------
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (axis 1). In training, the
    batch's mean and (biased) variance, and running_mean and running_var are updated
    in place: new = (1 - momentum) * running + momentum * batch."""
    y, mean, var = apply("BatchNorm", _t(input_x), _t(weight), _t(bias), _t(running_mean),
                         _t(running_var), is_training=bool(training), epsilon=float(eps))
    if training:
        update_running(running_mean, mean, 1.0 - momentum)
        update_running(running_var, var, 1.0 - momentum)
    return y


def update_running(stat, batch, keep):
    """stat = stat * keep + batch * (1 - keep), in place (a Parameter update)."""
    assign(stat, M.add(M.mul(stat, keep), M.mul(batch, 1.0 - keep)))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing dims `normalized_shape` (mean and biased variance),
    then * weight + bias (ones and zeros if not given)."""
    if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
        normalized_shape = (normalized_shape,)
    if not isinstance(normalized_shape, (tuple, list)) or not normalized_shape:
        raise TypeError(f"layer_norm: normalized_shape must be an int or a non-empty tuple of "
                        f"ints, got {normalized_shape!r}")
    shape = _ints(tuple(normalized_shape), len(normalized_shape), "layer_norm's "
                                                                   "normalized_shape")
    x = _t(input)
    w = ones(shape, x.dtype) if weight is None else _t(weight)
    b = zeros(shape, x.dtype) if bias is None else _t(bias)
    y, _, _ = apply("LayerNorm", x, w, b, begin_norm_axis=-len(shape),
                    begin_params_axis=-len(shape), epsilon=float(eps))
    return y


# -- dropout -----------------------------------------------------------------------------------
def apply_random(op, x, **attrs):
    """Run or record a random op. While a graph is being built it is recorded even on a
    constant input: drawing at build time would freeze one draw into the graph."""
    recorder = current_recorder()
    if recorder is not None and not isinstance(x, SymbolicTensor):
        return recorder.apply(op, (x,), attrs)
    return apply(op, x, **attrs)


def dropout(input, p=0.5, training=True, seed=None):
    """In training, zero each element with probability p and scale the rest by
    1 / (1 - p); otherwise (or with p = 0) the input itself."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(f"dropout: p must be a number in [0, 1), got {p!r}")
    if not training or p == 0:
        return input
    y, _ = apply_random("Dropout", _t(input), keep_prob=1.0 - float(p), seed=seed)
    return y
