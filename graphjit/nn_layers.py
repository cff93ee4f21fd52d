"""The common layers MindSpore models build from: Conv2d, MaxPool2d, AvgPool2d,
BatchNorm1d/2d, LayerNorm and Embedding, with MindSpore 2.x signatures and defaults.

Each layer's `construct` is ordinary code over graphjit.ops, so it runs the same in
both modes; weights are Parameters drawn from the generator `ms.set_seed` seeds.
"""
from __future__ import annotations

import math

from . import initializer as init
from . import ops
from .ir.dtypes import float32, int32
from .nn import Cell
from .ops._dispatch import apply, to_tensor
from .ops.layer_ops import add_channel_bias, pair, pads
from .ops.layer_ops import pad_mode as _pad_mode
from .ops.primitives import Primitive
from .parameter import Parameter

__all__ = ["Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
           "Embedding", "HSwish", "HSigmoid", "Mish", "LogSigmoid", "Softsign", "SeLU", "CELU",
           "Hardtanh", "PReLU", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "ZeroPad2d",
           "ConstantPad2d", "Pad", "RNNCell", "GRUCell", "LSTMCell", "RNN", "GRU", "LSTM"]


def _positive_int(v, what, layer):
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise TypeError(f"{layer}: {what} must be a positive int, got {v!r}")
    return v


def conv_channels(cell, in_channels, out_channels, group, layer) -> None:
    """Set a convolution layer's in_channels, out_channels and group, checked: positive
    ints, both channel counts divisible by group."""
    cell.in_channels = _positive_int(in_channels, "in_channels", layer)
    cell.out_channels = _positive_int(out_channels, "out_channels", layer)
    cell.group = _positive_int(group, "group", layer)
    if in_channels % group or out_channels % group:
        raise ValueError(f"{layer}: in_channels {in_channels} and out_channels "
                         f"{out_channels} must be divisible by group {group}")


def _check_format(data_format, layer):
    if data_format != "NCHW":
        raise ValueError(f"{layer}: only data_format='NCHW' is supported, got {data_format!r}")


def check_rank(x, ranks, layer):
    """Refuse an input whose rank is not one of `ranks` (an unknown rank passes)."""
    r = to_tensor(x).type.rank
    if r is not None and r not in ranks:
        want = " or ".join(str(n) for n in ranks)
        raise ValueError(f"{layer} expects an input of rank {want}, got {to_tensor(x).type}")


class _Op(Primitive):
    """A registry op with fixed attributes, applied to tensors (a layer's kernel)."""

    def __init__(self, op, **attrs):
        super().__init__(op, **attrs)
        self.op, self.attrs = op, attrs

    def __call__(self, *inputs):
        return apply(self.op, *[to_tensor(x) for x in inputs], **self.attrs)

    def __repr__(self):
        return f"Prim[{self.op}]"


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


# -- pooling -------------------------------------------------------------------------------------
def _pool_padding(padding, layer):
    """nn pooling padding: an int, or (h, w) for top and bottom, left and right."""
    if isinstance(padding, (tuple, list)) and len(padding) == 4:
        return pads(padding, f"{layer}'s padding")
    p = pair(padding, f"{layer}'s padding")
    return (p[0], p[0], p[1], p[1])


