"""MindSpore's amp levels (graphjit.nn.wrap.mixed_precision; amp.auto_mixed_precision,
amp.build_train_network, Model(amp_level=...)): which Cells compute in float16, output
dtypes, unchanged Parameter names, graph and eager mode alike, and training."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import amp, nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.seq = nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 2)])

    def construct(self, x):
        x = self.bn(self.conv(x)).mean((2, 3))
        return self.seq(x)


class OneDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc(x) * 1.0


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _x(seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal((2, 3, 8, 8)).astype(np.float32))


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3"])
def test_levels_keep_names_and_give_float32_in_both_modes(level):
    net = Net()
    names = [p.name for p in net.get_parameters()]
    mixed = amp.auto_mixed_precision(net, level)
    assert [p.name for p in mixed.get_parameters()] == names
    assert all(p.dtype == ms.float32 for p in mixed.get_parameters())   # fp32 weights
    x = _x()
    graph = mixed(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = mixed(x)
    assert graph.dtype == eager.dtype == ms.float32
    np.testing.assert_array_equal(graph.asnumpy(), eager.asnumpy())
    ref = Net()
    ms.load_param_into_net(ref, {p.name: p for p in net.get_parameters()})
    np.testing.assert_allclose(eager.asnumpy(), ref(x).asnumpy(), rtol=2e-2, atol=2e-2)


def test_o1_computes_the_white_list_in_float16_and_casts_back():
    net = amp.auto_mixed_precision(OneDense(), "O1")
    x = ms.Tensor(np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32))
    out = net(x)
    assert out.dtype == ms.float32
    w, b = net.fc._backbone.weight.asnumpy(), net.fc._backbone.bias.asnumpy()
    half = (x.asnumpy().astype(np.float16) @ w.T.astype(np.float16) + b.astype(np.float16))
    np.testing.assert_allclose(out.asnumpy(), half.astype(np.float32), rtol=1e-3, atol=1e-3)
    assert not np.array_equal(out.asnumpy(), x.asnumpy() @ w.T + b)      # not float32


def test_o2_keeps_batchnorm_in_float32():
    net = Net()
    amp.auto_mixed_precision(net, "O2")
    assert net.bn._backbone.__dict__["_mixed_precision"] is ms.float32
    assert net.conv.__dict__["_mixed_precision"] is ms.float16


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_build_train_network_trains_at_each_level(mode, level):
    ms.set_context(mode=mode)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = amp.build_train_network(net, opt, nn.MSELoss(), level=level)
    step.set_train()
    x, y = _x(2), ms.Tensor(np.zeros((2, 2), np.float32))
    def loss():
        out = step(x, y)            # a loss-scale cell gives (loss, overflow, scale)
        return float((out[0] if isinstance(out, tuple) else out).asnumpy())
    # O2's dynamic loss scale starts at 2**24: float16 gradients overflow and the steps
    # are skipped (the loss stays) until the scale has halved enough
    losses = [loss() for _ in range(30 if level == "O2" else 6)]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]
    if level == "O2":
        assert losses[1] == losses[0] and float(step.scale_sense.asnumpy()) < 2.0 ** 24
    assert all(p.dtype == ms.float32 for p in net.trainable_params())
    assert (level == "O2") == isinstance(step, nn.TrainOneStepWithLossScaleCell)


def test_model_amp_level_trains_and_saves_the_same_names(tmp_path):
    net = Net()
    names = sorted(p.name for p in net.get_parameters())
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01), amp_level="O3")
    batches = [(_x(i), ms.Tensor(np.zeros((2, 2), np.float32))) for i in range(3)]
    model.train(1, batches)
    ms.save_checkpoint(net, str(tmp_path / "n.ckpt"))
    assert sorted(ms.load_checkpoint(str(tmp_path / "n.ckpt"))) == names


def test_custom_lists_and_errors():
    assert amp.get_white_list() is not amp.get_white_list()
    assert nn.Dense in amp.get_white_list() and nn.BatchNorm2d in amp.get_black_list()
    net = amp.custom_mixed_precision(OneDense(), white_list=[nn.Dense])
    assert net(ms.Tensor(np.ones((1, 4), np.float32))).dtype == ms.float32
    with pytest.raises(ValueError, match="one of white_list and black_list"):
        amp.custom_mixed_precision(OneDense())
    with pytest.raises(ValueError, match="at the same time"):
        amp.custom_mixed_precision(OneDense(), white_list=[nn.Dense], black_list=[nn.ReLU])
    with pytest.raises(TypeError, match="should be a class"):
        amp.custom_mixed_precision(OneDense(), white_list=[nn.Dense(2, 2)])
    with pytest.raises(ValueError, match="not supported"):
        amp.auto_mixed_precision(OneDense(), "O4")
    with pytest.raises(TypeError, match="Cell"):
        amp.auto_mixed_precision(ops.add, "O2")
    with pytest.raises(ValueError, match="Unsupported arg"):
        amp.build_train_network(OneDense(), nn.SGD(OneDense().trainable_params()),
                                level="O2", cast_type=ms.float16)


def test_with_eval_cell_casts_a_float16_networks_outputs_to_float32():
    net = amp.auto_mixed_precision(OneDense(), "O3")._backbone      # float16 outputs
    x = ms.Tensor(np.ones((2, 4), np.float32))
    assert net(x).dtype == ms.float16
    label = ms.Tensor(np.zeros((2, 3), np.float16))
    loss, out, lab = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(x, label)
    assert out.dtype == lab.dtype == loss.dtype == ms.float32
    assert nn.WithEvalCell(net, nn.MSELoss())(x, label)[1].dtype == ms.float16
