"""Gradients of the operators gradients are made of (grad_ops.py, sorting_grad.py and
the backward ops of conv, norm and nn), for a gradient of a gradient.

Most are linear in their adjoint input `g`, and their adjoint is the forward op they
undo: SumToLike <-> BroadcastLike, GatherGrad -> Gather, TileGrad -> Tile, ConcatGrad ->
Concat, ScatterAddAlongAxis -> GatherD. Their shape-only inputs (`like`, indices) get
none. The others (NO_SECOND_ORDER: the backward ops of convolution, pooling,
normalization and BatchDot, ReduceProdGrad, PadLike, SliceRows, BooleanMaskGrad,
ReshapeDynamic, IndexAddAt) declare no gradient: differentiating through one is the
build-time error naming it, never the silent zero NOT_DIFFERENTIABLE would give.
"""
from __future__ import annotations

from ..registry import get_op, set_grad
from ..types import is_static

__all__ = ["NO_SECOND_ORDER"]


def _first_only(rule):
    """A rule for an op whose only differentiable input is its first (`g`)."""
    def grad(b, n):
        rest = [None] * (len(n.in_types) - 1)
        if n.g is None or not n.differentiable(0):
            return [None] + rest
        return [rule(b, n)] + rest
    return grad


def _concat_grad(b, n):
    rest = [None] * (len(n.in_types) - 1)
    if not n.differentiable(0) or all(g is None for g in n.gs):
        return [None] + rest
    parts = []
    for k, g in enumerate(n.gs):
        if g is None:
            t = n.out_types[k]
            g = b.zeros(t) if t.shape is not None and is_static(t.shape) else \
                b.apply("ZerosLike", n.y(k))
        parts.append(g)
    return [b.apply("Concat", *parts, axis=n.attrs["axis"])] + rest


_RULES = {
    "SumToLike": _first_only(lambda b, n: n.broadcast_to_input(n.g, 0)),
    "BroadcastLike": _first_only(lambda b, n: n.like(n.g, 0)),
    "ReshapeLike": _first_only(lambda b, n: n.reshape_to_input(n.g, 0)),
    "GatherGrad": _first_only(lambda b, n: b.apply("Gather", n.g, n.x(1),
                                                   axis=n.attrs["axis"])),
    "TileGrad": _first_only(lambda b, n: b.apply("Tile", n.g,
                                                 multiples=n.attrs["multiples"])),
    "ScatterAddAlongAxis": _first_only(lambda b, n: b.apply("GatherD", n.g, n.x(1),
                                                            dim=n.attrs["axis"])),
    "ConcatGrad": _concat_grad,
}
for _name, _rule in _RULES.items():
    set_grad(_name, _rule)

# no rule written: a gradient reaching one is MissingGradientError at the user's line
NO_SECOND_ORDER = ("Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad",
                   "BatchNormGrad", "LayerNormGrad", "BatchDotGrad", "ReduceProdGrad",
                   "PadLike", "SliceRows", "BooleanMaskGrad", "ReshapeDynamic", "IndexAddAt")
for _name in NO_SECOND_ORDER:
    get_op(_name).grad = None
