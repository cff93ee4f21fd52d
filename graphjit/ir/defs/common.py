"""Helpers shared by the op definitions: promotion, broadcasting, axis checks."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..dtypes import DType, float32, from_numpy
from ..errors import ShapeInferenceError
from ..types import Shape, TensorType, format_shape

__all__ = ["promote", "promote_all", "float_result", "broadcast_shapes", "unify_shapes",
           "norm_axis", "norm_axes", "fail", "same_type"]


def fail(op: str, msg: str, hint: str = "") -> ShapeInferenceError:
    """The error of an op whose inputs do not fit it: "Op: what is wrong", and a fix."""
    return ShapeInferenceError(f"{op}: {msg}", hint=hint)


def promote(a: DType, b: DType) -> DType:
    """Tensor-with-tensor promotion (MindSpore, PyTorch and JAX agree): when exactly
    one side is floating the result is that side's dtype; otherwise numpy's rule."""
    if a is b:
        return a
    if a.is_floating != b.is_floating:
        return a if a.is_floating else b
    return from_numpy(np.promote_types(a.np, b.np))


def promote_all(dtypes: Sequence[DType]) -> DType:
    out = dtypes[0]
    for d in dtypes[1:]:
        out = promote(out, d)
    return out


def float_result(d: DType) -> DType:
    """What a float-valued op (exp, /, mean) gives for dtype d: float32 for non-floats."""
    return d if d.is_floating else float32


def broadcast_shapes(op: str, *shapes: Shape) -> Shape:
    """numpy broadcasting over shapes with unknown dims (None) and unknown ranks."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise fail(op, "shapes " + " and ".join(format_shape(s) for s in shapes)
                       + f" do not broadcast (dim {i - rank} is " + " vs ".join(
                           str(d) for d in sorted(known)) + ")",
                       hint="each dim must be equal on both sides or 1 on one of them; "
                            "reshape or expand_dims one operand so the dims line up")
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def norm_axis(op: str, axis: int, rank: Optional[int], extra: int = 0) -> int:
    """A non-negative axis for a tensor of this rank (`extra` widens the range, as
    ExpandDims and Stack need); with an unknown rank a negative axis stays negative."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise fail(op, f"axis must be an int, got {axis!r}")
    axis = int(axis)
    if rank is None:
        return axis
    n = rank + extra
    if n == 0:
        raise fail(op, f"axis {axis} is out of range: a tensor of rank 0 has no axes")
    if not -n <= axis < n:
        raise fail(op, f"axis {axis} is out of range for a tensor of rank {rank} "
                       f"(valid: {-n} to {n - 1})")
    return axis % n


def unify_shapes(op: str, shapes: Sequence[Shape], what: str = "inputs") -> Shape:
    """The one shape several values must share, as precise as any of them says: an
    unknown dim (or rank) on one side takes the other side's value. Unlike ShapeJoin
    (join.py), which widens, this narrows; it fails when two known dims differ."""
    out: Shape = None
    for s in shapes:
        if s is None:
            continue
        if out is None:
            out = tuple(s)
            continue
        if len(s) != len(out):
            raise fail(op, f"{what} must have one shape, got "
                       + ", ".join(format_shape(x) for x in shapes))
        merged = []
        for i, (a, b) in enumerate(zip(out, s)):
            if a is not None and b is not None and a != b:
                raise fail(op, f"{what} must have one shape, got "
                           + ", ".join(format_shape(x) for x in shapes)
                           + f" (dim {i} is {a} vs {b})")
            merged.append(a if a is not None else b)
        out = tuple(merged)
    return out


def norm_axes(op: str, axis, rank: Optional[int]):
    """None (all axes), or a sorted tuple of non-negative axes; None rank keeps input."""
    if axis is None or axis == ():
        return None
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axes = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise fail(op, f"axis must be an int, a tuple of ints or None, got {axis!r}")
    if rank is None:
        return tuple(norm_axis(op, a, None) for a in axes)
    out = tuple(sorted({norm_axis(op, a, rank) for a in axes}))
    if len(out) != len(axes):
        raise fail(op, f"axis {axis} names a dim twice")
    return out


def same_type(t: TensorType, dtype: DType = None, shape: Shape = ...) -> TensorType:
    return TensorType(t.dtype if dtype is None else dtype, t.shape if shape is ... else shape)
