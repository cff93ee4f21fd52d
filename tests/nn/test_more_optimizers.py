"""nn.AdamWeightDecay and nn.RMSProp (MindSpore 2.x's update rules, against numpy), run
in training steps with control flow in both modes, and the learning rate schedules
(nn.exponential_decay_lr, cosine_decay_lr, piecewise_constant_lr, warmup_lr, ...) that
model-zoo scripts pass as a per-step learning rate."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops

R = np.random.default_rng(8)
X = R.standard_normal((8, 4)).astype(np.float32)
Y = R.integers(0, 3, 8).astype(np.int32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 6)
        self.ln = nn.LayerNorm((6,))
        self.out = nn.Dense(6, 3)

    def construct(self, x):
        h = self.ln(self.fc(x))
        if h.mean() > 0:
            h = ops.relu(h)
        return self.out(h)


def _run(make_opt, steps=3):
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(4)
        net = Net()
        opt = make_opt(net)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
        losses = [float(step(ms.Tensor(X), ms.Tensor(Y))) for _ in range(steps)]
        runs.append((losses, {n: p.asnumpy() for n, p in net.parameters_and_names()}))
    assert runs[0][0] == runs[1][0]
    for k in runs[0][1]:
        np.testing.assert_array_equal(runs[0][1][k], runs[1][1][k], err_msg=k)
    return runs[0]


def _grads(net):
    def f(x, y):
        return nn.CrossEntropyLoss()(net(x), y)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = ms.grad(f, None, net.trainable_params())(ms.Tensor(X), ms.Tensor(Y))
    ms.set_context(mode=ms.GRAPH_MODE)
    return [t.asnumpy() for t in g]


def test_adam_weight_decay_follows_mindspores_rule():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(4)
    net = Net()
    params = net.trainable_params()
    before = [p.asnumpy().copy() for p in params]
    grads = _grads(net)
    opt = nn.AdamWeightDecay(params, 0.01, eps=1e-6, weight_decay=0.1)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    opt(tuple(ms.Tensor(g) for g in grads))
    ms.set_context(mode=ms.GRAPH_MODE)
    for p, w, g in zip(params, before, grads):
        m, v = 0.1 * g, 0.001 * g * g
        upd = m / (np.sqrt(v) + 1e-6)
        if "beta" not in p.name and "gamma" not in p.name:
            upd = upd + 0.1 * w
        np.testing.assert_allclose(p.asnumpy(), w - 0.01 * upd, rtol=1e-5, atol=1e-6,
                                   err_msg=p.name)


@pytest.mark.parametrize("centered, momentum", [(False, 0.0), (True, 0.9)])
def test_rmsprop_follows_mindspores_rule(centered, momentum):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(4)
    net = Net()
    params = net.trainable_params()
    before = [p.asnumpy().copy() for p in params]
    grads = _grads(net)
    opt = nn.RMSProp(params, 0.01, decay=0.8, momentum=momentum, epsilon=1e-6,
                     centered=centered)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    opt(tuple(ms.Tensor(g) for g in grads))
    ms.set_context(mode=ms.GRAPH_MODE)
    for p, w, g in zip(params, before, grads):
        msq = 0.2 * g * g
        denom = msq - (0.2 * g) ** 2 if centered else msq
        np.testing.assert_allclose(p.asnumpy(), w - 0.01 * g / np.sqrt(denom + 1e-6),
                                   rtol=1e-4, atol=1e-6, err_msg=p.name)


@pytest.mark.parametrize("make_opt", [
    lambda net: nn.AdamWeightDecay(net.trainable_params(), 0.01, weight_decay=0.01),
    lambda net: nn.RMSProp(net.trainable_params(), 0.01, momentum=0.9, centered=True),
    lambda net: nn.Momentum(net.trainable_params(), nn.cosine_decay_lr(0.001, 0.1, 4, 1, 3),
                            0.9),
    lambda net: nn.AdamWeightDecay([{"params": net.fc.trainable_params(),
                                     "weight_decay": 0.1},
                                    {"params": net.out.trainable_params() +
                                     net.ln.trainable_params()}],
                                   nn.warmup_lr(0.02, 4, 1, 2)),
], ids=["adamw", "rmsprop centered", "momentum cosine lr", "adamw groups warmup"])
def test_training_steps_agree_between_modes(make_opt):
    losses, _ = _run(make_opt, 4)
    assert all(math.isfinite(v) for v in losses)


def test_learning_rate_schedules_as_mindspore_computes_them():
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1) == pytest.approx(
        [0.1, 0.1, 0.09, 0.09, 0.081, 0.081])
    assert nn.exponential_decay_lr(0.1, 0.5, 4, 1, 2, True) == pytest.approx(
        [0.1, 0.1, 0.05, 0.05])
    assert nn.natural_exp_decay_lr(0.1, 0.9, 2, 1, 1) == pytest.approx(
        [0.1, 0.1 * math.exp(-0.9)])
    assert nn.inverse_decay_lr(0.1, 0.5, 3, 1, 1) == pytest.approx([0.1, 0.1 / 1.5, 0.05])
    assert nn.cosine_decay_lr(0.0, 1.0, 5, 1, 2) == pytest.approx([1.0, 0.5, 0.0, 0.0, 0.0])
    assert nn.polynomial_decay_lr(0.1, 0.01, 4, 1, 2, 1.0) == pytest.approx(
        [0.1, 0.055, 0.01, 0.01])
    assert nn.piecewise_constant_lr([2, 5], [0.1, 0.05]) == [0.1, 0.1, 0.05, 0.05, 0.05]
    assert nn.warmup_lr(0.1, 4, 1, 2) == pytest.approx([0.0, 0.05, 0.1, 0.1])
    with pytest.raises(ValueError, match="increasing"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
