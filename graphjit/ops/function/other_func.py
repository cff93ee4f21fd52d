"""MindSpore's `mindspore.ops.function.other_func`: depend."""
from __future__ import annotations


__all__ = ["depend"]


def depend(value, expr):
    """`value`, after `expr` (graphs run in program order, so nothing to do)."""
    return value
