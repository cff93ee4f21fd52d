"""MindSpore's `mindspore.nn.layer.image`: PixelShuffle, PixelUnshuffle and CentralCrop
(UNet's skip connections in the model zoo)."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["PixelShuffle", "PixelUnshuffle", "CentralCrop"]


def _factor(v, name, layer):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"{layer}: {name} must be a positive int, got {v!r}")
    return v


class PixelShuffle(Cell):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r): each group of r * r channels laid
    out as an r x r block."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = _factor(upscale_factor, "upscale_factor", "PixelShuffle")

    def construct(self, input):
        r = self.upscale_factor
        shape = input.shape
        if len(shape) < 3:
            raise ValueError(f"PixelShuffle: the input must have at least 3 dims, got "
                             f"{len(shape)}")
        lead, (c, h, w) = tuple(shape[:-3]), shape[-3:]
        if c % (r * r):
            raise ValueError(f"PixelShuffle: channels {c} must be divisible by "
                             f"upscale_factor ** 2 = {r * r}")
        n = len(lead)
        x = ops.reshape(input, lead + (c // (r * r), r, r, h, w))
        x = ops.transpose(x, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
        return ops.reshape(x, lead + (c // (r * r), h * r, w * r))


class PixelUnshuffle(Cell):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W), the inverse of PixelShuffle."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = _factor(downscale_factor, "downscale_factor", "PixelUnshuffle")

    def construct(self, input):
        r = self.downscale_factor
        shape = input.shape
        if len(shape) < 3:
            raise ValueError(f"PixelUnshuffle: the input must have at least 3 dims, got "
                             f"{len(shape)}")
        lead, (c, h, w) = tuple(shape[:-3]), shape[-3:]
        if h % r or w % r:
            raise ValueError(f"PixelUnshuffle: height {h} and width {w} must be divisible by "
                             f"downscale_factor {r}")
        n = len(lead)
        x = ops.reshape(input, lead + (c, h // r, r, w // r, r))
        x = ops.transpose(x, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
        return ops.reshape(x, lead + (c * r * r, h // r, w // r))


def _bbox(shape, fraction):
    """(begin, size) of the central crop of a [C, H, W] or [N, C, H, W] shape, as
    MindSpore's _get_bbox computes them."""
    h, w = shape[-2], shape[-1]
    h0 = int((float(h) - float(h * fraction)) / 2)
    w0 = int((float(w) - float(w * fraction)) / 2)
    if len(shape) == 3:
        return (0, h0, w0), (shape[0], h - 2 * h0, w - 2 * w0)
    return (0, 0, h0, w0), (shape[0], shape[1], h - 2 * h0, w - 2 * w0)


class CentralCrop(Cell):
    """The central region of images ([C, H, W] or [N, C, H, W]): `central_fraction` of
    each of H and W, the margins rounded down as MindSpore rounds them.

    Raises:
        TypeError: central_fraction is not a float.
        ValueError: central_fraction is not in (0.0, 1.0].
    """

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"For 'CentralCrop', the type of 'central_fraction' must be float, "
                            f"but got {type(central_fraction).__name__}")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' must be in range "
                             f"(0.0, 1.0], but got {central_fraction}")
        self.central_fraction = central_fraction

    def construct(self, image):
        shape = ops.shape(image)
        if len(shape) not in (3, 4):
            raise ValueError(f"For 'CentralCrop', the rank of 'image' must be 3 or 4, but got "
                             f"{len(shape)}")
        if self.central_fraction == 1.0:
            return image
        begin, size = _bbox(shape, self.central_fraction)
        return ops.slice(image, begin, size)
