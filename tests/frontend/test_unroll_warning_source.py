"""A constant `for` over more than max_unroll items that must be unrolled warns (a
RuntimeWarning naming the user's line) when the loop is the user's; graphjit's own
loops, such as an optimizer's loop over its Parameters in a training step of a net with
more Parameters than max_unroll, unroll without a warning (the user wrote no loop)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


class Wide(nn.Cell):
    """More Parameters (2 * 140) than the default max_unroll (256)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(2, 2) for _ in range(140)])

    def construct(self, x):
        out = x
        for layer in self.layers:
            out = out + layer(x) * 0.01
        return out


class UserLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scales = [ms.Tensor(np.float32(i)) if i % 2 else ms.Tensor(np.int32(i))
                       for i in range(300)]

    def construct(self, x):
        for i in range(300):
            x = x + ops.cast(self.scales[i], ms.float32)
        return x


def test_optimizer_loop_over_many_parameters_does_not_warn():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Wide()
    assert len(net.trainable_params()) > 256
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    x = ms.Tensor(np.ones((3, 2), np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        loss = step(x, ms.Tensor(np.zeros((3, 2), np.float32)))
    assert np.isfinite(loss.asnumpy())


def test_user_loop_still_warns():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.warns(RuntimeWarning, match="exceeds max_unroll"):
        y = UserLoop()(ms.Tensor(np.zeros((2,), np.float32)))
    np.testing.assert_allclose(y.asnumpy(), np.full(2, sum(range(300)), np.float32))
