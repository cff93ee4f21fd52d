"""Cell.register_backward_hook (MindSpore 2.10: hook_fn(cell, grad_input, grad_output)
-> None or new grad_input): PYNATIVE gradients run it; graph mode refuses a gradient
through the Cell when it is built."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


def vec(*v):
    return ms.Tensor(np.array(v, np.float32))


class Sq(nn.Cell):
    def construct(self, x):
        return x * x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sq = Sq()

    def construct(self, x):
        return (self.sq(x * 2) * 3).sum()


seen = []


def record(cell, grad_input, grad_output):
    seen.append((type(cell).__name__, [g.asnumpy() for g in grad_input],
                 [g.asnumpy() for g in grad_output]))


def halve(cell, grad_input, grad_output):
    return tuple(g / 2 for g in grad_input)


def test_backward_hook_sees_and_replaces_gradients():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    x = vec(1.0, 2.0)
    seen.clear()
    h = net.sq.register_backward_hook(record)
    g = ms.grad(net)(x)
    # y = sum(3 (2x)^2): grad_output of sq = 3, grad_input (wrt 2x) = 3 * 2 * 2x
    np.testing.assert_allclose(g.asnumpy(), [24.0, 48.0])
    assert len(seen) == 1 and seen[0][0] == "Sq"
    np.testing.assert_allclose(seen[0][2][0], [3.0, 3.0])
    np.testing.assert_allclose(seen[0][1][0], [12.0, 24.0])
    h2 = net.sq.register_backward_hook(halve)
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [12.0, 24.0])
    h2.remove()
    h.remove()
    seen.clear()
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [24.0, 48.0])
    assert seen == []


def test_forward_unchanged_and_no_gradient_no_call():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    seen.clear()
    net.sq.register_backward_hook(record)
    np.testing.assert_allclose(net(vec(1.0, 2.0)).asnumpy(), 60.0)
    assert seen == []


def test_top_level_backward_hook():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Sq()
    net.register_backward_hook(halve)
    g = ms.grad(lambda x: net(x).sum())(vec(1.0, 3.0))
    np.testing.assert_allclose(g.asnumpy(), [1.0, 3.0])


def bad(cell, grad_input, grad_output):
    return grad_input + grad_input     # twice as many


def test_wrong_return_is_a_type_error():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.sq.register_backward_hook(bad)
    with pytest.raises(TypeError, match="backward hook 'bad' of Sq"):
        ms.grad(net)(vec(1.0, 2.0))


def test_graph_mode_refuses():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    net.sq.register_backward_hook(halve)
    with pytest.raises(ms.UnsupportedSyntaxError, match="Cell 'Sq' has backward hooks"):
        ms.grad(net)(vec(1.0, 2.0))
    top = Sq()
    top.register_backward_hook(halve)
    with pytest.raises(ms.UnsupportedSyntaxError, match="PYNATIVE_MODE"):
        ms.grad(top)(vec(1.0, 2.0))
    with pytest.raises(TypeError, match="python function"):
        top.register_backward_hook(None)
