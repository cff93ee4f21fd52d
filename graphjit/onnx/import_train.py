"""ONNX node -> graphjit nodes: the optimizer steps of the ai.onnx.preview.training
domain (Adagrad, Adam, Momentum). In ONNX they are pure functions of the learning rate
R, the step count T and the tensors (X..., G..., state...) giving the new tensors; they
are computed in float64 (as numpy promotes the float32 rate against the int64 step)
and cast back, as the ONNX reference does."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_F64 = D.float64


def _groups(cx: NodeCx, per: int):
    """(r, t, [[x, g, state...] per tensor]) of an optimizer node."""
    xs = [cx.x(i) for i in range(len(cx.names))]
    if len(xs) < 2 + per or (len(xs) - 2) % per:
        raise cx.where.damaged(f"{cx.node.op_type} takes R, T and {per} inputs per tensor")
    n = (len(xs) - 2) // per
    r, t = (cx.emit("Reshape", cx.keep(v, _F64), shape=()) for v in xs[:2])
    return r, t, [[xs[2 + k * n + i] for k in range(per)] for i in range(n)]


def _f(cx, v):
    return cx.keep(v, _F64)


def _c(cx, v):
    return cx.array(np.float64(v))


def _regularized(cx, x, g, norm):
    return cx.emit("Add", cx.emit("Mul", _c(cx, norm), _f(cx, x)), _f(cx, g))


def _positive(cx, t):
    return cx.emit("Greater", t, _c(cx, 0))


@op("ai.onnx.preview.training.Adagrad")
def _adagrad(cx):
    decay, eps = cx.attrs.float("decay_factor", 0.0), cx.attrs.float("epsilon", 0.0)
    norm = cx.attrs.float("norm_coefficient", 0.0)
    r, t, groups = _groups(cx, 3)
    rate = cx.emit("RealDiv", r, cx.emit("Add", _c(cx, 1), cx.emit("Mul", t, _c(cx, decay))))
    xs, hs = [], []
    for x, g, h in groups:
        gr = _regularized(cx, x, g, norm)
        h_new = cx.emit("Add", _f(cx, h), cx.emit("Mul", gr, gr))
        step = cx.emit("RealDiv", cx.emit("Mul", rate, gr),
                       cx.emit("Add", cx.emit("Sqrt", h_new), _c(cx, eps)))
        xs.append(cx.keep(cx.emit("Sub", _f(cx, x), step), x.dtype))
        hs.append(cx.keep(h_new, h.dtype))
    return xs + hs


@op("ai.onnx.preview.training.Adam")
def _adam(cx):
    a = cx.attrs
    alpha, beta = a.float("alpha", 0.9), a.float("beta", 0.999)
    eps, norm = a.float("epsilon", 0.0), a.float("norm_coefficient", 0.0)
    post = a.float("norm_coefficient_post", 0.0)
    r, t, groups = _groups(cx, 4)
    corrected = cx.emit("RealDiv", cx.emit("Mul", r, cx.emit("Sqrt", cx.emit(
        "Sub", _c(cx, 1), cx.emit("Pow", _c(cx, beta), t)))),
        cx.emit("Sub", _c(cx, 1), cx.emit("Pow", _c(cx, alpha), t)))
    rate = cx.emit("Select", _positive(cx, t), corrected, r)
    xs, vs, hs = [], [], []
    for x, g, v, h in groups:
        gr = _regularized(cx, x, g, norm)
        v_new = cx.emit("Add", cx.emit("Mul", _c(cx, alpha), _f(cx, v)),
                        cx.emit("Mul", _c(cx, 1 - alpha), gr))
        h_new = cx.emit("Add", cx.emit("Mul", _c(cx, beta), _f(cx, h)),
                        cx.emit("Mul", _c(cx, 1 - beta), cx.emit("Mul", gr, gr)))
        step = cx.emit("Mul", rate, cx.emit("RealDiv", v_new, cx.emit(
            "Add", cx.emit("Sqrt", h_new), _c(cx, eps))))
        x_new = cx.emit("Mul", _c(cx, 1 - post), cx.emit("Sub", _f(cx, x), step))
        xs.append(cx.keep(x_new, x.dtype))
        vs.append(cx.keep(v_new, v.dtype))
        hs.append(cx.keep(h_new, h.dtype))
    return xs + vs + hs


@op("ai.onnx.preview.training.Momentum")
def _momentum(cx):
    a = cx.attrs
    alpha, beta = a.float("alpha"), a.float("beta")
    norm = a.float("norm_coefficient")
    mode = a.string("mode", "standard")
    if mode not in ("standard", "nesterov"):
        raise cx.where.damaged(f"unknown mode {mode!r}")
    r, t, groups = _groups(cx, 3)
    b = cx.emit("Select", _positive(cx, t), _c(cx, beta), _c(cx, 1))
    xs, vs = [], []
    for x, g, v in groups:
        gr = _regularized(cx, x, g, norm)
        v_new = cx.emit("Add", cx.emit("Mul", _c(cx, alpha), _f(cx, v)), cx.emit("Mul", b, gr))
        move = v_new if mode == "standard" else \
            cx.emit("Add", gr, cx.emit("Mul", _c(cx, alpha), v_new))
        xs.append(cx.keep(cx.emit("Sub", _f(cx, x), cx.emit("Mul", r, move)), x.dtype))
        vs.append(cx.keep(v_new, v.dtype))
    return xs + vs
