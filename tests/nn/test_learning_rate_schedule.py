"""MindSpore's learning-rate schedules (nn.ExponentialDecayLR, CosineDecayLR, WarmUpLR,
...): Cells computing the rate from the step count; an optimizer given one calls it with
its global_step at every step (from 0) and advances the count, in both modes alike."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


def _at(schedule, step, mode):
    ms.set_context(mode=mode)
    return float(schedule(ms.Tensor(np.array([step], np.int32))).asnumpy().reshape(()))


@pytest.mark.parametrize("mode", MODES)
def test_formulas(mode):
    lr, rate, steps = 0.1, 0.9, 4
    assert _at(nn.ExponentialDecayLR(lr, rate, steps), 6, mode) == pytest.approx(lr * rate ** 1.5)
    assert _at(nn.ExponentialDecayLR(lr, rate, steps, True), 6, mode) == pytest.approx(lr * rate)
    assert _at(nn.NaturalExpDecayLR(lr, rate, steps), 2, mode) == pytest.approx(
        lr * math.exp(-rate * 0.5))
    assert _at(nn.InverseDecayLR(lr, rate, steps, True), 9, mode) == pytest.approx(
        lr / (1 + rate * 2))
    cos = nn.CosineDecayLR(0.01, 0.1, 10)
    assert _at(cos, 4, mode) == pytest.approx(0.01 + 0.045 * (1 + math.cos(math.pi * 0.4)))
    assert _at(cos, 30, mode) == pytest.approx(0.01)            # held after decay_steps
    poly = nn.PolynomialDecayLR(0.1, 0.01, 10, 0.5)
    assert _at(poly, 3, mode) == pytest.approx(0.09 * 0.7 ** 0.5 + 0.01, rel=1e-6)
    assert _at(poly, 20, mode) == pytest.approx(0.01)
    grow = nn.PolynomialDecayLR(0.1, 0.01, 10, 1.0, update_decay_steps=True)
    assert _at(grow, 15, mode) == pytest.approx(0.09 * (1 - 15 / 20) + 0.01, rel=1e-6)
    warm = nn.WarmUpLR(0.2, 5)
    assert [_at(warm, s, mode) for s in (0, 2, 9)] == pytest.approx([0.0, 0.08, 0.2])


def test_arguments_checked():
    with pytest.raises(ValueError, match="max_lr"):
        nn.CosineDecayLR(0.2, 0.1, 10)
    with pytest.raises(TypeError, match="decay_steps"):
        nn.ExponentialDecayLR(0.1, 0.9, 2.5)
    with pytest.raises(ValueError, match="learning_rate"):
        nn.WarmUpLR(-0.1, 3)


def _sgd_steps(mode, n=3):
    ms.set_context(mode=mode)
    w = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return (self.w * x).sum()

    net = Net()
    opt = nn.SGD(net.trainable_params(), learning_rate=nn.ExponentialDecayLR(0.1, 0.5, 1))
    step = nn.TrainOneStepCell(net, opt)
    for _ in range(n):
        step(ms.Tensor(np.ones(2, np.float32)))
    return w.asnumpy(), int(opt.global_step.asnumpy()[0]), [p.name for p in opt.get_parameters()]


def test_optimizer_uses_the_schedule_each_step():
    for mode in MODES:
        w, count, names = _sgd_steps(mode)
        np.testing.assert_allclose(w, -(0.1 + 0.05 + 0.025) * np.ones(2), rtol=1e-6)
        assert count == 3
        assert "learning_rate" not in names        # the schedule holds no Parameter


class Halving(nn.LearningRateSchedule):
    """A user's schedule: 0.4 / 2 ** step."""

    def construct(self, global_step):
        return 0.4 * ms.ops.pow(0.5, ms.ops.cast(global_step, ms.float32))


@pytest.mark.parametrize("mode", MODES)
def test_user_schedule_with_momentum(mode):
    ms.set_context(mode=mode)
    w = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return (self.w * x).sum()

    net = Net()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), Halving(), 0.0))
    for _ in range(2):
        step(ms.Tensor(np.ones(1, np.float32)))
    np.testing.assert_allclose(w.asnumpy(), [-(0.4 + 0.2)], rtol=1e-6)


class WarmupThenCosine(nn.LearningRateSchedule):
    """A schedule whose construct branches on the step (as mindcv's WarmupCosineDecayLR)."""

    def __init__(self):
        super().__init__()
        self.warmup_steps = 2
        self.warmup_lr = nn.WarmUpLR(0.4, 2)
        self.cosine = nn.CosineDecayLR(0.0, 0.4, 2)

    def construct(self, global_step):
        if global_step > self.warmup_steps:
            lr = self.cosine(global_step - self.warmup_steps)
        else:
            lr = self.warmup_lr(global_step)
        return lr


@pytest.mark.parametrize("mode", MODES)
def test_schedule_branching_on_the_step(mode):
    ms.set_context(mode=mode)
    w = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return (self.w * x).sum()

    net = Net()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), WarmupThenCosine()))
    for _ in range(5):
        step(ms.Tensor(np.ones(1, np.float32)))
    # steps 0..4: warmup 0, 0.2, 0.4; then cosine at 1: 0.2, at 2: 0
    np.testing.assert_allclose(w.asnumpy(), [-(0.0 + 0.2 + 0.4 + 0.2 + 0.0)], atol=1e-6)


def test_an_int_rate_is_a_type_error_as_mindspores_check_positive_float():
    from graphjit import nn as _nn
    with pytest.raises(TypeError, match="must be float"):
        _nn.ExponentialDecayLR(1, 0.9, 4)
    with pytest.raises(TypeError, match="must be float"):
        _nn.WarmUpLR(1, 2)
    _nn.ExponentialDecayLR(1.0, 0.9, 4)
