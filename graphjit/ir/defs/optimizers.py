"""Optimizer ops with resource inputs (seed 004's REGISTER_OP("ResourceApplyAdagrad")):
each updates its ref inputs in place when it runs and returns their new values.

    REGISTER_OP("ResourceApplyAdagrad")          register_op("ApplyAdagrad",
        .Input("var: resource")                      ("var: resource", "accum: resource",
        .Input("accum: resource")                     "lr", "grad", "state: state"),
        .Input("lr: T")                              {"update_slots": True,
        .Input("grad: T")                             "use_locking": False}, ...)
        .Attr("use_locking: bool = false")

The shape functions check that var, the slots (accum, m, v...) and grad agree and
that the hyper-parameters (lr, momentum, ...) are scalars of var's dtype. With
use_locking=True the read-modify-write of an update holds the lock of every
variable it changes, so concurrent updates of one Parameter (several infer requests
of one compiled model, several eager calls) are never lost.
"""
from __future__ import annotations

import numpy as np

from .common import fail
from .state import check_like, check_scalar, check_var, holding, ordered_locks, state_op, write

__all__ = ["OPTIMIZER_OPS"]


def _flag(op, attrs, name):
    v = attrs[name]
    if not isinstance(v, (bool, np.bool_)):
        raise fail(op, f"{name} must be a bool, got {v!r}")
    return bool(v)


def _number(op, attrs, name):
    v = attrs[name]
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise fail(op, f"{name} must be a number, got {v!r}")
    return float(v)


# -- ApplyGradientDescent: var -= alpha * delta ---------------------------------------------------
def _gd_infer(ts, attrs):
    var = check_var("ApplyGradientDescent", ts[0], "var")
    check_scalar("ApplyGradientDescent", var, ts[1], "alpha")
    check_like("ApplyGradientDescent", var, ts[2], "delta")
    _flag("ApplyGradientDescent", attrs, "use_locking")
    return var


def _gd_factory(in_types, out_types, attrs):
    dtype, lock = in_types[0].dtype.np, attrs["use_locking"]

    def k(var, alpha, delta, tok):
        with holding(lock, var):
            out = write(var, var._data - alpha * delta, dtype)
        return out, tok
    return k


state_op("ApplyGradientDescent", ("var: resource", "alpha", "delta"), {"use_locking": False},
         _gd_infer, _gd_factory, "var -= alpha * delta; returns the new var")


# -- ApplyMomentum ------------------------------------------------------------------------------
def _momentum_infer(ts, attrs):
    op = "ApplyMomentum"
    var = check_var(op, ts[0], "variable")
    check_like(op, var, ts[1], "accumulation", "variable")
    check_scalar(op, var, ts[2], "learning_rate")
    check_like(op, var, ts[3], "gradient", "variable")
    check_scalar(op, var, ts[4], "momentum")
    _flag(op, attrs, "use_nesterov")
    _flag(op, attrs, "use_locking")
    _number(op, attrs, "gradient_scale")
    return var


def _momentum_factory(in_types, out_types, attrs):
    dtype, lock = in_types[0].dtype.np, attrs["use_locking"]
    nesterov = attrs["use_nesterov"]
    scale = dtype.type(attrs["gradient_scale"])
    scaled = bool(scale != 1)

    def k(var, accum, lr, grad, momentum, tok):
        with holding(lock, var, accum):
            g = grad * scale if scaled else grad
            a = write(accum, accum._data * momentum + g, dtype)
            if nesterov:
                new = var._data - (g * lr + a * momentum * lr)
            else:
                new = var._data - lr * a
            out = write(var, new, dtype)
        return out, tok
    return k


state_op("ApplyMomentum", ("variable: resource", "accumulation: resource", "learning_rate",
                           "gradient", "momentum"),
         {"use_nesterov": False, "use_locking": False, "gradient_scale": 1.0},
         _momentum_infer, _momentum_factory,
         "accumulation = accumulation * momentum + gradient * gradient_scale; variable -= "
         "lr * accumulation (nesterov: lr * (gradient + momentum * accumulation)); returns "
         "the new variable")


# -- ApplyAdagrad (the seed) ----------------------------------------------------------------------
def _adagrad_infer(ts, attrs):
    op = "ApplyAdagrad"
    var = check_var(op, ts[0], "var")
    check_like(op, var, ts[1], "accum")
    check_scalar(op, var, ts[2], "lr")
    check_like(op, var, ts[3], "grad")
    _flag(op, attrs, "update_slots")
    _flag(op, attrs, "use_locking")
    return var, var


