"""Gradients of the elementwise operators (elementwise.py), MindSpore's bprop formulas.

Ties follow MindSpore's CPU kernels: Maximum gives the adjoint to x where x > y and to
y otherwise (ties go to y); Minimum to x where x < y, else to y. Piecewise-constant
ops (Floor, Round, Sign, FloorDiv...) and ops with integer or bool results carry no
gradient.
"""
from __future__ import annotations

import math

from ..registry import NOT_DIFFERENTIABLE, set_grad
from .elementwise import BINARY, COMPARISONS


def _one(b, n, v):
    return b.scalar(v, b.type(n.g).dtype)


def _add(b, n):
    return [n.like(n.g, 0), n.like(n.g, 1)]


def _sub(b, n):
    return [n.like(n.g, 0), n.like(b.neg(n.g), 1)]


def _mul(b, n):
    g = n.g
    if n.same_input(0, 1):          # x * x: 2 x g, one adjoint for the one value
        if not n.differentiable(0):
            return [None, None]
        return [n.like(b.mul(b.mul(g, n.x(0)), _one(b, n, 2)), 0), None]
    dx = b.mul(g, n.x(1)) if n.differentiable(0) else None
    dy = b.mul(n.x(0), g) if n.differentiable(1) else None
    return [n.like(dx, 0), n.like(dy, 1)]


def _real_div(b, n):
    bc_x = b.div(n.g, n.x(1))
    bc_y = b.mul(b.neg(bc_x), n.y()) if n.differentiable(1) else None
    return [n.like(bc_x, 0), n.like(bc_y, 1)]


def _floor_mod(b, n):
    dy = None
    if n.differentiable(1):
        dy = b.mul(b.neg(n.g), b.apply("FloorDiv", n.x(0), n.x(1)))
    return [n.like(n.g, 0), n.like(dy, 1)]


def _mod(b, n):
    dy = None
    if n.differentiable(1):
        dy = b.mul(b.neg(n.g), b.apply("TruncateDiv", n.x(0), n.x(1)))
    return [n.like(n.g, 0), n.like(dy, 1)]


def _pow(b, n):
    x, p, g = n.x(0), n.x(1), n.g
    dx = dp = None
    if n.differentiable(0):
        pm1 = b.sub(p, b.scalar(1, b.type(p).dtype))
        # a constant exponent 2 or 1: pow(x, 1) is x and pow(x, 0) is 1, exactly
        k = b.known(pm1)
        if k is not None and k.size == 1 and float(k) == 1.0:
            dx = b.mul(b.mul(p, x), g)
        elif k is not None and k.size == 1 and float(k) == 0.0:
            dx = b.mul(p, g)
        else:
            dx = b.mul(b.mul(p, b.apply("Pow", x, pm1)), g)
    if n.differentiable(1):
        xt = b.type(x)
        safe = b.select(b.apply("Less", x, b.scalar(0, xt.dtype)), b.scalar(1, xt.dtype), x)
        dp = b.mul(b.mul(n.y(), b.apply("Log", safe)), g)
    return [n.like(dx, 0), n.like(dp, 1)]


def _extremum(compare):
    def rule(b, n):
        g = n.g
        zero = _one(b, n, 0)
        pick_x = b.apply(compare, n.x(0), n.x(1))
        return [n.like(b.select(pick_x, g, zero), 0), n.like(b.select(pick_x, zero, g), 1)]
    return rule


_BINARY_GRADS = {
    "Add": _add, "Sub": _sub, "Mul": _mul, "RealDiv": _real_div,
    "FloorDiv": NOT_DIFFERENTIABLE, "TruncateDiv": NOT_DIFFERENTIABLE,
    "FloorMod": _floor_mod, "Mod": _mod, "Pow": _pow,
    "Maximum": _extremum("Greater"), "Minimum": _extremum("Less"),
    "BitwiseAnd": NOT_DIFFERENTIABLE, "BitwiseOr": NOT_DIFFERENTIABLE,
    "BitwiseXor": NOT_DIFFERENTIABLE,
}


# -- unary: the adjoint of x from (b, n, g) ---------------------------------------------------
def _unary(fn):
    def rule(b, n):
        if not n.differentiable(0):
            return [None]
        return [n.like(fn(b, n, n.g), 0)]
    return rule


def _abs(b, n, g):
    return b.mul(g, b.apply("Sign", n.x(0)))