class MaxPool2d(Cell):
    """The maximum over each window of (N, C, H, W) or (C, H, W). pad_mode 'valid' (the
    default), 'same', or 'pad' with `padding`; padding, dilation, ceil_mode and
    return_indices (the int64 index of each maximum in the flattened H * W input) work
    as in PyTorch."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__()
        _check_format(data_format, "MaxPool2d")
        mode = pad_mode_of(pad_mode, padding, "MaxPool2d")
        self.return_indices = bool(return_indices)
        self.pool = _Op("MaxPool", kernel_size=pair(kernel_size, "MaxPool2d's kernel_size"),
                        strides=pair(stride, "MaxPool2d's stride"), pad_mode=mode,
                        pad=_pool_padding(padding, "MaxPool2d"),
                        dilation=pair(dilation, "MaxPool2d's dilation"),
                        ceil_mode=bool(ceil_mode), return_indices=self.return_indices)

    def construct(self, x):
        check_rank(x, (3, 4), "MaxPool2d")
        return self.pool(x)


class AvgPool2d(Cell):
    """The mean over each window of (N, C, H, W) or (C, H, W). pad_mode 'valid' (the
    default), 'same' (padding not counted in the mean), or 'pad' with `padding`
    (counted when count_include_pad); divisor_override replaces the count."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__()
        _check_format(data_format, "AvgPool2d")
        mode = pad_mode_of(pad_mode, padding, "AvgPool2d")
        if divisor_override is not None and (not isinstance(divisor_override, int) or
                                             divisor_override <= 0):
            raise ValueError(f"AvgPool2d: divisor_override must be None or a positive int, "
                             f"got {divisor_override!r}")
        self.pool = _Op("AvgPool", kernel_size=pair(kernel_size, "AvgPool2d's kernel_size"),
                        strides=pair(stride, "AvgPool2d's stride"), pad_mode=mode,
                        pad=_pool_padding(padding, "AvgPool2d"), ceil_mode=bool(ceil_mode),
                        count_include_pad=bool(count_include_pad),
                        divisor_override=divisor_override or 0)

    def construct(self, x):
        check_rank(x, (3, 4), "AvgPool2d")
        return self.pool(x)


def pad_mode_of(mode, padding, layer):
    mode = _pad_mode(mode, layer)
    if mode != "pad" and padding not in (0, (0,), (0, 0), (0, 0, 0, 0), [0], [0, 0]):
        raise ValueError(f"{layer}: padding {padding!r} needs pad_mode='pad', got "
                         f"pad_mode={mode!r}")
    return mode


# -- normalization -------------------------------------------------------------------------------
class _BatchNorm(Cell):
    """Batch normalization over axis 1. Inference (set_train(False), the default) uses
    the moving statistics; training (set_train()) uses the batch's mean and biased
    variance and updates the moving ones: moving = moving * momentum + batch * (1 -
    momentum). use_batch_statistics True or False forces one or the other."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        layer = type(self).__name__
        _check_format(data_format, layer)
        self.num_features = _positive_int(num_features, "num_features", layer)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or \
                not 0 <= momentum <= 1:
            raise ValueError(f"{layer}: momentum must be in [0, 1], got {momentum!r}")
        if use_batch_statistics not in (None, True, False):
            raise ValueError(f"{layer}: use_batch_statistics must be None, True or False")
        self.eps, self.momentum = float(eps), float(momentum)
        self.use_batch_statistics = use_batch_statistics
        n = (num_features,)
        self.gamma = Parameter(init.initializer(gamma_init, n, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(init.initializer(beta_init, n, dtype), name="beta",
                              requires_grad=affine)
        self.moving_mean = Parameter(init.initializer(moving_mean_init, n, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(init.initializer(moving_var_init, n, dtype),
                                         name="variance", requires_grad=False)

    def construct(self, x):
        check_rank(x, self._ranks, type(self).__name__)
        training = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma,
                              self.beta, training, 1.0 - self.momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) over axis 1; see _BatchNorm."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) over axis 1; see _BatchNorm."""

    _ranks = (4,)


class LayerNorm(Cell):
    """Normalize over the axes from begin_norm_axis (mean and biased variance), then *
    gamma + beta, both of shape normalized_shape (the input's dims from
    begin_params_axis)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list of ints, got "
                            f"{normalized_shape!r}")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(init.initializer(gamma_init, self.normalized_shape, dtype),
                               name="gamma")
        self.beta = Parameter(init.initializer(beta_init, self.normalized_shape, dtype),
                              name="beta")
        self.layer_norm = ops.LayerNorm(begin_norm_axis, begin_params_axis, epsilon)

    def construct(self, x):
        y, _, _ = self.layer_norm(x, self.gamma, self.beta)
        return y


# -- embedding -----------------------------------------------------------------------------------
class Embedding(Cell):
    """Rows of the table (vocab_size, embedding_size) picked by integer ids: the output is
    the ids' shape plus embedding_size. The table starts as N(0, 0.01) ('normal') with
    row padding_idx zero; use_one_hot computes one_hot(ids) @ table instead of a gather
    (the same values)."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=int32, padding_idx=None):
        super().__init__()
        self.vocab_size = _positive_int(vocab_size, "vocab_size", "Embedding")
        self.embedding_size = _positive_int(embedding_size, "embedding_size", "Embedding")
        self.use_one_hot = bool(use_one_hot)
        table = init.initializer(embedding_table, (vocab_size, embedding_size), float32)
        if padding_idx is not None:
            if not isinstance(padding_idx, int) or not -vocab_size <= padding_idx < vocab_size:
                raise ValueError(f"Embedding: padding_idx must be an int in [-{vocab_size}, "
                                 f"{vocab_size}), got {padding_idx!r}")
            data = table.asnumpy().copy()
            data[padding_idx] = 0
            table = data
        self.padding_idx = padding_idx
        self.dtype = dtype
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if self.use_one_hot:
            hot = ops.one_hot(ids, self.vocab_size, 1.0, 0.0)
            return ops.matmul(hot, self.embedding_table)
        return ops.gather(self.embedding_table, ids, 0)


