"""More of mindspore.numpy's math: elementwise functions (float_power, fix, divmod,
gcd/lcm, logaddexp, copysign, bitwise, signbit...), NaN-aware reductions (nansum,
nanmean, nanvar, nanstd, nanmax, nanmin, nancumsum), cumprod, norm, products (kron,
cross, multi_dot, matrix_power), trapz, convolve/correlate, cov/corrcoef and the type
helpers promote_types/result_type. Each stands on graphjit.ops, so it runs eagerly and in
graphs alike (gradient, unwrap and interp are in stats_more.py)."""
from __future__ import annotations

import builtins
import math
import sys

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..ir.defs.common import promote
from ..common.tensor import TensorLike
from ._utils import check_dtype, normalize_axis, to_tensor
from .math_ops import _axes, _cast, around, deg2rad

__all__ = ["float_power", "fix", "divmod", "gcd", "lcm", "logaddexp", "logaddexp2", "copysign",
           "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not", "radians",
           "isposinf", "isneginf", "signbit", "fabs", "arctan2", "round", "isscalar", "sometrue",
           "array_equiv", "nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
           "nancumsum", "cumprod", "norm", "kron", "cross", "multi_dot", "matrix_power",
           "trapz", "convolve", "correlate", "cov", "corrcoef", "promote_types", "result_type",
           "ediff1d"]



def _elementwise(fn, name, doc):
    def f(x1, x2, dtype=None):
        return _cast(fn(to_tensor(x1), to_tensor(x2)), dtype)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"mindspore.numpy.{name}: {doc}; dtype casts the result."
    return f


gcd = _elementwise(ops.gcd, "gcd", "the greatest common divisor of integers")
lcm = _elementwise(ops.lcm, "lcm", "the least common multiple of integers")
logaddexp = _elementwise(ops.logaddexp, "logaddexp", "log(exp(x1) + exp(x2))")
logaddexp2 = _elementwise(ops.logaddexp2, "logaddexp2", "log2(2 ** x1 + 2 ** x2)")
bitwise_and = _elementwise(ops.bitwise_and, "bitwise_and", "x1 & x2 (integers or bool)")
bitwise_or = _elementwise(ops.bitwise_or, "bitwise_or", "x1 | x2 (integers or bool)")
bitwise_xor = _elementwise(ops.bitwise_xor, "bitwise_xor", "x1 ^ x2 (integers or bool)")


def copysign(x1, x2, dtype=None):
    """|x1| where x2 >= 0, -|x1| where x2 < 0, in x1's dtype (MindSpore's numpy: integers
    stay integers, and -0.0 in x2 counts as positive as `x2 < 0` says)."""
    a, b = to_tensor(x1), to_tensor(x2)
    if a.dtype.is_bool or b.dtype.is_bool:
        raise TypeError("mindspore.numpy.copysign: sign does not accept dtype bool.")
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    pos = ops.broadcast_to(ops.abs(a), shape)
    res = ops.where(ops.broadcast_to(ops.less(b, 0), shape), ops.neg(pos), pos)
    return _cast(res, dtype)


def float_power(x1, x2, dtype=None):
    """x1 ** x2 with both sides cast to float32 (MindSpore's numpy promotes integers and
    floats to float32, not float64 as numpy does)."""
    a, b = ops.cast(to_tensor(x1), dt.float32), ops.cast(to_tensor(x2), dt.float32)
    return _cast(ops.pow(a, b), dtype)


def fix(x):
    """Round toward zero; a non-floating input becomes float32."""
    x = to_tensor(x)
    if not x.dtype.is_floating:
        x = ops.cast(x, dt.float32)
    return ops.trunc(x)


def divmod(x1, x2, dtype=None):
    """(x1 // x2, x1 % x2), both flooring as Python does."""
    a, b = to_tensor(x1), to_tensor(x2)
    return _cast(ops.floor_divide(a, b), dtype), _cast(ops.remainder(a, b), dtype)


def invert(x, dtype=None):
    """~x: bitwise not of integers, logical not of bool."""
    return _cast(ops.invert(to_tensor(x)), dtype)


bitwise_not = invert


