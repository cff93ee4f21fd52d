"""MindSpore's `mindspore.nn.layer.image`: PixelShuffle and PixelUnshuffle."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["PixelShuffle", "PixelUnshuffle"]


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
