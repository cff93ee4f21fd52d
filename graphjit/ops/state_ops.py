"""Updating Parameters: assign, assign_add, assign_sub and the optimizer ops
(ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, Adam, SGD), as functions and as
MindSpore primitives.

Eagerly the Parameter changes in place at once; in a graph being built the update
is recorded as a state op and happens when the graph runs, in program order (also
inside If and Loop bodies): graphjit.ir.defs.state. Values are cast to the
Parameter's dtype (MindSpore's implicit conversion: a Parameter keeps its dtype).
"""
from __future__ import annotations

from ..common.parameter import Parameter
from ..common.tensor import SymbolicTensor
from ._dispatch import apply_update, to_tensor
from .primitives import Primitive

__all__ = ["assign", "assign_add", "assign_sub", "Assign", "AssignAdd", "AssignSub",
           "ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "Adam", "SGD"]


def _param(x, op: str, name: str):
    if isinstance(x, SymbolicTensor):
        raise TypeError(
            f"For '{op}', '{name}' must be a Parameter (state it updates), got a tensor "
            f"value of the graph (a tensor argument, the result of an operation, or a "
            f"Parameter picked under a condition that depends on a tensor value, which is "
            f"its value); update the Parameter itself, in each branch of such a condition")
    if not isinstance(x, Parameter):
        raise TypeError(f"For '{op}', '{name}' must be a Parameter (state it updates), got "
                        f"{type(x).__name__}")
    return x


def _like(x, var: Parameter):
    """x (a tensor, Python number or array) in var's dtype."""
    return to_tensor(x, var.dtype)


def assign(variable, value):
    """variable = value (cast to the variable's dtype, broadcast to its shape); returns
    the variable. In place now eagerly; when the graph runs in graph mode."""
    _param(variable, "Assign", "variable")
    apply_update("Assign", variable, _like(value, variable))
    return variable


def assign_add(variable, value):
    """variable += value, atomically; returns the variable."""
    _param(variable, "AssignAdd", "variable")
    apply_update("AssignAdd", variable, _like(value, variable))
    return variable


def assign_sub(variable, value):
    """variable -= value, atomically; returns the variable."""
    _param(variable, "AssignSub", "variable")
    apply_update("AssignSub", variable, _like(value, variable))
    return variable


class Assign(Primitive):
    def __call__(self, variable, value):
        return assign(variable, value)


class AssignAdd(Primitive):
    def __call__(self, variable, value):
        return assign_add(variable, value)


class AssignSub(Primitive):
    def __call__(self, variable, value):
        return assign_sub(variable, value)


def _flag(op, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{op}', '{name}' must be a bool, got {v!r}")
    return v


class ApplyGradientDescent(Primitive):
    """var -= alpha * delta; returns the new var."""

    def __init__(self, use_locking=False):
        super().__init__(use_locking=use_locking)
        self.use_locking = _flag("ApplyGradientDescent", "use_locking", use_locking)

    def __call__(self, var, alpha, delta):
        _param(var, "ApplyGradientDescent", "var")
        return apply_update("ApplyGradientDescent", var, _like(alpha, var), _like(delta, var),
                            use_locking=self.use_locking)


class ApplyMomentum(Primitive):
    """accumulation = accumulation * momentum + gradient * gradient_scale;
    variable -= learning_rate * accumulation (use_nesterov: learning_rate * (gradient +
    momentum * accumulation)); returns the new variable."""

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        super().__init__(use_nesterov=use_nesterov, use_locking=use_locking,
                         gradient_scale=gradient_scale)
        self.use_nesterov = _flag("ApplyMomentum", "use_nesterov", use_nesterov)
        self.use_locking = _flag("ApplyMomentum", "use_locking", use_locking)
        if isinstance(gradient_scale, bool) or not isinstance(gradient_scale, (int, float)):
            raise TypeError(f"For 'ApplyMomentum', 'gradient_scale' must be a float, got "
                            f"{gradient_scale!r}")
        self.gradient_scale = float(gradient_scale)

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        op = "ApplyMomentum"
        _param(variable, op, "variable")
        _param(accumulation, op, "accumulation")
        return apply_update(op, variable, accumulation, _like(learning_rate, variable),
                            _like(gradient, variable), _like(momentum, variable),
                            use_nesterov=self.use_nesterov, use_locking=self.use_locking,
                            gradient_scale=self.gradient_scale)


class ApplyAdagrad(Primitive):
    """accum += grad * grad (if update_slots); var -= lr * grad / sqrt(accum); returns
    (var, accum). use_locking=True (graphjit's, from the seed's ResourceApplyAdagrad)
    makes concurrent updates of one Parameter safe."""

    def __init__(self, update_slots=True, use_locking=False):
        super().__init__(update_slots=update_slots, use_locking=use_locking)
        self.update_slots = _flag("ApplyAdagrad", "update_slots", update_slots)
        self.use_locking = _flag("ApplyAdagrad", "use_locking", use_locking)

    def __call__(self, var, accum, lr, grad):
        _param(var, "ApplyAdagrad", "var")
        _param(accum, "ApplyAdagrad", "accum")
        return apply_update("ApplyAdagrad", var, accum, _like(lr, var), _like(grad, var),
                            update_slots=self.update_slots, use_locking=self.use_locking)


class Adam(Primitive):
    """The Adam update of var and its moments m and v; returns (var, m, v)."""

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)
        self.use_locking = _flag("Adam", "use_locking", use_locking)
        self.use_nesterov = _flag("Adam", "use_nesterov", use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                 gradient):
        for x, name in ((var, "var"), (m, "m"), (v, "v")):
            _param(x, "Adam", name)
        scalars = [_like(x, var) for x in (beta1_power, beta2_power, lr, beta1, beta2,
                                            epsilon)]
        return apply_update("Adam", var, m, v, *scalars, _like(gradient, var),
                            use_locking=self.use_locking, use_nesterov=self.use_nesterov)


class SGD(Primitive):
    """Stochastic gradient descent with optional momentum, dampening, weight decay and
    Nesterov momentum (MindSpore's op; `stat` > 0 marks the first step); returns the
    new parameters."""

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        super().__init__(dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)
        for name, v in (("dampening", dampening), ("weight_decay", weight_decay)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'SGD', '{name}' must be a float, got {v!r}")
        self.dampening, self.weight_decay = float(dampening), float(weight_decay)
        self.nesterov = _flag("SGD", "nesterov", nesterov)

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        for x, name in ((parameters, "parameters"), (accum, "accum"), (stat, "stat")):
            _param(x, "SGD", name)
        return apply_update("SGD", parameters, _like(gradient, parameters),
                            _like(learning_rate, parameters), accum,
                            _like(momentum, parameters), stat, dampening=self.dampening,
                            weight_decay=self.weight_decay, nesterov=self.nesterov)
