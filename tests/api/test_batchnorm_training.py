"""BatchNorm in training mode as MindSpore 2.10: the moving statistics are updated once
per training step (TrainOneStepCell, value_and_grad under @jit, Model.train), and
moving_variance takes the batch's unbiased variance (n / (n - 1)) while the
normalization uses the biased one. Numbers from MindSpore 2.10 (issue 18) and a numpy
reference of MindSpore's update rules."""
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


X01 = np.array([[0.0], [2.0]], np.float32)


def _stats(bn):
    return bn.moving_mean.asnumpy().tolist(), bn.moving_variance.asnumpy().tolist()


def _close(got, want):
    np.testing.assert_allclose(np.array(got, np.float64), want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_the_issue_example(mode):
    ms.set_context(mode=mode)
    bn = nn.BatchNorm1d(1, momentum=0.9)
    bn.set_train()
    y = bn(ms.Tensor(X01))
    m, v = _stats(bn)
    _close(m, [0.1])
    _close(v, [1.1])          # unbiased: var([0, 2]) = 2, not 1
    # the normalization itself takes the biased variance: (x - 1) / sqrt(1 + eps)
    np.testing.assert_allclose(y.asnumpy(), [[-1 / np.sqrt(1 + 1e-5)], [1 / np.sqrt(1 + 1e-5)]],
                               rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_one_update_per_train_one_step(mode):
    ms.set_context(mode=mode)
    bn = nn.BatchNorm1d(1, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(bn, nn.MSELoss()),
                               nn.SGD(bn.trainable_params(), 0.0))
    step.set_train()
    step(ms.Tensor(X01), ms.Tensor(np.zeros((2, 1), np.float32)))
    m, v = _stats(bn)
    _close(m, [0.1])          # 0.19 when the forward ran twice
    _close(v, [1.1])


@pytest.mark.parametrize("mode", MODES)
def test_one_update_per_value_and_grad_under_jit_and_in_model_train(mode):
    ms.set_context(mode=mode)
    bn = nn.BatchNorm1d(1, momentum=0.9)
    bn.set_train()
    vg = ms.value_and_grad(bn, None, bn.trainable_params())

    @ms.jit
    def step(x):
        return vg(x)

    step(ms.Tensor(X01))
    _close(_stats(bn)[0], [0.1])
    _close(_stats(bn)[1], [1.1])

    bn = nn.BatchNorm1d(1, momentum=0.9)
    model = ms.Model(bn, nn.MSELoss(), nn.SGD(bn.trainable_params(), 0.0))
    model.train(1, [(X01, np.zeros((2, 1), np.float32))])
    _close(_stats(bn)[0], [0.1])
    _close(_stats(bn)[1], [1.1])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layer,shape", [(nn.BatchNorm1d, (4, 3, 5)),
                                         (nn.BatchNorm2d, (4, 3, 2, 3)),
                                         (nn.BatchNorm3d, (2, 3, 2, 2, 3))])
def test_every_batchnorm_layer(mode, layer, shape):
    ms.set_context(mode=mode)
    x = np.random.default_rng(3).normal(size=shape).astype(np.float32)
    bn = layer(3, momentum=0.8)
    bn.set_train()
    bn(ms.Tensor(x))
    axes = (0,) + tuple(range(2, len(shape)))
    n = x.size // 3
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.2 * x.mean(axes), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(),
                               0.8 + 0.2 * x.var(axes) * n / (n - 1), rtol=1e-5)


def test_a_batch_size_known_only_at_run_time():
    bn = nn.BatchNorm2d(2, momentum=0.5)
    bn.set_train()
    bn.set_inputs(ms.Tensor(shape=[None, 2, 2, 2], dtype=ms.float32))
    x = np.arange(24, dtype=np.float32).reshape(3, 2, 2, 2) % 5
    bn(ms.Tensor(x))
    n = 12
    np.testing.assert_allclose(bn.moving_variance.asnumpy(),
                               0.5 + 0.5 * x.var((0, 2, 3)) * n / (n - 1), rtol=1e-6)


def test_the_primitive_and_the_function():
    for mode in MODES:
        ms.set_context(mode=mode)
        mean = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="m")
        var = ms.Parameter(ms.Tensor(np.ones(1, np.float32)), name="v")
        ops.batch_norm(ms.Tensor(X01), mean, var, ms.Tensor([1.0]), ms.Tensor([0.0]),
                       training=True, momentum=0.1)
        _close(mean.asnumpy(), [0.1])
        _close(var.asnumpy(), [1.1])


