"""TrainOneStep-style code written by hand, as MindSpore's model zoo writes it (`loss =
self.network(*inputs)` then `self.grad(self.network, self.weights)(*inputs, sens)` on a
network marked with set_grad()), runs the network once per step, as MindSpore does:
BatchNorm's moving statistics are updated once and the gradients belong to the loss's
own random draws; in both modes (PYNATIVE reuses the recorded forward, graph mode puts
the gradient's forward half in the primal call's place)."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(autouse=True)
def _graph_mode_after():
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


class MyTrainStep(nn.Cell):
    def __init__(self, network, optimizer, scale=1.0):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.scale = scale

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = ops.ones_like(loss) * self.scale
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        loss = ops.depend(loss, self.optimizer(grads))
        return loss, grads


@pytest.mark.parametrize("mode", MODES)
def test_batchnorm_statistics_move_once(mode):
    ms.set_context(mode=mode)
    bn = nn.BatchNorm1d(1, momentum=0.9)
    step = MyTrainStep(nn.WithLossCell(bn, nn.MSELoss()), nn.SGD(bn.trainable_params(), 0.1))
    step.set_train()
    x = ms.Tensor(np.array([[0.0], [2.0]], np.float32))
    loss, grads = step(x, ms.Tensor(np.array([[0.0], [1.0]], np.float32)))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.1], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.1], rtol=1e-6)
    np.testing.assert_allclose(float(loss.asnumpy()), 0.5, rtol=1e-4)
    # the gradients of that loss, mean((xhat * gamma + beta - t)^2), xhat = [-1, 1]
    np.testing.assert_allclose(grads[0].asnumpy(), [1.0], rtol=1e-4)     # gamma
    np.testing.assert_allclose(grads[1].asnumpy(), [-1.0], rtol=1e-4)    # beta
    step(x, ms.Tensor(np.array([[0.0], [1.0]], np.float32)))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.19], rtol=1e-6)


class Drop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array(3.0, np.float32)), name="w")
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return (self.drop(x) * self.w).sum()


@pytest.mark.parametrize("mode", MODES)
def test_the_gradient_belongs_to_the_losss_own_dropout_mask(mode):
    ms.set_context(mode=mode)
    net = Drop()
    step = MyTrainStep(net, nn.SGD(net.trainable_params(), 0.0))
    step.set_train()
    x = ms.Tensor(np.ones(64, np.float32))
    for _ in range(3):
        loss, (dw,) = step(x)
        # loss = w * sum(dropout(x)) and dloss/dw = sum(dropout(x)): one mask for both
        np.testing.assert_allclose(float(loss.asnumpy()), 3.0 * float(dw.asnumpy()),
                                   rtol=1e-6)
    if mode == ms.GRAPH_MODE:
        graph = step.compile_cache()[0].graph
        assert str(graph).count("Dropout(") == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_different_input_or_an_effect_in_between_runs_the_network_again(mode):
    ms.set_context(mode=mode)

    class Twice(MyTrainStep):
        def construct(self, x, y):
            loss = self.network(x)
            grads = self.grad(self.network, self.weights)(y, ops.ones_like(loss))
            return loss, grads

    bn = nn.BatchNorm1d(1, momentum=0.9)
    step = Twice(nn.SequentialCell([bn]), nn.SGD(bn.trainable_params(), 0.0))
    step.network.set_grad()
    step.set_train()
    x = ms.Tensor(np.array([[0.0], [2.0]], np.float32))
    step(x, ms.Tensor(np.array([[0.0], [2.0]], np.float32)))   # another tensor: two runs
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.19], rtol=1e-6)
