"""MindSpore's `mindspore.nn.layer.conv`: Conv2d, Conv1d, Conv2dTranspose and
Conv1dTranspose."""
from __future__ import annotations

import math

from ... import ops
from ...common import initializer as init
from ..._checkparam import _check_format, _positive_int, check_rank
from ...ir.dtypes import float32
from ..cell import Cell
from ...ops.function.layer_func import (add_channel_bias, pad_mode as _pad_mode, pads,
                                        pads as _pads, pair, transpose_conv_nchw)
from ...common.parameter import Parameter

__all__ = ["Conv2d", "Conv1d", "Conv1dTranspose", "Conv2dTranspose"]


def conv_channels(cell, in_channels, out_channels, group, layer) -> None:
    """Set a convolution layer's in_channels, out_channels and group, checked: positive
    ints, both channel counts divisible by group."""
    cell.in_channels = _positive_int(in_channels, "in_channels", layer)
    cell.out_channels = _positive_int(out_channels, "out_channels", layer)
    cell.group = _positive_int(group, "group", layer)
    if in_channels % group or out_channels % group:
        raise ValueError(f"{layer}: in_channels {in_channels} and out_channels "
                         f"{out_channels} must be divisible by group {group}")


# -- convolution ---------------------------------------------------------------------------------
class Conv2d(Cell):
    """2-D convolution over (N, C, H, W): weight (out_channels, in_channels / group, kh,
    kw), no bias unless has_bias. pad_mode 'same' (the default: output ceil(H / stride)),
    'valid' or 'pad' (`padding`: an int, (h, w) or (top, bottom, left, right)).

    weight_init defaults to HeUniform(sqrt(5)) and bias_init to U(-1/sqrt(fan_in),
    1/sqrt(fan_in)), as MindSpore; both accept what initializer() does.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=float32):
        super().__init__()
        _check_format(data_format, "Conv2d")
        conv_channels(self, in_channels, out_channels, group, "Conv2d")
        self.kernel_size = pair(kernel_size, "Conv2d's kernel_size")
        self.stride = pair(stride, "Conv2d's stride")
        self.dilation = pair(dilation, "Conv2d's dilation")
        self.pad_mode = pad_mode_ = _pad_mode(pad_mode, "Conv2d")
        self.padding = pads(padding, "Conv2d's padding")
        if pad_mode_ != "pad" and any(self.padding):
            raise ValueError(f"Conv2d: padding {padding!r} needs pad_mode='pad', got "
                             f"pad_mode={pad_mode!r}")
        shape = (out_channels, in_channels // group) + self.kernel_size
        if weight_init is None:
            weight_init = init.HeUniform(math.sqrt(5))
        self.weight = Parameter(init.initializer(weight_init, shape, dtype), name="weight")
        self.has_bias = bool(has_bias)
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                fan_in = (in_channels // group) * self.kernel_size[0] * self.kernel_size[1]
                bias_init = init.Uniform(1.0 / math.sqrt(fan_in))
            self.bias = Parameter(init.initializer(bias_init, (out_channels,), dtype),
                                  name="bias")
        self.conv2d = ops.Conv2D(out_channels, self.kernel_size, pad_mode=pad_mode_,
                                 pad=self.padding, stride=self.stride, dilation=self.dilation,
                                 group=group)

    def construct(self, x):
        out = self.conv2d(x, self.weight)
        if self.has_bias:
            out = add_channel_bias(out, self.bias)
        return out


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
