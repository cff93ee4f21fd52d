"""MindSpore's `mindspore.ops.operations.math_ops`: the arithmetic primitives (Add, Mul,
ReduceSum, MatMul, CumSum, Einsum, AssignAdd, ...)."""
from __future__ import annotations

from .. import functional as F, functional as X
from .._dispatch import apply, to_tensor
from ..primitive import Primitive, _prim
from ...ir.dtypes import float32
from ..function.parameter_func import assign_add, assign_sub

__all__ = ["Neg", "Abs", "Exp", "Log", "Log1p", "Expm1", "Sqrt", "Rsqrt", "Reciprocal", "Sin",
           "Cos", "Tan", "Asin", "ACos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Square", "Floor", "Ceil", "Round", "Trunc", "Sign", "LogicalNot",
           "Invert", "IsNan", "IsInf", "IsFinite", "Add", "Sub", "Mul", "RealDiv", "Div",
           "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "Pow", "Maximum", "Minimum", "Equal",
           "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
           "LogicalXor", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "ReduceSum", "ReduceMean",
           "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny", "CumSum", "CumProd",
           "MatMul", "BatchMatMul", "AddN", "Einsum", "AssignAdd", "AssignSub", "FloatStatus"]


# Primitives without arguments: class name, the function it applies.
_UNARY = {
    "Neg": F.neg, "Abs": F.abs, "Exp": F.exp, "Log": F.log, "Log1p": F.log1p,
    "Expm1": F.expm1, "Sqrt": F.sqrt, "Rsqrt": F.rsqrt, "Reciprocal": F.reciprocal,
    "Sin": F.sin, "Cos": F.cos, "Erf": F.erf, "Square": F.square,
    "Floor": F.floor, "Ceil": F.ceil, "Round": F.round, "Trunc": F.trunc, "Sign": F.sign,
    "LogicalNot": F.logical_not, "Invert": F.invert, "IsNan": F.isnan, "IsInf": F.isinf,
    "IsFinite": F.isfinite, "Tan": F.tan, "Asin": F.asin, "ACos": F.acos, "Atan": F.atan,
    "Sinh": F.sinh, "Cosh": F.cosh, "Asinh": F.asinh, "Acosh": F.acosh, "Atanh": F.atanh,
}
_BINARY = {
    "Add": F.add, "Sub": F.sub, "Mul": F.mul, "RealDiv": F.div, "Div": F.div,
    "FloorDiv": F.floor_divide, "FloorMod": F.remainder, "Mod": F.fmod,
    "TruncateDiv": F.truncate_div, "Pow": F.pow,
    "Maximum": F.maximum, "Minimum": F.minimum, "Equal": F.equal, "NotEqual": F.not_equal,
    "Less": F.less, "LessEqual": F.less_equal, "Greater": F.greater,
    "GreaterEqual": F.greater_equal, "LogicalAnd": F.logical_and, "LogicalOr": F.logical_or,
    "LogicalXor": F.logical_xor, "BitwiseAnd": F.bitwise_and, "BitwiseOr": F.bitwise_or,
    "BitwiseXor": F.bitwise_xor,
}
for _n, _f in _UNARY.items():
    _prim(_n, _f, 1, globals())
# MindSpore refuses these on two Python numbers (its st test_math_ops)
_TENSOR_ONLY = {"Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod"}
for _n, _f in _BINARY.items():
    _prim(_n, _f, 2, globals(), needs_tensor=_n in _TENSOR_ONLY)


class _Reduce(Primitive):
    """ReduceX(keep_dims=False, skip_mode=False)(x, axis=()): all axes if axis is
    empty, unless skip_mode, where an empty axis returns x itself."""

    _fn = None

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__(keep_dims=keep_dims, skip_mode=skip_mode)
        self.keep_dims, self.skip_mode = keep_dims, skip_mode

    def __call__(self, x, axis=()):
        if self.skip_mode and axis in ((), []):
            return to_tensor(x)
        return type(self)._fn(x, axis, self.keep_dims)


class ReduceSum(_Reduce):
    _fn = staticmethod(lambda x, axis, kd: F.sum(x, axis, kd))


class ReduceMean(_Reduce):
    _fn = staticmethod(F.mean)


class ReduceMax(_Reduce):
    _fn = staticmethod(F.amax)


class ReduceMin(_Reduce):
    _fn = staticmethod(F.amin)


class ReduceProd(_Reduce):
    _fn = staticmethod(F.prod)


class ReduceAll(_Reduce):
    _fn = staticmethod(F.all)


class ReduceAny(_Reduce):
    _fn = staticmethod(F.any)


class _Scan(Primitive):
    _op = ""

    def __init__(self, exclusive=False, reverse=False):
        super().__init__(exclusive=exclusive, reverse=reverse)
        self.exclusive, self.reverse = bool(exclusive), bool(reverse)

    def __call__(self, x, axis):
        return apply(self._op, to_tensor(x), axis=axis, exclusive=self.exclusive,
                     reverse=self.reverse)


class CumSum(_Scan):
    """CumSum(exclusive=False, reverse=False)(x, axis): running sum along axis."""

    _op = "CumSum"


class CumProd(_Scan):
    """CumProd(exclusive=False, reverse=False)(x, axis): running product along axis."""

    _op = "CumProd"


class MatMul(Primitive):
    """MatMul(transpose_a=False, transpose_b=False)(x, y)."""

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        return apply("MatMul", to_tensor(x), to_tensor(y), transpose_a=self.transpose_a,
                     transpose_b=self.transpose_b)


class BatchMatMul(MatMul):
    """BatchMatMul(transpose_a=False, transpose_b=False)(x, y)."""


class AddN(Primitive):
    """AddN()(tensors): their elementwise sum."""

    def __call__(self, tensors):
        tensors = list(tensors)
        if not tensors:
            raise ValueError("AddN needs at least one tensor")
        out = tensors[0]
        for t in tensors[1:]:
            out = F.add(out, t)
        return to_tensor(out)


class Einsum(Primitive):
    """Einsum(equation)(inputs), inputs a tuple of one or two tensors; see ops.einsum."""

    def __init__(self, equation):
        super().__init__(equation)
        if not isinstance(equation, str):
            raise TypeError(f"Einsum: equation must be a str, got {equation!r}")
        self.equation = equation

    def __call__(self, inputs):
        if not isinstance(inputs, (tuple, list)):
            inputs = (inputs,)
        return X.einsum(self.equation, *inputs)


class AssignAdd(Primitive):
    def __call__(self, variable, value):
        return assign_add(variable, value)


class AssignSub(Primitive):
    def __call__(self, variable, value):
        return assign_sub(variable, value)


class FloatStatus(Primitive):
    """FloatStatus()(x): float32 [1.] when x holds an inf or a nan, else [0.] (shape (1,)),
    the overflow test of MindSpore's loss-scale cells on CPU and GPU."""

    def __call__(self, x):
        bad = F.logical_not(F.isfinite(x).all())
        return F.reshape(F.cast(bad, float32), (1,))
