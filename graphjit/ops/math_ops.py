"""Math operators as functions, with MindSpore 2.x names and signatures: arithmetic,
unary math, comparisons and logic, where and cast, reductions and scans.

Every function runs eagerly on Tensors and records a node on graph values: both go
through `_dispatch.apply`, so the registry's one kernel serves both modes.
"""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as dt
from ..ir.defs.common import promote
from ..common.tensor import SymbolicTensor, TensorLike
from ._dispatch import apply, binary, is_weak, to_tensor, weak_dtype, weak_kind

__all__ = [
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "floor_div", "remainder",
    "floor_mod", "truncate_div", "fmod", "pow", "maximum", "minimum", "neg", "negative",
    "abs", "absolute", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tanh", "sigmoid", "erf", "relu", "square", "floor", "ceil", "round",
    "trunc", "sign", "isnan", "isinf", "isfinite", "clamp", "clip", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "lt", "le", "gt",
    "ge", "eq", "ne", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "where", "select",
    "masked_fill", "cast", "sum", "mean", "prod", "amax", "amin", "max", "min",
    "argmax", "argmin", "all", "any", "logsumexp", "cumsum", "cumprod",
]


def _t(x):
    return to_tensor(x)


# -- elementwise arithmetic ----------------------------------------------------------------
def add(input, other):
    """input + other, broadcasting, with the promotion rules of API.md."""
    return binary("Add", input, other)


def sub(input, other):
    return binary("Sub", input, other)


def mul(input, other):
    return binary("Mul", input, other)


def div(input, other, *, rounding_mode=None):
    """input / other; integers give float32. rounding_mode 'floor' is `//`, 'trunc'
    rounds toward zero; both keep the promoted dtype."""
    if rounding_mode is None:
        return binary("RealDiv", input, other)
    if rounding_mode == "floor":
        return binary("FloorDiv", input, other)
    if rounding_mode == "trunc":
        return binary("TruncateDiv", input, other)
    raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got "
                     f"{rounding_mode!r}")


def true_divide(input, other):
    return binary("RealDiv", input, other)


def floor_divide(input, other):
    """input // other, rounding toward negative infinity as Python does."""
    return binary("FloorDiv", input, other)


floor_div = floor_divide


def remainder(input, other):
    """input % other with the sign of other, as Python does."""
    return binary("FloorMod", input, other)


floor_mod = remainder


def truncate_div(x, y):
    """x / y rounded toward zero (exact for integers)."""
    return binary("TruncateDiv", x, y)


def fmod(input, other):
    """The remainder with the sign of input, as C's fmod (MindSpore's Mod)."""
    return binary("Mod", input, other)


def pow(input, exponent):
    return binary("Pow", input, exponent)


def maximum(input, other):
    return binary("Maximum", input, other)


def minimum(input, other):
    return binary("Minimum", input, other)


def _unary(op):
    def fn(input):
        return apply(op, _t(input))
    fn.__name__ = fn.__qualname__ = op.lower()
    fn.__doc__ = f"The {op} operator, elementwise."
    return fn


# The unary functions and the registry op each one applies.
_UNARY_FUNCTIONS = {
    "neg": "Neg", "abs": "Abs", "exp": "Exp", "log": "Log", "log1p": "Log1p",
    "expm1": "Expm1", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "reciprocal": "Reciprocal",
    "sin": "Sin", "cos": "Cos", "tanh": "Tanh", "sigmoid": "Sigmoid", "erf": "Erf",
    "relu": "ReLU", "square": "Square", "floor": "Floor", "ceil": "Ceil", "trunc": "Trunc",
    "sign": "Sign", "isnan": "IsNan", "isinf": "IsInf", "isfinite": "IsFinite",
    "logical_not": "LogicalNot", "invert": "Invert",
}
for _name, _op in _UNARY_FUNCTIONS.items():
    globals()[_name] = _unary(_op)
negative, absolute = neg, abs  # noqa: F821  (defined by the loop above)


def round(input, *, decimals=0):
    """Round to `decimals` places, halves to even."""
    x = _t(input)
    if decimals == 0:
        return apply("Round", x)
    scale = 10.0 ** decimals
    return div(apply("Round", mul(x, scale)), scale)


