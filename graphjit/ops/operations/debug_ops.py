"""MindSpore's `mindspore.ops.operations.debug_ops`: Print."""
from __future__ import annotations

from ..primitive import Primitive
from ..function.debug_func import print_

__all__ = ["Print"]


class Print(Primitive):
    def __call__(self, *inputs):
        return print_(*inputs)
