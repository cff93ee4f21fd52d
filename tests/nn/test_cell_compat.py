"""Cell methods model-zoo code calls (graphjit/common/cell_compat.py) and MindSpore's
Parameter attributes (graphjit/common/parameter.py)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.body = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])

    def construct(self, x):
        return self.body(self.dense(x))


def test_init_parameters_data_maps_each_parameter_to_itself():
    net = Net()
    replace = net.init_parameters_data()
    params = list(net.get_parameters())
    assert len(replace) == len(params) == 4
    assert all(replace[p] is p for p in params)


def test_init_parameters_data_then_set_data_as_mobilenet_does():
    net = Net()
    net.init_parameters_data()
    for _, m in net.cells_and_names():
        if isinstance(m, nn.Dense):
            m.weight.set_data(ms.Tensor(np.full(m.weight.data.shape, 0.5, np.float32)))
            m.bias.set_data(ms.numpy.zeros(m.bias.data.shape, dtype="float32"))
    out = net(ms.Tensor(np.ones((1, 3), np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[1.5, 1.5]])


def test_cls_name_and_broadcast_dict():
    net = Net()
    assert net.cls_name == "Net"
    d = net.parameters_broadcast_dict()
    assert list(d) == ["dense.weight", "dense.bias", "body.0.weight", "body.0.bias"]
    assert nn.ReLU().parameters_broadcast_dict() is None


def test_recompute_keeps_values_and_marks_flags():
    net = Net()
    x = ms.Tensor(np.random.rand(2, 3).astype(np.float32))
    before = net(x).asnumpy()
    net.body.recompute()
    assert net.body.get_flags()["recompute"] is True
    assert net.body.cells()[0].get_flags()["recompute"] is True
    np.testing.assert_array_equal(net(x).asnumpy(), before)
    with pytest.raises(TypeError):
        net.recompute(mp_comm_recompute=1)


def test_scope_and_prefix():
    net = Net()
    net.generate_scope()
    assert net.body.get_scope() == "Default/body"
    net.update_cell_prefix()
    assert net.body.cells()[0].param_prefix == "body.0"


def test_parameter_takes_mindspore_attributes_and_any_other():
    p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w", layerwise_parallel=True,
                     parallel_optimizer=False)
    assert p.comm_fusion == 1 and p.layerwise_parallel and not p.parallel_optimizer
    assert p.inited_param is None and p.is_init is False
    p.comm_fusion = 3
    p.my_tag = "x"
    assert (p.comm_fusion, p.my_tag) == (3, "x")
    q = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="q")
    assert q.comm_fusion == 1


def test_set_comm_fusion_sets_every_parameter():
    net = Net()
    net.set_comm_fusion(2)
    assert {p.comm_fusion for p in net.get_parameters()} == {2}
    assert net.set_boost("O1") is net


def test_batchnorm_parameters_in_mindspore_order():
    """MindSpore's _BatchNorm sets moving_mean, moving_variance, gamma, beta (named mean,
    variance, gamma, beta until a parent prefixes them by path): get_parameters() and
    checkpoints list them in that order."""
    assert [p.name for p in nn.BatchNorm2d(3).get_parameters()] == \
        ["mean", "variance", "gamma", "beta"]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 3, 3)
            self.bn1 = nn.BatchNorm2d(3)

    assert [p.name for p in Net().get_parameters()] == [
        "conv.weight", "bn1.moving_mean", "bn1.moving_variance", "bn1.gamma", "bn1.beta"]
    assert [p.name for p in Net().trainable_params()] == ["conv.weight", "bn1.gamma", "bn1.beta"]
