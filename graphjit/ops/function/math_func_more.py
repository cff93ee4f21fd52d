"""MindSpore 2.x math functions composed from the registry's ops (so both modes, gradients
and export come with them): logs and powers in other bases, atan2/hypot/logaddexp, NaN
handling, gcd/lcm, statistics (median, quantile, std_mean), differences and trapz, and
small activations and normalizations (the matrix helpers are in linalg_func.py)."""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import array_func as A
from . import math_func as M
from .array_func import _float, cast, concat, expand_dims, getitem, reshape, where
from .nn_func import dense
from .._dispatch import PY_SCALARS, to_tensor
from .._utils import _int, _int_tuple, _known_shape, _pair, _rank, _t
from ...ir import dtypes as dt
from ...common.tensor import TensorLike

__all__ = ["log2", "log10", "exp2", "atan2", "hypot", "lerp", "logit", "xlogy", "erfc", "frac",
           "deg2rad", "rad2deg", "isneginf", "isposinf", "nan_to_num", "fmax", "fmin",
           "float_power", "copysign", "signbit", "heaviside", "gcd", "lcm", "logaddexp",
           "logaddexp2", "ldexp", "nansum", "nanmean", "median", "quantile", "std_mean",
           "var_mean", "trapz", "diff", "renorm", "hardshrink", "softshrink", "l2_normalize",
           "normalize", "linear", "is_tensor"]

_S = builtins.slice


def _scalar_like(v, x):
    """The Python number v as a 0-d tensor of x's dtype."""
    return to_tensor(v, x.dtype)


def _float_in(input, what):
    x = _t(input)
    if x.dtype.is_bool:
        x = cast(x, dt.float32)
    return _float(x)


# -- logs, powers and angles -----------------------------------------------------------------
def log2(input):
    """The base-2 logarithm: log(input) / log(2), as MindSpore computes it; integers give
    float32."""
    x = _float_in(input, "log2")
    return M.div(M.log(x), M.log(_scalar_like(2.0, x)))


def log10(input):
    """The base-10 logarithm: log(input) / log(10); integers give float32."""
    x = _float_in(input, "log10")
    return M.div(M.log(x), M.log(_scalar_like(10.0, x)))


def exp2(input):
    """2 ** input (integers give float32, float16 stays float16)."""
    x = _t(input)
    two = to_tensor(2.0, dt.float16 if x.dtype is dt.float16 else dt.float32)
    return M.pow(two, x if not x.dtype.is_bool else cast(x, dt.float32))


def _atan_unit(z):
    """atan(z) for z in [0, 1], in float64: two half-angle reductions
    (atan z = 2 atan(z / (1 + sqrt(1 + z^2)))) bring z below tan(pi/16), where eleven
    terms of the series are exact to float64's precision."""
    one = _scalar_like(1.0, z)
    for _ in range(2):
        z = M.div(z, M.add(one, M.sqrt(M.add(one, M.mul(z, z)))))
    z2 = M.mul(z, z)
    acc = _scalar_like(1.0 / 23.0, z)
    for k in range(21, 0, -2):
        acc = M.add(M.mul(acc, M.neg(z2)), _scalar_like(1.0 / k, z))
    return M.mul(M.mul(acc, z), _scalar_like(4.0, z))


def atan2(input, other):
    """The angle of the point (other, input) in (-pi, pi], elementwise with broadcasting,
    as numpy.arctan2 (the sign of a zero input is kept); integers give float32."""
    y, x = _pair(input, other)
    out_dtype = y.dtype if y.dtype.is_floating else dt.float32
    y64, x64 = cast(y, dt.float64), cast(x, dt.float64)
    ay, ax = M.abs(y64), M.abs(x64)
    big, small = M.maximum(ay, ax), M.minimum(ay, ax)
    safe = where(M.equal(big, 0.0), _scalar_like(1.0, big), big)
    ratio = M.div(small, safe)
    both_inf = M.logical_and(M.isinf(ay), M.isinf(ax))
    ratio = where(both_inf, _scalar_like(1.0, ratio), ratio)
    t = _atan_unit(ratio)
    half_pi, pi = _scalar_like(math.pi / 2, t), _scalar_like(math.pi, t)
    t = where(M.greater(ay, ax), M.sub(half_pi, t), t)
    t = where(signbit(x64), M.sub(pi, t), t)
    t = where(signbit(y64), M.neg(t), t)
    t = where(M.logical_or(M.isnan(x64), M.isnan(y64)), _scalar_like(math.nan, t), t)
    return cast(t, out_dtype)


