"""MindSpore's `mindspore.nn.layer.pooling`: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d and
AdaptiveMaxPool2d."""
from __future__ import annotations

from ... import ops
from ..._checkparam import _check_format, check_rank
from ..cell import Cell
from ...ops._dispatch import apply, to_tensor
from ...ops.function.layer_func import pad_mode as _pad_mode, pads, pair
from ...ops.primitive import Primitive

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d",
           "AvgPool1d"]


class _Op(Primitive):
    """A registry op with fixed attributes, applied to tensors (a layer's kernel)."""

    def __init__(self, op, **attrs):
        super().__init__(op, **attrs)
        self.op, self.attrs = op, attrs

    def __call__(self, *inputs):
        return apply(self.op, *[to_tensor(x) for x in inputs], **self.attrs)

    def __repr__(self):
        return f"Prim[{self.op}]"


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


class _Pool1d(Cell):
    _op = None

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid"):
        super().__init__()
        layer = type(self).__name__
        for what, v in (("kernel_size", kernel_size), ("stride", stride)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise TypeError(f"{layer}: {what} must be a positive int, got {v!r}")
        self.pool = self._op(kernel_size=(1, kernel_size), stride=(1, stride),
                             pad_mode=pad_mode)

    def construct(self, x):
        check_rank(x, (3,), type(self).__name__)
        return ops.squeeze(self.pool(ops.expand_dims(x, 2)), 2)


class MaxPool1d(_Pool1d):
    """Max pooling over the last dim of (N, C, L)."""

    _op = MaxPool2d


class AvgPool1d(_Pool1d):
    """Average pooling over the last dim of (N, C, L)."""

    _op = AvgPool2d
