"""More of MindSpore 2.x's nn layers: Conv1d, Conv2dTranspose, GroupNorm,
InstanceNorm2d, Upsample, KLDivLoss and CosineEmbeddingLoss, with MindSpore's
signatures and defaults. Each `construct` is ordinary code over graphjit.ops (the
functions of ops/more_ops.py), so it runs the same in both modes and differentiates.
"""
from __future__ import annotations

import math

from . import initializer as init
from . import ops
from .ir.dtypes import float32
from .nn import Cell
from .nn_layers import _positive_int, check_rank, conv_channels
from .nn_losses import LossBase
from .ops.layer_ops import pads as _pads
from .ops.layer_ops import pad_mode as _pad_mode
from .ops.more_ops import transpose_conv_nchw
from .parameter import Parameter

__all__ = ["Conv1d", "Conv1dTranspose", "Conv2dTranspose", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "Upsample",
           "KLDivLoss", "CosineEmbeddingLoss"]


def _int_of(v, what, layer):
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{layer}: {what} must be an int, got {v!r}")
    return v


def _pair(v, what, layer):
    if isinstance(v, (tuple, list)) and len(v) == 2:
        return (_int_of(v[0], what, layer), _int_of(v[1], what, layer))
    v = _int_of(v, what, layer)
    return (v, v)


def _conv_params(cell, layer, in_channels, out_channels, group, weight_shape, fan_in,
                 has_bias, weight_init, bias_init, bias_size, dtype):
    if weight_init is None:
        weight_init = init.HeUniform(math.sqrt(5))
    cell.weight = Parameter(init.initializer(weight_init, weight_shape, dtype), name="weight")
    cell.has_bias = bool(has_bias)
    cell.bias = None
    if cell.has_bias:
        if bias_init is None:
            bias_init = init.Uniform(1.0 / math.sqrt(fan_in))
        cell.bias = Parameter(init.initializer(bias_init, (bias_size,), dtype), name="bias")


