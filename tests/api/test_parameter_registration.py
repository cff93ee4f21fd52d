"""Every Parameter a Cell holds is registered, and named, as MindSpore 2.10 does it:
ParameterTuple items under their own names, Parameter.name the full path once the
Parameter is set on a Cell with auto_prefix (`blocks.0.fc.weight`, `bn.moving_mean`),
CellList/SequentialCell positions, auto_prefix=False, shared Parameters; a graph that
reads a Parameter no Cell registers is an error naming the attribute (issue 18)."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit import Parameter, ParameterTuple, Tensor

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(autouse=True)
def _graph_mode_after():
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def P(v, name=None):
    return Parameter(Tensor(np.asarray(v, np.float32)), name=name)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
        self.ws = ParameterTuple([P([1.0, 2.0], "w0"), P([0.5, -1.0], "w1")])

    def construct(self, x):
        return self.fc(x) * self.ws[0] + self.ws[1]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block(), Block()])
        self.bn = nn.BatchNorm1d(2)

    def construct(self, x):
        for b in self.blocks:
            x = b(x)
        return self.bn(x)


NAMES = ["blocks.0.w0", "blocks.0.w1", "blocks.0.fc.weight", "blocks.0.fc.bias",
         "blocks.1.w0", "blocks.1.w1", "blocks.1.fc.weight", "blocks.1.fc.bias",
         # MindSpore's _BatchNorm sets moving_mean and moving_variance before gamma, beta
         "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"]


def test_names_are_mindspores():
    net = Net()
    assert [k for k, _ in net.parameters_and_names()] == NAMES
    assert [p.name for p in net.get_parameters()] == NAMES
    assert [p.name for p in net.trainable_params()] == [n for n in NAMES if "moving" not in n]
    assert list(net.parameters_dict()) == NAMES
    net.check_names()
    # a Cell on its own: the layer's own names (BatchNorm's "mean", "variance")
    assert [p.name for p in nn.BatchNorm1d(2).get_parameters()] == \
        ["mean", "variance", "gamma", "beta"]


def test_a_parameter_tuple_in_a_sub_cell():
    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([Block()])

    names = [p.name for p in Outer().trainable_params()]
    assert names[:2] == ["blocks.0.w0", "blocks.0.w1"]


def test_auto_prefix_explicit_names_containers_and_sharing():
    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = P([1.0], "my_w")           # an explicit name: the path replaces it
            self.v = P([2.0])                   # no name: the attribute's

    inner = Inner()
    assert [p.name for p in inner.get_parameters()] == ["my_w", "v"]

    class NoPrefix(nn.Cell):
        def __init__(self, inner):
            super().__init__(auto_prefix=False)
            self.inner = inner

    class Top(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Inner()
            self.b = NoPrefix(Inner())
            self.seq = nn.SequentialCell(OrderedDict([("first", Inner()), ("second", Inner())]))

    top = Top()
    assert [p.name for p in top.get_parameters()] == [
        "a.w", "a.v", "b.inner.w", "b.inner.v", "seq.first.w", "seq.first.v",
        "seq.second.w", "seq.second.v"]
    # a CellList attached to a Cell keeps its prefix for what is appended later
    top.lst = nn.CellList([Inner()])
    top.lst.append(Inner())
    top.lst.insert(0, Inner())
    assert [p.name for p in top.lst.get_parameters()] == [
        "lst.0.w", "lst.0.v", "lst.1.w", "lst.1.v", "lst.2.w", "lst.2.v"]

    # one Parameter in two Cells: listed once, named by the last Cell that took it
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(2, 2)
            self.dec = nn.Dense(2, 2)
            self.dec.weight = self.enc.weight
    tied = Tied()
    ws = [p for p in tied.get_parameters() if p is tied.enc.weight]
    assert len(ws) == 1 and len(tied.trainable_params()) == 3


def test_wrappers_keep_the_networks_names():
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    names = [p.name for p in step.get_parameters()]
    assert names[:len(NAMES) - 2] == [n for n in NAMES if "moving" not in n]
    assert "moments.blocks.0.w0" in names and "bn.moving_mean" in names
    assert len(names) == len(set(names))


@pytest.mark.parametrize("mode", MODES)
def test_a_parameter_tuple_is_trained(mode):
    ms.set_context(mode=mode)
    net = Net()
    opt = nn.SGD(net.trainable_params(), 0.5)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    step.set_train()
    x = Tensor(np.array([[1.0, 2.0], [0.5, -1.0]], np.float32))
    before = [p.asnumpy().copy() for p in (net.blocks[0].ws[0], net.blocks[1].ws[0])]
    step(x, Tensor(np.zeros((2, 2), np.float32)))
    after = [p.asnumpy() for p in (net.blocks[0].ws[0], net.blocks[1].ws[0])]
    assert all(not np.array_equal(a, b) for a, b in zip(before, after))


@pytest.mark.parametrize("mode", MODES)
def test_graphs_give_the_same_gradients_for_the_tuple(mode):
    ms.set_context(mode=mode)
    net = Block()
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    grads = ms.grad(net, None, net.trainable_params())(x)
    # y = (x W^T + b) * w0 + w1, W ones: x W^T = [3, 3]
    np.testing.assert_allclose(grads[0].asnumpy(), [3.0, 3.0])
    np.testing.assert_allclose(grads[1].asnumpy(), [1.0, 1.0])


def test_checkpoint_names_and_load(tmp_path):
    net = Net()
    ms.save_checkpoint(net, str(tmp_path / "n.ckpt"))
    params = ms.load_checkpoint(str(tmp_path / "n.ckpt"))
    assert list(params) == NAMES
    fresh = Net()
    fresh.blocks[1].ws[0].set_data(Tensor(np.zeros(2, np.float32)))
    assert ms.load_param_into_net(fresh, params) == ([], [])
    np.testing.assert_array_equal(fresh.blocks[1].ws[0].asnumpy(), [1.0, 2.0])


def test_duplicate_names_in_a_parameter_tuple_are_refused():
    class Dup(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = ParameterTuple([P([1.0], "w"), P([2.0], "w")])
    with pytest.raises(ValueError, match="two Parameters named 'w'"):
        Dup()


def test_a_graph_reading_an_unregistered_parameter_is_an_error():
    class Hidden(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = [P([1.0, 2.0], "a"), P([3.0, 4.0], "b")]

        def construct(self, x):
            return x * self.ws[0] + self.ws[1]

    net = Hidden()
    assert net.trainable_params() == []           # as MindSpore: a list registers nothing
    with pytest.raises(ms.UnregisteredParameterError, match=r"self\.ws\[0\]") as e:
        net(Tensor(np.ones(2, np.float32)))
    assert "ParameterTuple" in str(e.value) and e.value.loc is not None

    class Listed(nn.Cell):                        # the same Parameters, registered too
        def __init__(self):
            super().__init__()
            self.a = P([1.0, 2.0])
            self.ws = [self.a]

        def construct(self, x):
            return x * self.ws[0]
    np.testing.assert_array_equal(Listed()(Tensor(np.ones(2, np.float32))).asnumpy(), [1, 2])
