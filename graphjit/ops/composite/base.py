"""MindSpore's `mindspore.ops.composite.base`: GradOperation, and the function
combinators of MindSpore's training wrappers: MultitypeFuncGraph (a function chosen by
its arguments' kinds), HyperMap and Map (a function over the items of tuples and lists).

    grad_scale = C.MultitypeFuncGraph("grad_scale")

    @grad_scale.register("Tensor", "Tensor")
    def tensor_grad_scale(scale, grad):
        return grad * ops.Reciprocal()(scale)

    grads = C.HyperMap()(F.partial(grad_scale, scale), grads)   # in a construct

They run as Python over the values they are given (graph values while a construct is
built, so the registered functions trace into the graph like any expression).
"""
from __future__ import annotations

import numbers

from ...common.tensor import TensorLike
from ..function.grad.grad_func import _weights, GradFunction

__all__ = ["GradOperation", "MultitypeFuncGraph", "HyperMap", "Map"]


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


def _kind_matches(kind, x) -> bool:
    """Does x have MindSpore's type `kind` ("Tensor", "Number", "Tuple", ... or a class)?"""
    if isinstance(kind, type):
        return isinstance(x, kind)
    name = getattr(kind, "__name__", None) or str(kind)
    if name in ("Tensor", "Parameter", "MetaTensor"):
        return isinstance(x, TensorLike)
    if name in ("Number", "Int", "Float", "Scalar"):
        return isinstance(x, numbers.Number) and not isinstance(x, bool) or (
            name in ("Number", "Scalar") and isinstance(x, bool))
    if name == "Bool":
        return isinstance(x, bool)
    if name == "Tuple":
        return isinstance(x, tuple)
    if name == "List":
        return isinstance(x, list)
    if name in ("Dictionary", "Dict"):
        return isinstance(x, dict)
    if name == "String":
        return isinstance(x, str)
    if name in ("None", "NoneType"):
        return x is None
    if name == "Function":
        return callable(x)
    return False        # RowTensor, COOTensor, ...: kinds graphjit has no values of


class MultitypeFuncGraph:
    """A function with one implementation per kinds of arguments, chosen when called
    (MindSpore's overloading of its training wrappers).

    Args:
        name (str): the function's name (in error messages).
        read_value (bool): accepted for MindSpore's signature.
    """

    def __init__(self, name, read_value=False):
        if not isinstance(name, str):
            raise TypeError(f"MultitypeFuncGraph's name must be a str, got {name!r}")
        self.name = name
        self.entries = []

    def register(self, *type_names):
        """A decorator adding fn as the implementation for arguments of these kinds."""
        def deco(fn):
            self.entries.append((type_names, fn))
            return fn
        return deco

    def __call__(self, *args):
        for kinds, fn in self.entries:
            if len(kinds) == len(args) and all(_kind_matches(k, a) for k, a in zip(kinds, args)):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        known = "; ".join(", ".join(map(str, k)) for k, _ in self.entries) or "none"
        raise TypeError(f"The '{self.name}' operation does not support the type [{got}]. "
                        f"The registered types are: {known}")


def _hyper_map(fn, args):
    seqs = [a for a in args if isinstance(a, (tuple, list))]
    if not seqs:
        return fn(*args)
    n = len(seqs[0])
    if any(len(q) != n for q in seqs):
        raise ValueError(f"HyperMap: the sequences have different lengths "
                         f"{[len(q) for q in seqs]}")
    if len(seqs) != len(args):
        raise TypeError("HyperMap: mixes sequences with other values; give sequences of the "
                        "same length")
    out = [_hyper_map(fn, [a[i] for a in args]) for i in range(n)]
    return tuple(out) if isinstance(seqs[0], tuple) else out


class HyperMap:
    """fn applied to the items of tuples and lists (at any depth), the results in the same
    structure: HyperMap()(fn, grads), or HyperMap(fn)(grads).

    Args:
        ops (callable): the function, if given here (then not at the call).
        reverse (bool): accepted for MindSpore's signature.
    """

    def __init__(self, ops=None, reverse=False):
        self.ops = ops

    def __call__(self, *args):
        if self.ops is None:
            if not args or not callable(args[0]):
                raise TypeError("HyperMap()(fn, *sequences) needs a function first")
            fn, args = args[0], args[1:]
        else:
            fn = self.ops
        return _hyper_map(fn, list(args))


class Map:
    """fn applied to the items of tuples and lists at the first level only:
    Map()(fn, xs) or Map(fn)(xs)."""

    def __init__(self, ops=None, reverse=False):
        self.ops = ops

    def __call__(self, *args):
        fn, args = (args[0], args[1:]) if self.ops is None else (self.ops, args)
        if not args or not all(isinstance(a, (tuple, list)) for a in args):
            raise TypeError("Map needs sequences (tuples or lists) to map over")
        n = len(args[0])
        out = [fn(*[a[i] for a in args]) for i in range(n)]
        return tuple(out) if isinstance(args[0], tuple) else out
