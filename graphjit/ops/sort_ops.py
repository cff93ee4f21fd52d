"""Operators that order or pick elements, as functions with MindSpore 2.x names and
signatures: topk, sort, unique and gather_elements.

Indices are int32 as in MindSpore (unique's are int64 for int64 input); equal values
keep their input order, so the indices are the same in both modes.
"""
from __future__ import annotations

from ..common.tensor import TensorLike
from ._dispatch import apply, to_tensor

__all__ = ["topk", "sort", "unique", "gather_elements"]


def _int(v, what):
    if isinstance(v, TensorLike) or not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{what} must be a Python int known while the graph is built, got "
                        f"{v!r}")
    return v


def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, indices) of the k largest (smallest if not largest) elements along dim
    (the last one if None), largest first. An unsorted result comes sorted too."""
    return apply("TopK", to_tensor(input), k=_int(k, "topk's k"),
                 axis=-1 if dim is None else _int(dim, "topk's dim"), largest=bool(largest),
                 sorted=bool(sorted))


def sort(input_x, axis=-1, descending=False):
    """(values, indices): input_x sorted along axis, and where each value came from."""
    return apply("Sort", to_tensor(input_x), axis=_int(axis, "sort's axis"),
                 descending=bool(descending))


def unique(input):
    """(y, idx): the distinct elements of input (flattened) in order of first occurrence,
    and for each element of input the index of its value in y. y's length is known only
    when the program runs."""
    return apply("Unique", to_tensor(input))


def gather_elements(input, dim, index):
    """out[i][j][k] = input[index[i][j][k]][j][k] for dim 0 (likewise for other dims):
    the elements of input picked along dim by index, in index's shape."""
    return apply("GatherD", to_tensor(input), to_tensor(index),
                 dim=_int(dim, "gather_elements' dim"))
