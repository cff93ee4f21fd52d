"""MindSpore's `mindspore.ops.function.math_func`: elementwise arithmetic and comparisons,
reductions and scans, matmul/bmm/einsum, norms and statistics."""
from __future__ import annotations

import builtins
import math
import numpy as np

from .array_func import (_axis, _dim_size, _float, cast, concat, expand_dims, getitem, reshape,
                         size, transpose, where)
from .._dispatch import apply, binary, pair_function, unary_function
from .._utils import _axis_of, _const, _int_tuple, _known_shape, _rank, _t
from ...ir import dtypes as dt
from ...common.tensor import TensorLike

__all__ = ["permute", "numel", "norm", "var", "std", "roll", "vstack", "outer", "isclose",
           "count_nonzero", "add", "sub", "mul", "div", "true_divide", "floor_divide", "floor_div",
           "remainder", "floor_mod", "truncate_div", "fmod", "pow", "maximum", "minimum", "neg",
           "negative", "abs", "absolute", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
           "reciprocal", "sin", "cos", "tanh", "tan", "asin", "acos", "atan", "sinh", "cosh",
           "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
           "arctanh", "sigmoid", "erf", "relu", "square", "floor", "ceil",
           "round", "trunc", "sign", "isnan", "isinf", "isfinite", "equal", "not_equal", "less",
           "less_equal", "greater", "greater_equal", "lt", "le", "gt", "ge", "eq", "ne",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
           "bitwise_xor", "invert", "sum", "mean", "prod", "amax", "amin", "argmin", "all", "any",
           "logsumexp", "cumsum", "cumprod", "einsum", "cdist", "matmul", "bmm", "batch_dot"]


def permute(input, axis):
    return transpose(input, axis)


numel = size


def roll(input, shifts, dims=None):
    """Elements shifted along dims (the flattened tensor if dims is None), wrapping round."""
    x = _t(input)
    if dims is None:
        shape = _known_shape(x, "roll")
        return reshape(roll(reshape(x, (-1,)), shifts, 0), shape)
    shifts, dims = _int_tuple(shifts, "roll's shifts"), _int_tuple(dims, "roll's dims")
    if len(shifts) != len(dims):
        raise ValueError(f"roll: shifts {list(shifts)} and dims {list(dims)} must have the "
                         f"same length")
    out = x
    for s, d in zip(shifts, dims):
        d, n = _dim_size(out, d, "roll")
        if n == 0 or s % n == 0:
            continue
        s %= n
        pre = (builtins.slice(None),) * d
        out = concat((getitem(out, pre + (builtins.slice(n - s, None),)),
                      getitem(out, pre + (builtins.slice(0, n - s),))), d)
    return out


def vstack(tensors):
    """Join along axis 0, 1-D tensors as rows."""
    ts = [_t(t) for t in tensors]
    return concat([expand_dims(t, 0) if t.ndim == 1 else t for t in ts], 0)


