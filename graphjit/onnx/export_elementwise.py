"""The ONNX form of graphjit's elementwise ops (see the table in exporter.py):
arithmetic with numpy's promotion and integer rules, comparisons, logic, and the
math functions (Log1p and Expm1 written so they stay exact for small x)."""
from __future__ import annotations

from ..ir import dtypes as D
from ..ir.defs.common import promote
from .common import TO_ONNX
from .export_ops import (OPS, _ALL, _FLOATS, _MAXMIN, _NUM, _WIDE, cast,
                         dt_in, dt_out, inp, native, op, scalar, where)
from .exporter import NoOnnxForm


# -- elementwise binary ---------------------------------------------------------------------------
def _operands(ex, node, compute):
    return [cast(ex, inp(ex, node, i), dt_in(node, i), compute) for i in range(2)]


def _simple_binary(onnx_op, supported, bool_op=None):
    def fn(ex, node):
        c = promote(dt_in(node, 0), dt_in(node, 1))
        a, b = _operands(ex, node, c)
        if c.is_bool and bool_op is not None:
            return [ex.one(bool_op, [a, b])]
        return [native(ex, onnx_op, [a, b], c, supported, dt_out(node))]
    return fn


OPS["Add"] = _simple_binary("Add", _NUM, "Or")
OPS["Sub"] = _simple_binary("Sub", _NUM)
OPS["Mul"] = _simple_binary("Mul", _NUM, "And")
OPS["Maximum"] = _simple_binary("Max", _MAXMIN, "Or")
OPS["Minimum"] = _simple_binary("Min", _MAXMIN, "And")


@op("Pow")
def _pow(ex, node):
    """x ** y; an integer to a negative power is graphjit's: 1 for x == 1, +-1 for
    x == -1, else 0 (ONNX Runtime computes it in floating point)."""
    c = promote(dt_in(node, 0), dt_in(node, 1))
    a, b = _operands(ex, node, c)
    if c.is_floating:
        return [native(ex, "Pow", [a, b], c, _WIDE)]
    w = c if c in (D.int32, D.int64) else D.int32
    a, b = cast(ex, a, c, w), cast(ex, b, c, w)
    zero, one = scalar(ex, 0, w), scalar(ex, 1, w)
    neg = ex.one("Less", [b, zero])
    r = ex.one("Pow", [a, ex.one("Max", [b, zero])])
    odd = ex.one("Equal", [ex.one("Mod", [b, scalar(ex, 2, w)], fmod=1),
                           scalar(ex, -1, w)])
    alt = ex.one("Where", [ex.one("Equal", [a, one]), one,
                           ex.one("Where", [ex.one("Equal", [a, scalar(ex, -1, w)]),
                                            ex.one("Where", [odd, scalar(ex, -1, w), one]),
                                            zero])])
    return [cast(ex, ex.one("Where", [neg, alt, r]), w, c)]


for _g, _o in (("Equal", "Equal"), ("NotEqual", None), ("Less", "Less"),
               ("LessEqual", "LessOrEqual"), ("Greater", "Greater"),
               ("GreaterEqual", "GreaterOrEqual")):
    if _o is not None:
        OPS[_g] = _simple_binary(_o, _ALL if _o == "Equal" else _NUM)


@op("NotEqual")
def _not_equal(ex, node):
    c = promote(dt_in(node, 0), dt_in(node, 1))
    a, b = _operands(ex, node, c)
    return [ex.one("Not", [ex.one("Equal", [a, b])])]


def _as_bool(ex, node, i):
    d = dt_in(node, i)
    return inp(ex, node, i) if d.is_bool else ex.one("Cast", [inp(ex, node, i)],
                                                     to=TO_ONNX[D.bool_])


for _g, _o in (("LogicalAnd", "And"), ("LogicalOr", "Or"), ("LogicalXor", "Xor")):
    def _logical(ex, node, _o=_o):
        return [ex.one(_o, [_as_bool(ex, node, 0), _as_bool(ex, node, 1)])]
    OPS[_g] = _logical
