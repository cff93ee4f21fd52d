"""MindSpore's `mindspore.nn.layer.rnn_cells`: RNNCell, GRUCell and LSTMCell, and the
gate arithmetic the multi-step layers (rnns.py) share."""
from __future__ import annotations

import math

from ... import ops
from ...common import initializer as init
from ..._checkparam import _positive_int
from ...ir.dtypes import float32
from ..cell import Cell
from ...common.parameter import Parameter

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]


# -- recurrent layers ------------------------------------------------------------------------
# MindSpore's (and PyTorch's) layout: weight_ih (gates * hidden, input), weight_hh
# (gates * hidden, hidden), bias_ih and bias_hh (gates * hidden,), all drawn from
# U(-1/sqrt(hidden), 1/sqrt(hidden)); gate order (i, f, g, o) for LSTM, (r, z, n) for GRU.
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def _make_rnn_params(suffix, input_size, hidden_size, gates, has_bias, dtype):
    """The Parameters weight_ih, weight_hh (and bias_ih, bias_hh) named with suffix."""
    u = init.Uniform(1.0 / math.sqrt(hidden_size))
    shapes = [("weight_ih", (gates * hidden_size, input_size)),
              ("weight_hh", (gates * hidden_size, hidden_size))]
    if has_bias:
        shapes += [("bias_ih", (gates * hidden_size,)), ("bias_hh", (gates * hidden_size,))]
    return [Parameter(init.initializer(u, shape, dtype), name=n + suffix) for n, shape in shapes]


def _rnn_params(cell, suffix, input_size, hidden_size, gates, has_bias, dtype):
    for p in _make_rnn_params(suffix, input_size, hidden_size, gates, has_bias, dtype):
        setattr(cell, p.name, p)


def _affine(x, w, b):
    y = ops.matmul(x, ops.transpose(w, (1, 0)))
    return y if b is None else y + b


def _step(mode, gi, h, c, w_hh, b_hh):
    """One time step: (h, c) from the input's projection gi = x W_ih^T + b_ih (B, G) and
    the state h (B, H) (c for LSTM only)."""
    gh = _affine(h, w_hh, b_hh)
    if mode == "LSTM":
        g = gi + gh
        i, f, u, o = ops.chunk(g, 4, 1)
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(u)
        return ops.sigmoid(o) * ops.tanh(c), c
    if mode == "GRU":
        i_r, i_z, i_n = ops.chunk(gi, 3, 1)
        h_r, h_z, h_n = ops.chunk(gh, 3, 1)
        r = ops.sigmoid(i_r + h_r)
        z = ops.sigmoid(i_z + h_z)
        n = ops.tanh(i_n + r * h_n)
        return n + z * (h - n), c
    pre = gi + gh
    return (ops.tanh(pre) if mode == "RNN_TANH" else ops.relu(pre)), c


class _RNNCellBase(Cell):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__()
        name = type(self).__name__
        self.input_size = _positive_int(input_size, "input_size", name)
        self.hidden_size = _positive_int(hidden_size, "hidden_size", name)
        self.has_bias = bool(has_bias)
        _rnn_params(self, "", input_size, hidden_size, _GATES[self._mode], has_bias, dtype)

    def _biases(self):
        if self.has_bias:
            return self.bias_ih, self.bias_hh
        return None, None

    def _zeros(self, x):
        return ops.zeros((x.shape[0], self.hidden_size), x.dtype)


class RNNCell(_RNNCellBase):
    """h' = tanh (or relu) of x W_ih^T + b_ih + h W_hh^T + b_hh; construct(x, hx=None)."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got "
                             f"{nonlinearity!r}")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        h = self._zeros(x) if hx is None else hx
        b_ih, b_hh = self._biases()
        out, _ = _step(self._mode, _affine(x, self.weight_ih, b_ih), h, None, self.weight_hh, b_hh)
        return out


class GRUCell(_RNNCellBase):
    """The GRU step (gates r, z, n); construct(x, hx=None) returns h'."""
    _mode = "GRU"

    def construct(self, x, hx=None):
        h = self._zeros(x) if hx is None else hx
        b_ih, b_hh = self._biases()
        out, _ = _step("GRU", _affine(x, self.weight_ih, b_ih), h, None, self.weight_hh, b_hh)
        return out


class LSTMCell(_RNNCellBase):
    """The LSTM step (gates i, f, g, o); construct(x, hx=None) with hx = (h, c) returns
    (h', c')."""
    _mode = "LSTM"

    def construct(self, x, hx=None):
        if hx is None:
            h, c = self._zeros(x), self._zeros(x)
        else:
            h, c = hx
        b_ih, b_hh = self._biases()
        return _step("LSTM", _affine(x, self.weight_ih, b_ih), h, c, self.weight_hh, b_hh)
