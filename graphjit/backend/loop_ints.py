"""Loop counters as Python ints: `it = it + 1` and `while it < n` without numpy scalars.

The front-end gives a Python int counter an int64 value, checked not to leave int64
(CheckIntOverflow: the graph stands for a Python int, which grows). In a Loop whose
back-edged int64 scalar is read only by `it + c` / `it - c` (with that check) and by
comparisons with int64 constants whose results only decide an If or the Loop's
condition, the counter is a Python int: the same integers (an int64 value that the
check keeps in range is exact), the same truth of every comparison, and a third of
the time per step (`it + 1` on int64 scalars 45 ns, Python ints 5 ns). For Newton's
`it = it + 1` / `it < 100`:

    p = int(p0)
    while go:
        ...
        r = p + 1
        q = r if -9223372036854775808 <= r <= 9223372036854775807 else _overflow(...)
        b = q < 100                 # a Python bool, tested by the If
        ...
        p = q

Where the result would leave int64, the node's own kernel runs on the int64 values
and raises eager mode's OverflowError.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List

import numpy as np

from .lowering import CONTROL, EXTERN, FUSED, Kernel, Program, loaders, producers

__all__ = ["Counter", "plan_counters", "counter_line", "overflow"]

_I64 = np.dtype(np.int64)
_LO, _HI = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
_ARITH = {"Add": "+", "Sub": "-"}
_COMPARE = {"Less": "<", "LessEqual": "<=", "Greater": ">", "GreaterEqual": ">=",
            "Equal": "==", "NotEqual": "!="}


@dataclass
class Counter:
    """A back-edged int64 scalar run as a Python int.

    Attributes:
        param: the body parameter.
        nodes: the nodes computed on Python ints, as (node, kind, op, constant,
            position of the counter among its inputs); kind is "arith" (the step),
            "check" (its CheckIntOverflow) or "compare".
    """
    param: object
    nodes: List[tuple]


def overflow(kernel, r: int, a: int, b: int):
    """Run a CheckIntOverflow kernel on the int64 values of a Python-int step that
    left int64 (it raises eager mode's OverflowError)."""
    wrapped = np.int64((r - _LO) % (1 << 64) + _LO)
    return kernel(wrapped, np.int64(a), np.int64(b))


def _int_scalar(t) -> bool:
    return t.shape == () and t.dtype.np == _I64


def _const_int(v):
    p = v.producer
    if p is None or p.op != "Const" or not _int_scalar(v.type):
        return None
    return int(p.attrs["value"])


def plan_counters(kernel: Kernel, body: Program) -> List[Counter]:
    """The counters of a Loop kernel's body that may be Python ints (module docstring)."""
    a = kernel.node.attrs
    g = body.graph
    results = [body.root(r) for r in g.results]
    cond = results[a["condition_result"]]
    outputs = {ri for ri, _ in a["output_map"]}
    aliased = {id(body.root(v)) for v in body.aliases}
    loading, made = loaders(body), producers(body)
    sliced = {bp for _, bp, axis in a["input_map"] if axis is not None}
    out = []
    for ri, bp in a["back_edges"]:
        p, q = g.params[bp], results[ri]
        if (bp in sliced or bp == a["current_iteration"] or not _int_scalar(p.type) or
                not _int_scalar(q.type) or ri in outputs or id(p) in aliased or
                id(q) in aliased or sum(1 for r in results if r is q) != 1 or
                any(r is p for r in results) or
                sum(1 for _, b in a["back_edges"] if b == bp) != 1):
            continue
        ck = made.get(id(q))
        if ck is None or ck.kind != EXTERN or ck.node.op != "CheckIntOverflow":
            continue
        r, x, y = ck.node.inputs
        op = ck.node.attrs["binary"]
        c = _const_int(y)
        fk = made.get(id(r))
        if (op not in _ARITH or x is not p or c is None or fk is None or
                fk.kind != FUSED or len(fk.nodes) != 1 or fk.node.op != op or
                tuple(fk.node.inputs) != (x, y) or loading.get(id(r)) != [ck] or
                id(r) in aliased or any(v is r for v in results)):
            continue
        nodes = [(fk.node, "arith", op, c, 0), (ck.node, "check", op, c, 1)]
        ok = True
        for v in (p, q):
            for k in loading.get(id(v), []):
                if k is fk or k is ck:
                    continue
                n = k.node
                if k.kind != FUSED or len(k.nodes) != 1 or n.op not in _COMPARE:
                    ok = False
                    break
                i = 0 if n.inputs[0] is v else 1
                other = _const_int(n.inputs[1 - i])
                b = n.outputs[0]
                b_readers = loading.get(id(b), [])
                if (other is None or n.inputs[i] is not v or id(b) in aliased or
                        any(r is b for r in results if r is not cond) or
                        sum(1 for r in results if r is b) > (1 if b is cond else 0) or
                        not all(rk.kind == CONTROL and rk.node.op == "If" and
                                rk.node.inputs[0] is b and
                                all(u is not b for u in rk.node.inputs[1:])
                                for rk in b_readers)):
                    ok = False
                    break
                nodes.append((n, "compare", n.op, other, i))
            if not ok:
                break
        if ok:
            out.append(Counter(p, nodes))
    return out


def counter_line(em, node, kind: str, op: str, c: int, i: int) -> str:
    """The Python line computing one node of a counter (names from the Emitter)."""
    ins = [em.name(v) for v in node.inputs]
    out = em.name(node.outputs[0])
    if kind == "arith":
        return f"{out} = {ins[0]} {_ARITH[op]} {c}"
    if kind == "check":
        from .kernels import node_kernel
        k = em.glob(node_kernel(node), "k")
        return (f"{out} = {ins[0]} if {_LO} <= {ins[0]} <= {_HI} else "
                f"{em.glob(overflow, '_overflow')}({k}, {ins[0]}, {ins[1]}, {c})")
    v = ins[i]
    return f"{out} = {v} {_COMPARE[op]} {c}" if i == 0 else f"{out} = {c} {_COMPARE[op]} {v}"
