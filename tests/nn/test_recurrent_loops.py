"""nn.RNN, nn.GRU and nn.LSTM run their time loop as one Loop in graph mode (as
MindSpore runs it on a while loop): the graph does not grow with the sequence length,
seq_length masks inside the loop as MindSpore 2.x does (the reverse direction reads
each sequence from its last valid step, MindSpore's ReverseSequence), eager and graph
mode give the same bits, and gradients flow through the Loop."""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.cache import cache_of

# the autodiff tests' helpers, imported as CI's plain pytest finds modules (no tests package)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "autodiff"))
from gradcheck import assert_grads_agree  # noqa: E402

R = np.random.default_rng(21)
LAYERS = [(nn.RNN, "RNN"), (nn.GRU, "GRU"), (nn.LSTM, "LSTM")]


# -- a numpy reference written as MindSpore's rnns.py computes ---------------------------------
def _sig(v):
    return 1 / (1 + np.exp(-v))


def _cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
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
    return (np.tanh(gi + gh) if mode == "RNN" else np.maximum(gi + gh, 0)), c


def _reverse_sequence(x, lens):
    """MindSpore's ReverseSequence(seq_dim=0, batch_dim=1): each sequence's first
    lens[b] steps reversed, the padding left in place."""
    out = x.copy()
    for b, n in enumerate(lens):
        out[:n, b] = x[:n, b][::-1]
    return out


def _dynamic_rnn(mode, x, h, c, lens, weights):
    """_DynamicRNNBase.variable_recurrent: a step at or past a sequence's length keeps
    the state and outputs zeros."""
    outs = []
    for t in range(x.shape[0]):
        nh, nc = _cell(mode, x[t], h, c, *weights)
        valid = (lens > t)[:, None]
        h, c = np.where(valid, nh, h), np.where(valid, nc, c)
        outs.append(np.where(valid, nh, 0))
    return np.stack(outs), h, c