def hypot(input, other):
    """sqrt(input ** 2 + other ** 2), elementwise with broadcasting; integers give
    float32. float16/float32 are computed in float64 and rounded once (so 5, 12 give
    exactly 13), float64 scaled by the larger magnitude against overflow."""
    a, b = _pair(input, other)
    a, b = _float_in(a, "hypot"), _float_in(b, "hypot")
    if a.dtype is not b.dtype:
        a, b = _pair(a, b)
    if a.dtype is not dt.float64:
        a64, b64 = cast(a, dt.float64), cast(b, dt.float64)
        return cast(M.sqrt(M.add(M.mul(a64, a64), M.mul(b64, b64))), a.dtype)
    aa, ab = M.abs(a), M.abs(b)
    big, small = M.maximum(aa, ab), M.minimum(aa, ab)
    safe = where(M.equal(big, 0.0), _scalar_like(1.0, big), big)
    r = M.div(small, safe)
    out = M.mul(big, M.sqrt(M.add(_scalar_like(1.0, r), M.mul(r, r))))
    return where(M.logical_or(M.isinf(aa), M.isinf(ab)), _scalar_like(math.inf, out), out)


def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return M.add(input, M.mul(weight, M.sub(end, input)))


def logit(input, eps=None):
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] when eps is given."""
    x = _float_in(input, "logit")
    if eps is not None:
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise TypeError(f"For 'logit', eps must be a float, got {eps!r}")
        x = M.minimum(M.maximum(x, _scalar_like(eps, x)), _scalar_like(1.0 - eps, x))
    return M.log(M.div(x, M.sub(_scalar_like(1.0, x), x)))


def xlogy(input, other):
    """input * log(other), and 0 where input is 0; integers give float32."""
    x, y = _pair(input, other)
    x, y = _float_in(x, "xlogy"), _float_in(y, "xlogy")
    prod = M.mul(x, M.log(y))
    return where(M.equal(x, 0.0), A.zeros_like(prod), prod)


_ERFC_TERMS = 60


def erfc(input):
    """1 - erf(input) without the cancellation of that formula for large inputs: in
    float64, 1 - erf(x) below 3 and the continued fraction exp(-x^2) / sqrt(pi) /
    (x + 1/2 / (x + 1 / (x + 3/2 / ...))) from 3 on, rounded to the input's dtype
    (integers give float32)."""
    x = _float_in(input, "erfc")
    x64 = cast(x, dt.float64)
    near = M.sub(_scalar_like(1.0, x64), M.erf(x64))
    big = M.greater_equal(x64, 3.0)
    t = where(big, x64, _scalar_like(3.0, x64))       # the fraction only where it is used
    acc = t
    for k in range(_ERFC_TERMS, 0, -1):
        acc = M.add(t, M.div(_scalar_like(k / 2.0, t), acc))
    far = M.div(M.exp(M.neg(M.mul(t, t))), M.mul(acc, _scalar_like(math.sqrt(math.pi), t)))
    return cast(where(big, far, near), x.dtype)


def frac(input):
    """The fractional part, with input's sign: input - trunc(input)."""
    x = _t(input)
    return M.sub(x, M.trunc(x))


def _float_only(input, what):
    x = _t(input)
    if not x.dtype.is_floating:
        raise TypeError(f"For '{what}', the dtype of input must be float16, float32 or "
                        f"float64, got {x.dtype}")
    return x


def deg2rad(x):
    """Degrees to radians (a floating input)."""
    t = _float_only(x, "deg2rad")
    return M.mul(t, _scalar_like(math.pi / 180.0, t))


def rad2deg(x):
    """Radians to degrees (a floating input)."""
    t = _float_only(x, "rad2deg")
    return M.mul(t, _scalar_like(180.0 / math.pi, t))


def isneginf(input):
    """True where input is -inf."""
    x = _t(input)
    return M.logical_and(M.isinf(x), M.less(x, 0))


