"""Strings made from tensor values: formatted when the graph runs, where they are used.

    print(f"x = {x}")                       # Print: the text is made at every run
    if x > 5:
        raise ValueError(f"{x} is too big")  # Raise: the message holds the run's x

An f-string, `"..." % args`, `"...".format(...)`, `str(x)` or `repr(x)` over graph
values gives a RuntimeString: pieces that graphjit.ir.text turns into the text eager
Python makes from eager Tensors. It can be printed, joined with `+`, put in an
exception and returned (the call makes its text after each run, from the graph's
results); anything that needs its characters while the graph is built (comparing it,
len, indexing) is refused.
"""
from __future__ import annotations

import numpy as np

from ..ir.errors import UnsupportedSyntaxError
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from .values import DynamicList, GraphTensor, as_graph, current_loc

__all__ = ["RuntimeString", "has_runtime", "encode", "formatted", "percent", "str_format"]


def _refuse(what):
    raise UnsupportedSyntaxError(
        f"{what} of a string made from tensor values: its text exists only when the graph "
        f"runs", loc=current_loc(),
        hint="print it, or use it as an exception's message; compare or return the "
             "tensors instead")


class RuntimeString:
    """A str whose text is made when the graph runs (see the module docstring).
    pieces: str, or ("fmt", value, conversion, spec) / ("%", template, value) /
    ("format", template, args, kwargs) / ("pick", index, (str a, str b)) over live values
    (graph values, constants)."""

    __slots__ = ("pieces",)

    def __init__(self, pieces):
        self.pieces = tuple(pieces)

    def __add__(self, other):
        if isinstance(other, str):
            return RuntimeString(self.pieces + (other,))
        if isinstance(other, RuntimeString):
            return RuntimeString(self.pieces + other.pieces)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, str):
            return RuntimeString((other,) + self.pieces)
        return NotImplemented

    def __str__(self):
        _refuse("the text")

    def __repr__(self):
        return "<a string made when the graph runs>"

    def __format__(self, spec):
        _refuse("formatting")

    def __len__(self):
        _refuse("len()")

    def __eq__(self, other):
        _refuse("comparing")

    def __ne__(self, other):
        _refuse("comparing")

    def __bool__(self):
        _refuse("the truth value")

    def __iter__(self):
        _refuse("iterating over the characters")

    def __getitem__(self, key):
        _refuse("indexing")

    def __getattr__(self, name):
        if hasattr(str, name) and not name.startswith("__"):
            _refuse(f"str.{name}()")
        raise AttributeError(f"a string has no attribute '{name}'")

    def __hash__(self):
        # by identity, a dict lookup or `in` missed silently where eager mode found the
        # text (`k in d`, d.get(k) with k = "a" if n > 1 else "b")
        _refuse("looking up (as a dict key or set member)")


def has_runtime(v) -> bool:
    """Whether v (or something it holds) is known only when the graph runs."""
    if isinstance(v, (GraphTensor, RuntimeString, Parameter, DynamicList)):
        return True
    if type(v) in (tuple, list):
        return any(has_runtime(x) for x in v)
    if type(v) is dict:
        return any(has_runtime(x) for x in v.values())
    return False


_CONSTANTS = (str, int, float, bool, type(None))


def encode(v, inputs: list):
    """The graphjit.ir.text tree of v; the tensors it reads are appended to inputs."""
    if isinstance(v, DynamicList):
        raise UnsupportedSyntaxError(
            "formatting a list built in a loop that depends on a tensor value",
            loc=current_loc(), hint="format ops.stack(lst) instead")
    if isinstance(v, RuntimeString):
        return ("str", tuple(p if isinstance(p, str) else _encode_piece(p, inputs)
                             for p in v.pieces))
    if isinstance(v, Parameter):
        v = as_graph(v)
    if isinstance(v, GraphTensor):
        inputs.append(v)
        return ("w" if v.weak and v.type.shape == () else "t", len(inputs) - 1)
    if isinstance(v, Tensor) and v.has_data:
        inputs.append(v)
        return ("t", len(inputs) - 1)
    if type(v) in (tuple, list):
        return (type(v).__name__, tuple(encode(x, inputs) for x in v))
    if type(v) is dict:
        return ("dict", tuple((encode(k, inputs), encode(x, inputs)) for k, x in v.items()))
    if type(v) in _CONSTANTS:
        return ("c", v)
    if isinstance(v, (np.generic,)):
        return ("c", v.item())
    return ("obj", repr(v), str(v))


def _encode_piece(p, inputs):
    if p[0] == "pick":             # one of two strings, chosen when the graph runs
        return ("pick", encode(p[1], inputs), tuple(encode(x, inputs) for x in p[2]))
    if p[0] == "fmt":
        return ("fmt", encode(p[1], inputs), p[2], p[3])
    if p[0] == "%":
        return ("%", p[1], encode(p[2], inputs))
    return ("format", p[1], encode(tuple(p[2]), inputs), encode(dict(p[3]), inputs))


def formatted(value, conversion: str, spec) -> RuntimeString:
    """f"{value!conversion:spec}" for a value known only when the graph runs."""
    if isinstance(spec, RuntimeString):
        raise UnsupportedSyntaxError("a format spec made from tensor values",
                                     loc=current_loc(), hint="use a constant format spec")
    return RuntimeString([("fmt", value, conversion, spec)])


def percent(template: str, args) -> RuntimeString:
    """template % args, made when the graph runs."""
    return RuntimeString([("%", template, args)])


def str_format(template: str, args, kwargs) -> RuntimeString:
    """template.format(*args, **kwargs), made when the graph runs."""
    return RuntimeString([("format", template, tuple(args), dict(kwargs))])