def ms_reference(mode, net, x, h0, c0, lens):
    """_RNNBase._stacked_(bi_)dynamic_rnn of MindSpore 2.x over time-major x."""
    p = {k: v.asnumpy().astype(np.float64) for k, v in net.parameters_and_names()}
    dirs = net.num_directions
    pre, hs, cs = x.astype(np.float64), [], []
    for layer in range(net.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            weights = [p.get(f"{k}{sfx}", 0.0) for k in ("weight_ih", "weight_hh", "bias_ih",
                                                          "bias_hh")]
            k = layer * dirs + d
            xin = _reverse_sequence(pre, lens) if d else pre
            o, h, c = _dynamic_rnn(mode, xin, h0[k], c0[k], lens, weights)
            outs.append(_reverse_sequence(o, lens) if d else o)
            hs.append(h)
            cs.append(c)
        pre = np.concatenate(outs, -1)
    return pre, np.stack(hs), np.stack(cs)


def _modes(net, *args):
    """net(*args) in PYNATIVE and in GRAPH mode, flattened to numpy; asserts equal bits."""
    runs = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        out, state = net(*args)
        runs.append([out.asnumpy()] + [s.asnumpy() for s in (
            state if isinstance(state, tuple) else (state,))])
    for e, g in zip(*runs):
        assert e.dtype == g.dtype and e.shape == g.shape
        assert np.array_equal(e, g), "eager and graph mode give different bits"
    return runs[0]


def _n_nodes(entry_owner) -> int:
    return sum(1 for _ in cache_of(entry_owner)[-1].graph.walk())


# -- graph size --------------------------------------------------------------------------------
@pytest.mark.parametrize("cls, mode", LAYERS)
@pytest.mark.parametrize("with_lens", [False, True])
def test_graph_size_does_not_grow_with_the_sequence_length(cls, mode, with_lens):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = cls(3, 4, num_layers=2, bidirectional=True)

    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x, lens):
            out, _ = self.net(x, None, lens) if with_lens else self.net(x)
            return (out * out).mean()
    step = nn.TrainOneStepCell(Loss(), nn.SGD(net.trainable_params(), 0.1))
    sizes = []
    for t in (10, 200):
        x = ms.Tensor(R.standard_normal((t, 2, 3)).astype(np.float32))
        lens = ms.Tensor(np.array([t, t // 3], np.int32))
        net(x, None, lens) if with_lens else net(x)
        loops = [n for n in cache_of(net)[-1].graph.nodes if n.op == "Loop"]
        assert len(loops) == 4      # one per layer and direction
        step(x, lens)
        sizes.append((_n_nodes(net), _n_nodes(step)))
    assert sizes[0] == sizes[1], sizes


# -- values --------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls, mode", LAYERS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_seq_length_masks_as_mindspore_does(cls, mode, batch_first):
    T, B, I, H = 7, 4, 3, 5
    ms.set_seed(3)
    net = cls(I, H, num_layers=2, bidirectional=True, batch_first=batch_first, dropout=0.0)
    x = R.standard_normal((T, B, I)).astype(np.float32)
    h0 = R.standard_normal((4, B, H)).astype(np.float32)
    c0 = R.standard_normal((4, B, H)).astype(np.float32)
    lens = np.array([7, 3, 1, 6], np.int32)
    xin = np.swapaxes(x, 0, 1).copy() if batch_first else x
    hx = (ms.Tensor(h0), ms.Tensor(c0)) if mode == "LSTM" else ms.Tensor(h0)
    got = _modes(net, ms.Tensor(xin), hx, ms.Tensor(lens))
    want_out, want_h, want_c = ms_reference(mode, net, x, h0, c0, lens)
    out = np.swapaxes(got[0], 0, 1) if batch_first else got[0]
    np.testing.assert_allclose(out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want_h, rtol=1e-5, atol=1e-6)
    if mode == "LSTM":
        np.testing.assert_allclose(got[2], want_c, rtol=1e-5, atol=1e-6)
    # past each sequence's length the output is zero in both directions
    for b, n in enumerate(lens):
        assert not out[n:, b].any()


@settings(max_examples=12, derandomize=True, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2), st.integers(1, 6), st.integers(1, 3), st.booleans(), st.booleans(),
       st.integers(1, 2), st.data())
def test_any_lengths_mask_as_mindspore_does(which, T, B, bidir, batch_first, layers, data):
    cls, mode = LAYERS[which]
    lens = np.array(data.draw(st.lists(st.integers(1, T), min_size=B, max_size=B)), np.int32)
    ms.set_seed(T * 10 + B)
    net = cls(2, 3, num_layers=layers, bidirectional=bidir, batch_first=batch_first)
    x = R.standard_normal((T, B, 2)).astype(np.float32)
    xin = np.swapaxes(x, 0, 1).copy() if batch_first else x
    got = _modes(net, ms.Tensor(xin), None, ms.Tensor(lens))
    zeros = np.zeros((layers * (2 if bidir else 1), B, 3), np.float32)
    want_out, want_h, _ = ms_reference(mode, net, x, zeros, zeros, lens)
    out = np.swapaxes(got[0], 0, 1) if batch_first else got[0]
    np.testing.assert_allclose(out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want_h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls, mode", LAYERS)
def test_without_seq_length_is_the_full_length_reference(cls, mode):
    T, B, I, H = 6, 3, 4, 2
    ms.set_seed(4)
    net = cls(I, H, num_layers=3, bidirectional=True)
    x = R.standard_normal((T, B, I)).astype(np.float32)
    got = _modes(net, ms.Tensor(x))
    zeros = np.zeros((6, B, H), np.float32)
    want_out, want_h, _ = ms_reference(mode, net, x, zeros, zeros, np.full(B, T))
    np.testing.assert_allclose(got[0], want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want_h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls, mode", [(nn.LSTM, "LSTM"), (nn.GRU, "GRU")])
def test_no_bias_and_relu(cls, mode):
    T, B, I, H = 5, 3, 2, 4
    ms.set_seed(9)
    lens = np.array([2, 5, 4], np.int32)
    x = R.standard_normal((T, B, I)).astype(np.float32)
    zeros = np.zeros((2, B, H), np.float32)
    for net, m in ((cls(I, H, has_bias=False, bidirectional=True), mode),
                   (nn.RNN(I, H, nonlinearity="relu", bidirectional=True), "RNN_RELU")):
        got = _modes(net, ms.Tensor(x), None, ms.Tensor(lens))
        want_out, want_h, _ = ms_reference(m, net, x, zeros, zeros, lens)
        np.testing.assert_allclose(got[0], want_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], want_h, rtol=1e-5, atol=1e-6)


def test_a_run_time_sequence_length_compiles_once():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(5)
    net = nn.LSTM(3, 4, bidirectional=True, batch_first=True)
    net.set_inputs(ms.Tensor(shape=[None, None, 3], dtype=ms.float32), None,
                   ms.Tensor(shape=[None], dtype=ms.int32))
    for t, b in ((4, 2), (9, 3)):
        x = R.standard_normal((b, t, 3)).astype(np.float32)
        lens = np.array([t, 2, 1][:b], np.int32)
        h0 = np.zeros((2, b, 4), np.float32)
        got = _modes(net, ms.Tensor(x), None, ms.Tensor(lens))
        want_out, want_h, want_c = ms_reference("LSTM", net, np.swapaxes(x, 0, 1), h0, h0,
                                                lens)
        np.testing.assert_allclose(np.swapaxes(got[0], 0, 1), want_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[2], want_c, rtol=1e-5, atol=1e-6)
    assert len(cache_of(net)) == 1


# -- gradients -----------------------------------------------------------------------------------
@pytest.mark.parametrize("cls, mode", LAYERS)
def test_gradients_through_the_loop_agree_with_eager_and_finite_differences(cls, mode):
    T, B, I, H = 4, 2, 3, 2
    ms.set_seed(6)
    net = cls(I, H, num_layers=2, bidirectional=True, dtype=ms.float64)
    lens = ms.Tensor(np.array([4, 2], np.int32))

    def fn(x, h0, c0):
        out, state = net(x, (h0, c0) if mode == "LSTM" else h0, lens)
        h = state[0] if mode == "LSTM" else state
        return (out * ops.cos(out)).sum() + (h * h).sum()
    args = [ms.Tensor(R.standard_normal(s)) for s in ((T, B, I), (4, B, H), (4, B, H))]
    assert_grads_agree(fn, args, (0, 1, 2) if mode == "LSTM" else (0, 1), rtol=1e-6,
                       atol=1e-8)


@pytest.mark.parametrize("cls, mode", LAYERS)
def test_weight_gradients_agree_with_eager_and_finite_differences(cls, mode):
    T, B, I, H = 5, 2, 2, 3
    ms.set_seed(7)
    net = cls(I, H, bidirectional=True, dtype=ms.float64)
    x = ms.Tensor(R.standard_normal((T, B, I)))
    lens = ms.Tensor(np.array([3, 5], np.int32))
    params = net.trainable_params()

    def fn(x):
        out, _ = net(x, None, lens)
        return (out * ops.sin(out)).sum()
    grads = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        grads.append([g.asnumpy() for g in ms.grad(fn, None, params)(x)])
    for e, g in zip(*grads):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eps = 1e-6
    for p, g in zip(params, grads[1]):
        base = p.asnumpy().copy()
        for i in [tuple(R.integers(0, n) for n in base.shape) for _ in range(3)]:
            v = base.copy()
            v[i] += eps
            p.set_data(ms.Tensor(v))
            up = float(fn(x).asnumpy())
            v[i] -= 2 * eps
            p.set_data(ms.Tensor(v))
            down = float(fn(x).asnumpy())
            p.set_data(ms.Tensor(base))
            np.testing.assert_allclose(g[i], (up - down) / (2 * eps), rtol=1e-5, atol=1e-7,
                                       err_msg=f"{p.name}{i}")
    ms.set_context(mode=ms.GRAPH_MODE)


@pytest.mark.parametrize("cls, mode", LAYERS)
def test_three_training_steps_are_the_same_in_both_modes(cls, mode):
    T, B, I, H = 6, 3, 4, 5
    x = ms.Tensor(R.standard_normal((B, T, I)).astype(np.float32))
    y = ms.Tensor(R.standard_normal((B, 2 * H)).astype(np.float32))
    lens = ms.Tensor(np.array([6, 2, 4], np.int32))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = cls(I, H, num_layers=2, bidirectional=True, batch_first=True)

        def construct(self, x, lens, y):
            out, _ = self.rnn(x, None, lens)
            return ((out.sum(1) - y) ** 2).mean()
    runs = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(8)
        net = Net()
        step = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params(), 0.01))
        losses = [float(step(x, lens, y).asnumpy()) for _ in range(3)]
        runs.append((losses, [p.asnumpy().copy() for p in net.trainable_params()]))
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(runs[1][0], runs[0][0], rtol=1e-6)
    assert runs[0][0][2] < runs[0][0][0]
    for e, g in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-7)


