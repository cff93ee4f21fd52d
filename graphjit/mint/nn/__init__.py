"""MindSpore's `mindspore.mint.nn`: PyTorch-spelled layers. Parameters are named as
PyTorch names them (Conv2d and Linear: weight, bias; the norms: weight, bias and, for
batch norms, running_mean, running_var), so checkpoints carry those names; the weights
start as MindSpore starts them (HeUniform(sqrt(5)) weights, U(-1/sqrt(fan_in),
1/sqrt(fan_in)) biases, ones and zeros for the norms)."""
from __future__ import annotations

import math

from ... import ops
from ...common import initializer as init
from ...common.parameter import Parameter
from ...ir.dtypes import float32
from ...nn.cell import Cell
from ...nn.layer.basic import Flatten, Identity
from . import functional
from . import functional as F

__all__ = ["Conv2d", "Linear", "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax",
           "LogSoftmax", "Hardswish", "Hardsigmoid", "LeakyReLU", "ELU", "Mish", "Identity",
           "Flatten", "Dropout", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "CrossEntropyLoss",
           "MSELoss", "L1Loss", "functional"]

_PADDING_MODES = {"zeros": None, "reflect": "reflect", "replicate": "replicate",
                  "circular": "circular"}


class Conv2d(Cell):
    """2-D convolution (PyTorch's arguments): weight (out_channels, in_channels / groups,
    kh, kw), bias (out_channels,) unless bias=False; padding an int, (h, w), 'same' or
    'valid'; padding_mode 'zeros', 'reflect', 'replicate' or 'circular'."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", dtype=None):
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels),
                        ("groups", groups)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise TypeError(f"Conv2d: {name} must be a positive int, got {v!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2d: in_channels {in_channels} and out_channels "
                             f"{out_channels} must be divisible by groups {groups}")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"Conv2d: padding_mode must be one of {sorted(_PADDING_MODES)}, "
                             f"got {padding_mode!r}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = F._pair(kernel_size, "Conv2d's kernel_size")
        self.stride = F._pair(stride, "Conv2d's stride")
        self.dilation = F._pair(dilation, "Conv2d's dilation")
        self.padding = padding
        self.padding_mode = padding_mode
        self.pad_mode, self.pads = F.conv_padding(padding, "Conv2d's padding")
        if self.pad_mode == "same" and self.stride != (1, 1):
            raise ValueError("Conv2d: padding='same' needs stride 1")
        dtype = float32 if dtype is None else dtype
        shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(init.initializer(init.HeUniform(math.sqrt(5)), shape, dtype),
                                name="weight")
        if bias:
            fan_in = (in_channels // groups) * self.kernel_size[0] * self.kernel_size[1]
            self.bias = Parameter(init.initializer(init.Uniform(1.0 / math.sqrt(fan_in)),
                                                   (out_channels,), dtype), name="bias")
        else:
            self.bias = None

    def construct(self, input):
        mode = _PADDING_MODES[self.padding_mode]
        if mode is not None and self.pad_mode == "pad":
            t, b, l, r = self.pads
            x = ops.pad(input, (l, r, t, b), mode)
            return ops.conv2d(x, self.weight, self.bias, self.stride, "valid", 0,
                              self.dilation, self.groups)
        return ops.conv2d(input, self.weight, self.bias, self.stride, self.pad_mode,
                          self.pads, self.dilation, self.groups)


class Linear(Cell):
    """input @ weight.T + bias: weight (out_features, in_features), bias (out_features,)
    unless bias=False."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise TypeError(f"Linear: {name} must be a positive int, got {v!r}")
        self.in_features, self.out_features = in_features, out_features
        dtype = float32 if dtype is None else dtype
        if weight_init is None:
            weight_init = init.HeUniform(math.sqrt(5))
        self.weight = Parameter(init.initializer(weight_init, (out_features, in_features),
                                                 dtype), name="weight")
        if bias:
            if bias_init is None:
                bias_init = init.Uniform(1.0 / math.sqrt(in_features))
            self.bias = Parameter(init.initializer(bias_init, (out_features,), dtype),
                                  name="bias")
        else:
            self.bias = None

    def construct(self, input):
        return ops.dense(input, self.weight, self.bias)


