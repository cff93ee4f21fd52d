"""mindspore.mint (graphjit.mint): PyTorch-spelled functions and mint.nn layers, as
mindcv's newer models use them (googlenet's mint.nn.Conv2d / MaxPool2d(ceil_mode) /
Linear / Dropout, DropPath's mint.nn.Dropout and mint.mul). Parameter names are
PyTorch's (weight, bias, running_mean, running_var); both modes give the same values."""
from __future__ import annotations

import importlib
import os
import sys

import numpy as np
import pytest

import graphjit as ms
from graphjit import mint, nn, ops

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def _conv_ref(x, w, b, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + (0 if b is None else b[None, :, None, None])


class Block(nn.Cell):
    """conv (PyTorch padding) + relu + ceil-mode max pool, two branches joined by
    mint.cat, then flatten and a Linear head."""

    def __init__(self):
        super().__init__()
        self.conv = mint.nn.Conv2d(3, 4, 3, stride=1, padding=1, bias=False)
        self.bn = mint.nn.BatchNorm2d(4)
        self.relu = mint.nn.ReLU()
        self.pool = mint.nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)
        self.side = mint.nn.Conv2d(3, 2, 1)
        self.side_pool = mint.nn.AvgPool2d(kernel_size=3, stride=2, ceil_mode=True)
        self.drop = mint.nn.Dropout(p=0.0)
        self.fc = mint.nn.Linear(6 * 4 * 4, 5)

    def construct(self, x):
        a = self.pool(self.relu(self.bn(self.conv(x))))
        b = self.side_pool(self.side(x))
        y = mint.cat((a, b), dim=1)
        y = mint.flatten(y, start_dim=1)
        return self.fc(self.drop(y))


def test_parameter_names_are_pytorch_names():
    net = Block()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["conv.weight", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
                     "side.weight", "side.bias", "fc.weight", "fc.bias"]
    assert [p.name for p in net.get_parameters()] == names
    trainable = [p.name for p in net.trainable_params()]
    assert "bn.running_mean" not in trainable and "bn.weight" in trainable
    assert net.conv.bias is None and net.conv.weight.shape == (4, 3, 3, 3)


@pytest.mark.parametrize("mode", MODES)
def test_conv2d_matches_reference(mode):
    ms.set_context(mode=mode)
    conv = mint.nn.Conv2d(3, 4, 3, stride=2, padding=1)
    x = _rand(2, 3, 7, 7)
    y = conv(ms.Tensor(x)).asnumpy()
    ref = _conv_ref(x, conv.weight.asnumpy(), conv.bias.asnumpy(), 2, 1)
    assert y.shape == (2, 4, 4, 4)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_conv2d_same_and_reflect_padding(mode):
    ms.set_context(mode=mode)
    x = _rand(1, 2, 5, 5)
    same = mint.nn.Conv2d(2, 3, 3, padding="same", bias=False)
    assert same(ms.Tensor(x)).shape == (1, 3, 5, 5)
    refl = mint.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect", bias=False)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    np.testing.assert_allclose(refl(ms.Tensor(x)).asnumpy(),
                               _conv_ref(xp, refl.weight.asnumpy(), None, 1, 0),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="padding_mode"):
        mint.nn.Conv2d(2, 3, 3, padding_mode="mirror")


@pytest.mark.parametrize("mode", MODES)
def test_max_pool_ceil_mode_and_default_stride(mode):
    ms.set_context(mode=mode)
    x = _rand(1, 1, 6, 6)
    y = mint.nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)(ms.Tensor(x)).asnumpy()
    assert y.shape == (1, 1, 3, 3)        # floor mode gives 2 x 2
    assert y[0, 0, 2, 2] == x[0, 0, 4:, 4:].max()
    z = mint.nn.MaxPool2d(2)(ms.Tensor(x)).asnumpy()   # stride defaults to kernel_size
    np.testing.assert_array_equal(z, x.reshape(1, 1, 3, 2, 3, 2).max(axis=(3, 5)))


