"""MindSpore's `mindspore.ops.composite` (often imported as C): GradOperation (base.py), mm
(math_ops.py), grad and value_and_grad (of ops/function/grad/grad_func.py), and
MultitypeFuncGraph, HyperMap and Map (base.py), add_flags and core (flags.py), and
the clip functions, zeros_like and ones_like MindSpore's C also holds.

    from mindspore.ops import composite as C
    grad = C.GradOperation(get_by_list=True)     # in __init__
    grad(net, weights)(x)                        # gradients of the weights
"""
from __future__ import annotations

from .base import GradOperation, HyperMap, Map, MultitypeFuncGraph
from .math_ops import mm
from ..function.grad.grad_func import grad, value_and_grad
from .flags import add_flags, core
from ..function.clip_func import clip_by_value, clip_by_norm, clip_by_global_norm
from ..function.array_func import zeros_like, ones_like

__all__ = ["GradOperation", "grad", "value_and_grad", "mm", "HyperMap", "Map",
           "MultitypeFuncGraph", "add_flags", "core", "clip_by_value", "clip_by_norm",
           "clip_by_global_norm", "zeros_like", "ones_like"]