class Conv1d(Cell):
    """1-D convolution over (N, C, L): weight (out_channels, in_channels / group,
    kernel_size), no bias unless has_bias. pad_mode 'same' (the default), 'valid' or
    'pad' (padding: an int or (left, right)). Computed as Conv2D over (N, C, 1, L)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=float32):
        super().__init__()
        layer = "Conv1d"
        conv_channels(self, in_channels, out_channels, group, layer)
        self.kernel_size = _positive_int(_int_of(kernel_size, "kernel_size", layer),
                                         "kernel_size", layer)
        self.stride = _positive_int(_int_of(stride, "stride", layer), "stride", layer)
        self.dilation = _positive_int(_int_of(dilation, "dilation", layer), "dilation", layer)
        self.pad_mode = _pad_mode(pad_mode, layer)
        if isinstance(padding, (tuple, list)) and len(padding) == 2:
            self.padding = (_int_of(padding[0], "padding", layer),
                            _int_of(padding[1], "padding", layer))
        else:
            p = _int_of(padding, "padding", layer)
            self.padding = (p, p)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"Conv1d: padding {padding!r} needs pad_mode='pad', got "
                             f"pad_mode={pad_mode!r}")
        _conv_params(self, layer, in_channels, out_channels, group,
                     (out_channels, in_channels // group, self.kernel_size),
                     (in_channels // group) * self.kernel_size, has_bias, weight_init,
                     bias_init, out_channels, dtype)

    def construct(self, x):
        check_rank(x, (3,), "Conv1d")
        return ops.conv1d(x, self.weight, self.bias, self.stride, self.pad_mode,
                          self.padding if self.pad_mode == "pad" else 0, self.dilation,
                          self.group)


class Conv2dTranspose(Cell):
    """The transposed 2-D convolution over (N, C, H, W) (the gradient of Conv2d with
    respect to its input): weight (in_channels, out_channels / group, kh, kw). Output
    size: H * stride for pad_mode 'same' (the default), (H - 1) * stride + dilation *
    (kh - 1) + 1 for 'valid', and that minus top and bottom padding plus output_padding
    for 'pad'."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=float32):
        super().__init__()
        layer = "Conv2dTranspose"
        conv_channels(self, in_channels, out_channels, group, layer)
        self.kernel_size = _pair(kernel_size, "kernel_size", layer)
        self.stride = _pair(stride, "stride", layer)
        self.dilation = _pair(dilation, "dilation", layer)
        self.pad_mode = _pad_mode(pad_mode, layer)
        self.padding = _pads(padding, f"{layer}'s padding")
        self.output_padding = _pair(output_padding, "output_padding", layer)
        if self.pad_mode != "pad" and (any(self.padding) or any(self.output_padding)):
            raise ValueError(f"Conv2dTranspose: padding and output_padding need "
                             f"pad_mode='pad', got pad_mode={pad_mode!r}")
        kh, kw = self.kernel_size
        _conv_params(self, layer, in_channels, out_channels, group,
                     (in_channels, out_channels // group, kh, kw),
                     (out_channels // group) * kh * kw, has_bias, weight_init, bias_init,
                     out_channels, dtype)

    def _crop(self, h, w):
        if self.pad_mode == "pad":
            return self.padding
        if self.pad_mode == "valid":
            return (0, 0, 0, 0)
        crop = []
        for n, s, d, k in ((h, self.stride[0], self.dilation[0], self.kernel_size[0]),
                           (w, self.stride[1], self.dilation[1], self.kernel_size[1])):
            need = max(0, d * (k - 1) + 1 - s)   # 'same': the output is n * s
            crop += [need // 2, need - need // 2]
        return tuple(crop)

    def _extra(self):
        """Outputs past the last one a kernel reaches (zeros before the bias): 'same' and
        'valid' give at least H * stride rows, as MindSpore's output length does."""
        if self.pad_mode == "pad":
            return self.output_padding
        return tuple(max(0, s - (d * (k - 1) + 1)) for s, d, k in
                     zip(self.stride, self.dilation, self.kernel_size))

    def construct(self, x):
        check_rank(x, (4,), "Conv2dTranspose")
        out = transpose_conv_nchw(x, self.weight, self.stride, self._crop(x.shape[2], x.shape[3]),
                                  self._extra(), self.dilation, self.group, "Conv2dTranspose")
        if self.has_bias:
            out = out + ops.reshape(self.bias, (-1, 1, 1))
        return out


class Conv1dTranspose(Conv2dTranspose):
    """The transposed 1-D convolution over (N, C, L): weight (in_channels, out_channels /
    group, kernel_size); Conv2dTranspose over (N, C, 1, L), with its output lengths.
    padding is an int (both sides) in pad_mode 'pad'."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=float32):
        layer = "Conv1dTranspose"
        k = _positive_int(_int_of(kernel_size, "kernel_size", layer), "kernel_size", layer)
        p = _int_of(padding, "padding", layer)
        super().__init__(in_channels, out_channels, (1, k),
                         (1, _int_of(stride, "stride", layer)), pad_mode, (0, 0, p, p), 0,
                         (1, _int_of(dilation, "dilation", layer)), group, has_bias,
                         weight_init, bias_init, dtype)
        w = self.weight.asnumpy()
        self.weight = Parameter(w.reshape(w.shape[0], w.shape[1], k), name="weight")

    def construct(self, x):
        check_rank(x, (3,), "Conv1dTranspose")
        w = ops.expand_dims(self.weight, 2)
        out = transpose_conv_nchw(ops.expand_dims(x, 2), w, self.stride,
                                  self._crop(1, x.shape[2]), self._extra(), self.dilation,
                                  self.group, "Conv1dTranspose")
        if self.has_bias:
            out = out + ops.reshape(self.bias, (-1, 1, 1))
        return ops.squeeze(out, 2)


class GroupNorm(Cell):
    """Group normalization of (N, C, *): per sample, over each of num_groups groups of
    channels (mean and biased variance), then * gamma + beta (shape (C,))."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        self.num_groups = _positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = _positive_int(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels {num_channels} must be divisible by "
                             f"num_groups {num_groups}")
        self.eps = float(eps)
        self.affine = bool(affine)
        self.gamma = Parameter(init.initializer(gamma_init, (num_channels,), dtype),
                               name="gamma", requires_grad=self.affine)
        self.beta = Parameter(init.initializer(beta_init, (num_channels,), dtype),
                              name="beta", requires_grad=self.affine)

    def construct(self, x):
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)


class _InstanceNorm(Cell):
    """Instance normalization of (N, C, *): each sample and channel normalized over the
    spatial dims with its own mean and biased variance, in training and inference
    alike, then * gamma + beta. Training (set_train()) also updates moving_mean and
    moving_variance: moving = (1 - momentum) * moving + momentum * the batch's mean of
    the instance statistics (unbiased variances)."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        layer = type(self).__name__
        self.num_features = _positive_int(num_features, "num_features", layer)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or \
                not 0 <= momentum <= 1:
            raise ValueError(f"{layer}: momentum must be in [0, 1], got {momentum!r}")
        self.eps, self.momentum, self.affine = float(eps), float(momentum), bool(affine)
        n = (num_features,)
        self.gamma = Parameter(init.initializer(gamma_init, n, dtype), name="gamma",
                               requires_grad=self.affine)
        self.beta = Parameter(init.initializer(beta_init, n, dtype), name="beta",
                              requires_grad=self.affine)
        self.moving_mean = Parameter(init.initializer("zeros", n, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(init.initializer("ones", n, dtype), name="variance",
                                         requires_grad=False)

    def construct(self, x):
        check_rank(x, self._ranks, type(self).__name__)
        if self.training:
            return ops.instance_norm(x, self.moving_mean, self.moving_variance, self.gamma,
                                     self.beta, True, self.momentum, self.eps)
        return ops.instance_norm(x, None, None, self.gamma, self.beta, True, self.momentum,
                                 self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L); see _InstanceNorm."""

    _ranks = (3,)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W); see _InstanceNorm."""

    _ranks = (4,)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W); see _InstanceNorm."""

    _ranks = (5,)


