"""`x in seq` and `seq.count(x)` over Python lists and tuples that hold (or are asked
about) tensors, as Python does it: identity first, then `==`, whose truth must be
decidable (a comparison giving several elements is not: ValueError, as eager mode);
a tensor and a value that is no number are simply unequal.

    t in [u, "a"]        t is u, or bool(t == u); "a" is skipped
    [1, t, u].count(t)   1 for t itself, plus (t == 1) and (t == u) where they hold

A truth that depends on tensor values is a bool graph value; the result is then a
bool (or int) graph value standing for the Python one.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..common.tensor import Tensor
from .values import DynamicList, GraphTensor

__all__ = ["contains", "count", "involves_tensors"]

_NUMBERS = (bool, int, float, np.bool_, np.number)
_TENSORS = (GraphTensor, Tensor)


def involves_tensors(seq, x) -> bool:
    return isinstance(x, _TENSORS) or any(isinstance(v, _TENSORS) for v in seq)


def _hits(seq, x, truth: Callable):
    """The truth (True, False or a bool graph value) of `item == x` for each item, as
    list.__contains__ decides it; stops after a certain hit."""
    for item in seq:
        if item is x:
            yield True
            return
        if isinstance(x, _TENSORS) or isinstance(item, _TENSORS):
            other = item if isinstance(x, _TENSORS) else x
            if not isinstance(other, _TENSORS + _NUMBERS):
                continue
        hit = truth(item == x)
        yield hit
        if hit is True:
            return


def contains(container, x, truth: Callable):
    """`x in container` where a graph value or a tensor is involved."""
    if isinstance(container, (GraphTensor, DynamicList)):
        if isinstance(container, DynamicList):
            container = container.stacked(0)
        return ops.any(ops.equal(container, x))
    found = None
    for hit in _hits(container, x, truth):
        if hit is True:
            return True
        if hit is not False:
            found = hit if found is None else ops.logical_or(found, hit)
    if found is None:
        return False
    found.weak = True
    return found


def count(seq, x, truth: Callable):
    """seq.count(x): every item is compared (a certain hit does not stop it)."""
    total = 0
    for item in seq:
        for hit in _hits([item], x, truth):
            if hit is True:
                total = total + 1
            elif hit is not False:
                total = total + ops.cast(hit, dt.int64)
    if isinstance(total, GraphTensor):
        total.weak = True
    return total