def clamp(input, min=None, max=None):
    """Clip to [min, max]; either bound may be None (not both); bounds may be tensors."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    out = _t(input)
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


clip = clamp


# -- comparisons and logic -----------------------------------------------------------------
def equal(input, other):
    return binary("Equal", input, other)


def not_equal(input, other):
    return binary("NotEqual", input, other)


def less(input, other):
    return binary("Less", input, other)


def less_equal(input, other):
    return binary("LessEqual", input, other)


def greater(input, other):
    return binary("Greater", input, other)


def greater_equal(input, other):
    return binary("GreaterEqual", input, other)


lt, le, gt, ge, eq, ne = less, less_equal, greater, greater_equal, equal, not_equal


def logical_and(input, other):
    return binary("LogicalAnd", input, other)


def logical_or(input, other):
    return binary("LogicalOr", input, other)


def logical_xor(input, other):
    return binary("LogicalXor", input, other)


def _is_bool(x) -> bool:
    if isinstance(x, TensorLike):
        return x.dtype.is_bool
    return isinstance(x, (bool, np.bool_))


def _bitwise(logical_op, bitwise_op, x, y):
    """`&`, `|`, `^`: logical on two bools, bitwise on integers."""
    return binary(logical_op if _is_bool(x) and _is_bool(y) else bitwise_op, x, y)


def bitwise_and(input, other):
    return _bitwise("LogicalAnd", "BitwiseAnd", input, other)


def bitwise_or(input, other):
    return _bitwise("LogicalOr", "BitwiseOr", input, other)


def bitwise_xor(input, other):
    return _bitwise("LogicalXor", "BitwiseXor", input, other)


def _pair(x, y):
    """Two operands as tensors of one dtype, weak Python scalars promoting as in binary."""
    if is_weak(x) and not is_weak(y):
        y = _t(y)
        x = to_tensor(x, weak_dtype(weak_kind(x), y.dtype))
    elif is_weak(y) and not is_weak(x):
        x = _t(x)
        y = to_tensor(y, weak_dtype(weak_kind(y), x.dtype))
    x, y = _t(x), _t(y)
    if x.dtype is not y.dtype:
        d = promote(x.dtype, y.dtype)
        x, y = to_tensor(x, d), to_tensor(y, d)
    return x, y


def where(condition, input, other):
    """input where condition else other (broadcasting all three); input and other are
    promoted together as a binary operator would."""
    c = _t(condition)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    both_weak = is_weak(input) and is_weak(other)
    x, y = _pair(input, other)
    out = apply("Select", c, x, y)
    if both_weak and isinstance(out, SymbolicTensor):
        out.weak = True       # a choice between Python numbers is a Python number
    return out


def select(cond, x, y):
    return where(cond, x, y)


def masked_fill(input_x, mask, value):
    """input_x with value wherever mask is true; value takes input_x's dtype."""
    x = _t(input_x)
    v = to_tensor(value, x.dtype)
    return where(mask, v, x)


def cast(input, dtype):
    return apply("Cast", _t(input), dtype=dt.as_dtype(dtype))


# -- reductions ----------------------------------------------------------------------------
def _axis(axis, what="axis"):
    if axis is None or axis == () or axis == []:
        return None
    if isinstance(axis, TensorLike):
        raise TypeError(f"the {what} of a reduction must be a Python int or tuple of ints, "
                        f"not a tensor")
    if isinstance(axis, list):
        return tuple(axis)
    return axis


