"""Element types of tensors: the dtypes of API.md and the conversions to and from numpy."""
from __future__ import annotations

import numpy as np

__all__ = [
    "DType", "as_dtype", "from_numpy", "ALL_DTYPES", "BY_NUMPY", "EXTRA_DTYPES", "bfloat16",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
]


class DType:
    """One element type. Instances are unique, so they compare by identity."""

    __slots__ = ("name", "short", "np", "kind")

    def __init__(self, name: str, short: str, np_dtype, kind: str = "") -> None:
        self.name = name
        self.short = short
        self.np = np.dtype(np_dtype)
        self.kind = kind or self.np.kind  # 'b', 'i', 'u' or 'f'

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_differentiable(self) -> bool:
        """Whether gradients flow through values of this dtype: MindSpore differentiates
        integer tensors like real numbers (the gradient in their own dtype); bool ones
        carry none."""
        return self.kind != "b"

    def __repr__(self) -> str:
        return f"graphjit.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool_ = DType("bool", "bool", np.bool_)
int8 = DType("int8", "i8", np.int8)
int16 = DType("int16", "i16", np.int16)
int32 = DType("int32", "i32", np.int32)
int64 = DType("int64", "i64", np.int64)
uint8 = DType("uint8", "u8", np.uint8)
uint16 = DType("uint16", "u16", np.uint16)
uint32 = DType("uint32", "u32", np.uint32)
uint64 = DType("uint64", "u64", np.uint64)
float16 = DType("float16", "f16", np.float16)
float32 = DType("float32", "f32", np.float32)
float64 = DType("float64", "f64", np.float64)

ALL_DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
              float32, float64)

try:    # bfloat16 comes from the ml_dtypes package (the onnx extra), as in JAX and ONNX
    import ml_dtypes as _ml_dtypes
except ImportError:  # without it graphjit has no bfloat16
    _ml_dtypes = None
#: bfloat16 (8 exponent bits, 7 mantissa bits) when ml_dtypes is installed, else None.
#: It is no member of ALL_DTYPES (the dtypes of API.md): files and arrays bring it.
bfloat16 = DType("bfloat16", "bf16", _ml_dtypes.bfloat16, kind="f") \
    if _ml_dtypes is not None else None
EXTRA_DTYPES = (bfloat16,) if bfloat16 is not None else ()

_BY_NAME = {}
for _d in ALL_DTYPES + EXTRA_DTYPES:
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d.short] = _d
_BY_NAME.update({"bool_": bool_, "float": float32, "int": int64, "half": float16,
                 "double": float64})
_BY_NP = {d.np: d for d in ALL_DTYPES + EXTRA_DTYPES}
#: numpy dtype -> DType for the dtypes graphjit has (a dict look-up, for hot paths)
BY_NUMPY = _BY_NP


def from_numpy(np_dtype) -> DType:
    """The DType of a numpy dtype; raises TypeError for dtypes graphjit has not."""
    d = np.dtype(np_dtype)
    try:
        return _BY_NP[d]
    except KeyError:
        raise TypeError(
            f"numpy dtype {d} is not supported; graphjit has "
            f"{', '.join(x.name for x in ALL_DTYPES)}") from None


def as_dtype(x) -> DType:
    """Turns a DType, a dtype name, a numpy dtype or a Python type into a DType.

    Raises:
        TypeError: `x` names no dtype graphjit supports.
    """
    if isinstance(x, DType):
        return x
    if x is None:
        raise TypeError("a dtype is needed here, got None; use one of "
                        f"{', '.join('graphjit.' + d.name for d in ALL_DTYPES)}")
    if x is bool:
        return bool_
    if x is int:
        return int64
    if x is float:
        return float32
    if isinstance(x, str):
        try:
            return _BY_NAME[x]
        except KeyError:
            import difflib
            close = difflib.get_close_matches(x, list(_BY_NAME), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise TypeError(
                f"unknown dtype name '{x}'; the dtypes are "
                f"{', '.join(d.name for d in ALL_DTYPES)}.{hint}") from None
    try:
        return from_numpy(x)
    except (TypeError, ValueError):
        raise TypeError(f"cannot interpret {x!r} as a dtype; use one of "
                        f"{', '.join('graphjit.' + d.name for d in ALL_DTYPES)}") from None