class _Act(Cell):
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()

    def construct(self, input):
        return type(self)._fn(input)


class ReLU(_Act):
    _fn = staticmethod(ops.relu)


class ReLU6(_Act):
    _fn = staticmethod(ops.relu6)


class SiLU(_Act):
    _fn = staticmethod(ops.silu)


class Sigmoid(_Act):
    _fn = staticmethod(ops.sigmoid)


class Tanh(_Act):
    _fn = staticmethod(ops.tanh)


class Hardswish(_Act):
    _fn = staticmethod(ops.hardswish)


class Hardsigmoid(_Act):
    _fn = staticmethod(ops.hardsigmoid)


class Mish(_Act):
    _fn = staticmethod(ops.mish)


class GELU(Cell):
    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def construct(self, input):
        return ops.gelu(input, self.approximate)


class LeakyReLU(Cell):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope

    def construct(self, input):
        return ops.leaky_relu(input, self.negative_slope)


class ELU(Cell):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha

    def construct(self, input):
        return ops.elu(input, self.alpha)


class Softmax(Cell):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def construct(self, input):
        return ops.softmax(input, self.dim)


class LogSoftmax(Cell):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def construct(self, input):
        return ops.log_softmax(input, self.dim)


class Dropout(Cell):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) while
    training (set_train()); the identity otherwise."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be a float in [0, 1], got {p!r}")
        self.p = float(p)

    def construct(self, input):
        if not self.training or self.p == 0:
            return input
        return F.dropout(input, self.p, True)


class MaxPool2d(Cell):
    """The maximum over each window (stride defaults to kernel_size; padding an int or
    (h, w) on both sides; ceil_mode, dilation, return_indices as PyTorch)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = F._pair(kernel_size, "MaxPool2d's kernel_size")
        self.stride = self.kernel_size if stride is None else F._pair(stride,
                                                                      "MaxPool2d's stride")
        self.padding = F._pair(padding, "MaxPool2d's padding")
        self.dilation = F._pair(dilation, "MaxPool2d's dilation")
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)

    def construct(self, input):
        return ops.max_pool2d(input, self.kernel_size, self.stride, self.padding,
                              self.dilation, self.return_indices, self.ceil_mode)


class AvgPool2d(Cell):
    """The mean over each window (stride defaults to kernel_size), as PyTorch."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = F._pair(kernel_size, "AvgPool2d's kernel_size")
        self.stride = self.kernel_size if stride is None else F._pair(stride,
                                                                      "AvgPool2d's stride")
        self.padding = F.pool_padding(padding, "AvgPool2d's padding")
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        self.divisor_override = divisor_override or 0

    def construct(self, input):
        return ops.avg_pool2d(input, self.kernel_size, self.stride, self.padding,
                              self.ceil_mode, self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool2d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return ops.adaptive_avg_pool2d(input, self.output_size)


class _BatchNorm(Cell):
    """Batch normalization over dim 1 with PyTorch's arguments and names: weight, bias
    (when affine), running_mean, running_var (when track_running_stats); momentum is
    the new batch's share: running = (1 - momentum) * running + momentum * batch (the
    unbiased variance for running_var). Training uses the batch's statistics, and so
    does inference without running statistics."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        layer = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int) or \
                num_features <= 0:
            raise TypeError(f"{layer}: num_features must be a positive int, got "
                            f"{num_features!r}")
        self.num_features, self.eps = num_features, float(eps)
        self.momentum = 0.1 if momentum is None else float(momentum)
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        dtype = float32 if dtype is None else dtype
        n = (num_features,)
        self.weight = Parameter(init.initializer("ones", n, dtype), name="weight",
                                requires_grad=self.affine)
        self.bias = Parameter(init.initializer("zeros", n, dtype), name="bias",
                              requires_grad=self.affine)
        if self.track_running_stats:
            self.running_mean = Parameter(init.initializer("zeros", n, dtype),
                                          name="running_mean", requires_grad=False)
            self.running_var = Parameter(init.initializer("ones", n, dtype),
                                         name="running_var", requires_grad=False)
        else:
            self.running_mean = self.running_var = None

    def construct(self, input):
        if input.ndim not in self._ranks:
            raise ValueError(f"{type(self).__name__}: expected a {' or '.join(map(str, self._ranks))}-D "
                             f"input, got {input.ndim}-D")
        if self.running_mean is None:
            c = self.num_features
            return ops.batch_norm(input, ops.zeros((c,), input.dtype),
                                  ops.ones((c,), input.dtype), self.weight, self.bias,
                                  True, self.momentum, self.eps)
        return ops.batch_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training, self.momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    _ranks = (5,)


class LayerNorm(Cell):
    """Normalize over the trailing normalized_shape dims; weight and bias (ones and zeros)
    when elementwise_affine (bias only when bias=True)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = float(eps)
        dtype = float32 if dtype is None else dtype
        self.weight = self.bias = None
        if elementwise_affine:
            self.weight = Parameter(init.initializer("ones", self.normalized_shape, dtype),
                                    name="weight")
            if bias:
                self.bias = Parameter(init.initializer("zeros", self.normalized_shape, dtype),
                                      name="bias")

    def construct(self, input):
        return ops.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class GroupNorm(Cell):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels {num_channels} must be divisible by "
                             f"num_groups {num_groups}")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, float(eps)
        dtype = float32 if dtype is None else dtype
        self.weight = Parameter(init.initializer("ones", (num_channels,), dtype), name="weight",
                                requires_grad=affine)
        self.bias = Parameter(init.initializer("zeros", (num_channels,), dtype), name="bias",
                              requires_grad=affine)

    def construct(self, input):
        return ops.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class CrossEntropyLoss(Cell):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def construct(self, input, target):
        return ops.cross_entropy(input, target, self.weight, self.ignore_index,
                                 self.reduction, self.label_smoothing)


