"""Operators as primitive classes, MindSpore style: `ops.ExpandDims()(x, -1)`,
`ops.ReduceSum(keep_dims=True)(x, axis)`, `ops.MatMul(transpose_b=True)(a, b)`.

A primitive holds its construction arguments and, when called, applies the
function of the same meaning in functional, so it behaves the same in both modes.
"""
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


def _prim(name, fn, arity):
    """A primitive class without construction arguments that applies fn."""
    if arity == 1:
        def __call__(self, x):
            return fn(x)
    else:
        def __call__(self, x, y):
            return fn(x, y)
    globals()[name] = type(name, (Primitive,), {
        "__call__": __call__, "__doc__": f"{name}()({'x' if arity == 1 else 'x, y'}): "
                                         f"ops.{fn.__name__}"})
    __all__.append(name)


# Primitives without arguments: class name, the function it applies.
_UNARY = {
    "Neg": F.neg, "Abs": F.abs, "Exp": F.exp, "Log": F.log, "Log1p": F.log1p,
    "Expm1": F.expm1, "Sqrt": F.sqrt, "Rsqrt": F.rsqrt, "Reciprocal": F.reciprocal,
    "Sin": F.sin, "Cos": F.cos, "Tanh": F.tanh, "Sigmoid": F.sigmoid, "Erf": F.erf,
    "ReLU": F.relu, "ReLU6": F.relu6, "Softplus": F.softplus, "Square": F.square,
    "Floor": F.floor, "Ceil": F.ceil, "Round": F.round, "Trunc": F.trunc, "Sign": F.sign,
    "LogicalNot": F.logical_not, "Invert": F.invert, "ZerosLike": F.zeros_like,
    "OnesLike": F.ones_like, "IsNan": F.isnan, "IsInf": F.isinf, "IsFinite": F.isfinite,
    "GeLU": F.gelu, "Flatten": F.flatten, "TensorShape": F.tensor_shape,
    "DynamicShape": F.tensor_shape, "Shape": F.shape, "Rank": F.rank, "Size": F.size,
}
_BINARY = {
    "Add": F.add, "Sub": F.sub, "Mul": F.mul, "RealDiv": F.div, "Div": F.div,
    "FloorDiv": F.floor_divide, "FloorMod": F.remainder, "Mod": F.fmod,
    "TruncateDiv": F.truncate_div, "Pow": F.pow,
    "Maximum": F.maximum, "Minimum": F.minimum, "Equal": F.equal, "NotEqual": F.not_equal,
    "Less": F.less, "LessEqual": F.less_equal, "Greater": F.greater,
    "GreaterEqual": F.greater_equal, "LogicalAnd": F.logical_and, "LogicalOr": F.logical_or,
    "LogicalXor": F.logical_xor, "BitwiseAnd": F.bitwise_and, "BitwiseOr": F.bitwise_or,
    "BitwiseXor": F.bitwise_xor, "Tile": F.tile, "Reshape": F.reshape,
    "Transpose": F.transpose, "ExpandDims": F.expand_dims, "Cast": F.cast,
}
for _n, _f in _UNARY.items():
    _prim(_n, _f, 1)
for _n, _f in _BINARY.items():
    _prim(_n, _f, 2)


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


class Argmax(Primitive):
    """Argmax(axis=-1, output_type=int32)(x): the index of the maximum along axis."""

    _op = "ArgMax"

    def __init__(self, axis=-1, output_type=dt.int32):
        super().__init__(axis=axis, output_type=output_type)
        self.axis, self.output_type = axis, dt.as_dtype(output_type)

    def __call__(self, x):
        return apply(self._op, to_tensor(x), axis=self.axis, output_type=self.output_type)


class Argmin(Argmax):
    """Argmin(axis=-1, output_type=int32)(x): the index of the minimum along axis."""

    _op = "ArgMin"


class ArgMaxWithValue(Primitive):
    """ArgMaxWithValue(axis=0, keep_dims=False)(x) -> (index, values)."""

    _fn = staticmethod(F.max)

    def __init__(self, axis=0, keep_dims=False):
        super().__init__(axis=axis, keep_dims=keep_dims)
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, x):
        values, index = type(self)._fn(x, self.axis, self.keep_dims)
        return index, values


class ArgMinWithValue(ArgMaxWithValue):
    """ArgMinWithValue(axis=0, keep_dims=False)(x) -> (index, values)."""

    _fn = staticmethod(F.min)


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


class Squeeze(Primitive):
    """Squeeze(axis=())(x): remove the size-1 dims in axis (all of them if empty)."""

    def __init__(self, axis=()):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, None if self.axis == () else self.axis)


class _AxisPrim(Primitive):
    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis


class Concat(_AxisPrim):
    """Concat(axis=0)(tensors)."""

    def __call__(self, tensors):
        return F.concat(tensors, self.axis)


class Stack(_AxisPrim):
    """Stack(axis=0)(tensors)."""

    def __call__(self, tensors):
        return F.stack(tensors, self.axis)


