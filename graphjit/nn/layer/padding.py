"""MindSpore's `mindspore.nn.layer.padding`: ConstantPad2d, ZeroPad2d, ReflectionPad1d and
ReflectionPad2d."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["ZeroPad2d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d"]


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


class ReflectionPad2d(Cell):
    """Reflection padding of the last two dims: padding an int or (left, right, top,
    bottom)."""

    def __init__(self, padding):
        super().__init__()
        p = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
        if len(p) != 4 or not all(isinstance(v, int) and v >= 0 for v in p):
            raise ValueError(f"ReflectionPad2d: padding must be an int or 4 non-negative "
                             f"ints, got {padding!r}")
        self.padding = p

    def construct(self, x):
        return ops.pad(x, self.padding, "reflect")


class ReflectionPad1d(Cell):
    """Reflection padding of the last dim: padding an int or (left, right)."""

    def __init__(self, padding):
        super().__init__()
        p = (padding,) * 2 if isinstance(padding, int) else tuple(padding)
        if len(p) != 2 or not all(isinstance(v, int) and v >= 0 for v in p):
            raise ValueError(f"ReflectionPad1d: padding must be an int or 2 non-negative "
                             f"ints, got {padding!r}")
        self.padding = p

    def construct(self, x):
        return ops.pad(x, self.padding, "reflect")
