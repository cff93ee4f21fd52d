"""Small functional helpers of MindSpore's `ops.functional` on Python values known while
building: tuple_div (of shapes) and typeof (with TensorType)."""
from __future__ import annotations

import numpy as np

from ...common.tensor import TensorLike
from ...ir import dtypes as dt

__all__ = ["tuple_div", "typeof", "TensorType"]


def tuple_div(x, y):
    """Element-wise division of two tuples of ints of one length, each item divisible
    (MindSpore's F.tuple_div, used on shapes)."""
    if not (isinstance(x, tuple) and isinstance(y, tuple)):
        raise TypeError(f"tuple_div takes two tuples, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if len(x) != len(y):
        raise ValueError(f"The size of inputs of 'tuple_div' operator must be the same, but "
                         f"the size of divisor tuple is {len(y)}, the size of dividend tuple "
                         f"is {len(x)}.")
    out = []
    for i, (a, b) in enumerate(zip(x, y)):
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (a, b)):
            raise TypeError(f"The data type of inputs of 'tuple_div' operator should be an "
                            f"int64 number, but got {a!r} / {b!r} (item {i}).")
        if b == 0:
            raise ValueError(f"The divisor value should not be 0! (item {i})")
        if a % b:
            raise ValueError(f"The inputs of 'tuple_div' operator should be divisible, but "
                             f"they are not divisible now, the dividend is {a}, the divisor "
                             f"is {b} (item {i}).")
        out.append(int(a) // int(b))
    return tuple(out)


class TensorType:
    """The type of a tensor: its element dtype (MindSpore's mstype.TensorType)."""

    def __init__(self, element: dt.DType):
        self._element = element

    def element_type(self) -> dt.DType:
        return self._element

    def __eq__(self, other):
        return isinstance(other, TensorType) and other._element is self._element

    def __hash__(self):
        return hash(("TensorType", self._element))

    def __repr__(self):
        return f"Tensor[{self._element.name.capitalize()}]"

    __str__ = __repr__


def typeof(*args):
    """The type of x, known while building: a TensorType for a tensor (its dtype
    inside), the dtype of a Python number (int64, float32, bool), else its Python type
    (MindSpore's F.typeof)."""
    if len(args) != 1:
        raise TypeError(f"The Typeof operator must requires 1 argument, but the size of "
                        f"arguments is {len(args)}.")
    (x,) = args
    if isinstance(x, TensorLike):
        if getattr(x, "weak", False):
            return {"b": dt.bool_, "i": dt.int64, "u": dt.int64}.get(x.dtype.kind,
                                                                      dt.float32)
        return TensorType(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return dt.bool_
    if isinstance(x, (int, np.integer)):
        return dt.int64
    if isinstance(x, (float, np.floating)):
        return dt.float32
    return type(x)
