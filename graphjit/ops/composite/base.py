"""MindSpore's `mindspore.ops.composite.base`: GradOperation."""
from __future__ import annotations

from ..function.grad.grad_func import _weights, GradFunction

__all__ = ["GradOperation"]


class GradOperation:
    """MindSpore's higher-order function: GradOperation(get_all, get_by_list,
    sens_param)(net[, weights]) is the gradient function of net: the gradient of the
    first input (get_all: a tuple for every input), of the weights (get_by_list: a
    tuple), or both ((inputs' gradients), (weights' gradients))."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list),
                        ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'GradOperation', the '{name}' should be bool, but got "
                                f"{type(v).__name__}")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        self._made = {}

    def __call__(self, fn, weights=None):
        ws = None
        if self.get_by_list:
            if weights is None:
                raise TypeError("GradOperation(get_by_list=True) needs the weights: "
                                "grad_op(net, weights)")
            ws, _ = _weights(weights)
        key = (id(fn), None if ws is None else tuple(id(w) for w in ws))
        hit = self._made.get(key)
        if hit is not None and hit.fn is fn:
            return hit
        if self.get_all:
            gf = _AllInputs(fn, None, ws, sens_param=self.sens_param)
        elif self.get_by_list:
            gf = GradFunction(fn, None, ws, sens_param=self.sens_param)
        else:
            gf = GradFunction(fn, (0,), None, sens_param=self.sens_param,
                              single_position=True)
        if self.get_by_list and self.get_all:
            gf.weights = ws
        self._made[key] = gf
        return gf


    def __repr__(self):
        return (f"GradOperation(get_all={self.get_all}, get_by_list={self.get_by_list}, "
                f"sens_param={self.sens_param})")


class _AllInputs(GradFunction):
    """GradOperation(get_all=True): every positional input, known when called."""

    def bind_positions(self, args, kwargs=None):
        n = len(args) - (1 if self.sens_param and "sens" not in (kwargs or {}) else 0)
        bound = self.__dict__.setdefault("_bound", {})
        gf = bound.get(n)
        if gf is None:
            gf = bound[n] = GradFunction(self.fn, tuple(range(n)), self.weights,
                                         sens_param=self.sens_param)
        return gf

    def __call__(self, *args, **kwargs):
        return self.bind_positions(args, kwargs)(*args, **kwargs)