class Unstack(_AxisPrim):
    """Unstack(axis=0)(x): the slices of x along axis, as a tuple."""

    def __call__(self, x):
        return tuple(F.squeeze(p, self.axis) for p in F.split(x, 1, self.axis))


class Split(Primitive):
    """Split(axis=0, output_num=1)(x): output_num equal pieces along axis."""

    def __init__(self, axis=0, output_num=1):
        super().__init__(axis=axis, output_num=output_num)
        self.axis, self.output_num = axis, output_num

    def __call__(self, x):
        x = to_tensor(x)
        n = x.shape[self.axis]
        if not isinstance(n, int) or n % self.output_num:
            raise ValueError(f"Split: axis {self.axis} of size {n} does not split into "
                             f"{self.output_num} equal pieces")
        return F.split(x, n // self.output_num, self.axis)


class Softmax(Primitive):
    """Softmax(axis=-1)(x)."""

    _fn = staticmethod(F.softmax)

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return type(self)._fn(x, self.axis)


class LogSoftmax(Softmax):
    """LogSoftmax(axis=-1)(x)."""

    _fn = staticmethod(F.log_softmax)


class Elu(Primitive):
    """Elu(alpha=1.0)(x)."""

    def __init__(self, alpha=1.0):
        super().__init__(alpha=alpha)
        self.alpha = alpha

    def __call__(self, x):
        return F.elu(x, self.alpha)


class OneHot(Primitive):
    """OneHot(axis=-1)(indices, depth, on_value, off_value)."""

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


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


class Select(Primitive):
    """Select()(cond, x, y)."""

    def __call__(self, cond, x, y):
        return F.where(cond, x, y)


class Zeros(Primitive):
    """Zeros()(size, type)."""

    def __call__(self, size, type=None):
        return F.zeros(size, type)


class Ones(Primitive):
    """Ones()(size, type)."""

    def __call__(self, size, type=None):
        return F.ones(size, type)


class Fill(Primitive):
    """Fill()(type, shape, value)."""

    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class Gather(Primitive):
    """Gather()(params, indices, axis)."""

    def __call__(self, params, indices, axis=0):
        return F.gather(params, indices, axis)


class BroadcastTo(Primitive):
    """BroadcastTo(shape)(x)."""

    def __init__(self, shape):
        super().__init__(shape=shape)
        self.shape = shape

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


__all__ += ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll",
            "ReduceAny", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue", "CumSum",
            "CumProd", "MatMul", "BatchMatMul", "Squeeze", "Concat", "Stack", "Unstack",
            "Split", "Softmax", "LogSoftmax", "Elu", "OneHot", "AddN", "Select", "Zeros",
            "Ones", "Fill", "Gather", "BroadcastTo"]


# -- the primitives of extra_ops ----------------------------------------------------------
from . import extra_ops as _X  # noqa: E402


class StridedSlice(Primitive):
    """StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(x, begin, end, strides)."""

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                         shrink_axis_mask=shrink_axis_mask)
        self.masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)

    def __call__(self, x, begin, end, strides):
        return _X.strided_slice(x, begin, end, strides, *self.masks)


class Slice(Primitive):
    """Slice()(x, begin, size)."""

    def __call__(self, x, begin, size):
        return _X.slice(x, begin, size)


class BiasAdd(Primitive):
    """BiasAdd(data_format='NCHW')(x, bias)."""

    def __init__(self, data_format="NCHW"):
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, x, bias):
        return _X.bias_add(x, bias, self.data_format)


class MaskedFill(Primitive):
    """MaskedFill()(input, mask, value)."""

    def __call__(self, input, mask, value):
        return F.masked_fill(input, mask, value)


class Eye(Primitive):
    """Eye()(n, m, t): the n x m identity matrix of dtype t."""

    def __call__(self, n, m, t):
        return _X.eye(n, m, t)


class L2Normalize(Primitive):
    """L2Normalize(axis=0, epsilon=1e-4)(x): x / sqrt(max(sum(x * x, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__(axis=axis, epsilon=epsilon)
        self.axis, self.epsilon = axis, epsilon

    def __call__(self, x):
        x = to_tensor(x)
        s = F.sum(x * x, self.axis if not isinstance(self.axis, list) else tuple(self.axis),
                  True)
        return x / F.sqrt(F.maximum(s, to_tensor(float(self.epsilon), s.dtype)))


Pack = Stack            # MindSpore 1.x names of Stack and Gather
GatherV2 = Gather

__all__ += ["StridedSlice", "Slice", "BiasAdd", "MaskedFill", "Eye", "L2Normalize", "Pack",
            "GatherV2"]


class StandardNormal(Primitive):
    """StandardNormal(seed=0, seed2=0)(shape): draws from N(0, 1)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = seed

    def __call__(self, shape):
        return F.standard_normal(shape, self.seed)


class UniformReal(Primitive):
    """UniformReal(seed=0, seed2=0)(shape): draws from U[0, 1)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = seed

    def __call__(self, shape):
        return F.rand(shape, seed=self.seed)


__all__ += ["StandardNormal", "UniformReal"]
