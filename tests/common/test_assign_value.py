"""Tensor.assign_value and Parameter.assign_value (MindSpore: the tensor takes value's
data, dtype and shape, in place, and is returned); refused inside compiled functions."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


def test_tensor_assign_value_replaces_data_dtype_shape():
    a = ms.Tensor(np.zeros((2, 2), np.float32))
    b = ms.Tensor(np.array([1, 2, 3], np.int32))
    out = a.assign_value(b)
    assert out is a
    assert a.dtype == ms.int32 and a.shape == (3,)
    np.testing.assert_array_equal(a.asnumpy(), [1, 2, 3])
    a[0] = 9                                 # the data was copied: b keeps its own
    np.testing.assert_array_equal(b.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(a.asnumpy(), [9, 2, 3])
    np.testing.assert_array_equal((a + 1).asnumpy(), [10, 3, 4])


def test_tensor_assign_value_type_error():
    a = ms.Tensor(np.zeros(2, np.float32))
    for bad in (np.ones(2, np.float32), [1.0, 2.0], 3.0):
        with pytest.raises(TypeError, match="Tensor"):
            a.assign_value(bad)
    np.testing.assert_array_equal(a.asnumpy(), [0.0, 0.0])


def test_parameter_assign_value():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    assert p.assign_value(ms.Tensor(np.array([4.0, 5.0], np.float32))) is p
    np.testing.assert_array_equal(p.asnumpy(), [4.0, 5.0])
    p.assign_value(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float64)))
    assert p.dtype == ms.float64 and p.shape == (3,)
    with pytest.raises(TypeError):
        p.assign_value(np.zeros(3))


class Uses(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")

    def construct(self, x):
        return x * self.w


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_parameter_assign_value_seen_by_next_call(mode):
    ms.set_context(mode=mode)
    net = Uses()
    x = ms.Tensor(np.array([2.0, 3.0], np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), [2.0, 3.0])
    net.w.assign_value(ms.Tensor(np.array([10.0, 0.5], np.float32)))
    np.testing.assert_array_equal(net(x).asnumpy(), [20.0, 1.5])
    net.w.assign_value(ms.Tensor(np.array([1.0, 2.0], np.float64)))   # dtype follows
    out = net(x)
    assert out.dtype == ms.float64
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 6.0])


class AssignsTensor(nn.Cell):
    def construct(self, x):
        y = x * 2
        y.assign_value(x)
        return y


class AssignsParam(Uses):
    def construct(self, x):
        self.w.assign_value(x)
        return self.w + 1


def test_graph_mode_refuses_with_hint():
    x = ms.Tensor(np.ones(2, np.float32))
    with pytest.raises(ms.UnsupportedSyntaxError, match="assign_value") as e:
        AssignsTensor()(x)
    assert "y.assign_value(x)" in str(e.value)
    net = AssignsParam()
    with pytest.raises(ms.UnsupportedSyntaxError, match="Parameter 'w'") as e:
        net(x)
    assert "ops.assign" in str(e.value)
    np.testing.assert_array_equal(net.w.asnumpy(), [1.0, 1.0])     # left as it was


def test_pynative_runs_assign_value_in_construct():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(AssignsTensor()(x).asnumpy(), [1.0, 2.0])


def test_assign_value_under_gradient():
    ms.set_context(mode=ms.PYNATIVE_MODE)

    def f(x, y):
        t = x * 3
        t.assign_value(y * y)
        return (t + x).sum()
    gx, gy = ms.grad(f, grad_position=(0, 1))(ms.Tensor(np.array([1.0, 2.0], np.float32)),
                                             ms.Tensor(np.array([3.0, 4.0], np.float32)))
    np.testing.assert_allclose(gx.asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(gy.asnumpy(), [6.0, 8.0])
