"""The Cell and Parameter API published models use: to_float (mixed precision: floating
inputs and Parameters cast where the Cell reads them, in both modes, gradients back to the
float32 weights), add_flags(_recursive), set_grad, set_train/phase, cells_and_names,
name_cells, insert_child_to_cell, update_parameters_name, get_parameters;
Parameter.value/clone/set_data/init_data, Tensor.init_data, Tensor.copy and
Tensor(init=...) (also inside graphs)."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.common.initializer import One, Normal
from helpers import run_both

X = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)


class _Half(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4).to_float(ms.float16)
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        h = self.fc(x)
        return self.out(ops.cast(h, ms.float32)), h


def _make():
    ms.set_seed(1)
    return _Half()


def test_to_float_runs_the_cell_in_float16_in_both_modes():
    graph, eager = run_both(_make, ms.Tensor(X))
    h = graph[1]
    assert h.dtype is ms.float16 and graph[0].dtype is ms.float32
    net = _make()
    w = net.fc.weight.asnumpy().astype(np.float16)
    b = net.fc.bias.asnumpy().astype(np.float16)
    want = X.astype(np.float16) @ w.T + b               # float16 all the way, as numpy does
    np.testing.assert_allclose(h.asnumpy().astype(np.float32), want.astype(np.float32),
                               rtol=2e-3, atol=2e-3)
    assert net.fc.weight.dtype is ms.float32             # the weights themselves stay float32
    assert net.fc.get_flags() == {"fp16": True, "fp32": False}


def test_to_float_trains_the_float32_weights_in_both_modes():
    losses = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = _make()

        class Loss(nn.Cell):
            def __init__(self, net):
                super().__init__()
                self.net = net

            def construct(self, x, y):
                return ops.mean((self.net(x)[0] - y) ** 2)
        step = nn.TrainOneStepCell(Loss(net), nn.SGD(net.trainable_params(), 0.1))
        y = ms.Tensor(np.ones((2, 2), np.float32))
        losses[mode] = [float(step(ms.Tensor(X), y).asnumpy()) for _ in range(3)]
        assert net.fc.weight.dtype is ms.float32
        losses[mode].append(net.fc.weight.asnumpy())
    e, g = losses[ms.PYNATIVE_MODE], losses[ms.GRAPH_MODE]
    np.testing.assert_allclose(e[:3], g[:3], rtol=1e-6)
    assert e[0] > e[2]
    np.testing.assert_allclose(e[3], g[3], rtol=1e-6)


def test_to_float_checks_its_type_and_float32_is_plain():
    with pytest.raises(ValueError, match="'dst_type' should be"):
        nn.Dense(2, 2).to_float(ms.int32)
    net = nn.Dense(3, 2).to_float(ms.float32)
    out = net(ms.Tensor(X.astype(np.float16)))       # inputs cast up to float32
    assert out.dtype is ms.float32


def test_flags_train_phase_grad():
    net = _make()
    assert net.phase == "train"                           # MindSpore's initial phase
    assert net.add_flags(defer_inline=True) is net and net.get_flags() == {"defer_inline": True}
    net.add_flags_recursive(amp=1)
    assert all(c.get_flags().get("amp") == 1 for _, c in net.cells_and_names())
    assert net.set_grad() is net and net.requires_grad
    assert net.set_train().phase == "train" and net.fc.training
    assert net.set_train(False).phase == "predict" and not net.out.training
    net.phase = "export"
    assert net.phase == "export"
    flagged = nn.Cell(flags={"x": 2})
    assert flagged.get_flags() == {"x": 2}


def test_cells_names_children_and_parameter_names():
    net = _make()
    assert [n for n, _ in net.cells_and_names()] == ["", "fc", "out"]
    assert list(net.name_cells()) == ["fc", "out"]
    net.insert_child_to_cell("extra", nn.ReLU())
    assert isinstance(net.extra, nn.ReLU) and "extra" in net.name_cells()
    with pytest.raises(TypeError, match="must be a Cell"):
        net.insert_child_to_cell("bad", 3)
    net.update_parameters_name("net.")
    assert [p.name for p in net.get_parameters()] == [
        "net.fc.weight", "net.fc.bias", "net.out.weight", "net.out.bias"]
    assert len(list(net.get_parameters(expand=False))) == 0


class _UsesValueAndCopy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.arange(3, dtype=np.float32)), name="w")

    def construct(self, x):
        before = self.w.value()
        ops.assign(self.w, self.w * 2)
        c = x.copy()
        return before + c, self.w.value() + c


def test_parameter_value_and_tensor_copy_in_both_modes():
    graph, eager = run_both(_UsesValueAndCopy, ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(graph[0].asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(graph[1].asnumpy(), [1, 3, 5])


def test_parameter_and_tensor_helpers():
    p = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="p")
    assert p.init_data() is p
    c = p.clone()
    assert c.name == "p" and c is not p and np.array_equal(c.asnumpy(), p.asnumpy())
    z = p.clone(init="zeros")
    assert np.array_equal(z.asnumpy(), np.zeros((2, 2)))
    p.set_data(ms.Tensor(np.full((2, 2), 3.0, np.float32)))
    assert p.asnumpy()[0, 0] == 3 and c.asnumpy()[0, 0] == 1
    v = p.value()
    assert type(v) is ms.Tensor and np.array_equal(v.asnumpy(), p.asnumpy())
    t = ms.Tensor(dtype=ms.float32, shape=(2, 3), init=One())
    assert t.init_data() is t and np.array_equal(t.asnumpy(), np.ones((2, 3)))
    n = ms.Tensor(dtype=ms.float16, shape=[4, 4], init=Normal(0.02)).init_data()
    assert n.dtype is ms.float16 and 0 < float(np.abs(n.asnumpy()).max()) < 0.2
    k = ms.Tensor(np.arange(3)).copy()
    assert k.dtype is ms.int64 and np.array_equal(k.asnumpy(), [0, 1, 2])
    with pytest.raises(TypeError, match="needs an Initializer, a shape and a dtype"):
        ms.Tensor(dtype=ms.float32, init=One())


class _TupleWeights(nn.Cell):
    """Weights in a ParameterTuple, as the model zoo's hand-written GRU keeps them."""

    def __init__(self):
        super().__init__()
        self.ws = ms.ParameterTuple([
            ms.Parameter(ms.Tensor(np.full((3, 2), 0.5, np.float32)), name="w0"),
            ms.Parameter(ms.Tensor(np.full((2, 2), 0.25, np.float32)), name="w1")])

    def construct(self, x):
        return ops.matmul(ops.matmul(x, self.ws[0]), self.ws[1])


def test_to_float_casts_parameters_held_in_a_parameter_tuple():
    def make():
        return _TupleWeights().to_float(ms.float16)
    graph, eager = run_both(make, ms.Tensor(X))
    assert graph.dtype is ms.float16
    np.testing.assert_allclose(graph.asnumpy(), X @ np.full((3, 2), 0.5) @ np.full((2, 2), 0.25),
                               rtol=3e-3, atol=3e-3)
    net = make()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net(ms.Tensor(X))
    assert all(p.dtype is ms.float32 for p in net.ws)      # restored after the call
