"""Training steps written as MindSpore 2.x tutorials write them, run in GRAPH_MODE and
in PYNATIVE_MODE: the losses and every Parameter agree step by step (control flow in
the model included: an RNN that stops early per batch, BatchNorm updating its moving
statistics). They need gradients (graphjit.ops.GradOperation)."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers_state import param_values


def _has_gradients() -> bool:
    try:
        ops.GradOperation()(lambda x: x)
    except NotImplementedError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _has_gradients(),
                                reason="needs gradients (ops.GradOperation)")

f32 = np.float32
RNG = np.random.default_rng(11)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8, activation="relu")
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


class BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(ops.relu(self.bn(self.fc1(x))))


class EarlyStopRNN(nn.Cell):
    """A recurrent cell over the time steps of xs (T, N, C) that stops as soon as the
    hidden state saturates: a data-dependent loop with break."""

    def __init__(self, n_in=3, n_hidden=8):
        super().__init__()
        self.w_ih = nn.Dense(n_in, n_hidden)
        self.w_hh = nn.Dense(n_hidden, n_hidden, has_bias=False)
        self.head = nn.Dense(n_hidden, 1)
        self.n_hidden = n_hidden

    def construct(self, xs):
        h = ops.zeros((xs.shape[1], self.n_hidden), ms.float32)
        for x in xs:
            h = ops.tanh(self.w_ih(x) + self.w_hh(h))
            if ops.abs(h).mean() > 0.6:
                break
        return self.head(h)


def _classes(n=16):
    return [(RNG.standard_normal((n, 4)).astype(f32), RNG.integers(0, 3, n).astype(np.int32))
            for _ in range(3)]


def _sequences():
    return [(RNG.standard_normal((6, 8, 3)).astype(f32),
             RNG.standard_normal((8, 1)).astype(f32)) for _ in range(3)]


def _both_modes(make_step, batches, steps=2):
    """make_step() -> (step function, net); each mode from the same seed. The losses
    and the Parameters agree bit for bit after every step."""
    runs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(7)
        step, net = make_step()
        out = []
        for x, y in batches * steps:
            loss = step(ms.Tensor(x), ms.Tensor(y))
            out.append((np.asarray(loss), param_values(net)))
        runs[mode] = out
    for k, ((e_loss, e_par), (g_loss, g_par)) in enumerate(zip(runs[ms.PYNATIVE_MODE],
                                                                runs[ms.GRAPH_MODE])):
        np.testing.assert_array_equal(g_loss, e_loss, err_msg=f"step {k}")
        for name in e_par:
            np.testing.assert_array_equal(g_par[name], e_par[name],
                                          err_msg=f"step {k}: {name}")
    return runs


@pytest.mark.parametrize("make_net, make_opt, loss, data", [
    (MLP, lambda p: nn.Momentum(p, 0.05, 0.9),
     lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), _classes),
    (BNNet, lambda p: nn.Adam(p, 0.01),
     lambda: nn.CrossEntropyLoss(), _classes),
    (EarlyStopRNN, lambda p: nn.SGD(p, 0.1, momentum=0.9), nn.MSELoss, _sequences),
])
def test_train_one_step_cell_agrees_with_pynative(make_net, make_opt, loss, data):
    def make():
        net = make_net()
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss()), make_opt(
            net.trainable_params()))
        train.set_train()
        return train, net
    runs = _both_modes(make, data())
    losses = [float(l) for l, _ in runs[ms.GRAPH_MODE]]
    assert np.isfinite(losses).all()


def test_early_stop_rnn_compiles_once_and_its_loop_stops_per_batch():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = EarlyStopRNN()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adagrad(
        net.trainable_params(), learning_rate=0.1))
    for x, y in _sequences() * 2:
        train(ms.Tensor(x), ms.Tensor(y))
    assert len(train.compile_cache()) == 1
    printed = str(train.compile_cache()[0].graph)
    assert "Loop(" in printed and "ApplyAdagrad(" in printed


def test_functional_training_step_of_the_mindspore_tutorial():
    """value_and_grad over a forward function, the optimizer called on the gradients,
    the whole step under @ms.jit (the 2.x quick start)."""
    def make():
        model = MLP()
        loss_fn = nn.CrossEntropyLoss()
        optimizer = nn.SGD(model.trainable_params(), 1e-1)

        def forward_fn(data, label):
            logits = model(data)
            loss = loss_fn(logits, label)
            return loss, logits

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

        @ms.jit
        def train_step(data, label):
            (loss, _), grads = grad_fn(data, label)
            optimizer(grads)
            return loss

        def step(data, label):
            if ms.get_context("mode") == ms.PYNATIVE_MODE:
                return train_step.fn(data, label)      # the same step, eagerly
            return train_step(data, label)
        return step, model
    _both_modes(make, _classes())


class ClippedTrainStep(nn.TrainOneStepCell):
    """A custom step (MindSpore style): gradients clipped by value, and the optimizer
    skipped when the loss is not finite (control flow around the update)."""

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        grads = tuple(ops.clamp(g, -0.5, 0.5) for g in grads)
        if loss < 1e6:
            loss = ops.depend(loss, self.optimizer(grads))
        return loss


def test_custom_train_one_step_cell_with_an_update_under_a_condition():
    def make():
        net = MLP()
        step = ClippedTrainStep(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        return step, net
    _both_modes(make, _classes())


def test_model_train_prints_losses_and_eval_measures(capsys):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(3)
    net = MLP()
    w = RNG.standard_normal((4, 3)).astype(f32)
    xs = [RNG.standard_normal((32, 4)).astype(f32) for _ in range(4)]
    data = [(x, (x @ w).argmax(-1).astype(np.int32)) for x in xs]
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"accuracy"})
    before = model.eval(data)["accuracy"]
    model.train(8, data)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 8 and lines[0].startswith("epoch: 1, loss is ")
    losses = [float(l.split("loss is ")[1].split()[0]) for l in lines]
    assert losses[-1] < losses[0] * 0.7
    assert model.eval(data)["accuracy"] > max(before, 0.7)
    model.train(1, data, callbacks=[ms.LossMonitor()])
    lines = capsys.readouterr().out.splitlines()
    assert [l.split(",")[0] for l in lines] == [f"epoch: 1 step: {k}" for k in range(1, 5)]
    assert len(model.train_network.compile_cache()) == 1