@pytest.mark.parametrize("mode", MODES)
def test_batch_norm_pytorch_momentum(mode):
    ms.set_context(mode=mode)
    bn = mint.nn.BatchNorm2d(3, momentum=0.1)
    x = _rand(4, 3, 2, 2)
    bn.set_train()
    y = bn(ms.Tensor(x)).asnumpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, (x - mean[None, :, None, None]) /
                               np.sqrt(var[None, :, None, None] + 1e-5), rtol=1e-4, atol=1e-5)
    n = x.size // 3
    np.testing.assert_allclose(bn.running_mean.asnumpy(), 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.asnumpy(), 0.9 + 0.1 * var * n / (n - 1),
                               rtol=1e-5)
    bn.set_train(False)
    rm, rv = bn.running_mean.asnumpy(), bn.running_var.asnumpy()
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy(),
                               (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_dropout_identity_in_eval_and_scaled_in_training(mode):
    ms.set_context(mode=mode)
    d = mint.nn.Dropout(p=0.5)
    x = ms.Tensor(np.ones((200,), np.float32))
    assert np.array_equal(d(x).asnumpy(), np.ones(200))     # a new Cell is not training
    d.set_train()
    vals = set(np.unique(d(x).asnumpy()).tolist())
    assert vals <= {0.0, 2.0} and vals == {0.0, 2.0}


def test_functions_use_pytorch_spellings():
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert mint.flatten(x).shape == (24,)                   # start_dim defaults to 0
    assert mint.transpose(x, 0, 2).shape == (4, 3, 2)
    assert mint.permute(x, (2, 0, 1)).shape == (4, 2, 3)
    assert mint.sum(x, dim=1, keepdim=True).shape == (2, 1, 4)
    assert mint.mean(x, dim=[1, 2]).shape == (2,)
    v, i = mint.max(x, dim=2)
    np.testing.assert_array_equal(v.asnumpy(), x.asnumpy().max(axis=2))
    np.testing.assert_array_equal(i.asnumpy(), np.full((2, 3), 3))
    assert float(mint.max(x).asnumpy()) == 23.0
    assert mint.cat([x, x], dim=2).shape == (2, 3, 8)
    np.testing.assert_array_equal(mint.add(x, x, alpha=2).asnumpy(), 3 * x.asnumpy())
    np.testing.assert_array_equal(mint.mul(x, 0.5).asnumpy(), 0.5 * x.asnumpy())
    assert mint.zeros(2, 3).shape == (2, 3) and mint.ones((4,)).shape == (4,)
    v, i = mint.topk(x, 2, dim=2)
    assert i.dtype == ms.int64 and i.asnumpy().tolist()[0][0] == [3, 2]
    assert mint.sort(x, dim=1, descending=True)[1].dtype == ms.int64
    assert mint.argmax(x, dim=2).dtype == ms.int64
    idx = ms.Tensor(np.array([[0, 2], [1, 0]], np.int64))
    np.testing.assert_array_equal(
        mint.gather(ms.Tensor(np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)), 1, idx)
        .asnumpy(), [[1., 3.], [5., 4.]])


