"""MindSpore's `mindspore.ops.function.parameter_func`: assign, assign_add and assign_sub
(updates of a Parameter)."""
from __future__ import annotations

from .._dispatch import apply_update, to_tensor
from ...common.parameter import Parameter
from ...common.tensor import SymbolicTensor

__all__ = ["assign", "assign_add", "assign_sub"]


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
