"""Operators as primitive classes, MindSpore style: `ops.ExpandDims()(x, -1)`,
`ops.ReduceSum(keep_dims=True)(x, axis)`, `ops.MatMul(transpose_b=True)(a, b)`."""
from __future__ import annotations

from ..ir import dtypes as dt
from . import functional as F
from ._dispatch import apply, to_tensor

__all__ = ["Primitive"]


class Primitive:
    """Base of primitive operator classes; instances are callables without state."""

    def __init__(self, *args, **kwargs):
        self.init_args = args
        self.init_kwargs = kwargs

    @property
    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"Prim[{self.name}]"

    def add_prim_attr(self, name, value):
        setattr(self, name, value)
        return self


def _unary_prim(name, fn):
    def __call__(self, x):
        return fn(x)
    globals()[name] = type(name, (Primitive,), {"__call__": __call__,
                                                 "__doc__": f"{name}()(x)"})
    __all__.append(name)


def _binary_prim(name, fn):
    def __call__(self, x, y):
        return fn(x, y)
    globals()[name] = type(name, (Primitive,), {"__call__": __call__,
                                                 "__doc__": f"{name}()(x, y)"})
    __all__.append(name)


for _n, _f in {"Neg": F.neg, "Abs": F.abs, "Exp": F.exp, "Log": F.log, "Sqrt": F.sqrt,
               "Rsqrt": F.rsqrt, "Sin": F.sin, "Cos": F.cos, "Tanh": F.tanh,
               "Sigmoid": F.sigmoid, "ReLU": F.relu, "Square": F.square, "Floor": F.floor,
               "Ceil": F.ceil, "Sign": F.sign, "LogicalNot": F.logical_not,
               "ZerosLike": F.zeros_like, "OnesLike": F.ones_like, "IsNan": F.isnan}.items():
    _unary_prim(_n, _f)

for _n, _f in {"Add": F.add, "Sub": F.sub, "Mul": F.mul, "RealDiv": F.div, "Div": F.div,
               "FloorDiv": F.floor_divide, "FloorMod": F.remainder, "Mod": F.remainder,
               "Pow": F.pow, "Maximum": F.maximum, "Minimum": F.minimum, "Equal": F.equal,
               "NotEqual": F.not_equal, "Less": F.less, "LessEqual": F.less_equal,
               "Greater": F.greater, "GreaterEqual": F.greater_equal,
               "LogicalAnd": F.logical_and, "LogicalOr": F.logical_or,
               "BitwiseAnd": F.bitwise_and, "BitwiseOr": F.bitwise_or,
               "BitwiseXor": F.bitwise_xor}.items():
    _binary_prim(_n, _f)


class _Reduce(Primitive):
    _fn = None

    def __init__(self, keep_dims=False):
        super().__init__(keep_dims=keep_dims)
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
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


class Argmax(Primitive):
    def __init__(self, axis=-1, output_type=dt.int32):
        super().__init__(axis=axis, output_type=output_type)
        self.axis, self.output_type = axis, output_type

    def __call__(self, x):
        return F.cast(F.argmax(x, self.axis), self.output_type)


class Argmin(Argmax):
    def __call__(self, x):
        return F.cast(F.argmin(x, self.axis), self.output_type)


class MatMul(Primitive):
    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        return apply("MatMul", to_tensor(x), to_tensor(y), transpose_a=self.transpose_a,
                     transpose_b=self.transpose_b)


class BatchMatMul(MatMul):
    pass


class ExpandDims(Primitive):
    def __call__(self, x, axis):
        return F.expand_dims(x, axis)


class Squeeze(Primitive):
    def __init__(self, axis=()):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, None if self.axis == () else self.axis)


class Reshape(Primitive):
    def __call__(self, x, shape):
        return F.reshape(x, shape)


class Transpose(Primitive):
    def __call__(self, x, perm):
        return F.transpose(x, perm)


class Cast(Primitive):
    def __call__(self, x, dtype):
        return F.cast(x, dtype)


class Concat(Primitive):
    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, tensors):
        return F.concat(tensors, self.axis)


class Stack(Primitive):
    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, tensors):
        return F.stack(tensors, self.axis)


class Select(Primitive):
    def __call__(self, cond, x, y):
        return F.where(cond, x, y)


class Softmax(Primitive):
    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def __call__(self, x):
        return F.log_softmax(x, self.axis)


class Zeros(Primitive):
    def __call__(self, size, type=None):
        return F.zeros(size, type)


class Ones(Primitive):
    def __call__(self, size, type=None):
        return F.ones(size, type)


class Fill(Primitive):
    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class Gather(Primitive):
    def __call__(self, params, indices, axis=0):
        return F.gather(params, indices, axis)


class Shape(Primitive):
    def __call__(self, x):
        return F.shape(x)


class TensorShape(Primitive):
    def __call__(self, x):
        return F.tensor_shape(x)


class Rank(Primitive):
    def __call__(self, x):
        return F.rank(x)


class Size(Primitive):
    def __call__(self, x):
        return F.size(x)


class Tile(Primitive):
    def __call__(self, x, multiples):
        return F.tile(x, multiples)


class BroadcastTo(Primitive):
    def __init__(self, shape):
        super().__init__(shape=shape)
        self.shape = shape

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


__all__ += ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll",
            "ReduceAny", "Argmax", "Argmin", "MatMul", "BatchMatMul", "ExpandDims", "Squeeze",
            "Reshape", "Transpose", "Cast", "Concat", "Stack", "Select", "Softmax",
            "LogSoftmax", "Zeros", "Ones", "Fill", "Gather", "Shape", "TensorShape", "Rank",
            "Size", "Tile", "BroadcastTo"]
