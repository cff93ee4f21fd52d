"""One screen of the public surface."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


class AddOne(nn.Cell):
    def construct(self, x):
        return x + 1


def test_tensor_basics():
    t = ms.Tensor([1.0, 2.0])
    assert t.dtype == ms.float32 and t.shape == (2,)
    assert ms.Tensor(3).dtype == ms.int64
    assert str(ms.Tensor(np.array(5, np.int32))) == "5"


def test_cell_both_modes():
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = AddOne()(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = AddOne()
    graph = net(x)
    np.testing.assert_array_equal(eager.asnumpy(), graph.asnumpy())
    assert "Add" in str(net.compile_cache()[0].graph)


def test_jit_function():
    @ms.jit
    def f(x, y):
        return ops.matmul(x, y).sum()
    out = f(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((3, 4), np.float32)))
    assert out.asnumpy() == 24.0
