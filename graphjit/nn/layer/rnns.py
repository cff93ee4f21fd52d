"""MindSpore's `mindspore.nn.layer.rnns`: RNN, GRU and LSTM over whole sequences."""
from __future__ import annotations

from ... import ops
from ..._checkparam import _positive_int
from ...ir.dtypes import float32
from ..cell import Cell
from .rnn_cells import _GATES, _rnn_params, _step

__all__ = ["RNN", "GRU", "LSTM"]


class _RNNBase(Cell):
    """Multi-layer, optionally bidirectional recurrent layer over (T, B, I) or, with
    batch_first, (B, T, I). construct(x, hx=None, seq_length=None): hx is
    (num_layers * num_directions, B, H) (a pair (h0, c0) for LSTM); seq_length (B,) gives
    each sequence's valid length: outputs past it are zeros and the final state is the
    one at the last valid step (the reverse direction reads each sequence backwards from
    its last valid step). Returns (output, h_n), or (output, (h_n, c_n)) for LSTM."""
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=float32):
        super().__init__()
        name = type(self).__name__
        _positive_int(input_size, "input_size", name)
        _positive_int(hidden_size, "hidden_size", name)
        _positive_int(num_layers, "num_layers", name)
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"{name}: dropout must be in [0, 1), got {dropout!r}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first = bool(has_bias), bool(batch_first)
        self.bidirectional = bool(bidirectional)
        self.num_directions = 2 if bidirectional else 1
        self.dropout = float(dropout)
        gates = _GATES[self._mode]
        self.suffixes = []
        for layer in range(num_layers):
            size = input_size if layer == 0 else hidden_size * self.num_directions
            for d in range(self.num_directions):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                _rnn_params(self, suffix, size, hidden_size, gates, has_bias, dtype)
                self.suffixes.append(suffix)

    def _weights(self, suffix):
        b_ih = getattr(self, "bias_ih" + suffix) if self.has_bias else None
        b_hh = getattr(self, "bias_hh" + suffix) if self.has_bias else None
        return getattr(self, "weight_ih" + suffix), getattr(self, "weight_hh" + suffix), \
            b_ih, b_hh

    def _direction(self, xs, h, c, suffix, masks, reverse):
        """Run one direction over the time steps xs (a list of (B, I)); masks (a list of
        (B, 1) bools, or None) hold each step's validity."""
        w_ih, w_hh, b_ih, b_hh = self._weights(suffix)
        steps = list(range(len(xs)))
        if reverse:
            steps = steps[::-1]
        outs = [None] * len(xs)
        for t in steps:
            nh, nc = _step(self._mode, xs[t], h, c, w_ih, w_hh, b_ih, b_hh)
            if masks is None:
                h, c = nh, nc
                outs[t] = nh
            else:
                h = ops.where(masks[t], nh, h)
                if c is not None:
                    c = ops.where(masks[t], nc, c)
                outs[t] = ops.where(masks[t], nh, ops.zeros_like(nh))
        return outs, h, c

    def construct(self, x, hx=None, seq_length=None):
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        n_steps = x.shape[0]
        batch = x.shape[1]
        n_states = self.num_layers * self.num_directions
        lstm = self._mode == "LSTM"
        if hx is None:
            h0 = ops.zeros((n_states, batch, self.hidden_size), x.dtype)
            c0 = h0
        elif lstm:
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        masks = None
        if seq_length is not None:
            masks = [ops.expand_dims(ops.less(t, seq_length), -1) for t in range(n_steps)]
        xs = [x[t] for t in range(n_steps)]
        hs, cs = [], []
        k = 0
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                o, h, c = self._direction(xs, h0[k], c0[k] if lstm else None,
                                          self.suffixes[k], masks, d == 1)
                outs.append(o)
                hs.append(h)
                cs.append(c)
                k += 1
            if self.num_directions == 2:
                xs = [ops.concat((a, b), -1) for a, b in zip(outs[0], outs[1])]
            else:
                xs = outs[0]
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                xs = [ops.dropout(v, self.dropout) for v in xs]
        output = ops.stack(xs, 0)
        if self.batch_first:
            output = ops.transpose(output, (1, 0, 2))
        h_n = ops.stack(hs, 0)
        if lstm:
            return output, (h_n, ops.stack(cs, 0))
        return output, h_n


class RNN(_RNNBase):
    """The Elman RNN layer (nonlinearity 'tanh' or 'relu'); see _RNNBase."""

    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got "
                             f"{nonlinearity!r}")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(*args, **kwargs)


class GRU(_RNNBase):
    """The GRU layer; see _RNNBase."""
    _mode = "GRU"


class LSTM(_RNNBase):
    """The LSTM layer; see _RNNBase."""
    _mode = "LSTM"
