"""GradOperation(sens_param=True) in graph mode with a sensitivity whose shape is not the
output's (a scalar loss scale for a [1] loss, as MindSpore's loss-scale cells pass), and
a constant sensitivity equal to a constant of the network (the forward of `loss =
net(x)` is reused for the gradient: its constants must survive)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ops import functional as F, composite as C


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cast = ops.Cast()
        self.get_dtype = ops.DType()

    def construct(self, y):
        one = self.cast(F.tuple_to_array((1.0,)), self.get_dtype(y))
        return one - ops.sigmoid(y)


class Loss1(nn.Cell):
    """A [1] loss holding the constant [1.0] (as BERT's attention mask does)."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)),
                              name="w")
        self.inner = Inner()

    def construct(self, x):
        one = F.cast(F.tuple_to_array((1.0,)), ms.float32)
        y = ops.matmul(x, self.w)
        a = self.inner(y).sum() * one / 3.0         # [1]
        return a + ops.ReduceMean()(y * 0.0, (-1,)).sum()    # [1] + (): [1]


class Step(nn.Cell):
    def __init__(self, net, sens_kind):
        super().__init__()
        self.net = net
        self.net.set_grad()      # as TrainOneStepCell: the loss's forward is reused
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = C.GradOperation(get_by_list=True, sens_param=True)
        self.kind = sens_kind
        self.scale = ms.Parameter(ms.Tensor(2.0, ms.float32), name="scale")

    def construct(self, x):
        loss = self.net(x)
        if self.kind == "const":
            sens = F.cast(F.tuple_to_array((1.0,)), ms.float32)
        else:
            sens = self.scale * 1.0          # shape (): a scalar for the [1] loss
        return loss, self.grad(self.net, self.weights)(x, sens)


@pytest.mark.parametrize("kind", ["const", "scalar"])
def test_graph_gradient_with_fitted_sens_equals_eager(kind):
    x = ms.Tensor(np.array([[0.3, -0.7], [1.2, 0.4]], np.float32))
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            loss, (g,) = Step(Loss1(), kind)(x)
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        out[mode] = (loss.asnumpy(), g.asnumpy())
    (le, ge), (lg, gg) = out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]
    assert le.shape == lg.shape == (1,)
    np.testing.assert_allclose(lg, le, rtol=1e-6)
    assert gg.shape == ge.shape == (2, 2)
    np.testing.assert_allclose(gg, ge, rtol=1e-5, atol=1e-7)
    # the gradient is the sens times the gradient with ones
    w = np.array([[1.0, -2.0], [0.5, 3.0]])
    s = 1 / (1 + np.exp(-(x.asnumpy() @ w)))
    expect = x.asnumpy().T @ (-(s * (1 - s))) / 3.0 * (1.0 if kind == "const" else 2.0)
    np.testing.assert_allclose(gg, expect, rtol=1e-5, atol=1e-6)


class Ratio(nn.Cell):
    """num / den with den + [1e-5] (BERT's pretraining loss) over Inner's [1.0]."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)),
                              name="w")
        self.inner = Inner()

    def construct(self, x):
        y = ops.matmul(x, self.w)
        den = x.sum() + F.cast(F.tuple_to_array((1e-5,)), ms.float32)
        return self.inner(y).sum() / den


class TrainConstSens(nn.TrainOneStepCell):
    """BertTrainOneStepCell's form: the sens a constant [self.sens] made after the loss."""

    def construct(self, x):
        loss = self.network(x)
        sens = F.cast(F.tuple_to_array((self.sens,)), ms.float32)
        grads = self.grad(self.network, self.weights)(x, sens)
        self.optimizer(grads)
        return loss