def _erf(b, n, g):
    x = n.x(0)
    e = b.apply("Exp", b.neg(b.mul(x, x)))
    return b.mul(b.mul(g, _one(b, n, 2.0 / math.sqrt(math.pi))), e)


def _relu(b, n, g):
    pos = b.apply("Greater", n.y(), _one(b, n, 0))
    return b.select(pos, g, _one(b, n, 0))


_UNARY_GRADS = {
    "Neg": lambda b, n, g: b.neg(g),
    "Abs": _abs,
    "Exp": lambda b, n, g: b.mul(g, n.y()),
    "Log": lambda b, n, g: b.div(g, n.x(0)),
    "Log1p": lambda b, n, g: b.div(g, b.add(n.x(0), _one(b, n, 1))),
    "Expm1": lambda b, n, g: b.mul(g, b.apply("Exp", n.x(0))),
    "Sqrt": lambda b, n, g: b.div(b.mul(g, _one(b, n, 0.5)), n.y()),
    "Rsqrt": lambda b, n, g: b.mul(b.mul(g, _one(b, n, -0.5)),
                                   b.mul(b.mul(n.y(), n.y()), n.y())),
    "Reciprocal": lambda b, n, g: b.mul(g, b.neg(b.mul(n.y(), n.y()))),
    "Sin": lambda b, n, g: b.mul(g, b.apply("Cos", n.x(0))),
    "Cos": lambda b, n, g: b.mul(g, b.neg(b.apply("Sin", n.x(0)))),
    "Tanh": lambda b, n, g: b.mul(g, b.sub(_one(b, n, 1), b.mul(n.y(), n.y()))),
    "Sigmoid": lambda b, n, g: b.mul(b.mul(g, n.y()), b.sub(_one(b, n, 1), n.y())),
    # the inverse and hyperbolic functions: MindSpore's bprops (TanGrad, AsinGrad...)
    "Tan": lambda b, n, g: b.mul(g, b.add(_one(b, n, 1), b.mul(n.y(), n.y()))),
    "Asin": lambda b, n, g: b.mul(g, b.apply("Rsqrt", b.sub(_one(b, n, 1),
                                                           b.mul(n.x(0), n.x(0))))),
    "Acos": lambda b, n, g: b.neg(b.mul(g, b.apply("Rsqrt", b.sub(
        _one(b, n, 1), b.mul(n.x(0), n.x(0)))))),
    "Atan": lambda b, n, g: b.div(g, b.add(_one(b, n, 1), b.mul(n.x(0), n.x(0)))),
    "Sinh": lambda b, n, g: b.mul(g, b.apply("Cosh", n.x(0))),
    "Cosh": lambda b, n, g: b.mul(g, b.apply("Sinh", n.x(0))),
    "Asinh": lambda b, n, g: b.div(g, b.apply("Cosh", n.y())),
    "Acosh": lambda b, n, g: b.div(g, b.apply("Sinh", n.y())),
    "Atanh": lambda b, n, g: b.div(g, b.sub(_one(b, n, 1), b.mul(n.x(0), n.x(0)))),
    "Erf": _erf,
    "ReLU": _relu,
    "Square": lambda b, n, g: b.mul(g, b.mul(n.x(0), _one(b, n, 2))),
}
_CONSTANT = ("Floor", "Ceil", "Round", "Trunc", "Sign", "LogicalNot", "IsNan", "IsInf",
             "IsFinite", "Invert", "BitCast")


def _cast(b, n):
    if not n.differentiable(0) or n.g is None:
        return [None]
    return [b.cast(n.g, n.in_types[0].dtype)]


def _select(b, n):
    g = n.g
    zero = _one(b, n, 0)
    c = n.x(0)
    dx = b.select(c, g, zero) if n.differentiable(1) else None
    dy = b.select(c, zero, g) if n.differentiable(2) else None
    return [None, n.like(dx, 1), n.like(dy, 2)]


def _identity(b, n):
    return [n.g if n.differentiable(0) else None]


GRADS = dict(_BINARY_GRADS)
GRADS.update({k: _unary(f) for k, f in _UNARY_GRADS.items()})
GRADS.update({k: NOT_DIFFERENTIABLE for k in _CONSTANT})
GRADS.update({k: NOT_DIFFERENTIABLE for k in COMPARISONS})
GRADS.update({"Cast": _cast, "Select": _select, "Identity": _identity,
              "CheckNonZero": _identity})
assert set(BINARY) <= set(GRADS)

for _name, _rule in GRADS.items():
    set_grad(_name, _rule)
