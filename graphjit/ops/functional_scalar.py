"""The rest of MindSpore's `mindspore.ops.functional` (F) names that model-zoo code
calls: the primitive aliases of the tensor operators (F.tensor_add is P.Add(), ...), the
scalar and bool primitives (F.scalar_add, F.bool_and, ...) and the tuple and range
helpers (F.make_range, F.shape_mul, ...). In a graph, MindSpore evaluates the scalar ones
while it compiles; here they are Python functions of Python values, which the graph
builder folds the same way. Not in `ops` (MindSpore keeps them out of it)."""
from __future__ import annotations

import math
import operator

from .function import math_func as _m
from .function.array_func import cast

__all__ = ["tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv",
           "tensor_mod", "tensor_pow", "tensor_gt", "tensor_ge", "tensor_lt", "tensor_le",
           "tensor_exp", "floordiv", "floormod", "scalar_add", "scalar_sub", "scalar_mul",
           "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow", "scalar_log",
           "scalar_gt", "scalar_ge", "scalar_lt", "scalar_le", "scalar_eq", "scalar_ne",
           "scalar_uadd", "scalar_usub", "scalar_cast", "bool_not", "bool_and", "bool_or",
           "bool_eq", "string_eq", "string_concat", "is_", "is_not", "in_dict", "not_in_dict",
           "make_range", "make_list", "make_slice", "shape_mul", "list_getitem", "dict_getitem",
           "list_len", "tuple_reversed", "isconstant", "mixed_precision_cast",
           "scalar_to_array"]

# P.Add(), P.Sub(), ... under MindSpore's functional names
tensor_add = _m.add
tensor_sub = _m.sub
tensor_mul = _m.mul
tensor_div = _m.div
tensor_floordiv = floordiv = _m.floor_div
tensor_mod = floormod = _m.floor_mod
tensor_pow = _m.pow
tensor_gt = _m.greater
tensor_ge = _m.greater_equal
tensor_lt = _m.less
tensor_le = _m.less_equal
tensor_exp = _m.exp

scalar_add = operator.add
scalar_sub = operator.sub
scalar_mul = operator.mul
scalar_floordiv = operator.floordiv
scalar_mod = operator.mod
scalar_pow = operator.pow
scalar_gt = operator.gt
scalar_ge = operator.ge
scalar_lt = operator.lt
scalar_le = operator.le
scalar_eq = operator.eq
scalar_ne = operator.ne
scalar_uadd = operator.pos
scalar_usub = operator.neg
bool_not = operator.not_
bool_eq = operator.eq
string_eq = operator.eq
string_concat = operator.add
is_ = operator.is_
is_not = operator.is_not


def scalar_div(x, y):
    """x / y of two numbers: a float, as MindSpore's ScalarDiv."""
    return x / y


def scalar_log(x):
    """The natural logarithm of a number."""
    return math.log(x)


def scalar_cast(x, t):
    """The number x as the Python type of dtype t (MindSpore's ScalarCast)."""
    from ..common.dtype import dtype_to_pytype
    return dtype_to_pytype(t)(x)


def bool_and(x, y):
    return bool(x) and bool(y)


def bool_or(x, y):
    return bool(x) or bool(y)


def in_dict(key, d):
    return key in d


def not_in_dict(key, d):
    return key not in d


def make_range(start, limit=None, delta=None):
    """The tuple of range(start, limit, delta) (MindSpore's make_range: one argument is
    the limit, from 0; the step defaults to 1).

    Raises:
        TypeError: an argument is not an int.
        ValueError: delta is 0.
    """
    args = (start,) if limit is None else (start, limit) if delta is None else \
        (start, limit, delta)
    for a in args:
        if isinstance(a, bool) or not isinstance(a, int):
            raise TypeError(f"For 'make_range', the arguments must be int, but got "
                            f"{type(a).__name__}: make_range builds a tuple while the graph "
                            f"is built, so its bounds must be known then (a static shape, "
                            f"not a tensor's value)")
    if len(args) == 3 and delta == 0:
        raise ValueError("For 'make_range', the argument 'delta' can not be 0")
    return tuple(range(*args))


def make_list(*items):
    return list(items)


def make_slice(start, stop, step):
    return slice(start, stop, step)


def shape_mul(shape):
    """The product of the numbers of a shape tuple (1 for ())."""
    out = 1
    for d in shape:
        out *= d
    return out


def list_getitem(x, i):
    return x[i]


def dict_getitem(d, k):
    return d[k]


list_len = len


def tuple_reversed(x):
    return tuple(reversed(x))


def isconstant(x):
    """Whether x is known while the graph is built: True for Python values (numbers,
    tuples, strings...), False for tensors (MindSpore's is_constant)."""
    from ..common.tensor import TensorLike
    return not isinstance(x, TensorLike)


def mixed_precision_cast(dst_type, x):
    """x cast to dst_type if it is a floating tensor (tuples and lists item by item);
    anything else as it is (MindSpore's MixedPrecisionCast, which auto mixed precision
    inserts)."""
    from ..common.tensor import TensorLike
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dst_type, v) for v in x)
    if isinstance(x, TensorLike) and x.dtype.is_floating and x.dtype is not dst_type:
        return cast(x, dst_type)
    return x


def scalar_to_array(x):
    """A 0-d tensor of the number x: float32 for a float, int64 for an int (MindSpore
    1.x's ScalarToArray, which model-zoo losses still call)."""
    from .function.array_func import scalar_to_tensor
    from ..ir import dtypes as dt
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"For 'scalar_to_array', the input must be an int or float, but got "
                        f"{type(x).__name__}")
    return scalar_to_tensor(x, dt.int64 if isinstance(x, int) else dt.float32)
