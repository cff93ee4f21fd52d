"""MindSpore operators that are not arithmetic: printing, identity-like markers,
scalar and tuple conversions, dtype queries (Parameter assignment is in state_ops)."""
from __future__ import annotations

import numpy as np

from ..autodiff import current_tape
from ..ir import dtypes as dt
from ..common.tensor import SymbolicTensor, Tensor, TensorLike
from ._dispatch import apply, to_tensor
from .primitives import Primitive
from .state_ops import Assign, AssignAdd, assign, assign_add  # noqa: F401  (names of this module)

__all__ = ["print_", "Print", "stop_gradient", "StopGradient", "depend", "Depend",
           "identity", "Identity", "dtype", "DType", "scalar_to_tensor", "ScalarToTensor",
           "tuple_to_array", "TupleToArray", "assign", "Assign", "assign_add", "AssignAdd",
           "make_tuple", "tuple_getitem", "MakeTuple", "TupleGetItem"]


def print_(*inputs):
    """Print when the program runs (in graph mode: each time the graph runs)."""
    from .functional import runtime_print
    runtime_print(inputs)
    return None


class Print(Primitive):
    def __call__(self, *inputs):
        return print_(*inputs)


def stop_gradient(input):
    """The input itself, through which no gradient flows (tuples and lists: each
    tensor in them)."""
    if isinstance(input, (tuple, list)):
        return type(input)(stop_gradient(x) for x in input)
    if not isinstance(input, TensorLike):
        return input
    return apply("StopGradient", input)


def depend(value, expr):
    """`value`, after `expr` (graphs run in program order, so nothing to do)."""
    return value


def identity(input):
    return apply("Identity", to_tensor(input))


class StopGradient(Primitive):
    def __call__(self, x):
        return stop_gradient(x)


class Depend(Primitive):
    def __call__(self, value, expr):
        return depend(value, expr)


class Identity(Primitive):
    def __call__(self, x):
        return identity(x)


def dtype(input):
    """The dtype of a tensor (known while the graph is built)."""
    return input.dtype


class DType(Primitive):
    def __call__(self, x):
        return dtype(x)


def scalar_to_tensor(input_x, dtype=dt.float32):
    """A 0-d tensor of `dtype` holding a number (a Python number or one-element tensor)."""
    d = dt.as_dtype(dtype)
    if isinstance(input_x, TensorLike):
        out = apply("Cast", input_x, dtype=d)
        if getattr(out, "weak", False):
            out.weak = False
        return out
    if not isinstance(input_x, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"scalar_to_tensor needs a number, got {type(input_x).__name__}")
    return Tensor._wrap(np.asarray(input_x, dtype=d.np))


class ScalarToTensor(Primitive):
    def __call__(self, input_x, dtype=dt.float32):
        return scalar_to_tensor(input_x, dtype)


def tuple_to_array(input_x):
    """A 1-D tensor of a tuple of numbers (ints give int64, floats float32)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError("tuple_to_array needs a non-empty tuple of numbers")
    tape = current_tape()
    if any(isinstance(v, SymbolicTensor) or (tape is not None and tape.tracks(v))
           for v in input_x):
        from .functional import stack
        return stack([to_tensor(v) for v in input_x])
    return Tensor(tuple(input_x))


class TupleToArray(Primitive):
    def __call__(self, input_x):
        return tuple_to_array(input_x)


def make_tuple(*inputs):
    """The tuple of the inputs (MindSpore's F.make_tuple)."""
    return tuple(inputs)


def tuple_getitem(x, index):
    """x[index] of a tuple (MindSpore's F.tuple_getitem)."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"tuple_getitem needs a tuple, got {type(x).__name__}")
    return x[index]


class MakeTuple(Primitive):
    def __call__(self, *inputs):
        return make_tuple(*inputs)


class TupleGetItem(Primitive):
    def __call__(self, x, index):
        return tuple_getitem(x, index)
