"""Operators as functions (`ops.add`, `ops.matmul`, ...), MindSpore's names and
signatures, working on eager Tensors and on graph values alike."""
from __future__ import annotations

import builtins

import numpy as np

from ..ir import dtypes as dt
from ..ir.defs.shape import encode_index
from ..tensor import SymbolicTensor, Tensor, TensorLike
from ._dispatch import PY_SCALARS, apply, binary, to_tensor

_py_abs = builtins.abs


def _t(x):
    return to_tensor(x)


# -- elementwise arithmetic ------------------------------------------------------------
def add(input, other): return binary("Add", input, other)
def sub(input, other): return binary("Sub", input, other)
def mul(input, other): return binary("Mul", input, other)
def div(input, other, rounding_mode=None):
    if rounding_mode == "floor":
        return binary("FloorDiv", input, other)
    if rounding_mode == "trunc":
        q = binary("RealDiv", input, other)
        r = apply("Select", apply("Less", q, to_tensor(0, q.dtype)), ceil(q), floor(q))
        return r.astype(binary("Add", input, other).dtype)
    return binary("RealDiv", input, other)
def true_divide(input, other): return binary("RealDiv", input, other)
def floor_divide(input, other): return binary("FloorDiv", input, other)
def floor_div(input, other): return binary("FloorDiv", input, other)
def remainder(input, other): return binary("FloorMod", input, other)
def floor_mod(input, other): return binary("FloorMod", input, other)
def pow(input, exponent): return binary("Pow", input, exponent)
def maximum(input, other): return binary("Maximum", input, other)
def minimum(input, other): return binary("Minimum", input, other)
def neg(input): return apply("Neg", _t(input))
def negative(input): return neg(input)
def abs(input): return apply("Abs", _t(input))
def absolute(input): return abs(input)
def exp(input): return apply("Exp", _t(input))
def log(input): return apply("Log", _t(input))
def sqrt(input): return apply("Sqrt", _t(input))
def rsqrt(input): return apply("Rsqrt", _t(input))
def sin(input): return apply("Sin", _t(input))
def cos(input): return apply("Cos", _t(input))
def tanh(input): return apply("Tanh", _t(input))
def sigmoid(input): return apply("Sigmoid", _t(input))
def relu(input): return apply("ReLU", _t(input))
def square(input): return apply("Square", _t(input))
def floor(input): return apply("Floor", _t(input))
def ceil(input): return apply("Ceil", _t(input))
def sign(input): return apply("Sign", _t(input))
def isnan(input): return apply("IsNan", _t(input))


