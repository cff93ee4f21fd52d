"""mindspore.numpy's elementwise functions and reductions. Python numbers become int32 or
float32 tensors before an operator sees them, then tensor-with-tensor promotion applies;
reductions keep the input's dtype (a mean of int32 is int32), as MindSpore's numpy does.
Every function takes dtype= to cast its result."""
from __future__ import annotations

from .. import ops
from ..ir import dtypes as dt
from ._utils import check_dtype, normalize_axis, to_tensor

_UNARY = {
    "exp": ops.exp, "log": ops.log, "sqrt": ops.sqrt, "square": ops.square,
    "absolute": ops.abs, "negative": ops.neg, "sin": ops.sin, "cos": ops.cos,
    "tanh": ops.tanh, "floor": ops.floor, "ceil": ops.ceil, "sign": ops.sign,
    "log1p": ops.log1p, "expm1": ops.expm1, "reciprocal": ops.reciprocal,
    "rint": ops.round, "trunc": ops.trunc, "tan": ops.tan, "arcsin": ops.asin,
    "arccos": ops.acos, "arctan": ops.atan, "sinh": ops.sinh, "cosh": ops.cosh,
    "arcsinh": ops.asinh, "arccosh": ops.acosh, "arctanh": ops.atanh,
}
_BINARY = {
    "add": ops.add, "subtract": ops.sub, "multiply": ops.mul, "power": ops.pow,
    "floor_divide": ops.floor_divide, "remainder": ops.remainder, "fmod": ops.fmod,
}
_COMPARE = {
    "equal": ops.equal, "not_equal": ops.not_equal, "less": ops.less,
    "less_equal": ops.less_equal, "greater": ops.greater,
    "greater_equal": ops.greater_equal, "logical_and": ops.logical_and,
    "logical_or": ops.logical_or, "logical_xor": ops.logical_xor,
}

__all__ = (list(_UNARY) + list(_BINARY) + list(_COMPARE) + [
    "abs", "positive", "divide", "true_divide", "mod", "maximum", "minimum", "fmax", "fmin",
    "logical_not", "exp2", "log2", "log10", "sum", "mean", "var", "std", "amax", "amin",
    "max", "min", "prod", "argmax", "argmin", "cumsum", "matmul", "dot", "outer", "inner",
    "clip", "isclose", "allclose", "isnan", "isinf", "isfinite", "count_nonzero", "ptp",
    "average", "deg2rad", "rad2deg", "all", "any", "around", "cbrt", "heaviside", "hypot"])


def _cast(res, dtype):
    if dtype is None:
        return res
    dtype = check_dtype(dtype)
    return res if res.dtype is dtype else ops.cast(res, dtype)


def _unary(fn, name):
    def f(x, dtype=None):
        return _cast(fn(to_tensor(x)), dtype)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"mindspore.numpy.{name}, elementwise; dtype casts the result."
    return f


def _binary(fn, name):
    def f(x1, x2, dtype=None):
        return _cast(fn(to_tensor(x1), to_tensor(x2)), dtype)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"mindspore.numpy.{name}, elementwise with broadcasting; Python numbers "
                 f"are int32/float32 tensors; dtype casts the result.")
    return f


for _n, _f in _UNARY.items():
    globals()[_n] = _unary(_f, _n)
for _n, _f in {**_BINARY, **_COMPARE}.items():
    globals()[_n] = _binary(_f, _n)
abs = absolute          # noqa: F821  (made by the loop above)
mod = remainder         # noqa: F821
logical_not = _unary(ops.logical_not, "logical_not")
isnan = _unary(ops.isnan, "isnan")
isinf = _unary(ops.isinf, "isinf")
isfinite = _unary(ops.isfinite, "isfinite")


def positive(a, dtype=None):
    """a itself (as a tensor)."""
    return _cast(to_tensor(a), dtype)


def divide(x1, x2, dtype=None):
    """True division; two non-floating inputs are divided as float32."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    if not x1.dtype.is_floating and not x2.dtype.is_floating:
        x1, x2 = ops.cast(x1, dt.float32), ops.cast(x2, dt.float32)
    return _cast(ops.div(x1, x2), dtype)


true_divide = divide


def _minmax(fn, x1, x2, dtype):
    x1, x2 = to_tensor(x1), to_tensor(x2)
    if dtype is None:           # a 0-d side takes the other side's dtype
        if x1.ndim == 0 and x2.ndim != 0:
            dtype = x2.dtype
        elif x2.ndim == 0 and x1.ndim != 0:
            dtype = x1.dtype
    if dtype is not None:
        x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    return fn(x1, x2)


def maximum(x1, x2, dtype=None):
    """Elementwise maximum (NaN propagates); against a scalar, the tensor's dtype."""
    return _minmax(ops.maximum, x1, x2, dtype)


def minimum(x1, x2, dtype=None):
    """Elementwise minimum (NaN propagates); against a scalar, the tensor's dtype."""
    return _minmax(ops.minimum, x1, x2, dtype)


