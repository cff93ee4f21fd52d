"""Stacks kept as Python lists: a Loop output concatenated along axis 0 that only
other Loops read, one row per iteration (reversed first or not), is never built.

A gradient's forward Loop saves its residuals one row per iteration and the
backward Loop reads them back in reverse:

    %saved = Loop(...)          output %saved <- ExpandDims(%h, 0) concat axis=0
    %rev = Index(%saved) index=[::-1]
    Loop(..., %rev, ...)        input %rev -> %s slice axis=0; %s read as Squeeze(%s, 0)

Concatenating the rows copies every one of them into a new array (for large ones a
fresh mapping of memory, with a page fault per page, every call), only for the
backward Loop to take them apart again. When every reader of such an output is a
Loop slicing it along axis 0 and reading the slice only through Squeeze (a row
`x[i]`), or an Index reversing it (`x[::-1]`) whose own readers are such, the
output is the list of the rows instead: `x[i]`, `x[::-1]` and `len(x)` mean the
same on the list as on the array, and no kernel writes into a row (a Loop's
outputs and a Squeeze's views are never overwritten in place; lowering's memory
plan). The values, and so the bits, are those of the concatenated array.
"""
from __future__ import annotations

from typing import Set

from .loop import _only_squeezed
from .lowering import CONTROL, Program

__all__ = ["list_stacks", "REVERSE"]

REVERSE = (("slice", None, None, -1),)


def list_stacks(prog: Program) -> Set[int]:
    """The ids of the values (in prog and its bodies) kept as lists of rows: Loop
    outputs concatenated along axis 0 from rows of one element along it, and their
    reversals, whose readers all take rows."""
    out: Set[int] = set()
    for k in prog.walk():
        if k.kind != CONTROL or k.node.op != "Loop":
            continue
        node = k.node
        body = node.attrs["body"]
        for (ri, axis), o in zip(node.attrs["output_map"], node.outputs):
            r = body.results[ri].type
            if axis is None or r.rank is None or r.rank == 0 or axis % r.rank != 0 or \
                    r.shape[0] != 1:
                continue
            found: Set[int] = set()
            if _rows_only(o, found):
                out |= found
    return out


def _rows_only(v, found: Set[int]) -> bool:
    """Whether every reader of v takes rows of it (see the module docstring); the ids
    of v and of the reversals read go into found."""
    if v.type.rank is None or v.type.rank == 0 or not v.users or \
            any(r is v for r in v.graph.results):
        return False
    found.add(id(v))
    for u in v.users:
        if u.op == "Index":
            if u.attrs.get("index") != REVERSE or len(u.outputs) != 1 or \
                    not _rows_only(u.outputs[0], found):
                return False
        elif u.op == "Loop":
            if not _sliced_rows(u, v):
                return False
        else:
            return False
    return True


def _sliced_rows(loop, v) -> bool:
    """Whether the Loop reads v only as a sliced input along axis 0 whose slices its
    body reads only through Squeeze on that axis."""
    body = loop.attrs["body"]
    positions = [k for k, x in enumerate(loop.inputs) if x is v]
    if any(k < 2 for k in positions):
        return False
    entries = [(bp, axis) for li, bp, axis in loop.attrs["input_map"] if li in positions]
    if not entries:
        return False
    rank = v.type.rank
    return all(axis is not None and axis % rank == 0 and
               _only_squeezed(body.params[bp], 0, body) for bp, axis in entries)