def clamp(input, min=None, max=None):
    """Clip to [min, max]; either bound may be None."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    out = _t(input)
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


clip = clamp


# -- comparisons and logic ---------------------------------------------------------------
def equal(input, other): return binary("Equal", input, other)
def not_equal(input, other): return binary("NotEqual", input, other)
def less(input, other): return binary("Less", input, other)
def less_equal(input, other): return binary("LessEqual", input, other)
def greater(input, other): return binary("Greater", input, other)
def greater_equal(input, other): return binary("GreaterEqual", input, other)
lt, le, gt, ge, eq, ne = less, less_equal, greater, greater_equal, equal, not_equal
def logical_and(input, other): return binary("LogicalAnd", input, other)
def logical_or(input, other): return binary("LogicalOr", input, other)
def logical_xor(input, other): return binary("LogicalXor", input, other)
def logical_not(input): return apply("LogicalNot", _t(input))


def _bool_or_int(name_bool, name_int, x, y):
    xt = x if isinstance(x, TensorLike) else None
    yt = y if isinstance(y, TensorLike) else None
    ref = xt if xt is not None else yt
    other = yt if xt is not None else xt
    if ref is not None and ref.dtype.is_bool and (other is None or other.dtype.is_bool) and \
            all(isinstance(v, TensorLike) or isinstance(v, (bool, np.bool_)) for v in (x, y)):
        return binary(name_bool, x, y)
    return binary(name_int, x, y)


def bitwise_and(input, other): return _bool_or_int("LogicalAnd", "BitwiseAnd", input, other)
def bitwise_or(input, other): return _bool_or_int("LogicalOr", "BitwiseOr", input, other)
def bitwise_xor(input, other): return _bool_or_int("LogicalXor", "BitwiseXor", input, other)


def invert(input):
    return apply("Invert", _t(input))


def where(condition, x=None, y=None):
    """x where condition else y (broadcasting); x and y are promoted together."""
    if x is None or y is None:
        raise TypeError("where(condition) with one argument (nonzero) is not supported; "
                        "pass x and y")
    c = _t(condition)
    if not c.dtype.is_bool:
        c = apply("Cast", c, dtype=dt.bool_)
    from ._dispatch import is_weak, weak_kind, _weak_dtype
    if is_weak(x) and not is_weak(y):
        y = _t(y)
        x = to_tensor(x, _weak_dtype(weak_kind(x), y.dtype))
    elif is_weak(y) and not is_weak(x):
        x = _t(x)
        y = to_tensor(y, _weak_dtype(weak_kind(y), x.dtype))
    x, y = _t(x), _t(y)
    if x.dtype is not y.dtype:
        from ..ir.defs.common import promote
        d = promote(x.dtype, y.dtype)
        x, y = to_tensor(x, d), to_tensor(y, d)
    return apply("Select", c, x, y)


select = where


def cast(input, dtype):
    return apply("Cast", _t(input), dtype=dt.as_dtype(dtype))


# -- reductions ----------------------------------------------------------------------------
def _axis(axis):
    if axis is None or axis == () or axis == []:
        return None
    if isinstance(axis, TensorLike):
        raise TypeError("the axis of a reduction must be a Python int or tuple, not a tensor")
    if isinstance(axis, list):
        return tuple(axis)
    return axis


def sum(input, dim=None, keepdim=False, *, dtype=None):
    out = apply("ReduceSum", _t(input), axis=_axis(dim), keep_dims=bool(keepdim))
    return out if dtype is None else cast(out, dtype)


def mean(input, axis=None, keep_dims=False):
    return apply("ReduceMean", _t(input), axis=_axis(axis), keep_dims=bool(keep_dims))


def prod(input, axis=None, keep_dims=False):
    return apply("ReduceProd", _t(input), axis=_axis(axis), keep_dims=bool(keep_dims))


def amax(input, axis=None, keepdims=False):
    return apply("ReduceMax", _t(input), axis=_axis(axis), keep_dims=bool(keepdims))


def amin(input, axis=None, keepdims=False):
    return apply("ReduceMin", _t(input), axis=_axis(axis), keep_dims=bool(keepdims))


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Like MindSpore 2.x: (values, indices) when an axis is given, else the maximum."""
    if axis is None:
        return amax(input, None, keepdims)
    return amax(input, axis, keepdims), argmax(input, axis, keepdims)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    if axis is None:
        return amin(input, None, keepdims)
    return amin(input, axis, keepdims), argmin(input, axis, keepdims)


def argmax(input, axis=None, keepdims=False):
    return apply("ArgMax", _t(input), axis=axis, keep_dims=bool(keepdims))


def argmin(input, axis=None, keepdims=False):
    return apply("ArgMin", _t(input), axis=axis, keep_dims=bool(keepdims))


def all(input, axis=None, keep_dims=False):
    x = _t(input)
    if not x.dtype.is_bool:
        x = cast(x, dt.bool_)
    return apply("ReduceMin", x, axis=_axis(axis), keep_dims=bool(keep_dims))


def any(input, axis=None, keep_dims=False):
    x = _t(input)
    if not x.dtype.is_bool:
        x = cast(x, dt.bool_)
    return apply("ReduceMax", x, axis=_axis(axis), keep_dims=bool(keep_dims))


# -- shapes ----------------------------------------------------------------------------------
def _int_tuple(shape, what):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, TensorLike):
        raise TypeError(f"{what} must be Python ints known while the graph is built, not a "
                        f"tensor")
    try:
        out = tuple(shape)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}") from None
    for d in out:
        if isinstance(d, TensorLike):
            raise TypeError(f"{what} must be Python ints known while the graph is built; one "
                            f"of them is a tensor value")
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"{what} must be ints, got {d!r}")
    return tuple(int(d) for d in out)


def reshape(input, shape):
    return apply("Reshape", _t(input), shape=_int_tuple(shape, "reshape's shape"))