def _reduce(op, input, axis, keep_dims, dtype=None, what="axis"):
    x = _t(input)
    if dtype is not None:
        x = cast(x, dtype)
    out = apply(op, x, axis=_axis(axis, what), keep_dims=bool(keep_dims))
    return out if dtype is None or out.dtype is dt.as_dtype(dtype) else cast(out, dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over dim (all dims if None); integer and bool tensors give int64."""
    return _reduce("ReduceSum", input, dim, keepdim, dtype, "dim")


def mean(input, axis=None, keep_dims=False):
    """Mean over axis (all if None); integer and bool tensors give float32."""
    return _reduce("ReduceMean", input, axis, keep_dims)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over axis (all if None); integer and bool tensors give int64."""
    return _reduce("ReduceProd", input, axis, keep_dims, dtype)


def _masked(input, initial, mask, fn_name):
    """input with `initial` where mask is false (mask=None keeps every element)."""
    x = _t(input)
    if mask is None:
        return x
    if initial is None:
        raise ValueError(f"{fn_name}: `where` needs `initial` for the masked-out elements")
    return where(mask, x, initial)


def _extreme(op, x, axis, keepdims, initial):
    out = apply(op, x, axis=_axis(axis), keep_dims=bool(keepdims))
    if initial is not None:
        out = (maximum if op == "ReduceMax" else minimum)(out, initial)
    return out


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Maximum over axis (all if None), keeping the dtype; `initial` also takes part,
    and elements where `where` is false are left out."""
    x = _masked(input, initial, where, "amax")
    return _extreme("ReduceMax", x, axis, keepdims, initial)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Minimum over axis (all if None); see amax."""
    x = _masked(input, initial, where, "amin")
    return _extreme("ReduceMin", x, axis, keepdims, initial)


def _with_index(op, arg_op, fn_name, input, axis, keepdims, initial, mask):
    x = _masked(input, initial, mask, fn_name)
    if axis is None:   # MindSpore: keepdims is ignored and the index is always 0
        return _extreme(op, x, None, False, initial), to_tensor(0, dt.int64)
    return (_extreme(op, x, axis, keepdims, initial),
            apply(arg_op, x, axis=axis, keep_dims=bool(keepdims)))


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices) of the maximum along axis, as MindSpore 2.x. With axis None the
    values are the maximum of all elements and the index is 0."""
    return _with_index("ReduceMax", "ArgMax", "max", input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices) of the minimum along axis; see max."""
    return _with_index("ReduceMin", "ArgMin", "min", input, axis, keepdims, initial, where)


def argmax(input, dim=None, keepdim=False, *, axis=None):
    """int64 index of the maximum along dim (of the flattened tensor if None); `axis` is
    numpy's name for dim."""
    if axis is not None:
        if dim is not None:
            raise TypeError("argmax: give dim or axis, not both")
        dim = axis
    return apply("ArgMax", _t(input), axis=dim, keep_dims=bool(keepdim))


def argmin(input, axis=None, keepdims=False):
    """int64 index of the minimum along axis (of the flattened tensor if None)."""
    return apply("ArgMin", _t(input), axis=axis, keep_dims=bool(keepdims))


def _as_bool(input):
    x = _t(input)
    return x if x.dtype.is_bool else cast(x, dt.bool_)


def all(input, axis=None, keep_dims=False):
    """True where every element along axis is nonzero."""
    return apply("ReduceMin", _as_bool(input), axis=_axis(axis), keep_dims=bool(keep_dims))


def any(input, axis=None, keep_dims=False):
    """True where some element along axis is nonzero."""
    return apply("ReduceMax", _as_bool(input), axis=_axis(axis), keep_dims=bool(keep_dims))


def logsumexp(input, axis, keep_dims=False):
    """log(sum(exp(input))) along axis, computed stably."""
    x = _t(input)
    if not x.dtype.is_floating:
        x = cast(x, dt.float32)
    m = amax(x, axis, True)
    s = log(sum(exp(sub(x, m)), axis, keep_dims))  # noqa: F821
    return add(s, m if keep_dims else amax(x, axis, False))


# -- scans ---------------------------------------------------------------------------------
def _scan(op, input, axis, dtype):
    x = _t(input)
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None or isinstance(axis, TensorLike) or not isinstance(
            axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: axis must be a Python int, got {axis!r}")
    return apply(op, x, axis=int(axis))


def cumsum(x, axis, dtype=None):
    """Running sum along axis; the dtype is kept (bool gives int64) unless dtype is given."""
    return _scan("CumSum", x, axis, dtype)


def cumprod(input, dim, dtype=None):
    """Running product along dim; see cumsum."""
    return _scan("CumProd", input, dim, dtype)