for _g, _o in (("BitwiseAnd", "And"), ("BitwiseOr", "Or"), ("BitwiseXor", "Xor")):
    def _bitwise(ex, node, _o=_o):
        if not (dt_in(node, 0).is_bool and dt_in(node, 1).is_bool):
            raise NoOnnxForm("integer bitwise ops need opset 18 (BitwiseAnd...); this "
                             "export writes opset 17")
        return [ex.one(_o, [inp(ex, node, 0), inp(ex, node, 1)])]
    OPS[_g] = _bitwise


@op("RealDiv")
def _real_div(ex, node):
    c = dt_out(node)
    a, b = _operands(ex, node, c)
    return [ex.one("Div", [a, b])]


def _int_divmod(ex, node, want):
    """numpy's integer floor_divide / remainder / fmod / truncating division, with
    x op 0 == 0 (numpy's result) and no division by zero or INT_MIN / -1 in ORT."""
    c = dt_out(node)
    a, b = _operands(ex, node, c)
    w = c if c in (D.int32, D.int64) else D.int32
    a, b = cast(ex, a, c, w), cast(ex, b, c, w)
    zero, one, minus = scalar(ex, 0, w), scalar(ex, 1, w), scalar(ex, -1, w)
    bad = ex.one("Or", [ex.one("Equal", [b, zero]), ex.one("Equal", [b, minus])])
    safe = ex.one("Where", [bad, one, b])
    q = ex.one("Div", [a, safe])                     # truncates toward zero
    # the remainder with the sign of a; not a - q * safe, which ONNX Runtime's
    # DivMulFusion rewrites wrongly for integers when a is the constant 1
    r = ex.one("Mod", [a, safe], fmod=1)
    is_zero = ex.one("Equal", [b, zero])
    if want in ("floordiv", "floormod"):
        fix = ex.one("And", [ex.one("Not", [ex.one("Equal", [r, zero])]),
                             ex.one("Xor", [ex.one("Less", [r, zero]),
                                            ex.one("Less", [safe, zero])])])
        if want == "floordiv":
            res = ex.one("Sub", [q, ex.one("Cast", [fix], to=TO_ONNX[w])])
            by_minus = ex.one("Neg", [a]) if w in (D.int32, D.int64) else None
        else:
            res = ex.one("Add", [r, ex.one("Mul", [safe, ex.one("Cast", [fix],
                                                                to=TO_ONNX[w])])])
            by_minus = zero
    elif want == "truncdiv":
        res, by_minus = q, ex.one("Neg", [a])
    else:       # fmod
        res, by_minus = r, zero
    res = ex.one("Where", [ex.one("Equal", [b, minus]), by_minus, res])
    res = ex.one("Where", [is_zero, zero, res])
    return cast(ex, res, w, c)


def _float_divmod(ex, node, want):
    """numpy's float floor_divide and remainder (npy_divmod), fmod, trunc division."""
    c = dt_out(node)
    a, b = _operands(ex, node, c)
    w = D.float32 if c is D.float16 else c
    a, b = cast(ex, a, c, w), cast(ex, b, c, w)
    zero = scalar(ex, 0, w)
    mod = ex.one("Mod", [a, b], fmod=1)
    if want == "fmod":
        return cast(ex, mod, w, c)
    if want == "truncdiv":
        q = ex.one("Div", [a, b])
        t = ex.one("Where", [ex.one("Less", [q, zero]), ex.one("Ceil", [q]),
                             ex.one("Floor", [q])])
        return cast(ex, t, w, c)
    fix = ex.one("And", [ex.one("Not", [ex.one("Equal", [mod, zero])]),
                         ex.one("Xor", [ex.one("Less", [b, zero]),
                                        ex.one("Less", [mod, zero])])])
    if want == "floormod":
        m = ex.one("Where", [fix, ex.one("Add", [mod, b]), mod])
        # a zero remainder takes the sign of b (copysign(0, b))
        signed0 = ex.one("Where", [ex.one("Less", [b, zero]), scalar(ex, -0.0, w), zero])
        m = ex.one("Where", [ex.one("Equal", [m, zero]), signed0, m])
        return cast(ex, m, w, c)
    div = ex.one("Div", [ex.one("Sub", [a, mod]), b])
    div = ex.one("Where", [fix, ex.one("Sub", [div, scalar(ex, 1, w)]), div])
    fl = ex.one("Floor", [div])
    up = ex.one("Greater", [ex.one("Sub", [div, fl]), scalar(ex, 0.5, w)])
    fl = ex.one("Where", [up, ex.one("Add", [fl, scalar(ex, 1, w)]), fl])
    # a zero quotient takes the sign of a / b; division by zero is a / b
    q0 = ex.one("Div", [a, b])
    fl = ex.one("Where", [ex.one("Equal", [div, zero]),
                          ex.one("Mul", [zero, q0]), fl])
    fl = ex.one("Where", [ex.one("Equal", [b, zero]), q0, fl])
    return cast(ex, fl, w, c)