def transpose(input, input_perm=None):
    perm = None if input_perm is None else _int_tuple(input_perm, "transpose's perm")
    return apply("Transpose", _t(input), perm=perm)


def permute(input, dims):
    return transpose(input, dims)


def expand_dims(input, axis):
    return apply("ExpandDims", _t(input), axis=int(axis))


unsqueeze = expand_dims


def squeeze(input, axis=None):
    return apply("Squeeze", _t(input), axis=None if axis is None else (
        axis if isinstance(axis, int) else tuple(axis)))


def flatten(input, start_dim=1, end_dim=-1):
    x = _t(input)
    s = x.shape
    if not isinstance(s, tuple) or builtins.any(not isinstance(d, int) for d in s):
        raise TypeError("flatten needs a known shape")
    if len(s) == 0:
        return reshape(x, (1,))
    start, end = start_dim % len(s), end_dim % len(s)
    n = 1
    for d in s[start:end + 1]:
        n *= d
    return reshape(x, s[:start] + (n,) + s[end + 1:])


def _seq(tensors, what):
    if isinstance(tensors, TensorLike):
        raise TypeError(f"{what} takes a tuple or list of tensors")
    return [_t(t) for t in tensors]


def concat(tensors, axis=0):
    if hasattr(tensors, "concatenated"):   # a list appended to in a Loop
        return tensors.concatenated(int(axis))
    return apply("Concat", *_seq(tensors, "concat"), axis=int(axis))


cat = concat


def stack(tensors, axis=0):
    if hasattr(tensors, "stacked"):        # a list appended to in a Loop
        return tensors.stacked(int(axis))
    return apply("Stack", *_seq(tensors, "stack"), axis=int(axis))


def tile(input, multiples):
    return apply("Tile", _t(input), multiples=_int_tuple(multiples, "tile's multiples"))


def broadcast_to(input, shape):
    return apply("BroadcastTo", _t(input), shape=_int_tuple(shape, "broadcast_to's shape"))


def gather(input_params, input_indices, axis=0):
    return apply("Gather", _t(input_params), _t(input_indices), axis=int(axis))


def shape(input):
    return _t(input).shape


def tensor_shape(input):
    return apply("Shape", _t(input))


def rank(input):
    return _t(input).ndim


def size(input):
    return _t(input).size


def getitem(x, key):
    """x[key]: basic indexing, plus integer-tensor indices (a Gather per axis)."""
    items = key if isinstance(key, tuple) else (key,)
    tensor_pos = [i for i, k in enumerate(items) if isinstance(k, (TensorLike, list,
                                                                      np.ndarray))]
    if not tensor_pos:
        return apply("Index", x, index=encode_index(key))
    idx = [_t(items[i]) if not isinstance(items[i], TensorLike) else items[i]
           for i in tensor_pos]
    for t in idx:
        if t.dtype.is_bool:
            if isinstance(x, SymbolicTensor) or isinstance(t, SymbolicTensor):
                raise TypeError("indexing with a bool mask gives a shape known only at run "
                                "time; use ops.where(mask, x, 0) or ops.masked_fill instead")
            return Tensor._wrap(np.asarray(x._need_data()[t._need_data()]))
    if len(tensor_pos) > 1 and builtins.any(t.ndim != 0 for t in idx
                                            if isinstance(t.ndim, int)):
        raise TypeError("several tensor indices at once (numpy advanced indexing) are not "
                        "supported; index one axis at a time")
    basic = list(items)
    for i in tensor_pos:
        basic[i] = slice(None)
    out = x
    if builtins.any(not (isinstance(k, slice) and k == slice(None)) for k in basic):
        out = apply("Index", x, index=encode_index(tuple(basic)))
    # the axis of each tensor index in `out`: count the items before it that keep a dim
    offset = 0
    for i, t in zip(tensor_pos, idx):
        axis = 0
        for k in items[:i]:
            if k is Ellipsis:
                raise TypeError("a tensor index after '...' is not supported")
            if k is None or isinstance(k, slice) or isinstance(k, TensorLike):
                axis += 1
        axis += offset
        if not t.dtype.is_integer:
            raise TypeError(f"tensor indices must be integers, got {t.dtype}")
        out = apply("Gather", out, t, axis=axis)
        nd = t.ndim if isinstance(t.ndim, int) else 0
        offset += nd - 1
    return out


