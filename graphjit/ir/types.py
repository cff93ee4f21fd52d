"""Tensor types: a dtype and a shape whose dims, or whose rank, may be unknown.

A shape is a tuple of dims, each an int or None (an unknown dim, MindSpore's
`unknown_shape`), or None itself (an unknown rank, `unknown_rank`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .dtypes import DType

__all__ = ["TensorType", "Shape", "format_shape", "format_shape_ms", "is_static",
           "num_elements"]

Shape = Optional[Tuple[Optional[int], ...]]


def format_shape(shape: Shape) -> str:
    """`[2,?]`, `[]`, or `[*]` for an unknown rank: the printer's form."""
    if shape is None:
        return "[*]"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def format_shape_ms(shape: Shape) -> str:
    """MindSpore's form used in join messages: `()`, `(2)`, `(3, -1)`, `(-2)`."""
    if shape is None:
        return "(-2)"
    return "(" + ", ".join("-1" if d is None else str(d) for d in shape) + ")"


def is_static(shape: Shape) -> bool:
    return shape is not None and all(d is not None for d in shape)


def num_elements(shape: Shape) -> Optional[int]:
    if not is_static(shape):
        return None
    n = 1
    for d in shape:
        n *= d
    return n


@dataclass(frozen=True)
class TensorType:
    """The static type of a value: dtype plus shape (see the module docstring)."""

    dtype: DType
    shape: Shape

    def __post_init__(self):
        if self.shape is not None and not isinstance(self.shape, tuple):
            object.__setattr__(self, "shape", tuple(self.shape))

    @property
    def rank(self) -> Optional[int]:
        return None if self.shape is None else len(self.shape)

    def __str__(self) -> str:
        return self.dtype.short + format_shape(self.shape)

    def __repr__(self) -> str:
        return f"TensorType({self})"
