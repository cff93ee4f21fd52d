"""Realistic MindSpore 2.x training code with control flow, run step by step in
PYNATIVE_MODE and GRAPH_MODE from the same seed: losses and every Parameter agree.
TrainOneStepCell over WithLossCell (Momentum, Adam, SGD), the 2.x functional step
(value_and_grad(forward_fn, None, optimizer.parameters, has_aux=...) under @ms.jit, with
gradient clipping), GradOperation(get_by_list=True[, sens_param=True]) in a custom step,
a loss with a tensor if, BatchNorm and Dropout under a tensor if, ops.assign in a loop,
gradients of a while loop, Model.train."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops, Tensor, Parameter
from graphjit.jit.api import compare_results
from helpers_state import param_values

R = np.random.default_rng(1)
f32 = np.float32


def both(make, batches, steps=2):
    runs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(7)
        step, net = make()
        out = []
        for x, y in batches * steps:
            loss = step(ms.Tensor(x), ms.Tensor(y))
            out.append((np.asarray(loss[0] if isinstance(loss, tuple) else loss), param_values(net)))
        runs[mode] = out
    for k, ((e_loss, e_par), (g_loss, g_par)) in enumerate(zip(runs[ms.PYNATIVE_MODE], runs[ms.GRAPH_MODE])):
        np.testing.assert_array_equal(g_loss, e_loss, err_msg=f"step {k}")
        assert g_par.keys() == e_par.keys()
        for name in e_par:
            np.testing.assert_array_equal(g_par[name], e_par[name], err_msg=f"step {k}: {name}")

def cls_data(n=8, d=4, c=3):
    return [(R.standard_normal((n, d)).astype(f32), R.integers(0, c, n).astype(np.int32)) for _ in range(2)]

class GatedMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 3)
        self.gate = nn.Dense(8, 8)
        self.relu = nn.ReLU()
    def construct(self, x):
        h = self.relu(self.fc1(x))
        if h.mean() > 0.3:
            h = h * ops.sigmoid(self.gate(h))
        else:
            h = h + 0.1
        return self.fc2(h)

class CNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode='same')
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 2 * 2, 3)
    def construct(self, x):
        x = self.pool(ops.relu(self.bn(self.conv(x))))
        x = self.flat(x)
        out = self.fc(x)
        if self.training:
            out = out * 1.0
        return out

class WhileRNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ih = nn.Dense(3, 6)
        self.hh = nn.Dense(6, 6, has_bias=False)
        self.out = nn.Dense(6, 3)
    def construct(self, xs):
        T = xs.shape[1]
        h = ops.zeros((xs.shape[0], 6), ms.float32)
        t = 0
        while t < T:
            h = ops.tanh(self.ih(xs[:, t, :]) + self.hh(h))
            if ops.abs(h).max() > 0.95:
                break
            t += 1
        return self.out(h)

def seq_data():
    return [(R.standard_normal((4, 5, 3)).astype(f32), R.integers(0, 3, 4).astype(np.int32)) for _ in range(2)]

def conv_data():
    return [(R.standard_normal((4, 1, 4, 4)).astype(f32), R.integers(0, 3, 4).astype(np.int32)) for _ in range(2)]

def t_train_one_step(make_net, opt, loss, data):
    def make():
        net = make_net()
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss()), opt(net.trainable_params()))
        train.set_train()
        return train, net
    both(make, data())

def t_value_and_grad(make_net, data, has_aux=True, opt=lambda p: nn.Momentum(p, 0.01, 0.9)):
    def make():
        model = make_net()
        loss_fn = nn.CrossEntropyLoss()
        optimizer = opt(model.trainable_params())
        def forward_fn(data, label):
            logits = model(data)
            loss = loss_fn(logits, label)
            if has_aux:
                return loss, logits
            return loss
        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=has_aux)
        def train_step(data, label):
            if has_aux:
                (loss, _), grads = grad_fn(data, label)
            else:
                loss, grads = grad_fn(data, label)
            grads = ops.clip_by_global_norm(grads, 1.0)
            loss = ops.depend(loss, optimizer(grads))
            return loss
        jstep = ms.jit(train_step)
        def step(d, l):
            model.set_train()
            if ms.get_context("mode") == ms.PYNATIVE_MODE:
                return train_step(d, l)
            return jstep(d, l)
        return step, model
    both(make, data())

def t_gradop(make_net, data):
    class TrainStep(nn.Cell):
        def __init__(self, net, opt):
            super().__init__()
            self.net = net
            self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
            self.weights = ms.ParameterTuple(net.trainable_params())
            self.opt = opt
            self.grad = ops.GradOperation(get_by_list=True)
        def fwd(self, x, y):
            return self.loss(self.net(x), y)
        def construct(self, x, y):
            loss = self.fwd(x, y)
            grads = self.grad(self.fwd, self.weights)(x, y)
            self.opt(grads)
            return loss
    def make():
        net = make_net()
        return TrainStep(net, nn.SGD(net.trainable_params(), 0.05)), net
    both(make, data())


class BNUnderIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.out = nn.Dense(6, 3)
        self.drop = nn.Dropout(p=0.2)
    def construct(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = self.bn(h)
        else:
            h = ops.relu(h)
        h = self.drop(h)
        return self.out(h)

class ConditionalLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.ce = nn.CrossEntropyLoss()
        self.margin = 1.0
    def construct(self, x, y):
        logits = self.net(x)
        loss = self.ce(logits, y)
        if loss > self.margin:
            loss = loss + 0.1 * (logits ** 2).mean()
        return loss

class AssignLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.ema = Parameter(Tensor(np.zeros((3,), f32)), name='ema', requires_grad=False)
    def construct(self, x):
        out = self.fc(x)
        i = 0
        while i < 2:
            ops.assign(self.ema, self.ema * 0.9 + out.mean(0) * 0.1)
            i += 1
        return out

class SensTrain(nn.Cell):
    def __init__(self, net, opt):
        super().__init__()
        self.net = net
        self.opt = opt
        self.weights = opt.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.sens = 1.0
    def construct(self, x, y):
        loss = self.net(x, y)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.net, self.weights)(x, y, sens)
        grads = ops.clip_by_global_norm(grads, 0.5)
        cond = ops.isfinite(loss)
        if cond:
            self.opt(grads)
        return loss

def _t6_1():
    def make():
        net = BNUnderIf()
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), nn.Adam(net.trainable_params(), 0.01))
        train.set_train()
        return train, net
    both(make, cls_data())
def _t6_2():
    def make():
        net = BNUnderIf(); net.set_train(False)
        loss = ConditionalLoss(net)
        train = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.05, 0.9))
        return train, net
    both(make, cls_data())
def _t6_3():
    def make():
        net = AssignLoop()
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')), nn.SGD(net.trainable_params(), 0.1))
        return train, net
    both(make, cls_data())
def _t6_4():
    def make():
        net = BNUnderIf(); net.set_train(False)
        wl = ConditionalLoss(net)
        return SensTrain(wl, nn.Adam(net.trainable_params(), 0.01)), net
    both(make, cls_data())
def _t6_5():
    # grad of inputs and weights, grad_position tuple
    def make():
        net = BNUnderIf(); net.set_train(False)
        opt = nn.SGD(net.trainable_params(), 0.1)
        def fwd(x, y):
            out = net(x)
            loss = ops.cross_entropy(out, y)
            return loss
        gf = ms.value_and_grad(fwd, grad_position=0, weights=opt.parameters)
        @ms.jit
        def step(x, y):
            loss, (gx, gw) = gf(x, y)
            opt(gw)
            return loss, gx
        def call(x, y):
            return step.fn(x, y) if ms.get_context('mode') == ms.PYNATIVE_MODE else step(x, y)
        return call, net
    both(make, cls_data())
def _t6_6():
    # ms.grad over a while-loop net w.r.t. input
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)
        def construct(self, x):
            n = 0
            while x.sum() < 10 and n < 5:
                x = self.fc(x) + 1.0
                n += 1
            return x.sum()
    net = Net()
    x = Tensor(R.standard_normal((2, 3)).astype(f32))
    res = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        g = ms.grad(net, grad_position=0, weights=net.trainable_params())(x)
        res.append(g)
    p = compare_results(res[1], res[0]); assert not p, p
def _t6_7():
    # Model.train with control-flow net
    out = []
    data = cls_data()
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode); ms.set_seed(1)
        net = BNUnderIf()
        model = ms.Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={'accuracy'})
        model.train(2, data)
        out.append(model.eval(data))
    assert out[0] == out[1], out



CASES = {
    'tos_gated_momentum': lambda: t_train_one_step(GatedMLP, lambda p: nn.Momentum(p, 0.01, 0.9), lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), cls_data),
    'tos_cnn_adam': lambda: t_train_one_step(CNN, lambda p: nn.Adam(p, 0.01), nn.CrossEntropyLoss, conv_data),
    'tos_rnn_sgd': lambda: t_train_one_step(WhileRNN, lambda p: nn.SGD(p, 0.1), nn.CrossEntropyLoss, seq_data),
    'vag_gated': lambda: t_value_and_grad(GatedMLP, cls_data),
    'vag_rnn_noaux': lambda: t_value_and_grad(WhileRNN, seq_data, has_aux=False, opt=lambda p: nn.Adam(p, 1e-2)),
    'vag_cnn': lambda: t_value_and_grad(CNN, conv_data),
    'gradop_gated': lambda: t_gradop(GatedMLP, cls_data),
    'gradop_rnn': lambda: t_gradop(WhileRNN, seq_data),
}
CASES.update({
    'bn_under_if_adam': _t6_1,
    'conditional_loss': _t6_2,
    'assign_loop': _t6_3,
    'sens_clip_if_update': _t6_4,
    'vag_input_and_weights': _t6_5,
    'grad_while_net': _t6_6,
    'model_train': _t6_7,
})


@pytest.mark.parametrize("name", list(CASES))
def test_training_agrees_step_by_step(name):
    try:
        CASES[name]()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
