"""Learning-rate schedules as the model zoo uses them (graphjit/nn/learning_rate_schedule.py,
nn/optim/optimizer.py): MindSpore's documented values, BERT's warm-up + polynomial decay
schedule with a tensor condition, grouped schedules, optimizers given one, both modes."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


@pytest.mark.parametrize("sched, expect", [
    # MindSpore's documented values at global_step 2
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4), 0.09486833),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4, True), 0.1),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 4, True), 0.1),
    (lambda: nn.CosineDecayLR(0.01, 0.1, 4), 0.055),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), 0.07363961),
    (lambda: nn.WarmUpLR(0.1, 2), 0.1),
])
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_schedule_values(sched, expect, mode):
    ms.set_context(mode=mode)
    try:
        out = sched()(ms.Tensor(2, ms.int32))
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    assert out.dtype is ms.float32
    np.testing.assert_allclose(out.asnumpy(), expect, rtol=1e-6)


def test_schedule_argument_checks():
    with pytest.raises(ValueError):
        nn.CosineDecayLR(0.1, 0.01, 4)
    with pytest.raises(ValueError):
        nn.WarmUpLR(0.1, 0)


class BertLR(nn.LearningRateSchedule):
    """A user schedule as BERT's: warm-up then polynomial decay, mixed by a tensor flag."""

    def __init__(self):
        super().__init__()
        self.warmup = nn.WarmUpLR(0.1, 2)
        self.decay = nn.PolynomialDecayLR(0.1, 0.01, 6, 1.0)

    def construct(self, global_step):
        is_warmup = ms.ops.cast(ms.ops.greater(2, global_step), ms.float32)
        return (1.0 - is_warmup) * self.decay(global_step) + is_warmup * self.warmup(global_step)


@pytest.mark.parametrize("make", [lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0), BertLR])
def test_optimizer_with_schedule_same_in_both_modes(make):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    y = ms.Tensor(np.zeros((2, 2), np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
            opt = nn.Momentum(net.trainable_params(), make(), 0.9)
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
            losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        got[mode] = (losses, net.weight.asnumpy(), int(opt.global_step.asnumpy()[0]))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6)
    assert got[0][2] == got[1][2] == 3


def test_first_step_uses_the_rate_of_step_zero():
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    step(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 2), np.float32)))
    # d(mean((3)^2))/dw = 2 * 3 * 1 * 2 rows / 4 = 3 for each weight; lr(0) = 0.1
    np.testing.assert_allclose(net.weight.asnumpy(), np.full((2, 3), 0.7), rtol=1e-6)


@pytest.mark.parametrize("second", ["schedule"])
def test_grouped_schedules(second):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    y = ms.Tensor(np.zeros((2, 2), np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
            lr2 = nn.WarmUpLR(0.2, 2) if second == "schedule" else [0.3, 0.2, 0.1]
            opt = nn.SGD([{"params": [net.weight], "lr": nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0)},
                          {"params": [net.bias], "lr": lr2}])
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
            for _ in range(3):
                step(x, y)
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        got[mode] = (net.weight.asnumpy(), net.bias.asnumpy())
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6)
