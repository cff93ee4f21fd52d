"""MindSpore's `mindspore.nn.layer.basic`: Dense, Flatten, Identity, Dropout, Pad and
Upsample."""
from __future__ import annotations

import math

import numpy as np

from ... import ops
from ...common import initializer as init
from ...ir.dtypes import float32
from ..cell import Cell
from .activation import get_activation
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..._checkparam import check_rank

__all__ = ["Flatten", "Identity", "Dropout", "Dense", "Pad", "Upsample", "ResizeBilinear"]


class Flatten(Cell):
    """Merge every dim after the first (works with an unknown batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    def construct(self, x):
        return x


class Dropout(Cell):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) while the
    Cell is training (set_train()); the identity otherwise. The masks come from the
    generator `ms.set_seed` seeds, drawn when the program runs, in both modes."""

    def __init__(self, keep_prob=None, p=None, dtype=None):
        super().__init__()
        if p is None:
            p = 0.5 if keep_prob is None else 1.0 - keep_prob
        if not 0.0 <= p < 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return ops.dropout(x, self.p, True)


class Dense(Cell):
    """Fully connected layer: activation(x @ weight.T + bias), weight of shape
    (out_channels, in_channels).

    weight_init and bias_init take a Tensor or numpy array, a number, an initializer
    name ('normal', 'uniform', 'zeros', 'ones', 'he_uniform', 'xavier_uniform') or an
    Initializer; by default weight is HeUniform(sqrt(5)) and bias U(-1/sqrt(in),
    1/sqrt(in)), as MindSpore, drawn from the generator `ms.set_seed` seeds. Both are
    Parameters named "weight" and "bias".
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=float32):
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise TypeError(f"Dense: {name} must be a positive int, got {v!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        if weight_init is None:
            weight_init = init.HeUniform(math.sqrt(5))
        self.weight = Parameter(init.initializer(weight_init, (out_channels, in_channels),
                                                 dtype), name="weight")
        self.has_bias = bool(has_bias)
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                bias_init = init.Uniform(1.0 / math.sqrt(in_channels))
            self.bias = Parameter(init.initializer(bias_init, (out_channels,), dtype),
                                  name="bias")
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, x):
        out = self.matmul(x, self.weight)
        if self.has_bias:
            out = out + self.bias
        if self.activation is not None:
            out = self.activation(out)
        return out


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


class ResizeBilinear(Cell):
    """MindSpore's nn.ResizeBilinear(half_pixel_centers=False): construct(x, size=None,
    scale_factor=None, align_corners=False) resizes (N, C, H, W) bilinearly. Without
    align_corners or half_pixel_centers the source of output pixel d is d * in / out
    (MindSpore's asymmetric mapping, not interpolate's half-pixel one)."""

    def __init__(self, half_pixel_centers=False):
        super().__init__()
        self.half_pixel_centers = bool(half_pixel_centers)

    def construct(self, x, size=None, scale_factor=None, align_corners=False):
        return _resize_bilinear(x, size, scale_factor, align_corners, self.half_pixel_centers)


def _resize_bilinear(x, size, scale_factor, align_corners, half_pixel):
    if align_corners and half_pixel:
        raise ValueError("ResizeBilinear: align_corners and half_pixel_centers can not both "
                         "be True")
    check_rank(x, (4,), "ResizeBilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("ResizeBilinear: give exactly one of size and scale_factor")
    h, w = x.shape[2], x.shape[3]
    if not isinstance(h, int) or not isinstance(w, int):
        raise TypeError("ResizeBilinear needs spatial dims known while the graph is built")
    if size is None:
        if not isinstance(scale_factor, int) or isinstance(scale_factor, bool):
            raise TypeError(f"ResizeBilinear: scale_factor must be an int, got "
                            f"{scale_factor!r}")
        size = (h * scale_factor, w * scale_factor)
    size = tuple(size)
    if len(size) != 2 or not all(isinstance(s, int) and s > 0 for s in size):
        raise ValueError(f"ResizeBilinear: size must be two positive ints, got {size!r}")
    if align_corners or half_pixel:
        return ops.interpolate(x, size=size, mode="bilinear", align_corners=align_corners)
    out = x
    for axis, n_in, n_out in ((2, h, size[0]), (3, w, size[1])):
        src = np.arange(n_out, dtype=np.float32) * np.float32(n_in / n_out)
        i0 = np.minimum(np.floor(src).astype(np.int32), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        shape = [1, 1, 1, 1]
        shape[axis] = n_out
        wt = Tensor((src - i0).reshape(shape).astype(out.dtype.np))
        lo = ops.gather(out, Tensor(i0), axis)
        hi = ops.gather(out, Tensor(i1), axis)
        out = lo + (hi - lo) * wt
    return out


# -- more of MindSpore 2.10's basic layers --------------------------------------------------
class OneHot(Cell):
    """One-hot vectors of `depth` along `axis` (on_value / off_value, of dtype) for integer
    indices; MindSpore's nn.OneHot."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32):
        super().__init__()
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"OneHot: depth must be a non-negative int, got {depth!r}")
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value = Tensor(np.asarray(on_value, dtype.np))
        self.off_value = Tensor(np.asarray(off_value, dtype.np))

    def construct(self, indices):
        return ops.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)


class _ChannelDropout(Cell):
    """Zero whole channels (dim 1) with probability p while training, scaling the rest by
    1 / (1 - p); the masks are drawn as Dropout's (ms.set_seed), in both modes."""

    _ranks = ()

    def __init__(self, p=0.5):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: p must be a float in [0, 1], got {p!r}")
        self.p = float(p)

    def construct(self, x):
        check_rank(x, self._ranks, type(self).__name__)
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return ops.zeros_like(x)
        if x.ndim == self._ranks[-1]:
            shape = x.shape[:2] + (1,) * (x.ndim - 2)
        else:                                   # no batch dim: (C, ...)
            shape = x.shape[:1] + (1,) * (x.ndim - 1)
        mask = ops.dropout(ops.ones(shape, x.dtype), self.p, True)
        return x * mask


class Dropout1d(_ChannelDropout):
    """Channel dropout of (N, C, L) or (C, L)."""
    _ranks = (2, 3)


class Dropout2d(_ChannelDropout):
    """Channel dropout of (N, C, H, W)."""
    _ranks = (4,)


class Dropout3d(_ChannelDropout):
    """Channel dropout of (N, C, D, H, W)."""
    _ranks = (5,)


class Roll(Cell):
    """Elements shifted along axis by shift (wrapping around); several axes at once with
    tuples."""

    def __init__(self, shift, axis):
        super().__init__()
        self.shift = tuple(shift) if isinstance(shift, (list, tuple)) else shift
        self.axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis

    def construct(self, input_x):
        return ops.roll(input_x, self.shift, self.axis)


__all__ += ["OneHot", "Dropout1d", "Dropout2d", "Dropout3d", "Roll"]