# -- dtypes and checks ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls, mode", LAYERS)
def test_a_float16_input_runs_in_float16(cls, mode):
    """MindSpore casts the weights to the input's dtype: the outputs keep it."""
    ms.set_seed(10)
    net = cls(3, 4, bidirectional=True)
    x = R.standard_normal((5, 2, 3)).astype(np.float16)
    got = _modes(net, ms.Tensor(x), None, ms.Tensor(np.array([5, 3], np.int32)))
    assert all(g.dtype == np.float16 for g in got)
    zeros = np.zeros((2, 2, 4))
    want_out, _, _ = ms_reference(mode, net, x, zeros, zeros, np.array([5, 3]))
    np.testing.assert_allclose(got[0], want_out, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_bad_states_and_lengths_are_refused(mode):
    ms.set_context(mode=mode)
    net = nn.LSTM(3, 4)
    x = ms.Tensor(np.zeros((5, 2, 3), np.float32))
    h64 = ms.Tensor(np.zeros((1, 2, 4)))
    try:
        with pytest.raises(TypeError, match=r"For 'LSTM', hx\[0\] must have the dtype of x"):
            net(x, (h64, h64))
        with pytest.raises(TypeError, match="seq_length must be an int32 or int64 tensor"):
            net(x, None, ms.Tensor(np.array([1.0, 2.0], np.float32)))
        with pytest.raises(ValueError, match=r"seq_length must have shape \(batch_size,\)"):
            net(x, None, ms.Tensor(np.array([1, 2, 3], np.int32)))
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
