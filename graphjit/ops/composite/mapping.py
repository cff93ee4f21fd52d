"""MindSpore's function-mapping composites and small functional helpers:
MultitypeFuncGraph (one name, an implementation per argument type), HyperMap and Map
(apply a function across tuples and lists), tuple_div and typeof.

    add = C.MultitypeFuncGraph("add")

    @add.register("Tensor", "Tensor")
    def _(x, y):
        return x + y

    C.HyperMap(add)((x1, (x2, x3)), (y1, (y2, y3)))    # nested: leaf by leaf
    C.Map()(add, (x1, x2), (y1, y2))                   # one level

In a graph being built, the front end calls each leaf function through its builder
(`apply(caller, args)`), so user functions with control flow work as anywhere else.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...common.tensor import TensorLike
from ...ir import dtypes as dt

__all__ = ["MultitypeFuncGraph", "HyperMap", "Map", "tuple_div", "typeof", "TensorType",
           "type_name"]


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
        """The implementation registered for these arguments; TypeError if none."""
        names = [type_name(a) for a in args]
        for types, fn in self.entries:
            if len(types) == len(names) and all(_matches(t, n) for t, n in zip(types, names)):
                return fn
        known = "; ".join("(" + ", ".join(t) + ")" for t, _ in self.entries) or "none"
        raise TypeError(f"MultitypeFuncGraph '{self.name}' has no implementation for the "
                        f"argument types ({', '.join(names)}); registered: {known}")

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
        seqs = [a for a in args if type(a) in (tuple, list)]
        if not seqs or (depth > 0 and not self.recursive):
            return caller(fn, *args)
        if len(seqs) != len(args):
            raise TypeError(f"{type(self).__name__}: the arguments must all be sequences or "
                            f"all be leaves, got {', '.join(type_name(a) for a in args)}")
        kinds, lengths = {type(a) for a in args}, {len(a) for a in args}
        if len(kinds) != 1 or len(lengths) != 1:
            raise TypeError(f"{type(self).__name__}: the sequences must be of one type and "
                            f"one length, got " + ", ".join(f"{type(a).__name__} of "
                                                            f"{len(a)}" for a in args))
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


def tuple_div(x, y):
    """Element-wise division of two tuples of ints of one length, each item divisible
    (MindSpore's F.tuple_div, used on shapes)."""
    if not (isinstance(x, tuple) and isinstance(y, tuple)):
        raise TypeError(f"tuple_div takes two tuples, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if len(x) != len(y):
        raise ValueError(f"tuple_div: the tuples must have one length, got {len(x)} and "
                         f"{len(y)}")
    out = []
    for i, (a, b) in enumerate(zip(x, y)):
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (a, b)):
            raise TypeError(f"tuple_div: item {i} is {a!r} / {b!r}; the items must be ints")
        if b == 0:
            raise ValueError(f"tuple_div: item {i} divides by zero")
        if a % b:
            raise ValueError(f"tuple_div: item {i}: {a} is not divisible by {b}")
        out.append(int(a) // int(b))
    return tuple(out)


class TensorType:
    """The type of a tensor: its element dtype (MindSpore's mstype.TensorType)."""

    def __init__(self, element: dt.DType):
        self._element = element

    def element_type(self) -> dt.DType:
        return self._element

    def __eq__(self, other):
        return isinstance(other, TensorType) and other._element is self._element

    def __hash__(self):
        return hash(("TensorType", self._element))

    def __repr__(self):
        return f"Tensor[{self._element.name.capitalize()}]"

    __str__ = __repr__


def typeof(x):
    """The type of x, known while building: a TensorType for a tensor (its dtype
    inside), the dtype of a Python number (int64, float32, bool), else its Python type
    (MindSpore's F.typeof)."""
    if isinstance(x, TensorLike):
        if getattr(x, "weak", False):
            return {"b": dt.bool_, "i": dt.int64, "u": dt.int64}.get(x.dtype.kind,
                                                                      dt.float32)
        return TensorType(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return dt.bool_
    if isinstance(x, (int, np.integer)):
        return dt.int64
    if isinstance(x, (float, np.floating)):
        return dt.float32
    return type(x)
