"""What export and import share: the opset, and graphjit's dtypes against ONNX's."""
from __future__ import annotations

from onnx import TensorProto

from ..ir import dtypes as D

__all__ = ["OPSET", "IR_VERSION", "TO_ONNX", "FROM_ONNX"]

#: The ONNX opset that export writes (API.md: 17 or newer).
OPSET = 17
#: The ONNX IR version written: 8 goes with opset 17 and every ONNX Runtime since 1.14.
IR_VERSION = 8

#: graphjit dtype -> ONNX TensorProto element type.
TO_ONNX = {
    D.bool_: TensorProto.BOOL,
    D.int8: TensorProto.INT8,
    D.int16: TensorProto.INT16,
    D.int32: TensorProto.INT32,
    D.int64: TensorProto.INT64,
    D.uint8: TensorProto.UINT8,
    D.float16: TensorProto.FLOAT16,
    D.float32: TensorProto.FLOAT,
    D.float64: TensorProto.DOUBLE,
}

if D.bfloat16 is not None:     # with ml_dtypes (a dependency of the onnx extra)
    TO_ONNX[D.bfloat16] = TensorProto.BFLOAT16

#: ONNX TensorProto element type -> graphjit dtype (the types graphjit has). The unsigned
#: 16/32/64-bit ones are read; export refuses them by name (ONNX Runtime lacks most of
#: their kernels), so they are not in TO_ONNX.
FROM_ONNX = {v: k for k, v in TO_ONNX.items()}
FROM_ONNX.update({TensorProto.UINT16: D.uint16, TensorProto.UINT32: D.uint32,
                  TensorProto.UINT64: D.uint64})
