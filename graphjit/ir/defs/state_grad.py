"""Gradients of the state ops: none flows through them. A read is a fresh value (the
gradient with respect to a Parameter comes from the function being differentiated
taking it as a weight); an update's outputs are the token and the values written."""
from __future__ import annotations

from ..registry import NOT_DIFFERENTIABLE, set_grad
from .optimizers import OPTIMIZER_OPS
from .state import STATE_OPS

for _name in sorted(STATE_OPS | OPTIMIZER_OPS):
    set_grad(_name, NOT_DIFFERENTIABLE)
