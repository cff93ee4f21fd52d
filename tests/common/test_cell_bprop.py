"""A Cell that defines bprop gets its gradient from it (MindSpore's custom bprop), in both
modes and the same in both: bprop(self, *inputs, out, dout), or without out
(bprop(self, *inputs, dout), as mindcv's Swish writes it); what flows back is what bprop
returns, not the construct's own gradient (a gradient-reversal layer shows the
difference); the Cell's inputs that are not tensors are passed through; a training step
through such a Cell runs in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


class Reverse(nn.Cell):
    """Forward: x * 2. Backward: -dout (not 2 * dout)."""

    def construct(self, x):
        return x * 2.0

    def bprop(self, x, out, dout):
        return (-dout,)


class Swish(nn.Cell):
    """x * sigmoid(x), with its derivative as bprop (no `out` argument)."""

    def __init__(self):
        super().__init__()
        self.sigmoid = nn.Sigmoid()

    def construct(self, x):
        return x * self.sigmoid(x)

    def bprop(self, x, dout):
        s = self.sigmoid(x)
        return dout * (s * (1 + x * (1 - s)))


class Scaled(nn.Cell):
    """Two inputs, one a Python number; bprop reads out."""

    def construct(self, x, k):
        return x * k

    def bprop(self, x, k, out, dout):
        return dout * 10.0 + out * 0.0, 0


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")
        self.rev = Reverse()
        self.act = Swish()

    def construct(self, x):
        return self.act(self.rev(self.dense(x))).sum()


def _x():
    return ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 6 - 0.4)


def _swish_grad(r):
    s = 1 / (1 + np.exp(-r))
    return s * (1 + r * (1 - s))


@pytest.mark.parametrize("mode", MODES)
def test_gradient_comes_from_bprop(mode):
    ms.set_context(mode=mode)
    net = Net()
    x = _x()
    gx, (gw, gb) = ms.grad(net, grad_position=0, weights=net.trainable_params())(x)
    xv = x.asnumpy()
    y = xv @ np.ones((3, 3), np.float32).T
    dy = -_swish_grad(2 * y)                    # Reverse's bprop: -dout, no factor 2
    np.testing.assert_allclose(gx.asnumpy(), dy @ np.ones((3, 3)), rtol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), dy.T @ xv, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), dy.sum(0), rtol=1e-5)
    ref = 2 * y / (1 + np.exp(-2 * y))
    np.testing.assert_allclose(net(x).asnumpy(), ref.sum(), rtol=1e-5)   # forward: construct


def test_both_modes_agree_on_a_training_step():
    res = []
    for mode in MODES:
        ms.set_context(mode=mode)
        net = Net()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        step = nn.TrainOneStepCell(_Loss(net), opt)
        step.set_train()
        loss = step(_x(), ms.Tensor(np.float32(0.0)))
        res.append((float(loss.asnumpy()), net.dense.weight.asnumpy().copy()))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)
    assert not np.allclose(res[0][1], 1.0)


class _Loss(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.net = net

    def construct(self, x, t):
        return (self.net(x) - t) ** 2


@pytest.mark.parametrize("mode", MODES)
def test_python_inputs_and_out(mode):
    ms.set_context(mode=mode)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Scaled()

        def construct(self, x):
            return self.inner(x, 3.0).sum()

    g = ms.grad(Outer())(ms.Tensor(np.ones((2,), np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [10.0, 10.0])


@pytest.mark.parametrize("mode", MODES)
def test_forward_only_call_is_the_construct(mode):
    ms.set_context(mode=mode)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rev = Reverse()

        def construct(self, x):
            return self.rev(x) + 1

    np.testing.assert_allclose(Outer()(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [3., 3.])


@pytest.mark.parametrize("mode", MODES)
def test_wrong_bprop_arity_is_refused(mode):
    ms.set_context(mode=mode)

    class Bad(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, dout):
            return dout

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bad = Bad()

        def construct(self, x):
            return self.bad(x).sum()

    with pytest.raises(TypeError, match="bprop takes 1 arguments"):
        ms.grad(Outer())(ms.Tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_top_level_cell_with_bprop(mode):
    ms.set_context(mode=mode)
    g = ms.grad(Reverse())(ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [-1.0, -1.0, -1.0])


@pytest.mark.parametrize("mode", MODES)
def test_bad_arity_forward_alone_runs(mode):
    ms.set_context(mode=mode)

    class Bad(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, dout):
            return dout

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bad = Bad()

        def construct(self, x):
            return self.bad(x) + 1

    np.testing.assert_allclose(Outer()(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [3., 3.])


def test_forward_graph_holds_no_bprop_node():
    """A graph built without a gradient (inference, ms.compile) is the construct alone:
    nothing in it refers to the Cell's bprop."""

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = Swish()

        def construct(self, x):
            return self.act(x) * 2

    model = ms.compile(Outer(), ms.Tensor(np.ones(3, np.float32)))
    assert "CellBprop" not in str(model.graph)
    np.testing.assert_allclose(model(ms.Tensor(np.zeros(3, np.float32))).asnumpy(), 0.0)
