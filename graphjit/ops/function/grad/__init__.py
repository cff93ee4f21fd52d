"""MindSpore's `mindspore.ops.function.grad`: grad, value_and_grad, stop_gradient
(grad_func.py)."""
from .grad_func import *  # noqa: F401,F403

__all__ = ["GradFunction", "grad", "value_and_grad", "tensor_leaves", "map_leaves",
           "stop_gradient", "get_grad"]
