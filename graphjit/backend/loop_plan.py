"""Buffers a Loop's body writes into instead of allocating, planned before its driver
is emitted (graphjit.backend.loop).

Two kinds, both leaving every value's bits as they were (the same kernels run on the
same operands; only where results are stored changes):

- **A stacked output in its input's buffer.** For the RNN

      outs = []
      for t in range(T):
          h = tanh(x[t] @ w + h @ u + b)      # x @ w hoisted out of the loop: xw
          outs.append(h)
      return stack(outs)

  the Loop slices xw (a new array nothing else holds, dying at the Loop) and
  concatenates ExpandDims(h, 0), of xw's shape and dtype. The fused kernel computing
  h is the only reader of xw[t], so it writes h into xw[t] itself; after the loop,
  xw is the stacked output (its first i rows if the loop stopped early). No
  per-step list, no final concatenation, no new buffer. An output giving the last h
  too is a copy of it (so that the two outputs share no memory).
- **One buffer for all iterations.** A MatMul of two float matrices, or a small
  fused kernel, in the body whose result dies within the iteration and only
  kernels that keep no reference to it read (a fused kernel, a reduction, a
  product), writes into a buffer allocated once before the loop
  (`np.dot(a, b, buf)`, `np.subtract(x, y, buf)`); no kernel takes that buffer
  over as its own. For Newton's `abs(xn - x).max()`:

      buf = np.empty((1024,), f64)
      while go:
          ...
          _subtract(v16, p8, buf)
          _absolute(buf, buf)
          v18 = _maximum_reduce(buf, None, None, None, False)

- **Two buffers, alternating, for a carried value.** A small fused kernel's result
  carried to the next iteration by a back edge, that only kernels keeping no
  reference read (there and as the parameter it becomes), is written into
  whichever of two buffers does not hold the parameter's value: Newton's
  `xn = 0.5 * (x + a / x)` is

      if p is A: xn = B
      else: xn = A
      _divide(a, p, xn); _add(p, xn, xn); _multiply(0.5, xn, xn)
      ...
      p = xn

  The value two iterations back, in the buffer written, is dead by then.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

from ..ir.types import is_static
from .fusion import MIN_BLOCKED_BYTES
from .lowering import (CONTROL, EXTERN, FUSED, Kernel, Program, keep_no_reference, loaders,
                       producers)

__all__ = ["Stacked", "LoopPlan", "plan_loop"]


@dataclass
class Stacked:
    """A concatenated output written in place into a sliced input's buffer.

    Attributes:
        output: the Loop output's index (and its port in output_map).
        source: the Loop input position of the sliced input whose buffer it takes.
        value: the body value stacked (the input of the ExpandDims the body returns).
        view: the body value that is the slice (Squeeze output), `x[i]`.
        expand: the ExpandDims node, not run (its result is only stacked).
    """
    output: int
    source: int
    value: object
    view: object
    expand: object


@dataclass
class LoopPlan:
    stacked: List[Stacked] = field(default_factory=list)
    buffers: List[object] = field(default_factory=list)   # values into one buffer each
    # (value, the body parameter it is carried to): values into two buffers in turn
    alternating: List[Tuple[object, object]] = field(default_factory=list)


def _axis(axis, rank) -> Optional[int]:
    if axis is None or rank is None:
        return None
    return int(axis) % rank if -rank <= int(axis) < rank else None


def _static(t) -> bool:
    return t.shape is not None and len(t.shape) >= 1 and is_static(t.shape)


def _stacked(kernel: Kernel, body: Program, ins_names, owned) -> List[Stacked]:
    node = kernel.node
    a = node.attrs
    g = body.graph
    results = g.results
    made, loading = producers(body), loaders(body)
    sliced = {}
    for li, bp, axis in a["input_map"]:
        if axis is None:
            continue
        x = node.inputs[li]
        if _axis(axis, x.type.rank) != 0 or not _static(x.type):
            continue
        if ins_names.count(ins_names[li]) != 1:
            continue                    # the Loop reads it through another input too
        p = g.params[bp]
        users = list(p.users)
        if any(r is p for r in results) or len(users) != 1 or users[0].op != "Squeeze":
            continue
        sliced[li] = (x, users[0].outputs[0])
    if not sliced:
        return []
    out, used = [], set()
    for k, ((ri, axis), o) in enumerate(zip(a["output_map"], node.outputs)):
        if axis is None or _axis(axis, o.type.rank) != 0:
            continue
        r = results[ri]
        e = r.producer
        if (e is None or e.op != "ExpandDims" or r.users or e.inputs[0].type.rank is None or
                sum(1 for x in results if x is r) != 1 or
                sum(1 for r2, _ in a["output_map"] if r2 == ri) != 1 or
                int(e.attrs["axis"]) % (e.inputs[0].type.rank + 1) != 0):
            continue
        y = body.root(e.inputs[0])
        fk = made.get(id(y))
        if fk is None or fk.kind != FUSED or not _static(y.type) or \
                np.prod(y.type.shape) * y.type.dtype.np.itemsize >= MIN_BLOCKED_BYTES:
            continue
        for li, (x, view) in sliced.items():
            if li in used or ins_names[li] not in owned or x.type != o.type:
                continue
            if view.type != y.type or body.is_alias(view) or \
                    any(v is view for v in results) or \
                    any(lk is not fk for lk in loading.get(id(view), [])) or \
                    any(u not in fk.nodes for u in view.users):
                continue
            used.add(li)
            out.append(Stacked(k, li, y, view, e))
            break
    return out


def _buffers(body: Program, taken) -> List[object]:
    """Values of the body that may live in one buffer for every iteration: a MatMul
    of two float matrices or a (small) fused kernel's result, of a static shape,
    that dies within the iteration and that only kernels keeping no reference to it
    read (a fused kernel, a reduction, a product). `taken`: ids of values the plan
    places elsewhere."""
    results = {id(body.root(r)) for r in body.graph.results}
    aliased = {id(body.root(v)) for v in body.aliases}
    loading = loaders(body)
    out = []
    for k in body.kernels:
        if k.kind == EXTERN and k.node.op == "MatMul":
            m = k.stores[0]
            a, b = (v.type for v in k.node.inputs)
            if (a.rank != 2 or b.rank != 2 or
                    m.type.dtype.np not in (np.float32, np.float64) or
                    a.dtype is not m.type.dtype or b.dtype is not m.type.dtype):
                continue
        elif k.kind == FUSED:
            m = k.stores[0]
            if not _static(m.type) or \
                    np.prod(m.type.shape) * m.type.dtype.np.itemsize >= MIN_BLOCKED_BYTES:
                continue
        else:
            continue
        if not _static(m.type) or id(m) in results or id(m) in aliased or id(m) in taken:
            continue
        readers = loading.get(id(m), [])
        if not readers or not keep_no_reference(readers):
            continue
        out.append(m)
    return out


def _alternating(kernel: Kernel, body: Program, taken) -> List[Tuple[object, object]]:
    """Carried values that may alternate between two buffers (module docstring)."""
    a = kernel.node.attrs
    g = body.graph
    results = [body.root(r) for r in g.results]
    aliased = {id(body.root(v)) for v in body.aliases}
    loading, made = loaders(body), producers(body)
    concatenated = {ri for ri, axis in a["output_map"] if axis is not None}
    out = []
    for ri, bp in a["back_edges"]:
        v, p = results[ri], g.params[bp]
        k = made.get(id(v))
        if (k is None or k.kind != FUSED or id(v) in taken or not _static(v.type) or
                np.prod(v.type.shape) * v.type.dtype.np.itemsize >= MIN_BLOCKED_BYTES or
                p.type != v.type or ri in concatenated or
                sum(1 for r in results if r is v) != 1 or any(r is p for r in results) or
                id(v) in aliased or id(p) in aliased or
                sum(1 for _, b in a["back_edges"] if b == bp) != 1):
            continue
        if not keep_no_reference(loading.get(id(v), [])) or \
                not keep_no_reference(loading.get(id(p), [])):
            continue
        out.append((v, p))
    return out


def plan_loop(kernel: Kernel, ins_names, owned) -> LoopPlan:
    """The buffers the Loop kernel's body writes into (see the module docstring).
    `ins_names` are the variables holding the Loop's inputs, by position; `owned`,
    those of its reusable loads (new arrays nothing else holds, dying at it). Kernels
    of the body that could have taken a planned buffer as their own lose it from
    their reusable loads."""
    assert kernel.kind == CONTROL and kernel.node.op == "Loop"
    body = kernel.bodies["body"]
    stacked = _stacked(kernel, body, list(ins_names), set(owned))
    taken = {id(st.value) for st in stacked}
    plan = LoopPlan(stacked, _buffers(body, taken), _alternating(kernel, body, taken))
    for m in plan.buffers + [v for v, _ in plan.alternating]:
        for k in body.kernels:
            if any(v is m for v in k.reusable):
                k.reusable = tuple(v for v in k.reusable if v is not m)
    return plan