def radians(x, dtype=None):
    """Degrees to radians (deg2rad)."""
    return deg2rad(x, dtype)


def isposinf(x):
    """True where x is +inf."""
    return ops.isposinf(to_tensor(x))


def isneginf(x):
    """True where x is -inf."""
    return ops.isneginf(to_tensor(x))


def signbit(x, dtype=None):
    """True where the sign bit is set (negative numbers and -0.0)."""
    return _cast(ops.signbit(to_tensor(x)), dtype)


def fabs(x, dtype=None):
    """|x| (mindspore.numpy's fabs is absolute: the dtype is kept)."""
    return _cast(ops.abs(to_tensor(x)), dtype)


def arctan2(x1, x2, dtype=None):
    """The angle of the point (x2, x1) in (-pi, pi], elementwise (numpy.arctan2)."""
    return _cast(ops.atan2(to_tensor(x1), to_tensor(x2)), dtype)


def round(a, decimals=0, out=None):
    """a rounded to decimals places, halves to even (numpy.round, around)."""
    if out is not None:
        raise TypeError("mindspore.numpy.round: out is not supported")
    return around(a, decimals)


def isscalar(element):
    """Whether element is a Python or numpy scalar (a Tensor is not)."""
    return isinstance(element, (int, float, bool, complex, str, bytes, np.generic))


def sometrue(a, axis=None, keepdims=False):
    """Whether any element over axis is true (any)."""
    a = to_tensor(a)
    return ops.any(a, _axes(axis, a.ndim), bool(keepdims))


def array_equiv(a1, a2):
    """Whether a1 and a2 broadcast to one shape and are equal everywhere (a bool
    tensor)."""
    a, b = to_tensor(a1), to_tensor(a2)
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        return to_tensor(False)
    return ops.all(ops.equal(a, b))


# -- NaN-aware reductions --------------------------------------------------------------------
def _nan_to(a, value):
    return ops.where(ops.isnan(a), ops.full_like(a, value), a) if a.dtype.is_floating else a


def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum over axis with NaN counted as zero, in a's dtype."""
    a = to_tensor(a)
    out = a.dtype if dtype is None else check_dtype(dtype)
    return _cast(ops.sum(_nan_to(a, 0), _axes(axis, a.ndim), bool(keepdims)), out)


