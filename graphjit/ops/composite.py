"""MindSpore's `mindspore.ops.composite` (often imported as C): GradOperation.

    from mindspore.ops import composite as C
    grad = C.GradOperation(get_by_list=True)     # in __init__: fine
    grad(net, weights)(x)                        # NotImplementedError until autodiff lands

GradOperation is defined here once (and re-exported as `ops.GradOperation`); the
autodiff work replaces this definition.
"""
from __future__ import annotations

__all__ = ["GradOperation"]


class GradOperation:
    """GradOperation(get_all=False, get_by_list=False, sens_param=False): makes the
    gradient function of a function or Cell, `GradOperation(...)(net)(*inputs)` or
    `(net, weights)(*inputs)`.

    Constructing one works (models build it in `__init__`); applying it raises
    NotImplementedError, since graphjit computes no gradients yet.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn, weights=None):
        name = getattr(fn, "__name__", None) or type(fn).__name__
        raise NotImplementedError(
            f"GradOperation(...)({name}): graphjit does not compute gradients yet, so "
            f"training steps cannot run; run the model's forward pass (inference) only")

    def __repr__(self):
        return (f"GradOperation(get_all={self.get_all}, get_by_list={self.get_by_list}, "
                f"sens_param={self.sens_param})")