def _adagrad_factory(in_types, out_types, attrs):
    dtype, lock, update = in_types[0].dtype.np, attrs["use_locking"], attrs["update_slots"]

    def k(var, accum, lr, grad, tok):
        with holding(lock, var, accum):
            a = write(accum, accum._data + grad * grad, dtype) if update else accum._data
            out = write(var, var._data - lr * grad / np.sqrt(a), dtype)
        return out, a, tok
    return k


state_op("ApplyAdagrad", ("var: resource", "accum: resource", "lr", "grad"),
         {"update_slots": True, "use_locking": False}, _adagrad_infer, _adagrad_factory,
         "accum += grad * grad (if update_slots); var -= lr * grad / sqrt(accum); returns "
         "(var, accum)")


# -- Adam ---------------------------------------------------------------------------------------
def _adam_infer(ts, attrs):
    op = "Adam"
    var = check_var(op, ts[0], "var")
    check_like(op, var, ts[1], "m")
    check_like(op, var, ts[2], "v")
    for i, name in enumerate(("beta1_power", "beta2_power", "lr", "beta1", "beta2",
                              "epsilon"), 3):
        check_scalar(op, var, ts[i], name)
    check_like(op, var, ts[9], "gradient")
    _flag(op, attrs, "use_locking")
    _flag(op, attrs, "use_nesterov")
    return var, var, var


def _adam_factory(in_types, out_types, attrs):
    dtype, lock, nesterov = in_types[0].dtype.np, attrs["use_locking"], attrs["use_nesterov"]
    one = dtype.type(1)

    def k(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, tok):
        with holding(lock, var, m, v):
            m_new = write(m, m._data * beta1 + (one - beta1) * grad, dtype)
            v_new = write(v, v._data * beta2 + (one - beta2) * grad * grad, dtype)
            lr_t = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
            step = (m_new * beta1 + (one - beta1) * grad) if nesterov else m_new
            out = write(var, var._data - lr_t * step / (np.sqrt(v_new) + epsilon), dtype)
        return out, m_new, v_new, tok
    return k


state_op("Adam", ("var: resource", "m: resource", "v: resource", "beta1_power", "beta2_power",
                  "lr", "beta1", "beta2", "epsilon", "gradient"),
         {"use_locking": False, "use_nesterov": False}, _adam_infer, _adam_factory,
         "m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g; "
         "var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon) "
         "(nesterov: beta1 * m + (1 - beta1) * g in place of m); returns (var, m, v)")


# -- SGD (MindSpore's, with dampening and the first-step state) ---------------------------------
def _sgd_infer(ts, attrs):
    op = "SGD"
    var = check_var(op, ts[0], "parameters")
    check_like(op, var, ts[1], "gradient", "parameters")
    check_scalar(op, var, ts[2], "learning_rate")
    check_like(op, var, ts[3], "accum", "parameters")
    check_scalar(op, var, ts[4], "momentum")
    check_like(op, var, ts[5], "stat", "parameters")
    _number(op, attrs, "dampening")
    _number(op, attrs, "weight_decay")
    _flag(op, attrs, "nesterov")
    return var


def _sgd_factory(in_types, out_types, attrs):
    dtype = in_types[0].dtype.np
    damp, wd = dtype.type(attrs["dampening"]), dtype.type(attrs["weight_decay"])
    nesterov = attrs["nesterov"]

    decay = bool(wd > 0)

    def k(param, grad, lr, accum, momentum, stat, tok):
        # (a float: a 0-d array's comparison costs a microsecond)
        if not float(momentum) > 0:     # accum and stat are neither read nor written
            with param._lock:           # always held (holding(True))
                g = grad + param._data * wd if decay else grad
                out = write(param, param._data - lr * g, dtype)
            return out, tok
        l0, l1, l2 = ordered_locks(param, accum, stat)
        with l0, l1, l2:
            g = grad + param._data * wd if decay else grad
            first = stat._data > 0
            a = write(accum, np.where(first, g, accum._data * momentum +
                                      (dtype.type(1) - damp) * g), dtype)
            write(stat, np.zeros_like(stat._data), dtype)
            g = g + a * momentum if nesterov else a
            out = write(param, param._data - lr * g, dtype)
        return out, tok
    return k


state_op("SGD", ("parameters: resource", "gradient", "learning_rate", "accum: resource",
                 "momentum", "stat: resource"),
         {"dampening": 0.0, "weight_decay": 0.0, "nesterov": False}, _sgd_infer, _sgd_factory,
         "g = gradient + weight_decay * parameters; with momentum: accum = g on the first "
         "step (stat > 0), else accum * momentum + (1 - dampening) * g, and g = accum (or "
         "g + momentum * accum with nesterov); parameters -= learning_rate * g")

OPTIMIZER_OPS = frozenset({"ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "Adam",
                           "SGD"})
