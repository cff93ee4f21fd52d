"""Tensor types: a dtype and a shape whose dims, or whose rank, may be unknown.

A shape is a tuple of dims, each an int or None (an unknown dim, MindSpore's
`unknown_shape`), or None itself (an unknown rank, `unknown_rank`).

Besides tensors, a graph has two kinds of state values (graphjit.ir.defs.state):
a ref (`ref<f32[3,4]>`, a Parameter the graph reads and updates when it runs; only
state ops take one) and the state token (`state`, threaded through every state op
in program order, so the order of reads and updates is data flow).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .dtypes import DType

__all__ = ["TensorType", "Shape", "format_shape", "format_shape_ms", "is_static",
           "num_elements", "KINDS", "STATE", "ref_type"]

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


# what a value is: a tensor, a ref to a Parameter (its dtype and shape are the
# Parameter's), or the state token
KINDS = ("tensor", "ref", "state")


@dataclass(frozen=True)
class TensorType:
    """The static type of a value: dtype plus shape, and its kind (see the module
    docstring); two types are equal only if their kinds are."""

    dtype: DType
    shape: Shape
    kind: str = "tensor"

    def __post_init__(self):
        if self.shape is not None and not isinstance(self.shape, tuple):
            object.__setattr__(self, "shape", tuple(self.shape))
        if self.kind not in KINDS:
            raise ValueError(f"a type's kind is one of {KINDS}, got {self.kind!r}")

    @property
    def rank(self) -> Optional[int]:
        return None if self.shape is None else len(self.shape)

    @property
    def is_tensor(self) -> bool:
        return self.kind == "tensor"

    def value_type(self) -> "TensorType":
        """The type of what a ref holds (a tensor type is its own)."""
        return self if self.kind == "tensor" else TensorType(self.dtype, self.shape)

    def __str__(self) -> str:
        if self.kind == "state":
            return "state"
        text = self.dtype.short + format_shape(self.shape)
        return f"ref<{text}>" if self.kind == "ref" else text

    def __repr__(self) -> str:
        return f"TensorType({self})"


def ref_type(t: TensorType) -> TensorType:
    """The type of a ref to a Parameter whose value has type t."""
    return TensorType(t.dtype, t.shape, "ref")


def _state_type() -> TensorType:
    from .dtypes import bool_
    return TensorType(bool_, (), "state")


STATE = _state_type()   # the state token's type
