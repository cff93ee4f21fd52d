"""MindSpore's `mindspore.ops.operations.other_ops`: StopGradient, Depend, Identity,
MakeTuple, TupleGetItem and Assign."""
from __future__ import annotations

import functools

from ..functional import identity, make_tuple, tuple_getitem
from ..primitive import Primitive
from ..function.other_func import depend
from ..function.parameter_func import assign
from ..function.grad.grad_func import stop_gradient

__all__ = ["StopGradient", "Depend", "Identity", "MakeTuple", "TupleGetItem", "Assign",
           "Partial"]


class StopGradient(Primitive):
    def __call__(self, x):
        return stop_gradient(x)


class Depend(Primitive):
    def __call__(self, value, expr):
        return depend(value, expr)


class Identity(Primitive):
    def __call__(self, x):
        return identity(x)


class MakeTuple(Primitive):
    def __call__(self, *inputs):
        return make_tuple(*inputs)


class TupleGetItem(Primitive):
    def __call__(self, x, index):
        return tuple_getitem(x, index)


class Assign(Primitive):
    def __call__(self, variable, value):
        return assign(variable, value)


class Partial(Primitive):
    """Partial()(fn, *args): fn with its first arguments bound (F.partial)."""

    def __call__(self, fn, *args):
        if not callable(fn):
            raise TypeError(f"For 'Partial', the first argument must be callable, got "
                            f"{type(fn).__name__}")
        return functools.partial(fn, *args)
