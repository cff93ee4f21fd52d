"""MindSpore's `mindspore.nn.layer.rnns`: RNN, GRU and LSTM over whole sequences."""
from __future__ import annotations

from ... import ops
from ..._checkparam import _positive_int
from ...ir.dtypes import float32, int32, int64
from ..cell import Cell
from ...common.parameter import ParameterTuple
from .rnn_cells import _GATES, _affine, _make_rnn_params, _step

__all__ = ["RNN", "GRU", "LSTM"]


class _DynamicRNN(Cell):
    """The time loop of one direction of one layer, as MindSpore's _DynamicRNNBase runs it
    on a while loop. construct(gi, h, c, w_hh, b_hh, seq_length=None, reverse=False)
    iterates the input's projections gi (T, B, G), in the order the direction reads
    them, and returns (outputs (T, B, H), h, c). With seq_length, a step at or past a
    sequence's length keeps its state and outputs zeros; the reverse direction reads
    gi flipped, so its steps are the positions T - 1, T - 2, ...: it starts from the
    initial state at each sequence's last valid step, as MindSpore's ReverseSequence
    does. The loop is over a tensor, so graph mode builds one Loop whatever T is."""

    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def construct(self, gi, h, c, w_hh, b_hh, seq_length=None, reverse=False):
        outs = []
        if seq_length is None:
            for g_t in gi:
                h, c = _step(self.mode, g_t, h, c, w_hh, b_hh)
                outs.append(h)
        else:
            zero = ops.zeros_like(h)
            lengths = ops.expand_dims(seq_length, -1)
            t, step = (gi.shape[0] - 1, -1) if reverse else (0, 1)
            for g_t in gi:
                nh, nc = _step(self.mode, g_t, h, c, w_hh, b_hh)
                valid = t < lengths
                h = ops.where(valid, nh, h)
                if c is not None:
                    c = ops.where(valid, nc, c)
                outs.append(ops.where(valid, nh, zero))
                t += step
        return ops.stack(outs, 0), h, c


class _RNNBase(Cell):
    """Multi-layer, optionally bidirectional recurrent layer over (T, B, I) or, with
    batch_first, (B, T, I). construct(x, hx=None, seq_length=None): hx is
    (num_layers * num_directions, B, H) (a pair (h0, c0) for LSTM); seq_length (B,) gives
    each sequence's valid length: outputs past it are zeros and the final state is the
    one at the last valid step (the reverse direction reads each sequence backwards from
    its last valid step). Returns (output, h_n), or (output, (h_n, c_n)) for LSTM.
    Each direction of each layer projects all its inputs in one matmul, then runs its
    time loop in the sub-Cell `rnn` (a Loop in graph mode, whatever the length)."""
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
        self.rnn = _DynamicRNN(self._mode)
        self.suffixes = []
        lists = ([], [], [], [])
        for layer in range(num_layers):
            size = input_size if layer == 0 else hidden_size * self.num_directions
            for d in range(self.num_directions):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                for i, p in enumerate(_make_rnn_params(suffix, size, hidden_size, gates,
                                                       has_bias, dtype)):
                    lists[i].append(p)
                self.suffixes.append(suffix)
        # MindSpore's _RNNBase holds four ParameterTuples, so get_parameters(), the
        # optimizers and checkpoints list every weight_ih first, then weight_hh, bias_ih
        # and bias_hh; the per-layer names stay attributes (what _weights reads)
        for key, items in zip(("w_ih_list", "w_hh_list", "b_ih_list", "b_hh_list"), lists):
            setattr(self, key, ParameterTuple(items))
            for p in items:
                object.__setattr__(self, p.name, p)

    def _weights(self, suffix, dtype):
        """w_ih, w_hh, b_ih, b_hh (the biases None without has_bias), cast to the input's
        dtype as MindSpore does (a float16 input runs the recurrence in float16)."""
        names = ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if self.has_bias else ())
        ws = [getattr(self, n + suffix) for n in names]
        ws = [w if w.dtype == dtype else ops.cast(w, dtype) for w in ws]
        return tuple(ws) if self.has_bias else (ws[0], ws[1], None, None)

    def _check_inputs(self, x, h0, c0, seq_length):
        """MindSpore's checks: the states of the input's dtype, seq_length an int32 or
        int64 tensor of one length per sequence."""
        name = type(self).__name__
        for what, h in (("hx[0]", h0), ("hx[1]", c0)) if c0 is not None else (("hx", h0),):
            if h.dtype != x.dtype:
                raise TypeError(f"For '{name}', {what} must have the dtype of x ({x.dtype}), "
                                f"got {h.dtype}")
        if seq_length is None:
            return
        if seq_length.dtype not in (int32, int64):
            raise TypeError(f"For '{name}', seq_length must be an int32 or int64 tensor, got "
                            f"{seq_length.dtype}")
        rank, b = seq_length.ndim, x.shape[1]
        if isinstance(rank, int) and rank != 1 or rank == 1 and isinstance(
                b, int) and isinstance(seq_length.shape[0], int) and seq_length.shape[0] != b:
            raise ValueError(f"For '{name}', seq_length must have shape (batch_size,) = "
                             f"({b},), got {tuple(seq_length.shape)}")

    def _projections(self, x, suffix, reverse):
        """The input's projections x W_ih^T + b_ih of all time steps at once (T, B, G),
        in the order the direction reads them."""
        w_ih, _, b_ih, _ = self._weights(suffix, x.dtype)
        if reverse:
            x = ops.flip(x, (0,))
        n_steps, batch = x.shape[0], x.shape[1]
        gi = _affine(ops.reshape(x, (n_steps * batch, x.shape[2])), w_ih, b_ih)
        return ops.reshape(gi, (n_steps, batch, gi.shape[1]))

    def construct(self, x, hx=None, seq_length=None):
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        n_states = self.num_layers * self.num_directions
        lstm = self._mode == "LSTM"
        if hx is None:
            h0 = ops.zeros((n_states, x.shape[1], self.hidden_size), x.dtype)
            c0 = h0
        elif lstm:
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        self._check_inputs(x, h0, c0, seq_length)
        hs, cs = [], []
        k = 0
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                _, w_hh, _, b_hh = self._weights(self.suffixes[k], x.dtype)
                o, h, c = self.rnn(self._projections(x, self.suffixes[k], d == 1), h0[k],
                                   c0[k] if lstm else None, w_hh, b_hh, seq_length, d == 1)
                outs.append(ops.flip(o, (0,)) if d == 1 else o)
                hs.append(h)
                cs.append(c)
                k += 1
            x = ops.concat((outs[0], outs[1]), -1) if self.num_directions == 2 else outs[0]
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = ops.dropout(x, self.dropout)
        output = x
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