def _divmod(want):
    def fn(ex, node):
        c = dt_out(node)
        return [(_float_divmod if c.is_floating else _int_divmod)(ex, node, want)]
    return fn


OPS["FloorDiv"] = _divmod("floordiv")
OPS["FloorMod"] = _divmod("floormod")
OPS["TruncateDiv"] = _divmod("truncdiv")
OPS["Mod"] = _divmod("fmod")


@op("Select")
def _select(ex, node):
    d = dt_out(node)
    c = inp(ex, node, 0)
    x, y = (cast(ex, inp(ex, node, i), dt_in(node, i), d) for i in (1, 2))
    return [where(ex, c, x, y, d)]


# -- elementwise unary ----------------------------------------------------------------------------
def _float_unary(onnx_op):
    def fn(ex, node):
        d = dt_out(node)
        x = cast(ex, inp(ex, node), dt_in(node), d)
        return [ex.one(onnx_op, [x])]
    return fn


for _g, _o in (("Exp", "Exp"), ("Log", "Log"), ("Sqrt", "Sqrt"), ("Reciprocal", "Reciprocal"),
               ("Sin", "Sin"), ("Cos", "Cos"), ("Tanh", "Tanh"), ("Sigmoid", "Sigmoid"),
               ("Erf", "Erf"), ("Tan", "Tan"), ("Asin", "Asin"), ("Acos", "Acos"),
               ("Atan", "Atan"), ("Sinh", "Sinh"), ("Cosh", "Cosh"), ("Asinh", "Asinh"),
               ("Acosh", "Acosh"), ("Atanh", "Atanh")):
    OPS[_g] = _float_unary(_o)


@op("Rsqrt")
def _rsqrt(ex, node):
    d = dt_out(node)
    return [ex.one("Reciprocal", [ex.one("Sqrt", [cast(ex, inp(ex, node), dt_in(node), d)])])]


@op("Log1p")
def _log1p(ex, node):
    # log1p(x) = x where 1 + x == 1, else log(u) * x / (u - 1) with u = 1 + x (Goldberg)
    out = dt_out(node)
    d = D.float32 if out is D.float16 else out
    x = cast(ex, inp(ex, node), dt_in(node), d)
    one = scalar(ex, 1, d)
    u = ex.one("Add", [x, one])
    um1 = ex.one("Sub", [u, one])
    exact = ex.one("Equal", [um1, scalar(ex, 0, d)])
    r = ex.one("Mul", [ex.one("Log", [u]), ex.one("Div", [x, um1])])
    r = ex.one("Where", [ex.one("IsInf", [u], detect_negative=0), u, r])
    return [cast(ex, ex.one("Where", [exact, x, r]), d, out)]