# -- more activations ------------------------------------------------------------------------
class _Fn(Cell):
    """An activation Cell that applies one ops function."""
    _fn = None

    def construct(self, x):
        return self._fn(x)


class HSwish(_Fn):
    """x * relu6(x + 3) / 6."""
    _fn = staticmethod(ops.hardswish)


class HSigmoid(_Fn):
    """relu6(x + 3) / 6."""
    _fn = staticmethod(ops.hardsigmoid)


class Mish(_Fn):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(ops.mish)


class LogSigmoid(_Fn):
    """log(sigmoid(x))."""
    _fn = staticmethod(ops.logsigmoid)


class Softsign(_Fn):
    """x / (1 + |x|)."""
    _fn = staticmethod(ops.softsign)


class SeLU(_Fn):
    """The scaled exponential linear unit."""
    _fn = staticmethod(ops.selu)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        super().__init__()
        if alpha == 0:
            raise ValueError("CELU: alpha cannot be 0")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.celu(x, self.alpha)


class Hardtanh(Cell):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must not exceed max_val {max_val}")
        self.min_val, self.max_val = min_val, max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class PReLU(Cell):
    """x where x > 0, else w * x, with a learned w per channel (channel=1: one for all),
    initialized to w (MindSpore's Parameter name 'a')."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        _positive_int(channel, "channel", "PReLU")
        if isinstance(w, (int, float)):
            data = [float(w)] * channel
        else:
            data = w
        self.w = Parameter(to_tensor(data, float32) if not isinstance(data, Parameter)
                           else data, name="a")
        if tuple(self.w.shape) != (channel,):
            raise ValueError(f"PReLU: w must have shape ({channel},), got {self.w.shape}")

    def construct(self, x):
        if x.ndim < 2:
            return ops.where(x > 0, x, x * self.w)
        return ops.prelu(x, self.w)


# -- adaptive pooling and padding ----------------------------------------------------------
class AdaptiveAvgPool2d(Cell):
    """Means over output_size windows of (N, C, H, W) or (C, H, W)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2d(Cell):
    """Maxima over output_size windows of (N, C, H, W) or (C, H, W)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if return_indices:
            raise ValueError("AdaptiveMaxPool2d: return_indices=True is not supported")
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_max_pool2d(x, self.output_size)


def _pad4(padding, layer):
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * 4
    if isinstance(padding, (tuple, list)) and len(padding) == 4 and all(
            isinstance(p, int) for p in padding):
        return tuple(padding)
    raise TypeError(f"{layer}: padding must be an int or (left, right, top, bottom), got "
                    f"{padding!r}")


class ConstantPad2d(Cell):
    """The last two dims padded with value: padding (left, right, top, bottom)."""

    def __init__(self, padding, value):
        super().__init__()
        self.padding = _pad4(padding, type(self).__name__)
        self.value = value

    def construct(self, x):
        return ops.pad(x, self.padding, "constant", self.value)


class ZeroPad2d(ConstantPad2d):
    """The last two dims padded with zeros: padding (left, right, top, bottom)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class Pad(Cell):
    """Pad(paddings, mode='CONSTANT'): paddings ((before, after), ...) from the first dim;
    mode 'CONSTANT' (zeros) or 'REFLECT'."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT"):
            raise ValueError(f"Pad: mode must be 'CONSTANT' or 'REFLECT', got {mode!r}")
        pairs = tuple(tuple(p) for p in paddings)
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"Pad: paddings must be pairs (before, after), got {paddings!r}")
        flat = ()
        for before, after in reversed(pairs):
            flat += (before, after)
        self.flat = flat
        self.mode = mode.lower()

    def construct(self, x):
        return ops.pad(x, self.flat, self.mode)


# -- recurrent layers ------------------------------------------------------------------------
# MindSpore's (and PyTorch's) layout: weight_ih (gates * hidden, input), weight_hh
# (gates * hidden, hidden), bias_ih and bias_hh (gates * hidden,), all drawn from
# U(-1/sqrt(hidden), 1/sqrt(hidden)); gate order (i, f, g, o) for LSTM, (r, z, n) for GRU.
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def _rnn_params(cell, suffix, input_size, hidden_size, gates, has_bias, dtype):
    u = init.Uniform(1.0 / math.sqrt(hidden_size))
    setattr(cell, "weight_ih" + suffix, Parameter(init.initializer(
        u, (gates * hidden_size, input_size), dtype), name="weight_ih" + suffix))
    setattr(cell, "weight_hh" + suffix, Parameter(init.initializer(
        u, (gates * hidden_size, hidden_size), dtype), name="weight_hh" + suffix))
    if has_bias:
        setattr(cell, "bias_ih" + suffix, Parameter(init.initializer(
            u, (gates * hidden_size,), dtype), name="bias_ih" + suffix))
        setattr(cell, "bias_hh" + suffix, Parameter(init.initializer(
            u, (gates * hidden_size,), dtype), name="bias_hh" + suffix))


def _affine(x, w, b):
    y = ops.matmul(x, ops.transpose(w, (1, 0)))
    return y if b is None else y + b


def _step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One time step: (h, c) from input x (B, I) and state h (B, H) (c for LSTM only)."""
    gi = _affine(x, w_ih, b_ih)
    gh = _affine(h, w_hh, b_hh)
    if mode == "LSTM":
        g = gi + gh
        i, f, u, o = ops.chunk(g, 4, 1)
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(u)
        return ops.sigmoid(o) * ops.tanh(c), c
    if mode == "GRU":
        i_r, i_z, i_n = ops.chunk(gi, 3, 1)
        h_r, h_z, h_n = ops.chunk(gh, 3, 1)
        r = ops.sigmoid(i_r + h_r)
        z = ops.sigmoid(i_z + h_z)
        n = ops.tanh(i_n + r * h_n)
        return n + z * (h - n), c
    pre = gi + gh
    return (ops.tanh(pre) if mode == "RNN_TANH" else ops.relu(pre)), c


