"""ShapeJoin and type join: the rules by which two types become one.

The four rules are MindSpore's (seed 002, "ShapeJoin Rules"):
1. same rank, dims equal;  2. same rank, a dim unknown on either side gives an
unknown dim;  3. an unknown rank on either side gives an unknown rank;  4. ranks
differ: the common prefix is equal or unknown on both sides, the extra dims of the
longer shape are all unknown; the result is an unknown rank.
"""
from __future__ import annotations

from .errors import ShapeJoinError, TypeJoinError
from .types import Shape, TensorType, format_shape_ms

__all__ = ["join_shapes", "join_types", "shape_join_message"]


def shape_join_message(s1: Shape, s2: Shape) -> str:
    return (f"Cannot join the return values of different branches, perhaps you need to "
            f"make them equal.\nShape Join Failed: shape1 = {format_shape_ms(s1)}, "
            f"shape2 = {format_shape_ms(s2)}.")


def _fail(s1: Shape, s2: Shape, why: str) -> ShapeJoinError:
    err = ShapeJoinError(shape_join_message(s1, s2), detail=why)
    err.shapes = (s1, s2)
    err.rule = why
    return err


def join_shapes(s1: Shape, s2: Shape) -> Shape:
    """The ShapeJoin of two shapes.

    Raises:
        ShapeJoinError: no rule applies; `detail` says which dims clash and why.
    """
    if s1 is None or s2 is None:                       # rule 3
        return None
    if len(s1) == len(s2):                             # rules 1 and 2
        out = []
        for i, (a, b) in enumerate(zip(s1, s2)):
            if a is None or b is None:
                out.append(None)
            elif a == b:
                out.append(a)
            else:
                raise _fail(s1, s2, f"rule 1 failed: dim {i} is {a} on one side and {b} on "
                                    f"the other (ShapeJoin never makes a known dim unknown)")
        return tuple(out)
    short, long_ = (s1, s2) if len(s1) < len(s2) else (s2, s1)   # rule 4
    for i, (a, b) in enumerate(zip(short, long_)):
        if not (a == b or (a is None and b is None)):
            raise _fail(s1, s2, f"rule 4 failed: the ranks differ ({len(s1)} and {len(s2)}) "
                                f"and dim {i} is {_d(a)} against {_d(b)}; it must be equal, "
                                f"or unknown on both sides")
    for i in range(len(short), len(long_)):
        if long_[i] is not None:
            raise _fail(s1, s2, f"rule 4 failed: the ranks differ ({len(s1)} and {len(s2)}) "
                                f"and dim {i} of the longer shape is {long_[i]}; the extra "
                                f"dims must be unknown")
    return None


def _d(x) -> str:
    return "unknown" if x is None else str(x)


def join_types(t1: TensorType, t2: TensorType) -> TensorType:
    """Join two tensor types: equal dtypes and the ShapeJoin of the shapes (and one
    kind: a ref or the state token joins only with its own kind).

    Raises:
        TypeJoinError: the dtypes or kinds differ.
        ShapeJoinError: the shapes do not join.
    """
    if t1.kind != t2.kind:
        err = TypeJoinError(
            f"Cannot join a {t1.kind} ({t1}) with a {t2.kind} ({t2}): state values (refs to "
            f"Parameters and the state token) join only with their own kind")
        err.dtypes = (t1.dtype, t2.dtype)
        raise err
    if t1.dtype is not t2.dtype:
        err = TypeJoinError(
            f"Cannot join the return values of different branches, perhaps you need to make "
            f"them equal.\nType Join Failed: dtype1 = {t1.dtype}, dtype2 = {t2.dtype}.")
        err.dtypes = (t1.dtype, t2.dtype)
        raise err
    if t1.shape == t2.shape:
        return t1
    return TensorType(t1.dtype, join_shapes(t1.shape, t2.shape), t1.kind)
