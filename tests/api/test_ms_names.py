"""The MindSpore spellings real code uses: ops.functional (F.depend, F.make_tuple,
F.tuple_getitem, F.assign), ops.operations.TensorAdd, ops.composite.GradOperation, and
a LeNet-style model from the common layers, with `mindspore` aliased to graphjit."""
import sys

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ops import composite as C
from graphjit.ops import functional as F
from graphjit.ops import operations as P
from helpers import run_both


@pytest.fixture
def mindspore_alias(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", ms)
    monkeypatch.setitem(sys.modules, "mindspore.nn", ms.nn)
    monkeypatch.setitem(sys.modules, "mindspore.ops", ms.ops)


class FunctionalNames(nn.Cell):
    def __init__(self):
        super().__init__()
        self.add = P.TensorAdd()

    def construct(self, x, y):
        pair = F.make_tuple(self.add(x, y), x * y)
        s = F.tuple_getitem(pair, 0)
        s = F.depend(s, F.tuple_getitem(pair, 1))
        return s, F.tuple_getitem(pair, 1), F.shape(s), F.dtype(s) == ms.float32


def test_functional_names_in_both_modes():
    x = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
    y = ms.Tensor(np.array([[3.0], [4.0]], np.float32))
    graph, eager = run_both(FunctionalNames, x, y)
    np.testing.assert_array_equal(eager[0].asnumpy(), [[4.0, 5.0], [5.0, 6.0]])
    np.testing.assert_array_equal(eager[1].asnumpy(), [[3.0, 6.0], [4.0, 8.0]])
    assert eager[2] == graph[2] == (2, 2) and eager[3] is True and graph[3] is True
    assert ops.TensorAdd is P.TensorAdd and issubclass(P.TensorAdd, ops.Add)
    assert P.MakeTuple()(1, 2) == (1, 2) and P.TupleGetItem()((1, 2), 1) == 2


def test_functional_assign_updates_a_parameter_in_eager_mode():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="p")
    out = F.assign(p, ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    assert out is p and p.asnumpy().tolist() == [1.0, 2.0, 3.0]
    F.assign_add(p, ms.Tensor(np.ones(3, np.float32)))
    assert p.asnumpy().tolist() == [2.0, 3.0, 4.0]


class TrainStep(nn.Cell):
    """What training code looks like: the GradOperation is made in __init__."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = C.GradOperation(get_by_list=True)

    def construct(self, x):
        return self.grad(self.net, [])(x)


def test_grad_operation_imports_and_runs():
    step = TrainStep(nn.ReLU())
    assert repr(step.grad) == "GradOperation(get_all=False, get_by_list=True, sens_param=False)"
    assert ops.GradOperation is C.GradOperation
    x = ms.Tensor(np.ones(2, np.float32))
    assert step(x) == ()                                  # GRAPH_MODE: no weights, no grads
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert step(x) == ()


@pytest.mark.usefixtures("mindspore_alias")
def test_mindspore_import_spellings():
    from mindspore.ops import composite as C2, functional as F2, operations as P2
    import mindspore.nn as nn2
    assert C2.GradOperation is C.GradOperation and F2.depend is F.depend
    assert P2.TensorAdd is P.TensorAdd and P2.Conv2D is ops.Conv2D and P2.TopK is ops.TopK
    for name in ["Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Flatten",
                 "Dropout", "Embedding", "LayerNorm", "GELU"]:
        assert issubclass(getattr(nn2, name), nn2.Cell), name
    for name in ["topk", "sort", "gather_elements", "unique", "batch_dot", "dropout",
                 "layer_norm", "conv2d", "max_pool2d", "avg_pool2d", "batch_norm"]:
        assert callable(getattr(F2, name)) and getattr(ops, name) is getattr(F2, name), name


class LeNet(nn.Cell):
    """MindSpore's LeNet5 (model zoo), with a BatchNorm and a Dropout."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(p=0.3)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.bn1(self.conv1(x))))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.dropout(self.relu(self.fc1(x)))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def test_lenet_forward_in_both_modes():
    ms.set_seed(2)
    net = LeNet()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 1, 32, 32)).astype(np.float32))
    graph, eager = run_both(lambda: net, x)
    assert eager.shape == (2, 10) and eager.dtype is ms.float32
    ops_used = {n.op for n in net.compile_cache()[0].graph.nodes}
    assert {"Conv2D", "BatchNorm", "MaxPool", "MatMul"} <= ops_used
    assert "Dropout" not in ops_used                      # inference: the identity