class _RNNCellBase(Cell):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__()
        name = type(self).__name__
        self.input_size = _positive_int(input_size, "input_size", name)
        self.hidden_size = _positive_int(hidden_size, "hidden_size", name)
        self.has_bias = bool(has_bias)
        _rnn_params(self, "", input_size, hidden_size, _GATES[self._mode], has_bias, dtype)

    def _biases(self):
        if self.has_bias:
            return self.bias_ih, self.bias_hh
        return None, None

    def _zeros(self, x):
        return ops.zeros((x.shape[0], self.hidden_size), x.dtype)


class RNNCell(_RNNCellBase):
    """h' = tanh (or relu) of x W_ih^T + b_ih + h W_hh^T + b_hh; construct(x, hx=None)."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got "
                             f"{nonlinearity!r}")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        h = self._zeros(x) if hx is None else hx
        b_ih, b_hh = self._biases()
        out, _ = _step(self._mode, x, h, None, self.weight_ih, self.weight_hh, b_ih, b_hh)
        return out


class GRUCell(_RNNCellBase):
    """The GRU step (gates r, z, n); construct(x, hx=None) returns h'."""
    _mode = "GRU"

    def construct(self, x, hx=None):
        h = self._zeros(x) if hx is None else hx
        b_ih, b_hh = self._biases()
        out, _ = _step("GRU", x, h, None, self.weight_ih, self.weight_hh, b_ih, b_hh)
        return out


class LSTMCell(_RNNCellBase):
    """The LSTM step (gates i, f, g, o); construct(x, hx=None) with hx = (h, c) returns
    (h', c')."""
    _mode = "LSTM"

    def construct(self, x, hx=None):
        if hx is None:
            h, c = self._zeros(x), self._zeros(x)
        else:
            h, c = hx
        b_ih, b_hh = self._biases()
        return _step("LSTM", x, h, c, self.weight_ih, self.weight_hh, b_ih, b_hh)