@op("Expm1")
def _expm1(ex, node):
    # expm1(x) = x where exp(x) == 1, -1 where exp(x) - 1 == -1, else
    # (u - 1) * x / log(u) with u = exp(x) (Kahan); inf stays inf
    out = dt_out(node)
    d = D.float32 if out is D.float16 else out
    x = cast(ex, inp(ex, node), dt_in(node), d)
    one = scalar(ex, 1, d)
    u = ex.one("Exp", [x])
    um1 = ex.one("Sub", [u, one])
    lu = ex.one("Log", [u])
    r = ex.one("Mul", [um1, ex.one("Div", [x, lu])])
    r = ex.one("Where", [ex.one("IsInf", [u], detect_negative=0), u, r])
    r = ex.one("Where", [ex.one("Equal", [um1, scalar(ex, -1, d)]), um1, r])
    return [cast(ex, ex.one("Where", [ex.one("Equal", [u, one]), x, r]), d, out)]


@op("Neg")
def _neg(ex, node):
    d = dt_in(node)
    return [native(ex, "Neg", [inp(ex, node)], d, _NUM - {D.uint8})]


@op("Abs")
def _abs(ex, node):
    d = dt_in(node)
    if d.is_bool:
        return [ex.one("Identity", [inp(ex, node)])]
    return [ex.one("Abs", [inp(ex, node)])]


@op("ReLU")
def _relu(ex, node):
    d = dt_in(node)
    if d.is_bool:
        return [ex.one("Identity", [inp(ex, node)])]
    if d in (D.int64, D.uint8):
        return [ex.one("Max", [inp(ex, node), scalar(ex, 0, d)])]
    return [native(ex, "Relu", [inp(ex, node)], d, {D.int8, D.int32} | _FLOATS)]


@op("Square")
def _square(ex, node):
    d = dt_in(node)
    x = inp(ex, node)
    return [ex.one("And" if d.is_bool else "Mul", [x, x])]


def _rounding(onnx_op):
    def fn(ex, node):
        if not dt_in(node).is_floating:      # integers and bool are whole already
            return [ex.one("Identity", [inp(ex, node)])]
        return [ex.one(onnx_op, [inp(ex, node)])]
    return fn


OPS["Floor"] = _rounding("Floor")
OPS["Ceil"] = _rounding("Ceil")
OPS["Round"] = _rounding("Round")


@op("Trunc")
def _trunc(ex, node):
    d = dt_in(node)
    x = inp(ex, node)
    if not d.is_floating:
        return [ex.one("Identity", [x])]
    return [ex.one("Where", [ex.one("Less", [x, scalar(ex, 0, d)]), ex.one("Ceil", [x]),
                             ex.one("Floor", [x])])]


@op("Sign")
def _sign(ex, node):
    if dt_in(node).is_bool:
        return [ex.one("Identity", [inp(ex, node)])]
    return [ex.one("Sign", [inp(ex, node)])]


@op("LogicalNot")
def _not(ex, node):
    d = dt_in(node)
    if d.is_bool:
        return [ex.one("Not", [inp(ex, node)])]
    return [ex.one("Equal", [inp(ex, node), scalar(ex, 0, d)])]


def _float_view(ex, node):
    """x as a float ONNX Runtime's IsNaN / IsInf take (exact: integers are finite)."""
    d = dt_in(node)
    if d in (D.float32, D.float64):
        return inp(ex, node)
    return cast(ex, inp(ex, node), d, D.float32 if d is D.float16 else D.float64)


@op("IsNan")
def _isnan(ex, node):
    return [ex.one("IsNaN", [_float_view(ex, node)])]


@op("IsInf")
def _isinf(ex, node):
    return [ex.one("IsInf", [_float_view(ex, node)])]


@op("IsFinite")
def _isfinite(ex, node):
    x = _float_view(ex, node)
    return [ex.one("Not", [ex.one("Or", [ex.one("IsInf", [x]), ex.one("IsNaN", [x])])])]


@op("Invert")
def _invert(ex, node):
    d = dt_in(node)
    if d.is_bool:
        return [ex.one("Not", [inp(ex, node)])]
    return [ex.one("Sub", [scalar(ex, -1 if d is not D.uint8 else 255, d), inp(ex, node)])]
