"""MindSpore's `mindspore.ops.deprecated`: the 1.x primitive names TensorAdd (Add), Pack
(Stack), GatherV2 (Gather) and DynamicShape (TensorShape)."""
from __future__ import annotations

from .operations.array_ops import Gather, Stack, TensorShape
from .operations.math_ops import Add

__all__ = ["TensorAdd", "Pack", "GatherV2", "DynamicShape"]


class TensorAdd(Add):
    """TensorAdd()(x, y): MindSpore's old name of Add."""


Pack = Stack            # MindSpore 1.x names of Stack and Gather


GatherV2 = Gather

DynamicShape = TensorShape   # MindSpore 1.x name of TensorShape
