"""MindSpore's `mindspore.ops.function.other_func`: depend; and addn (MindSpore keeps it
in math_func, which is full here)."""
from __future__ import annotations

from .._dispatch import to_tensor
from .math_func import add

__all__ = ["depend", "addn"]


def depend(value, expr):
    """`value`, after `expr` (graphs run in program order, so nothing to do)."""
    return value


def addn(x):
    """The elementwise sum of the tensors in the tuple or list `x` (ops.AddN()(x))."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'AddN', the input must be a tuple or list of Tensors, but got "
                        f"{type(x).__name__}")
    if not x:
        raise ValueError("For 'AddN', the input must hold at least one Tensor")
    out = x[0]
    for t in x[1:]:
        out = add(out, t)
    return to_tensor(out)