def test_train_step_with_constant_sens_equal_to_a_network_constant():
    x = ms.Tensor(np.array([[0.3, -0.7], [1.2, 0.4]], np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = Ratio()
            step = TrainConstSens(net, nn.SGD(net.trainable_params(), 0.1))
            losses = [step(x).asnumpy() for _ in range(2)]
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        got[mode] = (losses, net.w.asnumpy())
    np.testing.assert_allclose(got[ms.GRAPH_MODE][0], got[ms.PYNATIVE_MODE][0], rtol=1e-6)
    np.testing.assert_allclose(got[ms.GRAPH_MODE][1], got[ms.PYNATIVE_MODE][1], rtol=1e-6)
    assert not np.allclose(got[ms.GRAPH_MODE][1], [[1.0, -2.0], [0.5, 3.0]])


class BNLoss(nn.Cell):
    """A BatchNorm network whose loss multiplies by a constant (GANLoss's
    `ones(predict) * target`): the constant's node is shared with the sens made after."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, weight_init="ones")
        self.bn = nn.BatchNorm2d(2)
        self.true = ms.Tensor(True, ms.bool_)

    def construct(self, x):
        p = self.bn(self.conv(x))
        target = ops.ones_like(p) * ops.cast(self.true, p.dtype)
        lg = ((p - target) ** 2).mean()
        return lg, p


class TrainTupleSens(nn.Cell):
    """CycleGAN's TrainOneStepG form: a sens tuple for a multi-output loss network."""

    def __init__(self, net, opt):
        super().__init__(auto_prefix=False)
        self.net, self.optimizer = net, opt
        self.net.set_grad()
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.sens = 1.0

    def construct(self, x):
        out = self.net(x)
        sens = (ops.ones_like(out[0]) * self.sens, ops.zeros_like(out[1]))
        grads = self.grad(self.net, self.weights)(x, sens)
        return ops.depend(out[0], self.optimizer(grads))


def test_batchnorm_statistics_move_once_per_step_in_both_modes():
    """The forward of `out = net(x)` is reused by the gradient (one BatchNorm update per
    step) in graph mode as in PYNATIVE mode, also when the network's constants are
    shared with what follows the call."""
    x = ms.Tensor(np.random.default_rng(0).random((2, 1, 5, 5), dtype=np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = BNLoss()
            net.set_train()
            step = TrainTupleSens(net, nn.SGD(net.trainable_params(), 0.01))
            for _ in range(2):
                step(x)
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        got[mode] = (net.bn.moving_mean.asnumpy(), net.conv.weight.asnumpy())
    np.testing.assert_allclose(got[ms.GRAPH_MODE][0], got[ms.PYNATIVE_MODE][0], rtol=1e-6)
    np.testing.assert_allclose(got[ms.GRAPH_MODE][1], got[ms.PYNATIVE_MODE][1], rtol=1e-6)


class BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, weight_init="ones")
        self.bn = nn.BatchNorm2d(2)

    def construct(self, x):
        return (self.bn(self.conv(x)) ** 2).mean()


class StepWithUpdateBetween(nn.Cell):
    """An update between `loss = net(x)` and its gradient (BERT's accumulation cells
    count steps there): of a counter, or (touch_weight) of a weight of the network."""

    def __init__(self, net, opt, touch_weight):
        super().__init__(auto_prefix=False)
        self.net, self.optimizer = net, opt
        self.net.set_grad()
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.counter = ms.Parameter(ms.Tensor(np.zeros((1,), np.int32)), name="counter",
                                    requires_grad=False)
        self.touch_weight = touch_weight

    def construct(self, x):
        loss = self.net(x)
        self.counter = self.counter + 1
        if self.touch_weight:
            ops.assign(self.net.conv.weight, self.net.conv.weight * 0.5)
        grads = self.grad(self.net, self.weights)(x, ops.ones_like(loss))
        self.optimizer(grads)
        return loss


@pytest.mark.parametrize("touch_weight", [False, True])
def test_updates_between_the_loss_and_its_gradient_as_eager(touch_weight):
    """An update of a Parameter that is not a weight between the loss and the gradient
    keeps the forward reused (BatchNorm's statistics move once per step), as in PYNATIVE
    mode; an update of a weight makes both modes run the forward again."""
    x = ms.Tensor(np.random.default_rng(1).random((2, 1, 5, 5), dtype=np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = BNNet()
            net.set_train()
            step = StepWithUpdateBetween(net, nn.SGD(net.trainable_params(), 0.01),
                                         touch_weight)
            losses = [float(step(x).asnumpy()) for _ in range(2)]
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        got[mode] = (losses, net.bn.moving_mean.asnumpy(), net.conv.weight.asnumpy(),
                     step.counter.asnumpy())
    e, g = got[ms.PYNATIVE_MODE], got[ms.GRAPH_MODE]
    np.testing.assert_allclose(g[0], e[0], rtol=1e-6)
    for a, b in zip(g[1:], e[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert int(g[3][0]) == 2