# -- a small CNN trained 3 steps against numpy ----------------------------------------------------
class Net(nn.Cell):
    def __init__(self, w_conv, w_dense, b_dense):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="valid", weight_init=ms.Tensor(w_conv))
        self.bn = nn.BatchNorm2d(2, momentum=0.9)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(18, 3, weight_init=ms.Tensor(w_dense), bias_init=ms.Tensor(b_dense))

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.bn(self.conv(x)))))


def _im2col(x, k):
    n, c, h, w = x.shape
    oh, ow = h - k + 1, w - k + 1
    cols = np.empty((n, oh * ow, c * k * k))
    for i in range(oh):
        for j in range(ow):
            cols[:, i * ow + j] = x[:, :, i:i + k, j:j + k].reshape(n, -1)
    return cols, oh, ow


def _reference(xs, ts, wc, wd, bd, lr, mom, steps):
    """MindSpore's rules in float64 numpy: conv (valid, no bias), BatchNorm2d in training
    (biased variance normalizes, unbiased goes into moving_variance, momentum 0.9), ReLU,
    Dense, MSELoss; Momentum: accum = mom * accum + g; p -= lr * accum."""
    p = {"wc": wc.astype(np.float64), "gamma": np.ones(2), "beta": np.zeros(2),
         "wd": wd.astype(np.float64), "bd": bd.astype(np.float64)}
    acc = {k: np.zeros_like(v) for k, v in p.items()}
    mm, mv = np.zeros(2), np.ones(2)
    losses = []
    eps = 1e-5
    for s in range(steps):
        x, t = xs[s].astype(np.float64), ts[s].astype(np.float64)
        cols, oh, ow = _im2col(x, 3)
        n = x.shape[0]
        y = (cols @ p["wc"].reshape(2, -1).T).transpose(0, 2, 1).reshape(n, 2, oh, ow)
        mu = y.mean((0, 2, 3))
        var = y.var((0, 2, 3))
        m = n * oh * ow
        rstd = 1 / np.sqrt(var + eps)
        yhat = (y - mu[None, :, None, None]) * rstd[None, :, None, None]
        z = yhat * p["gamma"][None, :, None, None] + p["beta"][None, :, None, None]
        a = np.maximum(z, 0)
        f = a.reshape(n, -1)
        out = f @ p["wd"].T + p["bd"]
        losses.append(np.mean((out - t) ** 2))
        mm = mm * 0.9 + mu * 0.1
        mv = mv * 0.9 + var * m / (m - 1) * 0.1
        dout = 2 * (out - t) / out.size
        g = {"wd": dout.T @ f, "bd": dout.sum(0)}
        dz = (dout @ p["wd"]).reshape(a.shape) * (z > 0)
        g["gamma"] = (dz * yhat).sum((0, 2, 3))
        g["beta"] = dz.sum((0, 2, 3))
        dyh = dz * p["gamma"][None, :, None, None]
        dy = rstd[None, :, None, None] / m * (
            m * dyh - dyh.sum((0, 2, 3))[None, :, None, None]
            - yhat * (dyh * yhat).sum((0, 2, 3))[None, :, None, None])
        dyc = dy.reshape(n, 2, -1).transpose(0, 2, 1)           # (n, P, O)
        g["wc"] = np.einsum("npo,npk->ok", dyc, cols).reshape(p["wc"].shape)
        for k in p:
            acc[k] = mom * acc[k] + g[k]
            p[k] = p[k] - lr * acc[k]
    return losses, mm, mv, p


@pytest.mark.parametrize("mode", MODES)
def test_conv_batchnorm_dense_three_steps_against_numpy(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    wc = rng.normal(size=(2, 1, 3, 3)).astype(np.float32) * 0.5
    wd = rng.normal(size=(3, 18)).astype(np.float32) * 0.3
    bd = rng.normal(size=3).astype(np.float32) * 0.1
    xs = rng.normal(size=(3, 4, 1, 5, 5)).astype(np.float32)
    ts = rng.normal(size=(3, 4, 3)).astype(np.float32)
    net = Net(wc, wd, bd)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    step.set_train()
    losses = [float(step(ms.Tensor(xs[s]), ms.Tensor(ts[s])).asnumpy()) for s in range(3)]
    r_losses, mm, mv, p = _reference(xs, ts, wc, wd, bd, 0.1, 0.9, 3)
    np.testing.assert_allclose(losses, r_losses, rtol=1e-5)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), mm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bn.moving_variance.asnumpy(), mv, rtol=1e-5)
    np.testing.assert_allclose(net.conv.weight.asnumpy(), p["wc"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(net.bn.gamma.asnumpy(), p["gamma"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(net.bn.beta.asnumpy(), p["beta"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(net.fc.weight.asnumpy(), p["wd"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(net.fc.bias.asnumpy(), p["bd"], rtol=1e-4, atol=1e-6)
