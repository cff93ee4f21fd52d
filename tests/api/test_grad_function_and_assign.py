"""mindspore.ops.functional.grad (ops.grad, F.grad, ms.grad: one function, MindSpore 2.x's
signature grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False)) and
get_grad; Assign / ops.assign with MindSpore 2.10's shape rule (AssignFuncImpl): the
value has the variable's shape, or one is [1] and the other a scalar; both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
import graphjit.ops.functional as F

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(autouse=True)
def _graph_mode_after():
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([2.0, -1.0], np.float32)), name="w")

    def construct(self, x, y, z):
        return (x * y * z * self.w).sum()


X = ms.Tensor(np.array([1.0, 2.0], np.float32))
Y = ms.Tensor(np.array([-2.0, 3.0], np.float32))
Z = ms.Tensor(np.array([0.0, 3.0], np.float32))


def test_one_grad_everywhere():
    assert ops.grad is F.grad is ms.grad
    assert ops.value_and_grad is F.value_and_grad is ms.value_and_grad
    assert ops.get_grad is F.get_grad is ms.get_grad


@pytest.mark.parametrize("mode", MODES)
def test_grad_signature(mode):
    ms.set_context(mode=mode)
    net = Net()
    dx = F.grad(net)(X, Y, Z)                      # grad_position=0
    np.testing.assert_allclose(dx.asnumpy(), [0.0, -9.0])
    dy, dz = F.grad(net, (1, 2))(X, Y, Z)
    np.testing.assert_allclose(dy.asnumpy(), [0.0, -6.0])
    np.testing.assert_allclose(dz.asnumpy(), [-4.0, -6.0])
    (dx,), (dw,) = F.grad(net, (0,), net.trainable_params())(X, Y, Z)
    np.testing.assert_allclose(dw.asnumpy(), [0.0, 18.0])

    def with_aux(x):
        return (x * x).sum(), x + 1
    g, aux = ops.grad(with_aux, 0, has_aux=True)(X)
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose(aux[0].asnumpy(), [2.0, 3.0])


@pytest.mark.parametrize("mode", MODES)
def test_return_ids_and_get_grad(mode):
    ms.set_context(mode=mode)
    net = Net()
    out = F.grad(net, grad_position=(1, 2), return_ids=True)(X, Y, Z)
    assert [k for k, _ in out] == [1, 2]
    np.testing.assert_allclose(ms.get_grad(out, 1).asnumpy(), [0.0, -6.0])
    both = ms.grad(net, (0,), net.trainable_params(), return_ids=True)(X, Y, Z)
    (pos,), (wgt,) = both
    assert pos[0] == 0 and wgt[0] == "w"
    np.testing.assert_allclose(ms.get_grad(both, net.w).asnumpy(), [0.0, 18.0])
    single = ms.grad(net, 0, return_ids=True)(X, Y, Z)
    assert single[0] == 0
    with pytest.raises(RuntimeError, match="no gradient for 5"):
        ms.get_grad(out, 5)
    v, g = ms.value_and_grad(net, 1, return_ids=True)(X, Y, Z)
    assert float(v.asnumpy()) == pytest.approx(-18.0) and g[0] == 1


# -- Assign ---------------------------------------------------------------------------------
class SetScalar(nn.Cell):
    def __init__(self, shape):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.zeros(shape, np.int32)), name="p")
        self.assign = ops.Assign()

    def construct(self, v):
        self.assign(self.p, v)
        return self.p + 0


class SetAttr(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.array(0, np.int32)), name="p")

    def construct(self, v):
        self.p = v
        ops.assign_add(self.p, v)
        return self.p + 0


@pytest.mark.parametrize("mode", MODES)
def test_a_one_element_value_fits_a_scalar_and_back(mode):
    ms.set_context(mode=mode)
    net = SetScalar(())
    out = net(ms.Tensor(np.array([7], np.int32)))            # [1] into a 0-d Parameter
    assert net.p.shape == () and int(net.p.asnumpy()) == 7 and out.shape == ()
    net = SetScalar((1,))
    net(ms.Tensor(np.array(5, np.int32)))                    # a scalar into [1]
    assert net.p.asnumpy().tolist() == [5]
    net = SetAttr()
    net(ms.Tensor(np.array([3], np.int32)))
    assert net.p.shape == () and int(net.p.asnumpy()) == 6
    p = ms.Parameter(ms.Tensor(np.array(1.0, np.float32)), name="q")
    F.assign(p, ms.Tensor(np.array([2.5], np.float32)))
    assert p.shape == () and float(p.asnumpy()) == 2.5


@pytest.mark.parametrize("mode", MODES)
def test_other_shapes_are_refused_as_mindspore_does(mode):
    ms.set_context(mode=mode)
    net = SetScalar((3,))
    with pytest.raises(ValueError, match=r"'value' must have the same shape as 'variable'. But "
                                         r"got 'value' shape: \(1,\), 'variable' shape: \(3,\)"):
        net(ms.Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError, match="'value' must have the same rank as 'variable'"):
        SetScalar((3,))(ms.Tensor(np.array(1, np.int32)))
    with pytest.raises(ValueError, match="same rank"):
        SetScalar(())(ms.Tensor(np.array([1, 2], np.int32)))
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="r")
    with pytest.raises(ValueError, match="same rank"):
        F.assign_add(p, ms.Tensor(np.array(1.0, np.float32)))
    assert p.asnumpy().tolist() == [0.0, 0.0, 0.0]