def fmax(x1, x2, dtype=None):
    """Elementwise maximum ignoring NaN (the other value wins)."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    m = maximum(x1, x2, dtype)
    return ops.where(ops.isnan(x1), _cast(x2, m.dtype), ops.where(ops.isnan(x2),
                                                                    _cast(x1, m.dtype), m))


def fmin(x1, x2, dtype=None):
    """Elementwise minimum ignoring NaN (the other value wins)."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    m = minimum(x1, x2, dtype)
    return ops.where(ops.isnan(x1), _cast(x2, m.dtype), ops.where(ops.isnan(x2),
                                                                    _cast(x1, m.dtype), m))


def exp2(x, dtype=None):
    """2 ** x."""
    x = to_tensor(x)
    return _cast(ops.pow(ops.cast(to_tensor(2), x.dtype if x.dtype.is_floating
                                  else dt.float32), x), dtype)


def log2(x, dtype=None):
    """Base-2 logarithm."""
    x = to_tensor(x)
    return _cast(ops.log(x) / ops.log(ops.cast(to_tensor(2.0), ops.log(x).dtype)), dtype)


def log10(x, dtype=None):
    """Base-10 logarithm."""
    x = to_tensor(x)
    return _cast(ops.log(x) / ops.log(ops.cast(to_tensor(10.0), ops.log(x).dtype)), dtype)


def deg2rad(x, dtype=None):
    """Degrees to radians."""
    return _cast(to_tensor(x) * 3.141592653589793 / 180.0, dtype)


def rad2deg(x, dtype=None):
    """Radians to degrees."""
    return _cast(to_tensor(x) * 180.0 / 3.141592653589793, dtype)


def cbrt(x, dtype=None):
    """Cube root (negative inputs give negative roots)."""
    x = to_tensor(x)
    return _cast(ops.sign(x) * ops.pow(ops.abs(x), 1.0 / 3.0), dtype)


def heaviside(x1, x2, dtype=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    one, zero = ops.ones_like(x1), ops.zeros_like(x1)
    return _cast(ops.where(x1 > 0, one, ops.where(x1 < 0, zero, x2 + zero)), dtype)


def hypot(x1, x2, dtype=None):
    """sqrt(x1**2 + x2**2)."""
    x1, x2 = to_tensor(x1), to_tensor(x2)
    return _cast(ops.sqrt(x1 * x1 + x2 * x2), dtype)


def around(a, decimals=0):
    """a rounded to the given number of decimals (half to even)."""
    a = to_tensor(a)
    if decimals == 0:
        return ops.round(a)
    f = 10.0 ** decimals
    return ops.round(a * f) / f


# -- reductions ----------------------------------------------------------------------------
def _axes(axis, nd):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, nd) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"mindspore.numpy: duplicate value in axis {tuple(axis)}")
        return axes
    return normalize_axis(axis, nd)


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):
    """Sum over axis (all elements when None), in a's dtype (bool sums as int32), plus
    initial when given."""
    a = to_tensor(a)
    out_dtype = check_dtype(dtype) if dtype is not None else (
        dt.int32 if a.dtype.is_bool else a.dtype)
    x = ops.cast(a, out_dtype) if a.dtype is not out_dtype else a
    res = ops.sum(x, _axes(axis, a.ndim), bool(keepdims))
    if initial is not None:
        res = res + initial
    return _cast(res, out_dtype)


def mean(a, axis=None, keepdims=False, dtype=None):
    """Mean over axis (all elements when None), cast to a's dtype (or dtype)."""
    a = to_tensor(a)
    out_dtype = a.dtype if dtype is None else check_dtype(dtype)
    return _cast(ops.mean(a, _axes(axis, a.ndim), bool(keepdims)), out_dtype)


def var(x, axis=None, ddof=0, keepdims=False):
    """Variance over axis, dividing by N - ddof."""
    x = to_tensor(x)
    return ops.var(x, _axes(axis, x.ndim), ddof, bool(keepdims))


def std(x, axis=None, ddof=0, keepdims=False):
    """Standard deviation over axis, dividing by N - ddof."""
    x = to_tensor(x)
    return ops.std(x, _axes(axis, x.ndim), ddof, bool(keepdims))