def outer(input, vec2):
    """out[i, j] = input[i] * vec2[j] for 1-D tensors."""
    a, b = _t(input), _t(vec2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer takes 1-D tensors, got ranks {a.ndim} and {b.ndim}")
    return mul(expand_dims(a, 1), expand_dims(b, 0))


def _count(x, axis):
    shape = x.shape
    axes = range(len(shape)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    n = 1
    for a in axes:
        d = shape[_axis_of(a, len(shape), "the axis")]
        if not isinstance(d, int):
            raise TypeError("var/std need the sizes of the reduced dims while the graph is "
                            "built")
        n *= d
    return n


def var(input, axis=None, ddof=0, keepdims=False):
    """The variance over axis (all elements if None); the divisor is N - ddof."""
    x = _float(_t(input))
    ddof = int(ddof)
    if isinstance(axis, list):
        axis = tuple(axis)
    m = mean(x, axis, True)
    n = _count(x, axis)
    return sum((x - m) * (x - m), axis, keepdims) / builtins.max(n - ddof, 0)


def std(input, axis=None, ddof=0, keepdims=False):
    """The standard deviation over axis (all elements if None)."""
    return sqrt(var(input, axis, ddof, keepdims))


def _vector_norm(x, ord, dim, keepdim):
    if ord == math.inf:
        return amax(abs(x), dim, keepdim)
    if ord == -math.inf:
        return amin(abs(x), dim, keepdim)
    if ord == 0:
        return sum(cast(not_equal(x, 0), x.dtype), dim, keepdim)
    if ord == 1:
        return sum(abs(x), dim, keepdim)
    if ord == 2:
        return sqrt(sum(x * x, dim, keepdim))
    return pow(sum(pow(abs(x), ord), dim, keepdim), 1.0 / ord)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """The vector norm of A over dim (of all elements if dim is None and ord is None or
    'fro'); ord is a number, inf or -inf, or 'fro' (the 2-norm of the elements)."""
    x = _t(A)
    if dtype is not None:
        x = cast(x, dtype)
    x = _float(x)
    if isinstance(dim, list):
        dim = tuple(dim)
    if isinstance(ord, str):
        if ord != "fro":
            raise ValueError(f"norm: ord={ord!r} is not supported (use None, 'fro', a number, "
                             f"inf or -inf)")
        return sqrt(sum(x * x, dim, keepdim))
    if ord is None:
        return sqrt(sum(x * x, dim, keepdim))
    if isinstance(ord, TensorLike) or not isinstance(ord, (int, float)):
        raise TypeError(f"norm: ord must be a Python number, got {ord!r}")
    if dim is None and x.ndim != 1:
        raise ValueError("norm: a numeric ord needs dim (or a 1-D input): matrix norms are "
                         "not supported")
    if isinstance(dim, tuple) and len(dim) != 1:
        raise ValueError("norm: a numeric ord over several dims (a matrix norm) is not "
                         "supported")
    return _vector_norm(x, ord, dim, keepdim)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (NaNs equal if equal_nan)."""
    a, b = _t(input), _t(other)
    out = less_equal(abs(sub(a, b)), atol + rtol * abs(b))
    out = logical_or(out, equal(a, b))   # infinities of the same sign
    if equal_nan:
        out = logical_or(out, logical_and(isnan(a), isnan(b)))
    return out


def count_nonzero(x, axis=(), keep_dims=False, dtype=dt.int32):
    """The number of non-zero elements over axis (all if ())."""
    t = _t(x)
    return cast(sum(cast(not_equal(t, 0), dt.int32), None if axis == () else axis,
                    keep_dims), dtype)


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
    fn = unary_function(op)                # apply(op, _t(input)), the cached kernel at once
    fn.__module__ = __name__
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
    "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh",
    "cosh": "Cosh", "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh",
}
for _name, _op in _UNARY_FUNCTIONS.items():
    globals()[_name] = _unary(_op)


negative, absolute = neg, abs  # noqa: F821  (defined by the loop above)
# MindSpore's numpy-style names of the inverse functions
arcsin, arccos, arctan = asin, acos, atan  # noqa: F821
arcsinh, arccosh, arctanh = asinh, acosh, atanh  # noqa: F821


def round(input, *, decimals=0):
    """Round to `decimals` places, halves to even."""
    x = _t(input)
    if decimals == 0:
        return apply("Round", x)
    scale = 10.0 ** decimals
    return div(apply("Round", mul(x, scale)), scale)


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


# -- einsum --------------------------------------------------------------------------------
def _parse_einsum(equation, operands):
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {equation!r}")
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"einsum: equation {equation!r} names {len(specs)} operands, got "
                         f"{len(operands)}")
    ranks = [_rank(x, "einsum") for x in operands]
    n_ell = 0
    for s, r in zip(specs, ranks):
        if "..." in s:
            n_ell = builtins.max(n_ell, r - (len(s) - 3))
    ell = [chr(0x100 + i) for i in range(n_ell)]
    labels = []
    for s, r in zip(specs, ranks):
        if "..." in s:
            a, _, b = s.partition("...")
            k = r - len(a) - len(b)
            if k < 0:
                raise ValueError(f"einsum: operand spec {s!r} has more labels than its rank {r}")
            s = list(a) + ell[n_ell - k:] + list(b)
        else:
            s = list(s)
        for c in s:
            if len(c) == 1 and ord(c) < 0x100 and not c.isalpha():
                raise ValueError(f"einsum: bad label {c!r} in {equation!r}")
        if len(s) != r:
            raise ValueError(f"einsum: operand spec {''.join(s)!r} has {len(s)} labels for a "
                             f"tensor of rank {r}")
        labels.append(s)
    if arrow:
        if "..." in out:
            a, _, b = out.partition("...")
            out = list(a) + ell + list(b)
        else:
            out = list(out)
    else:
        counts = {}
        for s in labels:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
    every = {c for s in labels for c in s}
    for c in out:
        if c not in every or out.count(c) > 1:
            raise ValueError(f"einsum: output label {c!r} of {equation!r} must appear once and "
                             f"in an operand")
    return labels, out


def _take_diagonals(x, labels):
    """x with each repeated label reduced to its diagonal (one dim per label)."""
    labels = list(labels)
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        n = x.shape[i]
        if not isinstance(n, int) or x.shape[j] != n:
            raise ValueError(f"einsum: a repeated label needs equal dims known while the graph "
                             f"is built, got {x.shape[i]} and {x.shape[j]}")
        shape = [1] * len(labels)
        shape[i] = shape[j] = n
        eye = _const(np.eye(n, dtype=x.dtype.np).reshape(shape))
        x = sum(mul(x, eye), j)
        del labels[j]


def _to_order(x, labels, order):
    """x (dims named by labels) transposed to the labels of order, with size-1 dims for
    the labels x lacks."""
    have = [c for c in order if c in labels]
    perm = tuple(labels.index(c) for c in have)
    if perm != tuple(range(len(perm))):
        x = transpose(x, perm)
    for i, c in enumerate(order):
        if c not in labels:
            x = expand_dims(x, i)
    return x


def einsum(equation, *operands):
    """Einstein summation over one or two operands: matmul and batch matmul
    ('bij,bjk->bik'), outer products, transposes, sums, traces and diagonals ('ii->',
    'ii->i'), with '...' for leading dims; the implicit form (no '->') orders the output
    labels alphabetically, as numpy does."""
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    if len(operands) not in (1, 2):
        raise ValueError(f"einsum supports one or two operands, got {len(operands)}; split "
                         f"the equation into pairs")
    xs = [_t(x) for x in operands]
    labels, out = _parse_einsum(equation, xs)
    parts = []
    for k, (x, ls) in enumerate(zip(xs, labels)):
        x, ls = _take_diagonals(x, ls)
        others = {c for j, o in enumerate(labels) if j != k for c in o}
        gone = [i for i, c in enumerate(ls) if c not in out and c not in others]
        if gone:
            x = sum(x, tuple(gone))
            ls = [c for i, c in enumerate(ls) if i not in gone]
        parts.append((x, ls))
    if len(parts) == 1:
        x, ls = parts[0]
        return _to_order(x, ls, out)
    (a, la), (b, lb) = parts
    contract = [c for c in la if c in lb and c not in out]
    fast = _einsum_matmul(a, la, b, lb, out, contract)
    if fast is not None:
        return fast
    order = out + contract
    prod = mul(_to_order(a, la, order), _to_order(b, lb, order))
    if contract:
        prod = sum(prod, tuple(range(len(out), len(order))))
    return prod


def _einsum_matmul(a, la, b, lb, out, contract):
    """The two-operand contraction as one (batched) matmul, when every dim is known and
    the shared labels have equal sizes; None otherwise."""
    sa, sb = a.shape, b.shape
    if not (isinstance(sa, tuple) and isinstance(sb, tuple) and
            builtins.all(isinstance(d, int) for d in sa + sb)):
        return None
    size = {}
    for s, ls in ((sa, la), (sb, lb)):
        for d, c in zip(s, ls):
            if size.setdefault(c, d) != d:
                return None
    batch = [c for c in out if c in la and c in lb]
    left = [c for c in out if c in la and c not in lb]
    right = [c for c in out if c in lb and c not in la]
    bs = tuple(size[c] for c in batch)
    n_l = math.prod(size[c] for c in left)
    n_r = math.prod(size[c] for c in right)
    n_k = math.prod(size[c] for c in contract)
    am = reshape(_to_order(a, la, batch + left + contract), bs + (n_l, n_k))
    bm = reshape(_to_order(b, lb, batch + contract + right), bs + (n_k, n_r))
    res = reshape(matmul(am, bm), bs + tuple(size[c] for c in left + right))
    return _to_order(res, batch + left + right, out)


def cdist(x1, x2, p=2.0):
    """The p-norm distance between each row of x1 (B, P, M) and each row of x2 (B, R, M):
    (B, P, R) (2-D inputs give (P, R))."""
    a, b = _float(_t(x1)), _float(_t(x2))
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise ValueError(f"cdist: inputs must both have rank 2 or 3, got {a.shape} and "
                         f"{b.shape}")
    if isinstance(p, TensorLike) or not isinstance(p, (int, float)) or p < 0:
        raise ValueError(f"cdist: p must be a non-negative Python number, got {p!r}")
    d = sub(expand_dims(a, -2), expand_dims(b, -3))
    if p == 0:
        return sum(cast(not_equal(d, 0), d.dtype), -1)
    if p == math.inf:
        return amax(abs(d), -1)
    if p == 1:
        return sum(abs(d), -1)
    if p == 2:
        return sqrt(sum(mul(d, d), -1))
    return pow(sum(pow(abs(d), float(p)), -1), 1.0 / p)


matmul = pair_function("MatMul")       # apply("MatMul", _t(input), _t(other)), the cached
matmul.__name__ = matmul.__qualname__ = "matmul"                   # kernel at once
matmul.__doc__ = "Matrix product with numpy's batching and 1-D rules."
matmul.__module__ = __name__


def bmm(input_x, mat2):
    """Batched matrix product."""
    return matmul(input_x, mat2)


def batch_dot(x1, x2, axes=None):
    """Per batch (axis 0), the dot product of x1 and x2 over one axis of each: axes is
    (axis of x1, axis of x2), an int n for axis n of both, or None for the last axis of
    x1 and the second-to-last of x2 (the last if x2 has rank 2). The result is (batch,
    the other dims of x1, the other dims of x2); two (batch, n) inputs give (batch, 1)."""
    a, b = _t(x1), _t(x2)
    ra, rb = a.type.rank, b.type.rank
    if ra is None or rb is None:
        raise TypeError("batch_dot needs inputs of known rank")
    if ra < 2 or rb < 2:
        raise ValueError(f"batch_dot: inputs must have rank >= 2, got {a.type} and {b.type}")
    if axes is None:
        axes = (ra - 1, rb - 1 if rb == 2 else rb - 2)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        if axes == 0:
            raise ValueError("batch_dot: axes must not be 0 (the batch axis)")
        axes = (axes + ra, axes + rb) if axes < 0 else (axes, axes)
    elif isinstance(axes, (tuple, list)) and len(axes) == 2 and builtins.all(
            isinstance(i, int) and not isinstance(i, bool) for i in axes):
        axes = (axes[0] + ra if axes[0] < 0 else axes[0], axes[1] + rb if axes[1] < 0
                else axes[1])
    else:
        raise ValueError(f"batch_dot: axes must be None, an int or a pair of ints, got "
                         f"{axes!r}")
    return apply("BatchDot", a, b, axes=tuple(int(i) for i in axes))
