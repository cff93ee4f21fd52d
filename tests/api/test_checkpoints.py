"""ms.save_checkpoint, ms.load_checkpoint and ms.load_param_into_net as MindSpore
training scripts use them: save after some steps, load into a fresh net (also one
already compiled), and the loaded net gives the same outputs in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 5)
        self.bn = nn.BatchNorm1d(5)
        self.fc2 = nn.Dense(5, 2)

    def construct(self, x):
        h = self.bn(self.fc1(x))
        if h.sum() > 0:
            h = ops.relu(h)
        return self.fc2(h)


X = np.random.default_rng(2).standard_normal((6, 4)).astype(np.float32)
Y = np.array([0, 1, 1, 0, 1, 0], np.int32)


def test_save_train_load_round_trip(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    for _ in range(2):
        step(ms.Tensor(X), ms.Tensor(Y))
    net.set_train(False)
    want = net(ms.Tensor(X)).asnumpy()
    ms.save_checkpoint(net, str(tmp_path / "lenet"))
    assert (tmp_path / "lenet.ckpt").exists()

    ms.set_seed(2)
    fresh = Net()
    fresh.set_train(False)
    before = fresh(ms.Tensor(X)).asnumpy()          # compiled with the old weights
    params = ms.load_checkpoint(str(tmp_path / "lenet.ckpt"))
    assert list(params) == [n for n, _ in net.parameters_and_names()]
    assert "bn.moving_mean" in params and isinstance(params["fc1.weight"], ms.Parameter)
    not_loaded, unused = ms.load_param_into_net(fresh, params)
    assert not_loaded == [] and unused == []
    got = fresh(ms.Tensor(X)).asnumpy()
    assert not np.allclose(before, want)
    np.testing.assert_array_equal(got, want)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(fresh(ms.Tensor(X)).asnumpy(), want, rtol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE)


def test_filters_append_dict_lists_and_mismatches(tmp_path):
    net = Net()
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint([{"name": "fc2.weight", "data": net.fc2.weight},
                        {"name": "extra", "data": ms.Tensor([1.0])}], path,
                       append_dict={"epoch": 3})
    p = ms.load_checkpoint(path, filter_prefix="extra")
    assert list(p) == ["fc2.weight", "epoch"] and int(p["epoch"].asnumpy()) == 3
    assert list(ms.load_checkpoint(path, specify_prefix="fc")) == ["fc2.weight"]
    other = Net()
    not_loaded, unused = ms.load_param_into_net(other, ms.load_checkpoint(path))
    assert "fc1.weight" in not_loaded and "fc2.weight" not in not_loaded
    assert unused == ["extra", "epoch"]
    np.testing.assert_array_equal(other.fc2.weight.asnumpy(), net.fc2.weight.asnumpy())
    with pytest.raises(RuntimeError, match=r"should have the same shape as fc2.weight"):
        ms.load_param_into_net(other, {"fc2.weight": ms.Tensor(np.zeros((3, 3), np.float32))})
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))
    loaded = Net()
    ms.load_checkpoint(path, net=loaded)
    np.testing.assert_array_equal(loaded.fc2.weight.asnumpy(), net.fc2.weight.asnumpy())
