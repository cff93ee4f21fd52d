"""Private argument helpers of the operator functions (MindSpore's `ops/_utils`): Python ints
and int tuples known while the graph is built, axes, known shapes and ranks, constants."""
from __future__ import annotations

import builtins
import numpy as np

from ._dispatch import is_weak, to_tensor, weak_dtype, weak_kind
from ..common.tensor import Tensor, TensorLike
from ..ir.defs.common import promote

__all__ = []


def _t(x):
    return to_tensor(x)


def _int(x, what):
    if isinstance(x, TensorLike):
        raise TypeError(f"{what} must be a Python int known while the graph is built, not a "
                        f"tensor")
    if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
        raise TypeError(f"{what} must be an int, got {x!r}")
    return int(x)


def _int_tuple(shape, what):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, TensorLike):
        raise TypeError(f"{what} must be Python ints known while the graph is built, not a "
                        f"tensor")
    try:
        out = tuple(shape)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}") from None
    return tuple(_int(d, what) for d in out)


def _axes(axis, what):
    return None if axis is None else (
        _int(axis, what) if not isinstance(axis, (tuple, list)) else _int_tuple(axis, what))


def _known_shape(x, what):
    s = x.shape
    if not isinstance(s, tuple) or not builtins.all(isinstance(d, int) for d in s):
        raise TypeError(f"{what} needs a tensor whose shape is known while the graph is "
                        f"built")
    return s


def _axis_of(axis, rank, what):
    a = _int(axis, what)
    if not -rank <= a < rank:
        raise ValueError(f"{what}: axis {a} is out of range for a tensor of rank {rank}")
    return a % rank


def _const(a):
    return Tensor._wrap(np.asarray(a))


def _shape(x, what):
    s = x.shape
    if not isinstance(s, tuple) or not builtins.all(isinstance(d, int) for d in s):
        raise TypeError(f"{what} needs a tensor whose shape is known while the graph is "
                        f"built, got shape {s}")
    return s


def _rank(x, what):
    r = x.ndim
    if not isinstance(r, int):
        raise TypeError(f"{what} needs a tensor of known rank")
    return r


def _pair(x, y):
    """Two operands as tensors of one dtype, weak Python scalars promoting as in binary."""
    if is_weak(x) and not is_weak(y):
        y = _t(y)
        x = to_tensor(x, weak_dtype(weak_kind(x), y.dtype))
    elif is_weak(y) and not is_weak(x):
        x = _t(x)
        y = to_tensor(y, weak_dtype(weak_kind(y), x.dtype))
    x, y = _t(x), _t(y)
    if x.dtype is not y.dtype:
        d = promote(x.dtype, y.dtype)
        x, y = to_tensor(x, d), to_tensor(y, d)
    return x, y
