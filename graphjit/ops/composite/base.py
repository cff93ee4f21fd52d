"""MindSpore's `mindspore.ops.composite.base`: GradOperation, and the function
combinators of MindSpore's training wrappers: MultitypeFuncGraph (a function chosen by
its arguments' kinds), HyperMap and Map (a function over the items of tuples and lists).

    grad_scale = C.MultitypeFuncGraph("grad_scale")

    @grad_scale.register("Tensor", "Tensor")
    def tensor_grad_scale(scale, grad):
        return grad * ops.Reciprocal()(scale)

    grads = C.HyperMap()(F.partial(grad_scale, scale), grads)   # in a construct

In a graph being built, the front end calls each leaf function of HyperMap and Map
through its builder (`apply(caller, args)`), so user functions with control flow work as
anywhere else.
"""
from __future__ import annotations

import numbers
from typing import Callable

import numpy as np

from ...common.parameter import ParameterTuple
from ...common.tensor import TensorLike
from ..function.grad.grad_func import _weights, GradFunction

__all__ = ["GradOperation", "MultitypeFuncGraph", "HyperMap", "Map", "type_name"]


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


def type_name(x) -> str:
    """MindSpore's name of the type of x, as MultitypeFuncGraph.register spells it."""
    if isinstance(x, TensorLike):
        # a graph value standing for a Python number is a number
        if getattr(x, "weak", False):
            return "Bool" if x.dtype.is_bool else "Int" if x.dtype.is_integer else "Float"
        return "Tensor"
    if isinstance(x, (bool, np.bool_)):
        return "Bool"
    if isinstance(x, (int, np.integer)):
        return "Int"
    if isinstance(x, (float, np.floating)):
        return "Float"
    return {str: "String", tuple: "Tuple", list: "List", dict: "Dictionary",
            type(None): "None"}.get(type(x), "Function" if callable(x) else type(x).__name__)


# the names a registered type matches (MindSpore's type hierarchy: Bool, Int and Float
# are Numbers; anything matches "Undetermined")
_MATCHES = {"Number": {"Bool", "Int", "Float"}, "Int": {"Int"}, "Float": {"Float"},
            "Bool": {"Bool"}, "Tensor": {"Tensor"}, "String": {"String"},
            "Tuple": {"Tuple"}, "List": {"List"}, "Dictionary": {"Dictionary"},
            "Dict": {"Dictionary"}, "None": {"None"}, "Function": {"Function"}}


def _matches(registered: str, actual: str) -> bool:
    if registered in ("Undetermined", "Any"):
        return True
    return actual in _MATCHES.get(registered, {registered})


class MultitypeMatchError(TypeError, ValueError):
    """No registration of a MultitypeFuncGraph takes these arguments: MindSpore raises
    ValueError when called as Python (PYNATIVE) and TypeError from a graph; this is both."""


class MultitypeFuncGraph:
    """A function with one implementation per tuple of argument type names.

    Args:
        name: its name (for messages).
        read_value: accepted for MindSpore compatibility (no effect here).
    """

    def __init__(self, name: str, read_value: bool = False):
        self.name = name
        self.entries = []          # (type names, function), in registration order

    def register(self, *type_names):
        for t in type_names:
            if not isinstance(t, str):
                raise TypeError(f"MultitypeFuncGraph '{self.name}'.register takes type names "
                                f"(str), got {t!r}")

        def deco(fn):
            self.entries.append((tuple(type_names), fn))
            return fn
        return deco

    def resolve(self, args) -> Callable:
        """The implementation registered for these arguments; TypeError if none. With
        one registration, that one whatever the arguments' types (MindSpore's
        MultitypeFuncGraph.__call__: mindcv's AdamW registers its update for a Tensor
        weight_decay and is given the optimizer's float)."""
        if len(self.entries) == 1:
            return self.entries[0][1]
        names = [type_name(a) for a in args]
        for types, fn in self.entries:
            if len(types) == len(names) and all(_matches(t, n) for t, n in zip(types, names)):
                return fn
        known = "; ".join("(" + ", ".join(t) + ")" for t, _ in self.entries) or "none"
        raise MultitypeMatchError(f"The '{self.name}' operation does not support the type "
                        f"[{', '.join(names)}] (MultitypeFuncGraph); the registered types "
                        f"are: {known}")

    def __call__(self, *args):
        return self.resolve(args)(*args)


def _direct(fn, *args):
    return fn(*args)


class _Mapper:
    """HyperMap and Map: `fn` given at construction (ops) or as the first argument."""

    recursive = True

    def __init__(self, ops=None, reverse=False):
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        return self.apply(_direct, args)

    def apply(self, caller: Callable, args):
        """Map the function over args, calling leaves as caller(fn, *leaves)."""
        fn, seqs = (self.ops, list(args)) if self.ops is not None else (args[0], list(args[1:]))
        if not seqs:
            raise TypeError(f"{type(self).__name__} needs at least one sequence to map over")
        return self._map(caller, fn, seqs, depth=0)

    def _map(self, caller, fn, args, depth):
        # a ParameterTuple (an optimizer's parameters, its moments) maps as the tuple it is
        args = [tuple(a) if isinstance(a, ParameterTuple) else a for a in args]
        seqs = [a for a in args if type(a) in (tuple, list)]
        if not seqs or (depth > 0 and not self.recursive):
            return caller(fn, *args)
        if len(seqs) != len(args):
            raise TypeError(f"{type(self).__name__}: the arguments must all be sequences or "
                            f"all be leaves, got {', '.join(type_name(a) for a in args)}")
        kinds, lengths = {type(a) for a in args}, {len(a) for a in args}
        if len(kinds) != 1 or len(lengths) != 1:
            name = type(self).__name__
            got = ", ".join(f"{type(a).__name__} of {len(a)}" for a in args)
            if len(kinds) != 1:         # MindSpore's sentences, then what was given
                what = (f"For '{name}', the types of arguments in {name} must be consistent"
                        if name == "HyperMap" else
                        f"The types of arguments in {name} must be consistent")
            elif name == "HyperMap":
                what = ("The length of tuples in HyperMap must be the same"
                        if tuple in kinds else "The lists in HyperMap should have the same length")
            else:
                what = f"For '{name}', the length of {kinds.pop().__name__}s must be the same."
            raise TypeError(f"{what}: the sequences must be of one type and one length, "
                            f"got {got}")
        n = lengths.pop()
        order = range(n - 1, -1, -1) if self.reverse else range(n)
        out = [None] * n
        for i in order:
            out[i] = self._map(caller, fn, [a[i] for a in args], depth + 1)
        return type(args[0])(out)


class HyperMap(_Mapper):
    """Apply a function leaf by leaf across nested tuples and lists (MindSpore's
    C.HyperMap): HyperMap(fn)(xs, ys) or HyperMap()(fn, xs, ys)."""


class Map(_Mapper):
    """Apply a function to the items of tuples and lists, one level (MindSpore's
    C.Map): Map(fn)(xs, ys) or Map()(fn, xs, ys)."""

    recursive = False
