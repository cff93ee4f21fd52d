"""MindSpore's `mindspore.ops.composite` (often imported as C): GradOperation, grad and
value_and_grad (defined in gradients.py; re-exported as `ops.GradOperation` too).

    from mindspore.ops import composite as C
    grad = C.GradOperation(get_by_list=True)     # in __init__
    grad(net, weights)(x)                        # gradients of the weights
"""
from __future__ import annotations

from .gradients import GradOperation, grad, value_and_grad

__all__ = ["GradOperation", "grad", "value_and_grad"]
