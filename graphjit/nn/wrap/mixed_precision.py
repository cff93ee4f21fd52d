"""MindSpore's automatic mixed precision (mindspore.amp.auto_mixed_precision and the
network build_train_network and Model(amp_level=...) train): which Cells compute in
float16, on top of Cell.to_float.

- O0: the network unchanged.
- O1: the Cells of AMP_WHITE_LIST (convolutions, Dense, the recurrent cells) compute in
  float16 (to_float), their outputs cast back to float32; the rest stays float32.
- O2: the whole network in float16 but the Cells of AMP_BLACK_LIST (BatchNorm,
  LayerNorm), which compute in float32 and give float16; the network's output float32.
- O3: the whole network in float16, its output float32.

The Cells that wrap others to cast their outputs take no name prefix (auto_prefix=False)
and are set in place of the Cell they wrap without renaming anything, so Parameter names
(and checkpoints) stay as they were.
"""
from __future__ import annotations

from ...ir import dtypes as mstype
from ..cell import Cell, cast_floats
from ..layer import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv1dTranspose, Conv2d,
                     Conv2dTranspose, Dense, GRUCell, LayerNorm, LSTMCell, RNNCell)

__all__ = ["AMP_WHITE_LIST", "AMP_BLACK_LIST", "auto_mixed_precision", "keep_batchnorm_fp32",
           "get_white_list", "get_black_list", "custom_mixed_precision", "LEVELS"]

LEVELS = ("O0", "O1", "O2", "O3")
AMP_WHITE_LIST = [Conv1d, Conv2d, Conv1dTranspose, Conv2dTranspose, Dense, LSTMCell, RNNCell,
                  GRUCell]
AMP_BLACK_LIST = [BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm]


class _OutputTo16(Cell):
    """A Cell whose floating outputs are cast to float16 (a black-listed Cell in an O2
    network)."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return cast_floats(self._backbone(*args, **kwargs), mstype.float16)


class _OutputTo32(Cell):
    """A Cell whose floating outputs are cast to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return cast_floats(self._backbone(*args, **kwargs), mstype.float32)


def _check_network(network):
    if not isinstance(network, Cell):
        raise TypeError("The network type should be Cell.")


def _replace(network, types, wrap, skip=lambda cell: False):
    """Put wrap(cell) in place of each sub-Cell of network (at any depth) that is one of
    `types`, without renaming its Parameters; the others are searched in turn."""
    for name, sub in list(network._cells.items()):
        if sub is network or sub is None:
            continue
        if isinstance(sub, tuple(types)) and not skip(sub):
            new = wrap(sub)
            network._cells[name] = new
            if name in network.__dict__:
                object.__setattr__(network, name, new)
        else:
            _replace(sub, types, wrap, skip)


def _user_to_float(cell):
    return cell.__dict__.get("_mixed_precision") is not None


def _check_dtype(dtype):
    if dtype is not mstype.float16:
        raise ValueError(f"auto_mixed_precision computes in float16 only here, got dtype "
                         f"{dtype}")


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network with MindSpore's mixed precision of amp_level (module docstring).

    Raises:
        TypeError: network is not a Cell.
        ValueError: amp_level is not one of O0, O1, O2, O3, auto; dtype is not float16.
    """
    _check_network(network)
    if amp_level not in LEVELS and amp_level != "auto":
        raise ValueError(f"The amp level {amp_level} is not supported")
    if amp_level in ("O0", "auto"):       # "auto" is O0 on graphjit's CPU backend
        return network
    _check_dtype(dtype)
    if amp_level == "O1":
        _replace(network, AMP_WHITE_LIST, lambda c: _OutputTo32(c.to_float(dtype)),
                 skip=_user_to_float)
        return network
    network.to_float(dtype)
    if amp_level == "O2":
        keep_batchnorm_fp32(network)
    return _OutputTo32(network)


def keep_batchnorm_fp32(network, black_list=None):
    """The Cells of the black list in network compute in float32 and give float16."""
    _replace(network, AMP_BLACK_LIST if black_list is None else black_list,
             lambda c: _OutputTo16(c.to_float(mstype.float32)))
    return network


def get_white_list():
    """A copy of the Cells O1 computes in float16."""
    return list(AMP_WHITE_LIST)


def get_black_list():
    """A copy of the Cells O2 keeps in float32."""
    return list(AMP_BLACK_LIST)


def _list_check(items, what):
    if not isinstance(items, list):
        raise TypeError(f"The type of {what} should be list, but got {type(items)}")
    for elem in items:
        if not isinstance(elem, type):
            raise TypeError(f"The element in {what} should be a class, but got {elem}")
        if not issubclass(elem, Cell):
            raise TypeError(f"The subclass of element in {what} should be one of 'Cell', "
                            f"but got {elem}")


def custom_mixed_precision(network, *, white_list=None, black_list=None):
    """O1 with white_list, or O2 with black_list, in place of the built-in lists.

    Raises:
        TypeError: network is not a Cell; a list that is not a list of Cell classes.
        ValueError: neither list, or both.
    """
    _check_network(network)
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must "
                         "be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be "
                         "provided at the same time, please provide one or the other.")
    if white_list is not None:
        _list_check(white_list, "white_list")
        _replace(network, white_list, lambda c: _OutputTo32(c.to_float(mstype.float16)),
                 skip=_user_to_float)
        return network
    _list_check(black_list, "black_list")
    network.to_float(mstype.float16)
    keep_batchnorm_fp32(network, black_list)
    return _OutputTo32(network)