def isposinf(input):
    """True where input is +inf."""
    x = _t(input)
    return M.logical_and(M.isinf(x), M.greater(x, 0))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN replaced by nan, +inf by posinf (the dtype's largest value if None) and -inf by
    neginf (the dtype's lowest if None)."""
    x = _t(input)
    if not x.dtype.is_floating:
        return x
    info = np.finfo(x.dtype.np)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where(M.isnan(x), _scalar_like(nan, x), x)
    out = where(isposinf(x), _scalar_like(posinf, x), out)
    return where(isneginf(x), _scalar_like(neginf, x), out)


def fmax(input, other):
    """The elementwise maximum, ignoring a NaN on one side (NaN only where both are)."""
    a, b = _pair(input, other)
    m = M.maximum(a, b)
    if not a.dtype.is_floating:
        return m
    return where(M.isnan(a), b, where(M.isnan(b), a, m))


def fmin(input, other):
    """The elementwise minimum, ignoring a NaN on one side."""
    a, b = _pair(input, other)
    m = M.minimum(a, b)
    if not a.dtype.is_floating:
        return m
    return where(M.isnan(a), b, where(M.isnan(b), a, m))


def float_power(input, exponent):
    """input ** exponent computed in float64 (the result is float64)."""
    x = cast(_t(input), dt.float64)
    e = exponent if isinstance(exponent, PY_SCALARS) else cast(_t(exponent), dt.float64)
    return M.pow(x, e)


def signbit(input):
    """True where the sign bit is set: negative numbers and -0.0."""
    x = _t(input)
    if x.dtype.is_bool:
        return M.not_equal(x, x)          # no sign: all False
    neg = M.less(x, 0)
    if not x.dtype.is_floating:
        return neg
    zero_neg = M.logical_and(M.equal(x, 0), M.less(M.reciprocal(x), 0))
    return M.logical_or(neg, zero_neg)


def copysign(x, other):
    """|x| with the sign of other (its sign bit: -0.0 counts as negative); integers give
    float32."""
    a = _float_in(x, "copysign")
    o = other if isinstance(other, PY_SCALARS) else _t(other)
    neg = signbit(to_tensor(o, a.dtype) if isinstance(o, PY_SCALARS) else o)
    mag = M.abs(a)
    return where(neg, M.neg(mag), mag)


def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0 (NaN stays NaN)."""
    x, v = _pair(input, values)
    out = where(M.greater(x, 0), _scalar_like(1, x), _scalar_like(0, x))
    out = where(M.equal(x, 0), v, out)
    if x.dtype.is_floating:
        out = where(M.isnan(x), x, out)
    return out


_GCD_STEPS = {1: 12, 2: 24, 4: 47, 8: 93}     # Euclid's worst case (Fibonacci) per width


def gcd(input, other):
    """The greatest common divisor of integer tensors (non-negative), elementwise."""
    a, b = _pair(input, other)
    if not a.dtype.is_integer:
        raise TypeError(f"For 'gcd', the inputs must be integers, got {a.dtype}")
    a, b = M.abs(a), M.abs(b)
    one = _scalar_like(1, b)
    for _ in range(_GCD_STEPS.get(a.dtype.np.itemsize, 93)):
        zero = M.equal(b, 0)
        r = M.remainder(a, where(zero, one, b))
        a, b = where(zero, a, b), where(zero, b, r)
    return a


def lcm(input, other):
    """The least common multiple of integer tensors (non-negative), elementwise."""
    a, b = _pair(input, other)
    g = gcd(a, b)
    zero = M.equal(g, 0)
    q = M.floor_divide(M.abs(a), where(zero, _scalar_like(1, g), g))
    return where(zero, g, M.mul(q, M.abs(b)))


def logaddexp(input, other):
    """log(exp(input) + exp(other)), computed stably."""
    a, b = _pair(input, other)
    a, b = _float_in(a, "logaddexp"), _float_in(b, "logaddexp")
    m = M.maximum(a, b)
    out = M.add(m, M.log1p(M.exp(M.neg(M.abs(M.sub(a, b))))))
    return where(M.equal(a, b), M.add(a, _scalar_like(math.log(2.0), a)), out)


def logaddexp2(input, other):
    """log2(2 ** input + 2 ** other), computed stably."""
    a, b = _pair(input, other)
    a, b = _float_in(a, "logaddexp2"), _float_in(b, "logaddexp2")
    m = M.maximum(a, b)
    d = M.neg(M.abs(M.sub(a, b)))
    inv_ln2 = _scalar_like(1.0 / math.log(2.0), a)
    out = M.add(m, M.mul(M.log1p(M.pow(_scalar_like(2.0, d), d)), inv_ln2))
    return where(M.equal(a, b), M.add(a, _scalar_like(1.0, a)), out)


def ldexp(x, other):
    """x * 2 ** other."""
    return M.mul(x, M.pow(2.0, other if isinstance(other, PY_SCALARS) else _t(other)))


# -- reductions and statistics ---------------------------------------------------------------
def _no_nan(x):
    return where(M.isnan(x), A.zeros_like(x), x) if x.dtype.is_floating else x


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """The sum over axis treating NaN as zero."""
    x = _t(input)
    if dtype is not None:
        x = cast(x, dtype)
    return M.sum(_no_nan(x), axis, keepdims)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """The mean over axis of the elements that are not NaN."""
    x = _t(input)
    if dtype is not None:
        x = cast(x, dtype)
    x = _float(x)
    n = M.sum(cast(M.logical_not(M.isnan(x)), x.dtype), axis, keepdims)
    return M.div(M.sum(_no_nan(x), axis, keepdims), n)


def _check_axis(axis, rank, what):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{what}', axis must be an int, got {axis!r}")
    if not -builtins.max(rank, 1) <= axis < builtins.max(rank, 1):
        raise ValueError(f"For '{what}', axis {axis} is out of range [{-rank}, {rank - 1}]")
    return int(axis) % builtins.max(rank, 1)


def median(input, axis=-1, keepdims=False):
    """(values, int64 indices) of the median along axis: the lower of the two middle
    elements for an even count, as MindSpore's kernel."""
    x = _t(input)
    if x.dtype.is_bool or x.dtype in (dt.int8, dt.uint8, dt.float16):
        raise TypeError(f"For 'median', the dtype of input must be int16, int32, int64, "
                        f"float32 or float64, got {x.dtype}")
    if not isinstance(keepdims, bool):
        raise TypeError(f"For 'median', keepdims must be a bool, got {keepdims!r}")
    r = _rank(x, "median")
    if r == 0:
        _check_axis(axis, 0, "median")
        return x, to_tensor(0, dt.int64)
    a = _check_axis(axis, r, "median")
    n = x.shape[a]
    if not isinstance(n, int):
        raise TypeError("median needs the size of the reduced axis while the graph is built")
    vals, idx = A.sort(x, a)
    key = (_S(None),) * a + (((n - 1) // 2),)
    v, i = getitem(vals, key), cast(getitem(idx, key), dt.int64)
    if keepdims:
        v, i = expand_dims(v, a), expand_dims(i, a)
    return v, i


def quantile(input, q, axis=None, keepdims=False):
    """The q-th quantiles along axis (of all elements if None), interpolating linearly
    between the two nearest sorted elements; q is a float or a 0-d/1-d tensor in [0, 1]
    (a 1-d q adds a leading dim)."""
    x = _t(input)
    if not x.dtype.is_floating or x.dtype is dt.float16:
        raise TypeError(f"For 'quantile', the dtype of input must be float32 or float64, got "
                        f"{x.dtype}")
    if axis is None:
        x, a = reshape(x, (-1,)), 0
    else:
        a = _check_axis(axis, _rank(x, "quantile"), "quantile")
    n = x.shape[a]
    if not isinstance(n, int):
        raise TypeError("quantile needs the size of the reduced axis while the graph is built")
    if isinstance(q, TensorLike):
        qt = cast(q, x.dtype)
        if qt.ndim > 1:
            raise ValueError(f"For 'quantile', q must be a scalar or a 1-D tensor, got rank "
                             f"{qt.ndim}")
    elif isinstance(q, (int, float)) and not isinstance(q, bool):
        if not 0 <= q <= 1:
            raise ValueError(f"For 'quantile', q must be in [0, 1], got {q}")
        qt = to_tensor(float(q), x.dtype)
    else:
        raise TypeError(f"For 'quantile', q must be a float or a Tensor, got {q!r}")
    srt, _ = A.sort(x, a)
    pos = M.mul(qt, _scalar_like(n - 1, qt))
    lo = M.floor(pos)
    w = M.sub(pos, lo)
    lo_i = cast(lo, dt.int64)
    hi_i = M.minimum(M.add(lo_i, 1), to_tensor(n - 1, dt.int64))
    lo_v, hi_v = A.gather(srt, lo_i, a), A.gather(srt, hi_i, a)   # q's dims at a
    qd = qt.ndim
    wshape = [1] * (lo_v.ndim)
    if qd:
        wshape[a] = -1
    w = reshape(w, tuple(wshape)) if qd else w
    out = M.add(lo_v, M.mul(M.sub(hi_v, lo_v), w))
    if qd:
        out = A.transpose(out, (a,) + tuple(i for i in range(out.ndim) if i != a))
        if keepdims:
            out = expand_dims(out, a + 1)
            if axis is None:
                out = reshape(out, (out.shape[0],) + (1,) * _rank(_t(input), "quantile"))
    elif keepdims:
        out = expand_dims(out, a) if axis is not None else reshape(
            out, (1,) * _rank(_t(input), "quantile"))
    return out


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(std, mean) over axis (all elements if None), the divisor N - ddof."""
    return M.std(input, axis, ddof, keepdims), M.mean(_float(_t(input)), axis, keepdims)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(var, mean) over axis (all elements if None), the divisor N - ddof."""
    return M.var(input, axis, ddof, keepdims), M.mean(_float(_t(input)), axis, keepdims)


def _along(x, a, lo, hi):
    return getitem(x, (_S(None),) * a + (_S(lo, hi),))


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along axis (not_equal for bool), after joining prepend
    and append to x along it."""
    t = _t(x)
    r = _rank(t, "diff")
    if r == 0:
        raise ValueError("For 'diff', the input must have rank 1 or more")
    a = _check_axis(axis, r, "diff")
    n = _int(n, "diff's n")
    if n < 0:
        raise ValueError(f"For 'diff', n must be non-negative, got {n}")
    parts = [t]
    for side, v in ((0, prepend), (1, append)):
        if v is not None:
            v = to_tensor(v, t.dtype) if not isinstance(v, TensorLike) else cast(v, t.dtype)
            if v.ndim == 0:
                shape = list(_known_shape(t, "diff"))
                shape[a] = 1
                v = A.broadcast_to(v, tuple(shape))
            parts.insert(0 if side == 0 else len(parts), v)
    if len(parts) > 1:
        t = concat(parts, a)
    for _ in range(n):
        hi, lo = _along(t, a, 1, None), _along(t, a, None, -1)
        t = M.not_equal(hi, lo) if t.dtype.is_bool else M.sub(hi, lo)
    return t


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The integral of y along dim by the trapezoidal rule, with sample points x (a 1-D
    tensor or y's shape) or spacing dx."""
    t = _float_in(y, "trapz")
    a = _check_axis(dim, _rank(t, "trapz"), "trapz")
    mid = M.add(_along(t, a, 1, None), _along(t, a, None, -1))
    if x is None:
        return M.mul(M.sum(mid, a), _scalar_like(dx / 2.0, t))
    xs = cast(_t(x), t.dtype)
    if xs.ndim == 1:
        d = M.sub(xs[1:], xs[:-1])
        shape = [1] * t.ndim
        shape[a] = -1
        d = reshape(d, tuple(shape))
    else:
        d = M.sub(_along(xs, a, 1, None), _along(xs, a, None, -1))
    return M.mul(M.sum(M.mul(mid, d), a), _scalar_like(0.5, t))


# -- small activations and normalizations ---------------------------------------------------
def renorm(input, p, axis, maxnorm):
    """Each sub-tensor along axis whose p-norm exceeds maxnorm scaled to norm maxnorm."""
    x = _float_only(input, "renorm")
    if isinstance(p, bool) or not isinstance(p, int) or p <= 0:
        raise ValueError(f"For 'renorm', p must be a positive int, got {p!r}")
    r = _rank(x, "renorm")
    a = _check_axis(axis, r, "renorm")
    others = tuple(i for i in range(r) if i != a)
    norm = M.pow(M.sum(M.pow(M.abs(x), float(p)), others, True), 1.0 / p)
    scale = M.div(_scalar_like(float(maxnorm), x), M.add(norm, _scalar_like(1e-7, x)))
    return where(M.greater(norm, float(maxnorm)), M.mul(x, scale), x)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    x = _t(input)
    return where(M.greater(M.abs(x), lambd), x, A.zeros_like(x))


def softshrink(input, lambd=0.5):
    """input - lambd above lambd, input + lambd below -lambd, 0 between."""
    x = _t(input)
    if lambd < 0:
        raise ValueError(f"For 'softshrink', lambd must be non-negative, got {lambd}")
    z = A.zeros_like(x)
    return where(M.greater(x, lambd), M.sub(x, lambd),
                 where(M.less(x, -lambd), M.add(x, lambd), z))


def l2_normalize(input, axis=0, epsilon=1e-4):
    """input / sqrt(max(sum(input ** 2, axis), epsilon))."""
    x = _t(input)
    s = M.sum(M.mul(x, x), _int_tuple(axis, "l2_normalize's axis") if not isinstance(
        axis, int) else axis, True)
    return M.div(x, M.sqrt(M.maximum(s, _scalar_like(epsilon, s))))


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p over dim, eps)."""
    x = _float_in(input, "normalize")
    n = M.norm(x, p, dim, True)
    return M.div(x, M.maximum(n, _scalar_like(eps, n)))


def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    return dense(input, weight, bias)


def is_tensor(obj):
    """Whether obj is a Tensor (eager or a graph value)."""
    return isinstance(obj, TensorLike)
