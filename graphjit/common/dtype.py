"""MindSpore's `mindspore.common.dtype` (often imported as mstype)."""
from ..ir.dtypes import (DType, as_dtype, bool_, float16, float32, float64, int8, int16, int32,
                         int64, uint8, uint16, uint32, uint64)

float_ = float32
int_ = int64
half = float16
double = float64
Float = DType
Int = DType

__all__ = ["DType", "as_dtype", "bool_", "float16", "float32", "float64", "int8", "int16",
           "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float_", "int_", "half", "double"]