class _RNNBase(Cell):
    """Multi-layer, optionally bidirectional recurrent layer over (T, B, I) or, with
    batch_first, (B, T, I). construct(x, hx=None, seq_length=None): hx is
    (num_layers * num_directions, B, H) (a pair (h0, c0) for LSTM); seq_length (B,) gives
    each sequence's valid length: outputs past it are zeros and the final state is the
    one at the last valid step (the reverse direction reads each sequence backwards from
    its last valid step). Returns (output, h_n), or (output, (h_n, c_n)) for LSTM."""
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=float32):
        super().__init__()
        name = type(self).__name__
        _positive_int(input_size, "input_size", name)
        _positive_int(hidden_size, "hidden_size", name)
        _positive_int(num_layers, "num_layers", name)
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"{name}: dropout must be in [0, 1), got {dropout!r}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first = bool(has_bias), bool(batch_first)
        self.bidirectional = bool(bidirectional)
        self.num_directions = 2 if bidirectional else 1
        self.dropout = float(dropout)
        gates = _GATES[self._mode]
        self.suffixes = []
        for layer in range(num_layers):
            size = input_size if layer == 0 else hidden_size * self.num_directions
            for d in range(self.num_directions):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                _rnn_params(self, suffix, size, hidden_size, gates, has_bias, dtype)
                self.suffixes.append(suffix)

    def _weights(self, suffix):
        b_ih = getattr(self, "bias_ih" + suffix) if self.has_bias else None
        b_hh = getattr(self, "bias_hh" + suffix) if self.has_bias else None
        return getattr(self, "weight_ih" + suffix), getattr(self, "weight_hh" + suffix), \
            b_ih, b_hh

    def _direction(self, xs, h, c, suffix, masks, reverse):
        """Run one direction over the time steps xs (a list of (B, I)); masks (a list of
        (B, 1) bools, or None) hold each step's validity."""
        w_ih, w_hh, b_ih, b_hh = self._weights(suffix)
        steps = list(range(len(xs)))
        if reverse:
            steps = steps[::-1]
        outs = [None] * len(xs)
        for t in steps:
            nh, nc = _step(self._mode, xs[t], h, c, w_ih, w_hh, b_ih, b_hh)
            if masks is None:
                h, c = nh, nc
                outs[t] = nh
            else:
                h = ops.where(masks[t], nh, h)
                if c is not None:
                    c = ops.where(masks[t], nc, c)
                outs[t] = ops.where(masks[t], nh, ops.zeros_like(nh))
        return outs, h, c

    def construct(self, x, hx=None, seq_length=None):
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        n_steps = x.shape[0]
        batch = x.shape[1]
        n_states = self.num_layers * self.num_directions
        lstm = self._mode == "LSTM"
        if hx is None:
            h0 = ops.zeros((n_states, batch, self.hidden_size), x.dtype)
            c0 = h0
        elif lstm:
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        masks = None
        if seq_length is not None:
            masks = [ops.expand_dims(ops.less(t, seq_length), -1) for t in range(n_steps)]
        xs = [x[t] for t in range(n_steps)]
        hs, cs = [], []
        k = 0
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                o, h, c = self._direction(xs, h0[k], c0[k] if lstm else None,
                                          self.suffixes[k], masks, d == 1)
                outs.append(o)
                hs.append(h)
                cs.append(c)
                k += 1
            if self.num_directions == 2:
                xs = [ops.concat((a, b), -1) for a, b in zip(outs[0], outs[1])]
            else:
                xs = outs[0]
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                xs = [ops.dropout(v, self.dropout) for v in xs]
        output = ops.stack(xs, 0)
        if self.batch_first:
            output = ops.transpose(output, (1, 0, 2))
        h_n = ops.stack(hs, 0)
        if lstm:
            return output, (h_n, ops.stack(cs, 0))
        return output, h_n


class RNN(_RNNBase):
    """The Elman RNN layer (nonlinearity 'tanh' or 'relu'); see _RNNBase."""

    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got "
                             f"{nonlinearity!r}")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(*args, **kwargs)


class GRU(_RNNBase):
    """The GRU layer; see _RNNBase."""
    _mode = "GRU"


class LSTM(_RNNBase):
    """The LSTM layer; see _RNNBase."""
    _mode = "LSTM"
