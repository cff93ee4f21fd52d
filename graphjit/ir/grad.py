"""The protocol gradient rules are written against, so that one rule serves both modes:
it builds backward nodes in graph mode (graphjit.autodiff) and runs on eager arrays
on the PYNATIVE tape.

A rule is `rule(b, n) -> [adjoint of each input, or None for a zero adjoint]`:

    b  GradBuilder: b.apply(op, *values, **attrs) adds a node (or runs a kernel),
       b.const(array), b.type(value), and small helpers over apply (b.mul, b.cast...).
    n  GradNode: the forward node being differentiated: n.op, n.attrs, n.in_types,
       n.out_types, n.gs (the adjoint of each output, None where none reached it),
       n.differentiable(i) (whether input i wants an adjoint at all),
       n.x(i) and n.y(i) (forward input and output i as values of b: in a graph,
       a forward value is made available to the backward program only when a rule
       asks for it, so a Loop saves per iteration only what its gradient reads).

    def _mul_grad(b, n):
        g = n.g
        return [n.like(b.mul(g, n.x(1)), 0), n.like(b.mul(n.x(0), g), 1)]

n.like(g, i) makes an adjoint fit input i: summed over the dims broadcasting added
(numpy's rules, unknown dims decided when the graph runs), cast to the input's
dtype (an integer input gets its gradient truncated toward zero, as in MindSpore),
and None for a bool input (those get zero gradients).
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from . import dtypes as dt
from .types import TensorType, is_static

__all__ = ["GradBuilder", "GradNode", "restore_reduced_dims"]


class GradBuilder:
    """Builds the backward computation: nodes of a graph, or eager kernel calls."""

    loc = None   # the source location given to the nodes a graph builder adds

    def apply(self, op: str, *inputs, **attrs):
        """Apply op to values of this builder; one value, or a tuple for several outputs."""
        raise NotImplementedError

    def const(self, value: np.ndarray):
        raise NotImplementedError

    def type(self, v) -> TensorType:
        raise NotImplementedError

    def known(self, v) -> Optional[np.ndarray]:
        """v's value if it is known now (a constant; in eager mode, every value)."""
        raise NotImplementedError

    # -- helpers over apply ------------------------------------------------------------
    def scalar(self, x, dtype):
        return self.const(np.asarray(x, dtype=dt.as_dtype(dtype).np))

    def add(self, x, y):
        return self.apply("Add", x, y)

    def sub(self, x, y):
        return self.apply("Sub", x, y)

    def mul(self, x, y):
        return self.apply("Mul", x, y)

    def div(self, x, y):
        return self.apply("RealDiv", x, y)

    def neg(self, x):
        return self.apply("Neg", x)

    def cast(self, x, dtype):
        dtype = dt.as_dtype(dtype)
        if self.type(x).dtype is dtype:
            return x
        return self.apply("Cast", x, dtype=dtype)

    def zeros(self, t: TensorType):
        """Zeros of a static type."""
        return self.apply("Fill", shape=tuple(t.shape), dtype=t.dtype, value=0)

    def select(self, c, x, y):
        return self.apply("Select", c, x, y)

    def reshape(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if self.type(x).shape == shape:
            return x
        return self.apply("Reshape", x, shape=shape)

    def sum_to(self, g, target: TensorType, value: Callable[[], Any]):
        """g summed down to the shape of `target` (numpy's broadcasting undone).

        `value()` gives a value of that shape: it is used (and so made available to
        the backward program) only when the shapes are not known while building.
        """
        gt = self.type(g)
        xs, gs = target.shape, gt.shape
        if xs is not None and gs is not None and xs == gs and is_static(xs):
            return g
        if xs is not None and gs is not None and is_static(xs):
            lead = len(gs) - len(xs)
            axes = list(range(max(lead, 0)))
            for k, d in enumerate(xs):
                j = lead + k
                if j >= 0 and d == 1 and gs[j] != 1:
                    axes.append(j)
            r = g
            if axes:
                r = self.apply("ReduceSum", g, axis=tuple(axes), keep_dims=False)
            return self.reshape(r, xs)
        return self.apply("SumToLike", g, value())


class GradNode:
    """A forward node as a rule sees it (see the module docstring)."""

    def __init__(self, b: GradBuilder, op: str, attrs, in_types: Sequence[TensorType],
                 out_types: Sequence[TensorType], gs: Sequence[Any],
                 needed: Optional[Sequence[bool]] = None):
        self.b = b
        self.op = op
        self.attrs = attrs
        self.in_types = list(in_types)
        self.out_types = list(out_types)
        self.gs = list(gs)
        self.needed = [True] * len(self.in_types) if needed is None else list(needed)

    @property
    def g(self):
        """The adjoint of the (first) output."""
        return self.gs[0]

    def x(self, i: int):
        raise NotImplementedError

    def y(self, i: int = 0):
        raise NotImplementedError

    def same_input(self, i: int, j: int) -> bool:
        """Whether inputs i and j are one value (x * x)."""
        raise NotImplementedError

    # -- shaping adjoints to inputs --------------------------------------------------------
    def differentiable(self, i: int) -> bool:
        """Whether input i wants an adjoint: not bool, and depending on a source."""
        return self.needed[i] and self.in_types[i].dtype.is_differentiable

    def like(self, g, i: int):
        """g as the adjoint of input i: broadcasting undone, the input's dtype; None for
        a bool input."""
        if g is None or not self.differentiable(i):
            return None
        b, t = self.b, self.in_types[i]
        g = b.sum_to(g, t, lambda: self.x(i))
        return b.cast(g, t.dtype)

    def reshape_to_input(self, g, i: int = 0):
        """g (same number of elements as input i) in input i's shape."""
        t = self.in_types[i]
        if t.shape is not None and is_static(t.shape):
            return self.b.reshape(g, t.shape)
        return self.b.apply("ReshapeLike", g, self.x(i))

    def zeros_like_input(self, i: int, dtype=None):
        t = self.in_types[i]
        d = t.dtype if dtype is None else dt.as_dtype(dtype)
        if t.shape is not None and is_static(t.shape):
            return self.b.zeros(TensorType(d, t.shape))
        return self.b.apply("ZerosLike", self.x(i), dtype=None if dtype is None else d)

    def broadcast_to_input(self, g, i: int = 0):
        """g (broadcastable to input i) broadcast to input i's shape."""
        t = self.in_types[i]
        if t.shape is not None and is_static(t.shape):
            if self.b.type(g).shape == t.shape:
                return g
            return self.b.apply("BroadcastTo", g, shape=tuple(t.shape))
        return self.b.apply("BroadcastLike", g, self.x(i))


def restore_reduced_dims(b: GradBuilder, v, axis, keep_dims: bool, rank: Optional[int]):
    """The output of a reduction with its reduced dims back as size-1 dims (so it
    broadcasts against the input), or None when that needs the rank and it is unknown.
    A full reduction without keep_dims is a scalar and broadcasts as it is."""
    if keep_dims or axis is None or axis == ():
        return v
    if rank is None:
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for a in sorted(int(a) % rank for a in axes):
        v = b.apply("ExpandDims", v, axis=a)
    return v
