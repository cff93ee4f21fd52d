"""Elementwise operators: arithmetic, comparisons, logic, math functions, Cast, Select.

Binary ops broadcast and promote their inputs (see common.promote); their kernels
cast the inputs to the computation dtype once, chosen when the kernel is built.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..registry import REQUIRED, register_op
from ..types import TensorType
from .common import broadcast_shapes, fail, float_result, promote
from .integer_pow import integer_exponent, integer_power

__all__ = ["BINARY", "UNARY", "COMPARISONS"]


def _binary_factory(ufunc, compute):
    """Kernel factory: cast inputs to the compute dtype (only where needed), apply."""
    def factory(in_types, out_types, attrs):
        cdt = compute(in_types).np
        odt = out_types[0].dtype.np
        casts = [t.dtype.np != cdt for t in in_types]
        if not any(casts):
            return ufunc  # numpy keeps the common dtype (or gives bool for comparisons)
        ca, cb = casts

        def k(a, b):
            if ca:
                a = np.asarray(a, dtype=cdt)
            if cb:
                b = np.asarray(b, dtype=cdt)
            r = ufunc(a, b)
            return r if r.dtype == odt else r.astype(odt)
        return k
    return factory


def _promoted(in_types):
    return promote(in_types[0].dtype, in_types[1].dtype)


def _div_compute(in_types):
    return float_result(_promoted(in_types))


def _binary(name, ufunc, doc, result="promote", no_bool=False, int_only=False):
    compute = _div_compute if result == "float" else _promoted

    def infer(ts, attrs):
        a, b = ts
        d = compute(ts)
        if no_bool and d.is_bool:
            raise fail(name, f"is not defined for two bool tensors; cast one to an int or "
                             f"float dtype first")
        if int_only and d.is_floating:
            raise fail(name, f"needs integer or bool inputs, got {a.dtype} and {b.dtype}")
        out = dt.bool_ if result == "bool" else d
        return TensorType(out, broadcast_shapes(name, a.shape, b.shape))
    register_op(name, ("x", "y"), infer=infer, family="elementwise", doc=doc,
                kernel=ufunc, kernel_factory=_binary_factory(ufunc, compute))


def _pow(a, b):
    """x ** y. A float x to a one-element exponent of integer value n, |n| <= 16, is
    formed by repeated multiplication (integer_pow.integer_power: x * x for 2, within
    one ulp of np.power otherwise); a float x to the one-element 0.5 is sqrt(x), as
    numpy's `**` computes it (np.power gives +0 for (-0) ** 0.5). Graph mode's fused
    kernels call the same function, and its passes rewrite x ** 2 to x * x and x ** 0.5
    to sqrt(x), so the two modes agree bit for bit. An integer x keeps np.power (exact
    modulo 2 ** bits); numpy refuses an integer to a negative integer power, here it is
    1 / x ** -y truncated toward zero (1 for x == 1, +-1 for x == -1, else 0), so the
    kernel never fails on data and eager and graph mode agree."""
    a, b = np.asarray(a), np.asarray(b)
    if b.size == 1 and b.ndim <= a.ndim and a.dtype == b.dtype:
        if a.dtype.kind == "f":
            n = integer_exponent(b)
            if n is not None:
                return integer_power(a, n)
            if b.reshape(-1)[0] == 0.5:
                return np.sqrt(a)
        elif b.reshape(-1)[0] == 2:
            return np.multiply(a, a)
    if a.dtype.kind not in "iu" or b.dtype.kind != "i":
        return np.power(a, b)
    neg = b < 0
    if not neg.any():
        return np.power(a, b)
    r = np.power(a, np.where(neg, 0, b))
    odd = (b % 2) == 1
    alt = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(r.dtype)
    return np.where(neg, alt, r)


def _truncate_div(a, b):
    """a / b rounded toward zero, exact for integers (C's integer division)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


BINARY = {
    "Add": (np.add, "x + y", {}),
    "Sub": (np.subtract, "x - y", {"no_bool": True}),
    "Mul": (np.multiply, "x * y", {}),
    "RealDiv": (np.true_divide, "x / y; integer inputs give float32", {"result": "float"}),
    "FloorDiv": (np.floor_divide, "x // y, rounding toward negative infinity",
                 {"no_bool": True}),
    "FloorMod": (np.mod, "x % y with the sign of y, as Python", {"no_bool": True}),
    "TruncateDiv": (_truncate_div, "x / y rounded toward zero", {"no_bool": True}),
    "Mod": (np.fmod, "remainder with the sign of x, as C's fmod", {"no_bool": True}),
    "Pow": (_pow, "x ** y (a float to a small integer power by repeated multiplication; "
                   "an integer to a negative power truncates toward zero)",
            {"no_bool": True}),
    "Maximum": (np.maximum, "elementwise max", {}),
    "Minimum": (np.minimum, "elementwise min", {}),
    "BitwiseAnd": (np.bitwise_and, "x & y", {"int_only": True}),
    "BitwiseOr": (np.bitwise_or, "x | y", {"int_only": True}),
    "BitwiseXor": (np.bitwise_xor, "x ^ y", {"int_only": True}),
}
COMPARISONS = {
    "Equal": (np.equal, "x == y"), "NotEqual": (np.not_equal, "x != y"),
    "Less": (np.less, "x < y"), "LessEqual": (np.less_equal, "x <= y"),
    "Greater": (np.greater, "x > y"), "GreaterEqual": (np.greater_equal, "x >= y"),
    "LogicalAnd": (np.logical_and, "x and y, elementwise"),
    "LogicalOr": (np.logical_or, "x or y, elementwise"),
    "LogicalXor": (np.logical_xor, "x xor y, elementwise"),
}
for _n, (_f, _doc, _kw) in BINARY.items():
    _binary(_n, _f, _doc, **_kw)
for _n, (_f, _doc) in COMPARISONS.items():
    _binary(_n, _f, _doc, result="bool")


# -- unary -----------------------------------------------------------------------------
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _relu(x):
    return np.maximum(x, x.dtype.type(0))


def _sign(x):
    return x.copy() if x.dtype == np.bool_ else np.sign(x)


_erf_elementwise = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    x = np.asarray(x)
    return np.asarray(_erf_elementwise(x), dtype=x.dtype)


# Which input dtypes a unary op takes: every dtype, all but bool, or integers and bool.
_ACCEPTS = {
    "any": lambda d: True,
    "no_bool": lambda d: not d.is_bool,
    "int_or_bool": lambda d: not d.is_floating,
}
_ACCEPTS_TEXT = {"no_bool": "is not defined for bool tensors",
                 "int_or_bool": "needs an integer or bool tensor"}


def _unary(name, fn, doc, kind="same", accepts="any"):
    """kind: same (keeps dtype), float (ints and bool become float32), bool (gives bool)."""
    def infer(ts, attrs):
        (a,) = ts
        if not _ACCEPTS[accepts](a.dtype):
            raise fail(name, f"{_ACCEPTS_TEXT[accepts]}, got {a.dtype}")
        if kind == "float":
            return TensorType(float_result(a.dtype), a.shape)
        if kind == "bool":
            return TensorType(dt.bool_, a.shape)
        return a

    def factory(in_types, out_types, attrs):
        odt = out_types[0].dtype.np
        cast_in = kind == "float" and in_types[0].dtype.np != odt
        if isinstance(fn, np.ufunc) and not cast_in and (
                in_types[0].dtype.is_floating or (in_types[0].dtype.is_bool and
                                                  odt == np.bool_ and fn.nout == 1 and
                                                  fn(np.True_).dtype == np.bool_)):
            # a ufunc keeps a float input's dtype (and gives bool for predicates; a
            # bool-to-bool one, logical_not, keeps bool); it also keeps numpy scalars
            # scalars, which the executor's fast path relies on
            return fn

        def k(x):
            if cast_in:
                x = np.asarray(x, dtype=odt)
            r = fn(x)
            return r if getattr(r, "dtype", None) == odt else np.asarray(r, dtype=odt)
        return k
    register_op(name, ("x",), infer=infer, kernel=fn, family="elementwise", doc=doc,
                kernel_factory=factory)


UNARY = {
    "Neg": (np.negative, "-x", "same", "no_bool"),
    "Abs": (np.abs, "|x|", "same", "any"),
    "Exp": (np.exp, "e ** x", "float", "any"),
    "Log": (np.log, "natural log", "float", "any"),
    "Log1p": (np.log1p, "log(1 + x), exact for small x", "float", "any"),
    "Expm1": (np.expm1, "exp(x) - 1, exact for small x", "float", "any"),
    "Sqrt": (np.sqrt, "square root", "float", "any"),
    "Rsqrt": (lambda x: 1.0 / np.sqrt(x), "1 / sqrt(x)", "float", "any"),
    "Reciprocal": (lambda x: 1.0 / x, "1 / x", "float", "any"),
    "Sin": (np.sin, "sine", "float", "any"),
    "Cos": (np.cos, "cosine", "float", "any"),
    "Tanh": (np.tanh, "hyperbolic tangent", "float", "any"),
    "Tan": (np.tan, "tangent", "float", "any"),
    "Asin": (np.arcsin, "inverse sine (NaN outside [-1, 1])", "float", "any"),
    "Acos": (np.arccos, "inverse cosine (NaN outside [-1, 1])", "float", "any"),
    "Atan": (np.arctan, "inverse tangent", "float", "any"),
    "Sinh": (np.sinh, "hyperbolic sine", "float", "any"),
    "Cosh": (np.cosh, "hyperbolic cosine", "float", "any"),
    "Asinh": (np.arcsinh, "inverse hyperbolic sine", "float", "any"),
    "Acosh": (np.arccosh, "inverse hyperbolic cosine (NaN below 1)", "float", "any"),
    "Atanh": (np.arctanh, "inverse hyperbolic tangent (NaN outside [-1, 1])", "float", "any"),
    "Sigmoid": (_sigmoid, "1 / (1 + exp(-x))", "float", "any"),
    "Erf": (_erf, "the error function", "float", "any"),
    "ReLU": (_relu, "max(x, 0)", "same", "any"),
    "Square": (np.square, "x * x", "same", "any"),
    "Floor": (np.floor, "round down", "same", "any"),
    "Ceil": (np.ceil, "round up", "same", "any"),
    "Round": (np.round, "round to the nearest integer, halves to even", "same", "any"),
    "Trunc": (np.trunc, "round toward zero", "same", "any"),
    "Sign": (_sign, "-1, 0 or 1 (bool stays bool)", "same", "any"),
    "LogicalNot": (np.logical_not, "not x, elementwise", "bool", "any"),
    "IsNan": (np.isnan, "x is NaN", "bool", "any"),
    "IsInf": (np.isinf, "x is +inf or -inf", "bool", "any"),
    "IsFinite": (np.isfinite, "x is neither inf nor NaN", "bool", "any"),
    "Invert": (np.invert, "~x: bitwise not (logical not for bool)", "same", "int_or_bool"),
}
for _n, (_f, _doc, _kind, _acc) in UNARY.items():
    _unary(_n, _f, _doc, _kind, _acc)


def _cast_infer(ts, attrs):
    return TensorType(dt.as_dtype(attrs["dtype"]), ts[0].shape)


def _cast_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    if in_types[0].dtype.np == odt:
        return lambda x: x

    def cast(x):
        # a 0-d result is a numpy scalar, as numpy's own kernels give one (the plans'
        # convention): a loop's condition then compares at a scalar's cost
        a = np.asarray(x).astype(odt)
        return a[()] if a.ndim == 0 else a

    if in_types[0].dtype.np.kind in "iu" and odt.kind in "iu":
        lo, hi, scalar = int(np.iinfo(odt).min), int(np.iinfo(odt).max), odt.type

        def cast_int(x):
            # an integer scalar that fits: its value (a loop counter against an int32
            # bound), at half the cost of the array cast; else C's wrap-around as above
            if type(x) is not np.ndarray:
                v = int(x)
                if lo <= v <= hi:
                    return scalar(v)
            return cast(x)
        return cast_int
    return cast


register_op("Cast", ("x",), {"dtype": dt.float32}, infer=_cast_infer,
            kernel=lambda x, dtype: np.asarray(x).astype(dt.as_dtype(dtype).np),
            kernel_factory=_cast_factory, family="elementwise",
            doc="convert to another dtype (C casting: floats truncate toward zero)")


def _bitcast_infer(ts, attrs):
    (a,) = ts
    to = dt.as_dtype(attrs["dtype"])
    if a.dtype.np.itemsize != to.np.itemsize:
        raise fail("BitCast", f"reinterprets bits between dtypes of one width, got {a.dtype} "
                              f"({a.dtype.np.itemsize * 8} bits) to {to} "
                              f"({to.np.itemsize * 8} bits)")
    return TensorType(to, a.shape)


def _bitcast_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np

    def bitcast(x):
        r = np.asarray(x).view(odt)     # one width: any strides view
        return r[()] if r.ndim == 0 else r
    return bitcast


register_op("BitCast", ("x",), {"dtype": REQUIRED}, infer=_bitcast_infer,
            kernel=lambda x, dtype: np.asarray(x).view(dt.as_dtype(dtype).np),
            kernel_factory=_bitcast_factory, exact_dtype=True, family="extern",
            doc="x's bits read as another dtype of the same width (ONNX BitCast)")


def _select_infer(ts, attrs):
    c, x, y = ts
    if not c.dtype.is_bool:
        raise fail("Select", f"the condition must be bool, got {c.dtype}")
    if x.dtype is not y.dtype:
        raise fail("Select", f"x and y must have one dtype, got {x.dtype} and {y.dtype}")
    return TensorType(x.dtype, broadcast_shapes("Select", c.shape, x.shape, y.shape))


def _select_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    return lambda c, x, y: np.asarray(np.where(c, x, y), dtype=odt)


register_op("Select", ("condition", "x", "y"), infer=_select_infer, kernel=np.where,
            kernel_factory=_select_factory, family="elementwise",
            doc="x where condition else y, broadcasting all three")


def _identity_infer(ts, attrs):
    return ts[0]


register_op("Identity", ("x",), infer=_identity_infer, kernel=lambda x: x,
            exact_dtype=True, family="elementwise", doc="x itself")