# -- creation --------------------------------------------------------------------------------
def zeros(size, dtype=None):
    return apply("Fill", shape=_int_tuple(size, "zeros' shape"),
                 dtype=dt.float32 if dtype is None else dt.as_dtype(dtype), value=0)


def ones(shape, dtype=None):
    return apply("Fill", shape=_int_tuple(shape, "ones' shape"),
                 dtype=dt.float32 if dtype is None else dt.as_dtype(dtype), value=1)


def full(size, fill_value, *, dtype=None):
    if dtype is None:
        dtype = dt.bool_ if isinstance(fill_value, bool) else (
            dt.int64 if isinstance(fill_value, int) else dt.float32)
    return apply("Fill", shape=_int_tuple(size, "full's shape"), dtype=dt.as_dtype(dtype),
                 value=fill_value)


def fill(type, shape, value):
    return apply("Fill", shape=_int_tuple(shape, "fill's shape"), dtype=dt.as_dtype(type),
                 value=value)


def zeros_like(input, *, dtype=None):
    return apply("ZerosLike", _t(input), dtype=None if dtype is None else dt.as_dtype(dtype))


def ones_like(input, *, dtype=None):
    return apply("OnesLike", _t(input), dtype=None if dtype is None else dt.as_dtype(dtype))


def arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    for v in (start, end, step):
        if isinstance(v, TensorLike):
            raise TypeError("arange bounds must be Python numbers known while the graph is "
                            "built")
    if dtype is None:
        dtype = dt.float32 if builtins.any(isinstance(v, float) for v in (start, end, step)) \
            else dt.int64
    return apply("Range", start=start, limit=end, delta=step, dtype=dt.as_dtype(dtype))


# -- neural network ----------------------------------------------------------------------------
def matmul(input, other):
    return apply("MatMul", _t(input), _t(other))


def bmm(input, mat2):
    return matmul(input, mat2)


def softmax(input, axis=-1):
    return apply("Softmax", _t(input), axis=axis)


def log_softmax(input, axis=-1):
    return apply("LogSoftmax", _t(input), axis=axis)


# -- updates and effects ---------------------------------------------------------------------
def index_update(x, key, value):
    """A copy of x with x[key] = value (the functional form of item assignment)."""
    items = key if isinstance(key, tuple) else (key,)
    if builtins.any(isinstance(k, TensorLike) for k in items):
        if not builtins.any(isinstance(k, SymbolicTensor) for k in items) and \
                not isinstance(x, SymbolicTensor) and not isinstance(value, SymbolicTensor):
            y = Tensor._wrap(np.array(x._need_data()))
            y[key] = value
            return y
        raise TypeError("item assignment with a tensor index inside a graph is not "
                        "supported; use ops.where with a mask")
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    return apply("IndexUpdate", xt, v, index=encode_index(key))


def runtime_print(args, sep=" ", end="\n"):
    """print(*args) when the graph runs (eagerly: now)."""
    tensors, template = [], []
    for a in args:
        if isinstance(a, SymbolicTensor):
            template.append(len(tensors))
            tensors.append(a)
        else:
            template.append(str(a))
    if not tensors:
        from ..frontend.values import _stack
        if _stack():      # building a graph: print each time it runs, as eager mode does
            _graph_print(template, sep, end)
        else:
            print(*args, sep=sep, end=end)
        return None
    from ..frontend.values import GraphTensor
    GraphTensor._apply("Print", tuple(tensors), {"template": tuple(template), "sep": sep,
                                                 "end": end})
    return None


def _graph_print(template, sep, end):
    from ..frontend.values import active
    ctx = active()
    ctx.graph.add_node("Print", (), {"template": tuple(template), "sep": sep, "end": end})


def runtime_assert(cond, message=""):
    """Raise AssertionError(message) when the graph runs and cond is false."""
    c = _t(cond)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    if isinstance(c, SymbolicTensor):
        from ..frontend.values import GraphTensor
        GraphTensor._apply("Assert", (c,), {"message": message})
        return None
    if not bool(np.all(c._need_data())):
        raise AssertionError(message)
    return None
