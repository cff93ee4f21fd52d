"""MindSpore's own higher-order gradient tests through control flow (tests/st/control:
test_high_order_control.py, test_control_flow_specialize.py, test_switch_simplify.py),
imports changed, with the numbers their asserts expect; in both modes (PYNATIVE runs
grad(grad(f)) through the compiled gradient graph)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import Tensor
from graphjit.common import dtype
from graphjit.nn import Cell
import graphjit.ops.functional as F
import graphjit.ops.operations as P

BOTH = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


@pytest.fixture(params=BOTH, ids=["graph", "pynative"], autouse=True)
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.GRAPH_MODE)


def test_high_control_while():
    class Net(Cell):
        def construct(self, x):
            while x < 10:
                x = (x * 2)
            return x

    order_grad = F.grad(F.grad(Net()))(Tensor(1, dtype.float32))
    assert order_grad == 0.0


def test_high_control_for_while():
    class Net(Cell):
        def construct(self, x):
            for _ in [2]:
                for _ in [2]:
                    while x > 1:
                        x = (x / 3)
                        x = (x / 2)
                for _ in [2]:
                    x = (x / 1)
                    x = (x + 1)
            for _ in [3]:
                for _ in [4]:
                    x = (x / 1)
                    x = (x + 3)
                for _ in [5]:
                    x = (x / 3)
                    x = (x / 2)
            return x

    assert F.grad(F.grad(Net()))(Tensor(4, dtype.float32)) == 0.0


def test_second_grad_after_for_break_and_if():
    def foo(x):
        out = x
        for e in range(2):
            x = e * out
            if x >= 2:
                break
        if out >= x:
            out = x * out
        return x + out

    grad_foo_2nd = F.grad(F.grad(foo, grad_position=(0,)), grad_position=(0,))
    output = grad_foo_2nd(Tensor(np.array([5], np.int32)))
    assert output[0].asnumpy() == np.array([2], np.int32)


def test_second_grad_of_while_over_for_break():
    def foo(x, y, b, w):
        while b > w:
            for i in range(2):
                b = x + i
                x = i * w
                if b > 3:
                    break
        return x + y

    v = [Tensor(np.array([5], np.int32)) for _ in range(4)]
    output = F.grad(F.grad(foo, grad_position=(0, 1)))(*v)
    assert output[0].asnumpy() == np.array([0], np.int32)


def renorm_join_fail(x, y):
    if x != y:
        x = y - 3
    elif x == 4:
        for _ in range(2):
            if x > 2:
                y = x * x
            elif y >= x:
                x = x * x
    return x + y


def test_second_grad_of_elif_for():
    output = F.grad(F.grad(renorm_join_fail, grad_position=(0, 1)))(
        Tensor(np.array([5], np.int32)), Tensor(np.array([5], np.int32)))
    assert output[0].asnumpy() == np.array([0], np.int32)


def test_switch_simplify_avoid_dead_node():
    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.op = P.Add()

        def construct(self, x, y):
            if y != x:
                x = y - 3
            elif x == 4:
                for r in range(2):
                    x = 1 / y
                    if x > 2:
                        y = y + 3
                        y = y - y
                        y = y * x
                    elif y >= x:
                        x = x * x
                    elif x > y:
                        x = y - r
                    else:
                        y = 2 + x
                    for _ in range(2):
                        x = x * y
                        x = x - 3
                        y = y + 2
                        if x > 3:
                            break
                    if x > 2:
                        break
            elif x == y:
                if y <= x:
                    y = x / 2
                    x = 3 + y
                    x = x * 2
                elif x == 2:
                    x = y * y
                elif x < y:
                    y = 2 * y
                elif x != 2:
                    y = x * y
            while x != 5:
                break
            return self.op(x, y)

    x = np.array([4], np.float32)
    y = np.array([4], np.float32)
    net = Net()
    out = net(Tensor(x), Tensor(y))
    grad_net = F.grad(net, grad_position=(0, 1))
    fgrad = grad_net(Tensor(x), Tensor(y))
    sgrad = F.grad(grad_net)(Tensor(x), Tensor(y))
    assert np.allclose(out.asnumpy(), np.array([-19.75], np.float32))
    assert np.allclose(fgrad[0].asnumpy(), np.array([0.], np.float32))
    assert np.allclose(fgrad[1].asnumpy(), np.array([-2.03125], np.float32))
    assert np.allclose(sgrad.asnumpy(), np.array([0.], np.float32))