class MSELoss(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, input, target):
        return ops.mse_loss(input, target, self.reduction)


class L1Loss(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, input, target):
        return ops.l1_loss(input, target, self.reduction)


# -- more of mint.nn ----------------------------------------------------------------------
class Embedding(Cell):
    """weight (num_embeddings, embedding_dim) drawn from N(0, 1), the padding_idx row
    zeros; construct gathers the rows of the indices."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, dtype=None):
        super().__init__()
        if max_norm is not None:
            raise NotImplementedError("mint.nn.Embedding: max_norm is not supported")
        dtype = float32 if dtype is None else dtype
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            data = init.initializer(init.Normal(1.0), (num_embeddings, embedding_dim),
                                    dtype).asnumpy()
            if padding_idx is not None:
                data[padding_idx] = 0
        else:
            data = _weight.asnumpy() if hasattr(_weight, "asnumpy") else _weight
        self.weight = Parameter(data, name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return F.embedding(input, self.weight, self.padding_idx)


class Softplus(Cell):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, input):
        return ops.softplus(input, self.beta, self.threshold)


class Hardtanh(Cell):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val = min_val, max_val

    def construct(self, input):
        return ops.hardtanh(input, self.min_val, self.max_val)


class PReLU(Cell):
    """x where x > 0, else weight * x; weight (num_parameters,), init 0.25."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        import numpy as np
        dtype = float32 if dtype is None else dtype
        self.weight = Parameter(np.full((num_parameters,), init, dtype.np), name="weight")

    def construct(self, input):
        if input.ndim < 2:
            return ops.where(input > 0, input, input * self.weight)
        return ops.prelu(input, self.weight)


class _Loss(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: reduction must be 'mean', 'sum' or "
                             f"'none', got {reduction!r}")
        self.reduction = reduction


class SmoothL1Loss(_Loss):
    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, input, target):
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class KLDivLoss(_Loss):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def construct(self, input, target):
        return F.kl_div(input, target, self.reduction, self.log_target)


__all__ += ["Embedding", "Softplus", "Hardtanh", "PReLU", "SmoothL1Loss", "BCEWithLogitsLoss",
            "NLLLoss", "KLDivLoss"]
