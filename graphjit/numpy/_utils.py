"""What every graphjit.numpy function shares: dtype names as MindSpore's numpy module
reads them ('int' is int32, 'float' float32), Python scalars and lists as int32/float32
tensors, and axis checks."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as dt
from ..common.tensor import Tensor, TensorLike

__all__ = ["check_dtype", "to_tensor", "const_array", "scalar_dtype", "is_tensor",
           "normalize_axis", "check_shape"]

# mindspore/numpy/dtypes.py maps Python's int and float to 32 bits (int_ = int32).
_NAMES = {"int": dt.int32, "int_": dt.int32, "float": dt.float32, "float_": dt.float32,
          "bool": dt.bool_, "bool_": dt.bool_}
_ARRAY_LIKE = (int, float, bool, list, tuple, np.ndarray, np.number, np.bool_)


def check_dtype(dtype):
    """A DType from a DType, a name ('int32', 'float') or a numpy/Python type."""
    if isinstance(dtype, dt.DType):
        return dtype
    if isinstance(dtype, str) and dtype in _NAMES:
        return _NAMES[dtype]
    if dtype is int:
        return dt.int32
    if dtype is float:
        return dt.float32
    try:
        return dt.as_dtype(dtype)
    except TypeError:
        pass
    try:
        return dt.from_numpy(np.dtype(dtype))
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"mindspore.numpy: {dtype!r} is not a dtype; use one of "
                        f"{', '.join(d.name for d in dt.ALL_DTYPES)}") from None


def is_tensor(x) -> bool:
    return isinstance(x, TensorLike)


def scalar_dtype(*numbers):
    """The dtype MindSpore's numpy gives Python numbers: bool if all are bool, int32 if
    all are ints, float32 otherwise (None entries are skipped)."""
    nums = [n for n in numbers if n is not None]
    if all(isinstance(n, (bool, np.bool_)) for n in nums):
        return dt.bool_
    if all(isinstance(n, (int, np.integer)) for n in nums):
        return dt.int32
    return dt.float32


def const_array(a, dtype=None) -> Tensor:
    """An eager Tensor from a Python number, nested list/tuple or numpy array: Python
    data takes numpy's kind at 32 bits (float64 -> float32, int64 -> int32); a numpy
    array keeps its dtype."""
    if isinstance(a, (list, tuple)):
        if any(isinstance(x, TensorLike) and not isinstance(x, Tensor) for x in a):
            raise TypeError("mindspore.numpy: a list holding graph values is not array "
                            "data known while the graph is built; use mnp.stack")
        a = [x.asnumpy() if isinstance(x, Tensor) else x for x in a]
        try:
            arr = np.asarray(a)
        except ValueError:
            arr = np.asarray(None, dtype=object)
        if arr.dtype == object:
            raise ValueError("Input array must have the same size across all dimensions.")
        if dtype is None:
            dtype = {"f": dt.float32, "i": dt.int32, "u": dt.int32, "b": dt.bool_}.get(
                arr.dtype.kind)
            if dtype is None:
                raise TypeError(f"mindspore.numpy: cannot make a tensor of {a!r}")
    elif isinstance(a, np.ndarray):
        arr = a
        if dtype is None:
            dtype = dt.from_numpy(arr.dtype)
    elif isinstance(a, (bool, int, float, np.number, np.bool_)):
        arr = np.asarray(a)
        if dtype is None:
            dtype = scalar_dtype(a.item() if isinstance(a, np.generic) else a)
    else:
        raise TypeError(f"mindspore.numpy: expected array_like (Tensor, number, list, "
                        f"tuple), got {type(a).__name__}")
    return Tensor(np.asarray(arr, dtype=check_dtype(dtype).np))


def to_tensor(x):
    """Tensors and graph values as they are; Python data as const_array makes it."""
    if isinstance(x, TensorLike):
        return x
    if isinstance(x, _ARRAY_LIKE):
        return const_array(x)
    raise TypeError(f"mindspore.numpy: expected array_like (Tensor, number, list, tuple), "
                    f"got {type(x).__name__}")


def normalize_axis(axis, ndim, what="axis"):
    if isinstance(axis, TensorLike) or isinstance(axis, bool) or not isinstance(
            axis, (int, np.integer)):
        raise TypeError(f"mindspore.numpy: {what} must be a Python int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"mindspore.numpy: {what} {axis} is out of bounds for a tensor of "
                         f"rank {ndim}")
    return int(axis) % ndim


def check_shape(shape):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"mindspore.numpy: shape must be an int or a tuple of ints, got "
                        f"{shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"mindspore.numpy: negative dimensions are not allowed: {shape!r}")
    return tuple(int(d) for d in shape)