def _extreme(fn, a, axis, keepdims, initial, where):
    a = to_tensor(a)
    kw = {}
    if initial is not None:
        kw["initial"] = initial
    if where is not True and where is not None:
        kw["where"] = to_tensor(where)
    return fn(a, _axes(axis, a.ndim), bool(keepdims), **kw)


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """Maximum over axis (all elements when None), in a's dtype."""
    return _extreme(ops.amax, a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """Minimum over axis (all elements when None), in a's dtype."""
    return _extreme(ops.amin, a, axis, keepdims, initial, where)


max = amax
min = amin


def prod(a, axis=None, keepdims=False, initial=None, dtype=None):
    """Product over axis, in a's dtype."""
    a = to_tensor(a)
    out_dtype = a.dtype if dtype is None else check_dtype(dtype)
    res = ops.prod(a, _axes(axis, a.ndim), bool(keepdims))
    if initial is not None:
        res = res * initial
    return _cast(res, out_dtype)


def ptp(x, axis=None, keepdims=False):
    """max - min over axis."""
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def all(a, axis=None, keepdims=False):
    """Whether every element over axis is true."""
    a = to_tensor(a)
    return ops.all(a, _axes(axis, a.ndim), bool(keepdims))


def any(a, axis=None, keepdims=False):
    """Whether any element over axis is true."""
    a = to_tensor(a)
    return ops.any(a, _axes(axis, a.ndim), bool(keepdims))


def count_nonzero(x, axis=None, keepdims=False):
    """How many elements over axis are non-zero."""
    x = to_tensor(x)
    return sum(ops.cast(ops.not_equal(x, ops.zeros_like(x)), dt.int32), axis,
               keepdims=keepdims)


def average(x, axis=None, weights=None, returned=False):
    """Weighted mean over axis (the plain mean when weights is None)."""
    x = to_tensor(x)
    if weights is None:
        avg = ops.mean(x, _axes(axis, x.ndim))
        n = x.size if axis is None else 1
        if axis is not None:
            for ax in ((axis,) if isinstance(axis, int) else axis):
                n *= x.shape[ax]
        return (avg, ops.full_like(avg, n)) if returned else avg
    w = to_tensor(weights)
    if w.ndim == 1 and x.ndim != 1:
        shape = [1] * x.ndim
        shape[normalize_axis(axis, x.ndim)] = w.shape[0]
        w = ops.reshape(w, tuple(shape))
    ws = ops.sum(ops.broadcast_to(w, x.shape), _axes(axis, x.ndim))
    avg = ops.sum(x * w, _axes(axis, x.ndim)) / ws
    return (avg, ws) if returned else avg


def argmax(a, axis=None):
    """Index of the maximum along axis (of the flattened a when None)."""
    a = to_tensor(a)
    return ops.argmax(a, None if axis is None else normalize_axis(axis, a.ndim))


def argmin(a, axis=None):
    """Index of the minimum along axis (of the flattened a when None)."""
    a = to_tensor(a)
    return ops.argmin(a, None if axis is None else normalize_axis(axis, a.ndim))


def cumsum(a, axis=None, dtype=None):
    """Running sum along axis (of the flattened a when None); bool and small int inputs
    sum as int32."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    out_dtype = check_dtype(dtype) if dtype is not None else (
        dt.int32 if a.dtype.is_bool or a.dtype in (dt.int8, dt.int16, dt.uint8) else a.dtype)
    return ops.cumsum(_cast(a, out_dtype), normalize_axis(axis, a.ndim))


# -- products ------------------------------------------------------------------------------
def matmul(x1, x2, dtype=None):
    """Matrix product with numpy's rules for 1-D operands and batch broadcasting."""
    return _cast(ops.matmul(to_tensor(x1), to_tensor(x2)), dtype)


def dot(a, b):
    """numpy's dot: a product with a 0-d operand, the inner product of 1-D ones, else a
    sum over a's last axis and b's second-to-last."""
    a, b = to_tensor(a), to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    if b.ndim == 1:
        return ops.sum(ops.mul(a, b), -1) if a.ndim >= 1 else ops.mul(a, b)
    if a.ndim == 1:
        return ops.matmul(a, b) if b.ndim == 2 else ops.squeeze(
            ops.matmul(ops.reshape(a, (1, -1)), b), -2)
    if b.ndim == 2:
        return ops.matmul(a, b)
    perm = list(range(b.ndim))
    perm = perm[:-2] + [perm[-1], perm[-2]]
    bt = ops.transpose(b, tuple(perm))                   # (..., n, k)
    a2 = ops.reshape(a, (-1, a.shape[-1]))              # (m, k)
    b2 = ops.reshape(bt, (-1, bt.shape[-1]))            # (p, k)
    res = ops.matmul(a2, ops.transpose(b2, (1, 0)))
    return ops.reshape(res, tuple(a.shape[:-1]) + tuple(bt.shape[:-1]))


def outer(a, b):
    """out[i, j] = a[i] * b[j] over the flattened inputs."""
    a, b = to_tensor(a), to_tensor(b)
    return ops.mul(ops.reshape(a, (-1, 1)), ops.reshape(b, (1, -1)))


def inner(a, b):
    """Sum product over the last axes of a and b."""
    a, b = to_tensor(a), to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    perm = tuple(range(b.ndim - 1))
    bt = ops.transpose(b, (b.ndim - 1,) + perm) if b.ndim > 1 else b
    return dot(a, bt) if b.ndim > 1 else ops.sum(ops.mul(a, b), -1)


# -- comparisons ---------------------------------------------------------------------------
def clip(x, xmin, xmax, dtype=None):
    """x limited to [xmin, xmax] (either may be None, not both)."""
    if xmin is None and xmax is None:
        raise ValueError("One of max or min must be given.")
    if xmin is not None:
        x = maximum(x, xmin, dtype)
    if xmax is not None:
        x = minimum(x, xmax, dtype)
    return x


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, elementwise (NaNs equal when equal_nan)."""
    a, b = to_tensor(a), to_tensor(b)
    return ops.isclose(a, b, rtol, atol, equal_nan)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds for every element."""
    return ops.all(isclose(a, b, rtol, atol, equal_nan))
