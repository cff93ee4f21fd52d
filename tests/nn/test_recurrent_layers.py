"""nn.RNN, nn.GRU, nn.LSTM (layers, bidirectional, batch_first, seq_length) and their
cells, as MindSpore 2.x has them: against a numpy reference of the PyTorch/MindSpore
equations and weight layout, the same in PYNATIVE and GRAPH mode, and trained."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.api import compare_results

R = np.random.default_rng(4)
T, B, I, H = 5, 3, 4, 6
X = R.standard_normal((T, B, I)).astype(np.float32)
LENS = np.array([5, 2, 3], np.int32)


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _np_step(mode, x, h, c, p, sfx):
    gi = x @ p["weight_ih" + sfx].T + p.get("bias_ih" + sfx, 0)
    gh = h @ p["weight_hh" + sfx].T + p.get("bias_hh" + sfx, 0)
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, 1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        return _sig(o) * np.tanh(c), c
    if mode == "GRU":
        ir, iz, inn = np.split(gi, 3, 1)
        hr, hz, hn = np.split(gh, 3, 1)
        r, z = _sig(ir + hr), _sig(iz + hz)
        n = np.tanh(inn + r * hn)
        return (1 - z) * n + z * h, c
    return np.tanh(gi + gh), c


def _np_rnn(mode, net, x, lens=None):
    p = {k: v.asnumpy() for k, v in net.parameters_and_names()}
    layers, dirs = net.num_layers, net.num_directions
    xs = list(x)
    hs, cs = [], []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            h = np.zeros((x.shape[1], net.hidden_size), np.float32)
            c = h.copy()
            o = [None] * len(xs)
            order = range(len(xs) - 1, -1, -1) if d else range(len(xs))
            for t in order:
                nh, nc = _np_step(mode, xs[t], h, c, p, sfx)
                valid = np.ones((x.shape[1], 1), bool) if lens is None else (t < lens)[:, None]
                h, c = np.where(valid, nh, h), np.where(valid, nc, c)
                o[t] = np.where(valid, nh, 0)
            outs.append(o)
            hs.append(h)
            cs.append(c)
        xs = [np.concatenate(v, -1) for v in zip(*outs)] if dirs == 2 else outs[0]
    return np.stack(xs), np.stack(hs), np.stack(cs)


def _both(net, *args):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(*args)
    problem = compare_results(graph, eager)
    assert not problem, problem
    return eager


@pytest.mark.parametrize("cls, mode", [(nn.RNN, "RNN"), (nn.GRU, "GRU"), (nn.LSTM, "LSTM")])
@pytest.mark.parametrize("layers, bidir, with_lens", [(1, False, False), (2, True, False),
                                                       (1, True, True), (2, False, True)])
def test_layers_match_the_equations(cls, mode, layers, bidir, with_lens):
    ms.set_seed(2)
    net = cls(I, H, num_layers=layers, bidirectional=bidir)
    args = (ms.Tensor(X), None) + ((ms.Tensor(LENS),) if with_lens else ())
    out, state = _both(net, *args)
    want_out, want_h, want_c = _np_rnn(mode, net, X, LENS if with_lens else None)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-5)
    h = state[0] if mode == "LSTM" else state
    np.testing.assert_allclose(h.asnumpy(), want_h, rtol=1e-5, atol=1e-5)
    if mode == "LSTM":
        np.testing.assert_allclose(state[1].asnumpy(), want_c, rtol=1e-5, atol=1e-5)
    assert out.shape == (T, B, H * (2 if bidir else 1))
    assert h.shape == (layers * (2 if bidir else 1), B, H)


def test_batch_first_initial_state_and_parameter_names():
    ms.set_seed(3)
    net = nn.LSTM(I, H, batch_first=True, has_bias=False)
    assert [n for n, _ in net.parameters_and_names()] == ["weight_ih_l0", "weight_hh_l0"]
    h0 = ms.Tensor(R.standard_normal((1, B, H)).astype(np.float32))
    c0 = ms.Tensor(R.standard_normal((1, B, H)).astype(np.float32))
    xb = ms.Tensor(np.transpose(X, (1, 0, 2)).copy())
    out, (h, c) = _both(net, xb, (h0, c0))
    p = {k: v.asnumpy() for k, v in net.parameters_and_names()}
    hh, cc = h0.asnumpy()[0], c0.asnumpy()[0]
    for t in range(T):
        hh, cc = _np_step("LSTM", X[t], hh, cc, p, "_l0")
    np.testing.assert_allclose(out.asnumpy()[:, -1], hh, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c.asnumpy()[0], cc, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cls, mode", [(nn.RNNCell, "RNN"), (nn.GRUCell, "GRU"),
                                       (nn.LSTMCell, "LSTM")])
def test_cells_in_a_hand_written_loop_with_an_early_stop(cls, mode):
    ms.set_seed(5)
    cell = cls(I, H)

    class Loop(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cell = cell

        def construct(self, xs):
            h = ops.zeros((xs.shape[1], H), ms.float32)
            c = ops.zeros((xs.shape[1], H), ms.float32)
            t = 0
            while t < xs.shape[0]:
                if mode == "LSTM":
                    h, c = self.cell(xs[t], (h, c))
                else:
                    h = self.cell(xs[t], h)
                if ops.abs(h).mean() > 0.5:
                    break
                t += 1
            return h, t
    h, _ = _both(Loop(), ms.Tensor(X))
    assert h.shape == (B, H)


def test_an_lstm_classifier_trains_the_same_in_both_modes():
    class Classifier(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, I)
            self.lstm = nn.LSTM(I, H, batch_first=True, bidirectional=True)
            self.fc = nn.Dense(2 * H, 1)

        def construct(self, ids, lens):
            out, (h, _) = self.lstm(self.emb(ids), seq_length=lens)
            feat = ops.concat((h[-2], h[-1]), -1)
            return self.fc(feat).squeeze(-1)
    class WithLoss(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net, self.loss = net, nn.BCEWithLogitsLoss()

        def construct(self, ids, lens, y):
            return self.loss(self.net(ids, lens), y)
    ids = ms.Tensor(R.integers(0, 10, (B, T)).astype(np.int32))
    y = ms.Tensor(np.array([1.0, 0.0, 1.0], np.float32))
    lens = ms.Tensor(LENS)
    runs = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(6)
        net = Classifier()
        step = nn.TrainOneStepCell(WithLoss(net), nn.Adam(net.trainable_params(), 0.05))
        step.set_train()
        runs.append([float(step(ids, lens, y)) for _ in range(3)])
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-6)
    assert runs[0][-1] < runs[0][0]


def test_rnn_parameters_in_mindspore_order_and_tuples():
    """MindSpore's _RNNBase holds w_ih_list, w_hh_list, b_ih_list and b_hh_list
    (ParameterTuples): get_parameters() lists every weight_ih first, then weight_hh,
    bias_ih and bias_hh, with the names MindSpore gives them."""
    from graphjit import nn as _nn

    class Net(_nn.Cell):
        def __init__(self):
            super().__init__()
            self.encoder = _nn.LSTM(4, 3, num_layers=2, bidirectional=True)

    names = [p.name for p in Net().get_parameters()]
    want = [f"encoder.{k}_l{layer}{sfx}" for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
            for layer in range(2) for sfx in ("", "_reverse")]
    assert names == want
    gru = _nn.GRU(4, 3, has_bias=False)
    assert [p.name for p in gru.w_ih_list] == ["weight_ih_l0"] and len(gru.b_hh_list) == 0
    assert gru.w_hh_list[0] is gru.weight_hh_l0