def _train_once(mode):
    ms.set_context(mode=mode)
    ms.set_seed(5)
    net = Block()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    x = ms.Tensor(_rand(2, 3, 8, 8, seed=3))
    y = ms.Tensor(np.array([1, 4], np.int32))
    first = float(step(x, y).asnumpy())
    second = float(step(x, y).asnumpy())
    return first, second, {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def test_training_step_same_in_both_modes():
    g = _train_once(ms.GRAPH_MODE)
    e = _train_once(ms.PYNATIVE_MODE)
    assert g[0] == pytest.approx(e[0], rel=1e-6) and g[1] == pytest.approx(e[1], rel=1e-6)
    assert g[1] < g[0]
    for k in g[2]:
        np.testing.assert_allclose(g[2][k], e[2][k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert np.any(g[2]["bn.running_mean"] != 0)     # the training step updated the stats


def test_checkpoint_round_trip_keeps_pytorch_names(tmp_path):
    net = Block()
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint(net, path)
    params = ms.load_checkpoint(path)
    assert "bn.running_var" in params and "fc.bias" in params
    other = Block()
    assert ms.load_param_into_net(other, params)[0] == []
    for (n, a), (_, b) in zip(net.parameters_and_names(), other.parameters_and_names()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=n)


def test_module_paths_under_the_mindspore_alias():
    saved = {k: v for k, v in sys.modules.items() if k == "mindspore" or k.startswith("mindspore.")}
    try:
        sys.modules["mindspore"] = ms
        from mindspore import mint as m            # noqa: WPS433
        fn = importlib.import_module("mindspore.mint.nn.functional")
        assert m is mint and fn is mint.nn.functional
        assert importlib.import_module("mindspore.mint.nn").Conv2d is mint.nn.Conv2d
    finally:
        for k in [k for k in sys.modules if k == "mindspore" or k.startswith("mindspore.")]:
            del sys.modules[k]
        sys.modules.update(saved)


@pytest.mark.parametrize("mode", MODES)
def test_functional_matches_layers(mode):
    ms.set_context(mode=mode)
    F = mint.nn.functional
    x = ms.Tensor(_rand(2, 3, 6, 6))
    conv = mint.nn.Conv2d(3, 2, 3, padding=1)
    np.testing.assert_allclose(F.conv2d(x, conv.weight, conv.bias, padding=1).asnumpy(),
                               conv(x).asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(F.max_pool2d(x, 2).asnumpy(),
                                  mint.nn.MaxPool2d(2)(x).asnumpy())
    np.testing.assert_allclose(F.avg_pool2d(x, 2).asnumpy(),
                               x.asnumpy().reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)),
                               rtol=1e-6)
    lin = mint.nn.Linear(6, 4)
    np.testing.assert_allclose(F.linear(x, lin.weight, lin.bias).asnumpy(), lin(x).asnumpy(),
                               rtol=1e-6)
    assert F.dropout(x, 0.3, training=False) is x


@pytest.mark.parametrize("mode", MODES)
def test_more_functions_and_layers(mode):
    ms.set_context(mode=mode)
    F = mint.nn.functional
    x = np.array([[3., 4.], [0., 0.]], np.float32)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = mint.nn.Embedding(5, 2, padding_idx=0)
            self.act = mint.nn.PReLU()

        def construct(self, idx, v):
            e = self.emb(idx)
            n = F.normalize(v, dim=1)
            return self.act(e - 10.0), n, mint.baddbmm(mint.zeros(1, 2, 2), v.reshape(1, 2, 2),
                                                     v.reshape(1, 2, 2), alpha=2)

    net = Net()
    idx = ms.Tensor(np.array([0, 3], np.int32))
    e, n, b = net(idx, ms.Tensor(x))
    w = net.emb.weight.asnumpy()
    assert not w[0].any()                                      # the padding row
    np.testing.assert_allclose(e.asnumpy(), np.where(w[[0, 3]] - 10 > 0, w[[0, 3]] - 10,
                                                     0.25 * (w[[0, 3]] - 10)), rtol=1e-6)
    np.testing.assert_allclose(n.asnumpy(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy()[0], 2 * x @ x, rtol=1e-6)
    assert [p.name for p in net.get_parameters()] == ["emb.weight", "act.weight"]


def test_more_function_values():
    F = mint.nn.functional
    oh = F.one_hot(ms.Tensor(np.array([0, 2], np.int64)), 3)
    assert oh.dtype == ms.int64
    np.testing.assert_array_equal(oh.asnumpy(), [[1, 0, 0], [0, 0, 1]])
    assert float(mint.dot(ms.Tensor(np.array([1., 2.], np.float32)),
                          ms.Tensor(np.array([3., 4.], np.float32))).asnumpy()) == 11.0
    x = ms.Tensor(np.array([[3., 4.], [0., 0.]], np.float32))
    # mint's smooth_l1_loss reduces by mean by default (ops.smooth_l1_loss: 'none')
    assert float(F.smooth_l1_loss(x, x * 0).asnumpy()) == pytest.approx((2.5 + 3.5) / 4)
    loss = mint.nn.SmoothL1Loss(reduction="sum")
    assert float(loss(x, x * 0).asnumpy()) == pytest.approx(6.0)
    np.testing.assert_array_equal(mint.flip(x, [0]).asnumpy(), x.asnumpy()[::-1])
