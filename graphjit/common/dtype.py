"""MindSpore's `mindspore.common.dtype` (often imported as mstype)."""
import numpy as np

from ..ir.dtypes import (ALL_DTYPES, DType, as_dtype, bfloat16, bool_, float16, float32, float64,
                         int8, int16, int32, int64, uint8, uint16, uint32, uint64)

float_ = float32
int_ = int64
half = float16
double = float64
Float = DType
Int = DType

# MindSpore's groups of number types (complex types graphjit has not)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64) + ((bfloat16,) if bfloat16 is not None else ())
signed_type = int_type + float_type
number_type = int_type + uint_type + float_type
all_types = (bool_,) + number_type


def dtype_to_nptype(type_):
    """The numpy scalar type of a dtype (`np.float32` for float32), as MindSpore's:
    `np.finfo(dtype_to_nptype(t))` works.

    Raises:
        TypeError: type_ is no dtype.
    """
    return as_dtype(type_).np.type


def dtype_to_pytype(type_):
    """The Python type of a dtype's values: bool, int or float (MindSpore's).

    Raises:
        TypeError: type_ is no dtype.
    """
    d = as_dtype(type_)
    return bool if d.is_bool else int if d.is_integer else float


def pytype_to_dtype(obj):
    """The dtype of a Python or numpy type (int -> int64, float -> float32, bool ->
    bool_, np.float16 -> float16; a dtype is returned as it is), as MindSpore's.

    Raises:
        NotImplementedError: obj is a type without a dtype (MindSpore's error).
        TypeError: obj is not a type.
    """
    if isinstance(obj, np.dtype):
        obj = obj.type
    if isinstance(obj, DType):
        return obj
    if not isinstance(obj, type):
        raise TypeError("For 'pytype_to_dtype', the argument 'obj' must be a python type "
                        f"object, such as int, float, str, etc. But got type {type(obj)}.")
    try:
        return as_dtype(obj)
    except TypeError:
        raise NotImplementedError(f"The python type {obj} cannot be converted to "
                                  f"MindSpore type.") from None


def get_py_obj_dtype(obj):
    """The dtype of a Python object: a Tensor's dtype, a type's (pytype_to_dtype), or a
    scalar's type's (MindSpore's)."""
    d = getattr(obj, "dtype", None)
    if isinstance(d, DType):
        return d
    if isinstance(obj, (type, np.dtype)):
        return pytype_to_dtype(obj)
    return pytype_to_dtype(type(obj))


__all__ = ["DType", "as_dtype", "bool_", "float16", "float32", "float64", "int8", "int16",
           "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float_", "int_", "half",
           "double", "bfloat16", "int_type", "uint_type", "float_type", "signed_type",
           "number_type", "all_types", "dtype_to_nptype", "dtype_to_pytype",
           "pytype_to_dtype", "get_py_obj_dtype"]