def _count(a, axis, keepdims):
    return ops.sum(ops.cast(ops.logical_not(ops.isnan(a)), a.dtype), _axes(axis, a.ndim),
                   bool(keepdims))


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """The mean over axis of the elements that are not NaN."""
    a = to_tensor(a)
    if not a.dtype.is_floating:
        a = ops.cast(a, dt.float32)
    s = ops.sum(_nan_to(a, 0), _axes(axis, a.ndim), bool(keepdims))
    return _cast(s / _count(a, axis, keepdims), dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The variance over axis of the elements that are not NaN (divisor N - ddof);
    float32 unless dtype is given, as MindSpore's numpy."""
    a = to_tensor(a)
    if not a.dtype.is_floating:
        a = ops.cast(a, dt.float32)
    m = nanmean(a, axis, keepdims=True)
    d = _nan_to(a - m, 0)
    s = ops.sum(d * d, _axes(axis, a.ndim), bool(keepdims))
    n = _count(a, axis, keepdims) - ddof
    return _cast(s / ops.maximum(n, ops.zeros_like(n)), dt.float32 if dtype is None else dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The standard deviation over axis of the elements that are not NaN; float32 unless
    dtype is given."""
    return _cast(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)),
                 dt.float32 if dtype is None else dtype)


def _nan_extreme(fn, fill, a, axis, keepdims, dtype):
    """NaN replaced by fill before the reduction: an all-NaN slice gives fill cast to the
    dtype (MindSpore's numpy: -sys.maxsize - 1 for nanmax, sys.maxsize for nanmin)."""
    a = to_tensor(a)
    if not a.dtype.is_floating:
        return _cast(fn(a, _axes(axis, a.ndim), bool(keepdims)), dtype)
    return _cast(fn(_nan_to(a, fill), _axes(axis, a.ndim), bool(keepdims)), dtype)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """The maximum over axis ignoring NaN (an all-NaN slice gives -2 ** 63 in a's
    dtype, as MindSpore's numpy does)."""
    return _nan_extreme(ops.amax, float(-sys.maxsize - 1), a, axis, keepdims, dtype)


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """The minimum over axis ignoring NaN (an all-NaN slice gives 2 ** 63 - 1 in a's
    dtype)."""
    return _nan_extreme(ops.amin, float(sys.maxsize), a, axis, keepdims, dtype)


def _scan_dtype(a, dtype):
    if dtype is not None:
        return check_dtype(dtype)
    if a.dtype.is_bool or a.dtype in (dt.int8, dt.int16):
        return dt.int32
    return dt.uint32 if a.dtype in (dt.uint8, dt.uint16) else a.dtype


def nancumsum(a, axis=None, dtype=None):
    """The running sum along axis (of the flattened a when None), NaN counted as zero."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.cumsum(_cast(_nan_to(a, 0), _scan_dtype(a, dtype)), normalize_axis(axis, a.ndim))


def cumprod(a, axis=None, dtype=None):
    """The running product along axis (of the flattened a when None)."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.cumprod(_cast(a, _scan_dtype(a, dtype)), normalize_axis(axis, a.ndim))


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms (ord a number, inf, -inf) over one axis, the Frobenius norm of all
    elements or of two axes (ord None or 'fro'), and the matrix 1, inf, -1, -inf and
    'nuc'-free norms over two axes."""
    x = to_tensor(x)
    if not x.dtype.is_floating:
        x = ops.cast(x, dt.float32)
    if isinstance(axis, int):
        axis = (axis,)
    axes = None if axis is None else tuple(normalize_axis(a, x.ndim) for a in axis)
    if axes is None:
        if ord is None or (ord == "fro" and x.ndim == 2):
            return ops.sqrt(ops.sum(x * x, None, keepdims))
        if x.ndim == 1:
            axes = (0,)
        elif x.ndim == 2:
            axes = (0, 1)
        else:
            raise ValueError("mindspore.numpy.norm: improper number of dimensions to norm")
    if len(axes) == 1:
        if ord is None:
            ord = 2
        if isinstance(ord, str):
            raise ValueError("mindspore.numpy.norm: Frobenius norm and nuclear norm are only "
                             "defined for vectors")
        a = x.abs()
        if ord == math.inf:
            return ops.amax(a, axes[0], keepdims)
        if ord == -math.inf:
            return ops.amin(a, axes[0], keepdims)
        if ord == 0:
            return ops.sum(ops.cast(ops.not_equal(x, 0), x.dtype), axes[0], keepdims)
        if ord == 1:
            return ops.sum(a, axes[0], keepdims)
        if ord == 2:
            return ops.sqrt(ops.sum(x * x, axes[0], keepdims))
        return ops.pow(ops.sum(ops.pow(a, float(ord)), axes[0], keepdims), 1.0 / ord)
    if len(axes) != 2:
        raise ValueError("mindspore.numpy.norm: improper number of dimensions to norm")
    r, c = axes
    if ord is None or ord == "fro":
        return ops.sqrt(ops.sum(x * x, axes, keepdims))
    a = x.abs()
    if ord in (1, -1):
        s = ops.sum(a, r, True)
        out = (ops.amax if ord == 1 else ops.amin)(s, c, True)
    elif ord in (math.inf, -math.inf):
        s = ops.sum(a, c, True)
        out = (ops.amax if ord == math.inf else ops.amin)(s, r, True)
    elif ord in ("nuc", 2, -2):
        raise NotImplementedError(f"mindspore.numpy.norm: the {ord!r} norm is not implemented "
                                  f"for matrices")
    else:
        raise ValueError("mindspore.numpy.norm: invalid norm order for matrices")
    return out if keepdims else ops.squeeze(out, axes)


# -- products ----------------------------------------------------------------------------------
def kron(a, b):
    """The Kronecker product."""
    return ops.kron(to_tensor(a), to_tensor(b))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (numpy's; 2-vectors are taken with a zero z)."""
    a, b = to_tensor(a), to_tensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = ops.moveaxis(a, axisa, -1), ops.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("mindspore.numpy.cross: incompatible dimensions for cross product "
                         "(dimension must be 2 or 3)")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if a.shape[-1] == 2:
        a = ops.concat((a, ops.zeros_like(a[..., :1])), -1)
    if b.shape[-1] == 2:
        b = ops.concat((b, ops.zeros_like(b[..., :1])), -1)
    out = ops.cross(a, b, -1)
    return ops.moveaxis(out, -1, axisc)


def multi_dot(arrays):
    """The chained matrix product of the arrays (a 1-D first/last one is a row/column)."""
    ts = [to_tensor(a) for a in arrays]
    if len(ts) < 2:
        raise ValueError("mindspore.numpy.multi_dot: expecting at least two arrays")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_1d:
        ts[0] = ops.reshape(ts[0], (1, -1))
    if last_1d:
        ts[-1] = ops.reshape(ts[-1], (-1, 1))
    out = ts[0]
    for t in ts[1:]:
        out = ops.matmul(out, t)
    if first_1d and last_1d:
        return ops.reshape(out, ())
    if first_1d:
        return ops.squeeze(out, 0)
    if last_1d:
        return ops.squeeze(out, -1)
    return out


def matrix_power(a, n):
    """a multiplied by itself n times, one matmul after another as MindSpore's numpy does
    (the identity for n = 0; a negative n is refused, as there)."""
    a = to_tensor(a)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("mindspore.numpy.matrix_power: exponent must be an integer")
    if a.ndim < 2:
        raise ValueError("mindspore.numpy.matrix_power: Array must be at least two-dimensional")
    if a.shape[-2] != a.shape[-1]:
        raise ValueError("mindspore.numpy.matrix_power: Last 2 dimensions of the array must "
                         "be square")
    if n < 0:
        raise ValueError("mindspore.numpy.matrix_power: n < 0 is not supported now.")
    if n == 0:
        return ops.broadcast_to(ops.eye(a.shape[-1], a.shape[-1], a.dtype), tuple(a.shape))
    res = a
    for _ in range(n - 1):
        res = ops.matmul(res, a)
    return res


def trapz(y, x=None, dx=1.0, axis=-1):
    """The integral along axis by the trapezoidal rule."""
    y = to_tensor(y)
    return ops.trapz(y, None if x is None else to_tensor(x), dx=dx, dim=axis)


def _conv_full(a, v):
    """The full discrete convolution of two 1-D sequences, as one conv1d of a (padded by
    len(v) - 1 on both sides) with v reversed; integers are convolved in float64 (exact
    below 2 ** 53) and cast back."""
    a, v = ops.reshape(to_tensor(a), (-1,)), ops.reshape(to_tensor(v), (-1,))
    d = promote(a.dtype, v.dtype)
    n, m = a.shape[0], v.shape[0]
    if n == 0 or m == 0:
        raise ValueError("mindspore.numpy.convolve: inputs cannot be empty")
    cdt = d if d.is_floating else dt.float64
    a, v = ops.cast(a, cdt), ops.cast(v, cdt)
    x = ops.pad(ops.reshape(a, (1, 1, n)), (m - 1, m - 1))
    w = ops.reshape(ops.flip(v, (0,)), (1, 1, m))
    out = ops.reshape(ops.conv1d(x, w), (n + m - 1,))
    return (out if cdt is d else ops.cast(out, d)), n, m


def _mode_slice(full, n, m, mode, what):
    if mode == "full":
        return full
    if mode == "same":
        size = builtins.max(n, m)
        start = (n + m - 1 - size) // 2
        return full[start:start + size]
    if mode == "valid":
        size = builtins.max(n, m) - builtins.min(n, m) + 1
        start = builtins.min(n, m) - 1
        return full[start:start + size]
    raise ValueError(f"mindspore.numpy.{what}: mode must be 'full', 'same' or 'valid', got "
                     f"{mode!r}")


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D sequences."""
    full, n, m = _conv_full(a, v)
    return _mode_slice(full, n, m, mode, "convolve")


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-D sequences (numpy.correlate), in float32 (float16
    stays float16), as MindSpore's numpy computes it."""
    a, v = to_tensor(a), to_tensor(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("mindspore.numpy.correlate: only support 1-dimensional inputs.")
    d = promote(a.dtype, v.dtype)
    d = d if d in (dt.float16, dt.float32) else dt.float32
    a, v = ops.cast(a, d), ops.cast(v, d)
    full, n, m = _conv_full(a, ops.flip(v, (0,)))
    return _mode_slice(full, n, m, mode, "correlate")


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables (rows, or columns if not rowvar), with
    optional frequency and observation weights."""
    x = ops.cast(to_tensor(m), dt.float32)      # MindSpore's numpy computes in float32
    if x.ndim > 2:
        raise ValueError("mindspore.numpy.cov: m has more than 2 dimensions")
    x = ops.reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        yt = to_tensor(y)
        yt = ops.cast(yt, x.dtype)
        yt = ops.reshape(yt, (1, -1)) if yt.ndim < 2 else yt
        if not rowvar and yt.shape[0] != 1:
            yt = yt.T
        x = ops.concat((x, yt), 0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = _cov_weights(fweights, x.shape[1])
    if aweights is not None:
        aw = _cov_weights(aweights, x.shape[1])
        w = aw if w is None else w * aw
    if w is None:
        avg = ops.mean(x, 1, True)
        fact = x.shape[1] - ddof
        xc = x - avg
        c = ops.matmul(xc, xc.T) / builtins.max(fact, 0)
    else:
        w_sum = ops.sum(w)
        avg = ops.sum(x * w, 1, True) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * ops.sum(w * aw) / w_sum
        xc = x - avg
        c = ops.matmul(xc * w, xc.T) / fact
    c = ops.squeeze(c) if c.shape == (1, 1) else c
    return _cast(c, dtype)


def _cov_weights(weights, n):
    """MindSpore's numpy takes integer weights only (fweights and aweights alike) and
    their absolute values."""
    w = to_tensor(weights)
    if not w.dtype.is_integer:
        raise TypeError("mindspore.numpy.cov: weights must be integer")
    if w.ndim > 1:
        raise RuntimeError("mindspore.numpy.cov: cannot handle multidimensional weights")
    if w.shape[0] != n:
        raise RuntimeError("mindspore.numpy.cov: incompatible numbers of samples and weights")
    return ops.abs(ops.cast(w, dt.float32))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients (cov normalized by the standard deviations,
    clipped to [-1, 1])."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return _cast(c / c, dtype)
    d = ops.diagonal(c)
    s = ops.sqrt(d)
    c = c / ops.reshape(s, (-1, 1)) / ops.reshape(s, (1, -1))
    return _cast(ops.clamp(c, -1.0, 1.0), dtype)


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ary, with to_begin and to_end joined on."""
    a = ops.reshape(to_tensor(ary), (-1,))
    parts = [a[1:] - a[:-1]]
    if to_begin is not None:
        parts.insert(0, ops.reshape(ops.cast(to_tensor(to_begin), a.dtype), (-1,)))
    if to_end is not None:
        parts.append(ops.reshape(ops.cast(to_tensor(to_end), a.dtype), (-1,)))
    return ops.concat(parts, 0) if len(parts) > 1 else parts[0]


# -- types -------------------------------------------------------------------------------------
def promote_types(type1, type2):
    """The smallest dtype both promote to (MindSpore's numpy table: numpy's)."""
    return promote(check_dtype(type1), check_dtype(type2))


def result_type(*arrays_and_dtypes):
    """The dtype of applying an operator to the arguments (tensors, dtypes, Python
    numbers: a number takes part as int32/float32/bool)."""
    out = None
    for a in arrays_and_dtypes:
        if isinstance(a, TensorLike):
            d = a.dtype
        elif isinstance(a, bool):
            d = dt.bool_
        elif isinstance(a, int):
            d = dt.int32
        elif isinstance(a, float):
            d = dt.float32
        else:
            d = check_dtype(a)
        out = d if out is None else promote(out, d)
    if out is None:
        raise ValueError("mindspore.numpy.result_type: at least one array or dtype is "
                         "required")
    return out
