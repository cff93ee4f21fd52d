"""MindSpore's `mindspore.ops.composite.math_ops`: mm."""
from __future__ import annotations

from .._utils import _t
from ..function.math_func import matmul

__all__ = ["mm"]


def mm(input, mat2):
    """The matrix product of two 2-D tensors."""
    a, b = _t(input), _t(mat2)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"mm takes 2-D tensors, got ranks {a.ndim} and {b.ndim}")
    return matmul(a, b)
