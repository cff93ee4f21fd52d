"""Argument checks shared by the layers (MindSpore's `mindspore._checkparam`):
positive ints, data formats and input ranks."""
from __future__ import annotations

from .ops._dispatch import to_tensor

__all__ = ["check_rank"]


def _positive_int(v, what, layer):
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise TypeError(f"{layer}: {what} must be a positive int, got {v!r}")
    return v


def _check_format(data_format, layer):
    if data_format != "NCHW":
        raise ValueError(f"{layer}: only data_format='NCHW' is supported, got {data_format!r}")


def check_rank(x, ranks, layer):
    """Refuse an input whose rank is not one of `ranks` (an unknown rank passes)."""
    r = to_tensor(x).type.rank
    if r is not None and r not in ranks:
        want = " or ".join(str(n) for n in ranks)
        raise ValueError(f"{layer} expects an input of rank {want}, got {to_tensor(x).type}")
