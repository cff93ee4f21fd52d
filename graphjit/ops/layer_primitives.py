"""Primitive classes of the layer and sorting operators, MindSpore style:
`ops.Conv2D(out_channel, kernel_size)(x, w)`, `ops.MaxPool(2, 2)(x)`,
`ops.TopK()(x, k)`, `ops.LayerNorm(1, 1)(x, gamma, beta)`, and `TensorAdd`, the old
name of `Add`."""
from __future__ import annotations

from ._dispatch import apply, to_tensor
from . import layer_ops as L
from . import sort_ops as S
from .primitives import Add, Primitive

__all__ = ["Conv2D", "MaxPool", "AvgPool", "BatchNorm", "LayerNorm", "Dropout", "TopK", "Sort",
           "Unique", "GatherD", "TensorAdd"]


class TensorAdd(Add):
    """TensorAdd()(x, y): MindSpore's old name of Add."""


class Conv2D(Primitive):
    """Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCHW')(x, weight): 2-D cross-correlation."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel=out_channel, kernel_size=kernel_size, mode=mode,
                         pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                         group=group, data_format=data_format)
        L.check_format(data_format, "Conv2D")
        if mode != 1:
            raise ValueError(f"Conv2D: mode must be 1 (cross-correlation), got {mode!r}")
        self.out_channel, self.group = out_channel, group
        self.kernel_size = L.pair(kernel_size, "Conv2D's kernel_size")
        self.pad_mode = L.pad_mode(pad_mode, "Conv2D")
        self.pad = L.pads(pad, "Conv2D's pad")
        if self.pad_mode != "pad" and any(self.pad):
            raise ValueError(f"Conv2D: pad {pad!r} needs pad_mode='pad'")
        self.stride = L.pair(stride, "Conv2D's stride")
        self.dilation = L.pair(dilation, "Conv2D's dilation")

    def __call__(self, x, weight):
        return apply("Conv2D", to_tensor(x), to_tensor(weight), out_channel=self.out_channel,
                     kernel_size=self.kernel_size, pad_mode=self.pad_mode, pad=self.pad,
                     stride=self.stride, dilation=self.dilation, group=self.group)


class _Pool(Primitive):
    _op = ""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        super().__init__(kernel_size=kernel_size, strides=strides, pad_mode=pad_mode,
                         data_format=data_format)
        L.check_format(data_format, self.name)
        self.kernel_size = L.pair(kernel_size, f"{self.name}'s kernel_size")
        self.strides = L.pair(strides, f"{self.name}'s strides")
        self.pad_mode = L.pad_mode(pad_mode, self.name)
        if self.pad_mode == "pad":
            raise ValueError(f"{self.name}: pad_mode must be 'valid' or 'same'")

    def __call__(self, x):
        return apply(self._op, to_tensor(x), kernel_size=self.kernel_size,
                     strides=self.strides, pad_mode=self.pad_mode)


class MaxPool(_Pool):
    """MaxPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x)."""

    _op = "MaxPool"


class AvgPool(_Pool):
    """AvgPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x); 'same'
    padding is not counted in the mean."""

    _op = "AvgPool"


class BatchNorm(Primitive):
    """BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')(x,
    scale, bias, mean, variance) -> (y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2). In training it normalizes with the batch statistics and updates
    mean and variance in place: new = (1 - momentum) * old + momentum * batch."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__(is_training=is_training, epsilon=epsilon, momentum=momentum,
                         data_format=data_format)
        L.check_format(data_format, "BatchNorm")
        self.is_training, self.epsilon, self.momentum = bool(is_training), epsilon, momentum

    def __call__(self, x, scale, bias, mean, variance):
        y, m, v = apply("BatchNorm", to_tensor(x), to_tensor(scale), to_tensor(bias),
                        to_tensor(mean), to_tensor(variance), is_training=self.is_training,
                        epsilon=float(self.epsilon))
        if self.is_training:
            L.update_running(mean, m, 1.0 - self.momentum)
            L.update_running(variance, v, 1.0 - self.momentum)
        return y, m, v, m, v


class LayerNorm(Primitive):
    """LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta) ->
    (y, mean, variance), normalizing over the axes from begin_norm_axis."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis,
                         epsilon=epsilon)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon

    def __call__(self, x, gamma, beta):
        return apply("LayerNorm", to_tensor(x), to_tensor(gamma), to_tensor(beta),
                     begin_norm_axis=self.begin_norm_axis,
                     begin_params_axis=self.begin_params_axis, epsilon=float(self.epsilon))


class Dropout(Primitive):
    """Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x) -> (output, mask): always drops (the
    primitive has no inference mode); a non-zero seed gives the op its own generator."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__(keep_prob=keep_prob, Seed0=Seed0, Seed1=Seed1)
        self.keep_prob = keep_prob
        self.seed = (Seed0 * 1000003 + Seed1) if (Seed0 or Seed1) else None

    def __call__(self, x):
        return L.apply_random("Dropout", to_tensor(x), keep_prob=float(self.keep_prob),
                              seed=self.seed)


class TopK(Primitive):
    """TopK(sorted=True)(input_x, k) -> (values, indices) along the last axis."""

    def __init__(self, sorted=True):
        super().__init__(sorted=sorted)
        self.sorted = sorted

    def __call__(self, input_x, k):
        return S.topk(input_x, k, None, True, self.sorted)


class Sort(Primitive):
    """Sort(axis=-1, descending=False)(x) -> (values, indices)."""

    def __init__(self, axis=-1, descending=False):
        super().__init__(axis=axis, descending=descending)
        self.axis, self.descending = axis, descending

    def __call__(self, x):
        return S.sort(x, self.axis, self.descending)


class Unique(Primitive):
    """Unique()(input_x) -> (y, idx); see ops.unique."""

    def __call__(self, input_x):
        return S.unique(input_x)


class GatherD(Primitive):
    """GatherD()(x, dim, index); see ops.gather_elements."""

    def __call__(self, x, dim, index):
        return S.gather_elements(x, dim, index)