class Upsample(Cell):
    """ops.interpolate as a layer: size or scale_factor, mode 'nearest' (the default),
    'linear' or 'bilinear', align_corners."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)


class KLDivLoss(LossBase):
    """ops.kl_div(logits, labels, reduction) as a loss: reduction 'mean' (the default),
    'sum', 'none' or 'batchmean'."""

    def __init__(self, reduction="mean"):
        if reduction not in ("none", "sum", "mean", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'sum', 'mean' or "
                             f"'batchmean', got {reduction!r}")
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.kl_reduction = reduction

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.kl_reduction)


class CosineEmbeddingLoss(LossBase):
    """For each row pair of logits_x1 and logits_x2 (N, D) with label 1 or -1: 1 - cos
    where the label is 1, max(0, cos - margin) where it is -1; reduced by reduction."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or \
                not -1.0 <= margin <= 1.0:
            raise ValueError(f"CosineEmbeddingLoss: margin must be a float in [-1.0, 1.0], got "
                             f"{margin!r}")
        self.margin = float(margin)

    def construct(self, logits_x1, logits_x2, labels):
        prod = ops.sum(logits_x1 * logits_x2, (1,))
        sq1 = ops.sum(logits_x1 * logits_x1, (1,))
        sq2 = ops.sum(logits_x2 * logits_x2, (1,))
        cosine = prod / (ops.sqrt(sq1) * ops.sqrt(sq2))
        zeros = ops.zeros_like(cosine)
        pos = ops.where(labels == 1, 1.0 - cosine, zeros)
        neg = ops.where(labels == -1, ops.maximum(cosine - self.margin, 0.0), zeros)
        return self.get_loss(pos + neg)
