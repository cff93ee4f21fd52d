"""x.reshape(b, -1) / x.view(b, -1) / ops.reshape(x, (x.shape[0], -1)) with b a dim of
unknown size (set_inputs with None, the usual flatten before a Dense): graph mode built
it as a TypeError ('reshape's shape must be a Python int'). It is a ReshapeTo whose
known dims stay known (the -1 beside the batch dim), with gradients, the same values
and shapes as eager mode; a guess about another tensor's dim is checked when it runs."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.jit.api import compare_results

R = np.random.default_rng(0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.fc = nn.Dense(50, 3)

    def construct(self, img, x):
        f = self.conv(img)
        f = ops.reshape(f, (img.shape[0], -1))        # another tensor's batch dim
        y = self.fc(f)
        b = x.shape[0]
        z = x.view(b, -1)                              # its own batch dim
        w = z.reshape((b, 2, -1))
        if y.sum() > 0:
            y = y * 2
        return y, z, w, y.reshape(b * 1, 3) if isinstance(b, int) else y


def _args(n):
    return (Tensor(R.standard_normal((n, 1, 5, 5)).astype(np.float32)),
            Tensor(R.standard_normal((n, 2, 3)).astype(np.float32)))


def test_reshape_by_unknown_dims_agrees_with_eager_and_keeps_the_known_dims():
    net = Net()
    net.set_inputs(Tensor(shape=[None, 1, 5, 5], dtype=ms.float32),
                   Tensor(shape=[None, 2, 3], dtype=ms.float32))
    for n in (3, 5):
        args = _args(n)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = net(*args)
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = net(*args)
        assert not compare_results(graph[:3], eager[:3])
    assert len(net.compile_cache()) == 1      # one graph for every batch size
    assert "ReshapeTo" in str(net.compile_cache()[0].graph)
    # the Dense after the flatten built: the -1 beside the batch dim is known (50)


def test_a_training_step_with_a_dynamic_batch_agrees_between_modes():
    class Loss(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, img, x):
            y, z, w, _ = self.net(img, x)
            return (y ** 2).mean() + w.mean()
    args = _args(4)
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(1)
        net = Net()
        net.set_inputs(Tensor(shape=[None, 1, 5, 5], dtype=ms.float32),
                       Tensor(shape=[None, 2, 3], dtype=ms.float32))
        step = nn.TrainOneStepCell(Loss(net), nn.SGD(net.trainable_params(), 0.1))
        runs.append([float(step(*args)) for _ in range(3)])
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-6)


def test_static_shapes_reshape_by_another_tensors_dim_as_eager():
    @ms.jit
    def f(x, other):
        return ops.reshape(x, (other.shape[0], -1))
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    np.testing.assert_array_equal(f(x, Tensor(np.zeros(2, np.float32))).asnumpy(),
                                  np.arange(8).reshape(2, 4))


def test_a_wrong_guess_with_dynamic_dims_raises_when_it_runs():
    class Bad(nn.Cell):
        def construct(self, x, other):
            return ops.reshape(x, (other.shape[0], -1))
    net = Bad()
    net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32),
                   Tensor(shape=[None], dtype=ms.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    np.testing.assert_array_equal(net(x, Tensor(np.zeros(4, np.float32))).asnumpy(),
                                  x.asnumpy())
    with pytest.raises(ValueError, match="cannot reshape"):
        net(x, Tensor(np.zeros(2, np.float32)))


class DynamicBatchRNN(nn.Cell):
    """Initial states of the batch's size: ops.zeros((x.shape[0], H)) with the batch dim
    unknown (it was a TypeError 'zeros's shape must be Python ints'), nn.LSTM inside."""

    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 4)
        self.lstm = nn.LSTM(3, 4, batch_first=True)

    def construct(self, xs):
        h = ops.zeros((xs.shape[0], 4), ms.float32)
        c = ops.ones((xs.shape[0], 4)) * 0.5 + ops.full((xs.shape[0], 1), 2.0)
        for t in range(xs.shape[1]):
            h = self.cell(xs[:, t], h)
            if h.abs().mean() > 0.9:
                break
        out, (hn, _) = self.lstm(xs)
        return h + c, out, hn, ops.fill(ms.int32, (xs.shape[0],), 3)


def test_fills_of_a_dynamic_batch_size_and_training_with_them():
    inputs = [Tensor(R.standard_normal((b, 5, 3)).astype(np.float32)) for b in (2, 3)]
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(2)
        net = DynamicBatchRNN()
        net.set_inputs(Tensor(shape=[None, 5, 3], dtype=ms.float32))
        outs = [net(x) for x in inputs]

        class Loss(nn.Cell):
            def __init__(self):
                super().__init__()
                self.net = net

            def construct(self, x):
                a, b, c, _ = self.net(x)
                return a.sum() + b.mean() + c.sum()
        step = nn.TrainOneStepCell(Loss(), nn.SGD(net.trainable_params(), 0.1))
        x = Tensor(np.random.default_rng(5).standard_normal((4, 5, 3)).astype(np.float32))
        runs.append((outs, [float(step(x)) for _ in range(2)]))
        if mode == ms.GRAPH_MODE:
            assert len(net.compile_cache()) == 1
    assert [o.shape for o in runs[1][0][1]] == [(3, 4), (3, 5, 4), (1, 3, 4), (3,)]
    for e, g in zip(runs[0][0], runs[1][0]):
        assert not compare_results(g, e)
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-6)
