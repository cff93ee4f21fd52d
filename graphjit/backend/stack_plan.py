"""Stack in place in straight-line code: an unrolled RNN's rows written straight into
the buffer they are stacked in.

Unrolled, the RNN of backend.loop_plan reads (x @ w hoisted: xw, a new array)

    s0 = xw[0]; y0 = tanh(s0 + h @ u + b)
    s1 = xw[1]; y1 = tanh(s1 + y0 @ u + b)
    ...
    out = Stack(y0, y1, ...)

Each row xw[t] is read only by the fused kernel computing y_t, and xw only through
those rows, so y_t is written into xw[t] itself and the Stack is xw: no copy, no
new buffer (a y_t the program also returns is returned as a copy, so that its
results share no memory). The kernels are the same, on the same operands: the
same bits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List

import numpy as np

from ..ir.types import is_static
from .fusion import MIN_BLOCKED_BYTES
from .lowering import (EXTERN, FUSED, Kernel, Program, keep_no_reference, loaders,
                       producers, result_is_fresh)

__all__ = ["StackInPlace", "plan_stacks"]


@dataclass
class StackInPlace:
    """A Stack whose result is `source`, each input y_t written into `views[t]`."""
    node: object
    source: object
    values: List[object]
    views: List[object]


def _row(k: Kernel, i: int):
    """The array k indexes if k is `x[i]` (an Index of one int on axis 0), else None."""
    if k.kind != EXTERN or k.node.op != "Index":
        return None
    items = k.node.attrs.get("index")
    if not isinstance(items, tuple) or len(items) != 1 or \
            not isinstance(items[0], (int, np.integer)) or isinstance(items[0], bool) or \
            int(items[0]) != i:
        return None
    return k.node.inputs[0]


def plan_stacks(prog: Program) -> List[StackInPlace]:
    """The Stacks of a lowered program that can be made in place (module docstring)."""
    made, loading = producers(prog), loaders(prog)
    results = {id(prog.root(r)) for r in prog.graph.results}
    aliased = {id(prog.root(v)) for v in prog.aliases}
    out = []
    for sk in prog.kernels:
        if sk.kind != EXTERN or sk.node.op != "Stack":
            continue
        node = sk.node
        o = node.outputs[0]
        ys = [prog.root(v) for v in node.inputs]
        if (o.type.rank is None or int(node.attrs.get("axis", 0)) % o.type.rank != 0 or
                not o.type.shape or not is_static(o.type.shape) or
                len({id(y) for y in ys}) != len(ys)):
            continue
        views, source = [], None
        for t, y in enumerate(ys):
            fk = made.get(id(y))
            if (fk is None or fk.kind != FUSED or id(y) in aliased or
                    y.type.dtype is not o.type.dtype or
                    np.prod(o.type.shape[1:]) * o.type.dtype.np.itemsize >= MIN_BLOCKED_BYTES or
                    not keep_no_reference([k for k in loading.get(id(y), []) if k is not sk])):
                break
            view = None
            for v in fk.loads:
                rk = made.get(id(v))
                x = _row(rk, t) if rk is not None else None
                if x is not None and (source is None or x is source) and v.type == y.type \
                        and loading.get(id(v)) == [fk] and id(v) not in results \
                        and id(v) not in aliased and all(u in fk.nodes for u in v.users):
                    view, source = v, x
                    break
            if view is None:
                break
            views.append(view)
        else:
            xk = made.get(id(source))
            rows = {id(made[id(v)]) for v in views}
            if (xk is not None and result_is_fresh(xk, source) and source.type == o.type and
                    id(source) not in results and id(source) not in aliased and
                    {id(k) for k in loading.get(id(source), [])} == rows and
                    len(rows) == len(views)):
                out.append(StackInPlace(node, source, ys, views))
    return out
