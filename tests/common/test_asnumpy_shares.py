"""Tensor.asnumpy() shares the tensor's memory, as MindSpore 2.10 documents (its example:
y = x.asnumpy(); y[0] = 11 shows in x), without letting a write reach another tensor, a
graph's constant or a Parameter; a graph that folded the tensor sees the writes."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def test_mindspores_example_a_write_into_the_array_is_a_write_into_the_tensor():
    x = ms.Tensor(np.array([1, 2], dtype=np.float32))
    y = x.asnumpy()
    y[0] = 11
    assert x.asnumpy().tolist() == [11.0, 2.0] and str(x) == "[11.  2.]"
    x[1] = 7                                   # and the other way round
    assert y.tolist() == [11.0, 7.0]
    assert x.asnumpy() is y


def test_a_view_of_another_tensor_is_copied_before_it_is_shared():
    base = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for part in (base[0], base.reshape(3, 2), base[:, 1]):
        part.asnumpy()[...] = -1
        assert part.asnumpy().min() == -1
    assert base.asnumpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_shared_small_values_stay_as_they_were():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a = ms.Tensor(np.array(2, np.int32)) + 1          # a 0-d int result: a shared array
    b = ms.Tensor(np.array(1, np.int32)) + 2
    a.asnumpy()[()] = 40
    assert int(a) == 40 and int(b) == 3
    assert int(ms.Tensor(np.array(2, np.int32)) + 1) == 3


def test_a_parameter_gives_a_copy():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    q = p.asnumpy()
    q[0] = 5
    assert p.asnumpy().tolist() == [1.0, 1.0]


class WithConstant(nn.Cell):
    def __init__(self):
        super().__init__()
        self.t = ms.Tensor(np.array([1.0, 2.0], np.float32))

    def construct(self, a):
        return a + self.t


class ReturnsConstant(nn.Cell):
    def __init__(self):
        super().__init__()
        self.t = ms.Tensor(np.array([1.0, 2.0], np.float32))

    def construct(self, a):
        return self.t


@pytest.mark.parametrize("expose_first", [False, True])
def test_a_graph_that_folded_the_tensor_sees_writes_through_the_array(expose_first):
    net, a = WithConstant(), ms.Tensor(np.zeros(2, np.float32))
    arr = net.t.asnumpy() if expose_first else None
    assert net(a).asnumpy().tolist() == [1.0, 2.0]
    if arr is None:
        arr = net.t.asnumpy()                 # handed out after the graph was built
    arr[0] = 100
    assert net(a).asnumpy().tolist() == [100.0, 2.0]
    arr[1] = -3
    assert net(a).asnumpy().tolist() == [100.0, -3.0]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert net(a).asnumpy().tolist() == [100.0, -3.0]


def test_writing_into_a_graph_output_leaves_the_next_call_alone():
    net, a = ReturnsConstant(), ms.Tensor(np.zeros(2, np.float32))
    net(a).asnumpy()[0] = 99
    assert net(a).asnumpy().tolist() == [1.0, 2.0]
    assert net.t.asnumpy().tolist() == [1.0, 2.0]


def test_a_graph_sees_writes_into_the_array_of_from_numpy():
    data = np.array([1.0, 2.0], np.float32)
    net, a = WithConstant(), ms.Tensor(np.zeros(2, np.float32))
    net.t = ms.Tensor.from_numpy(data)
    assert net(a).asnumpy().tolist() == [1.0, 2.0]
    data[0] = 50                               # the caller's own array
    assert net(a).asnumpy().tolist() == [50.0, 2.0]
