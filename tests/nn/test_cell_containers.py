"""CellList and SequentialCell as MindSpore's: append, extend, insert, item assignment
and deletion, slices; Cell.insert_child_to_cell, parameters_dict and apply. A container
changed after a graph was compiled is seen by the next call (the graph is rebuilt)."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(2)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
            if x.sum() > 100:
                x = x * 0.5
        return x


def _x():
    return ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)


def _eager(net, x):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    return out


def test_celllist_insert_setitem_delitem_renumber_like_a_list():
    a, b, c, d = (nn.Dense(3, 3) for _ in range(4))
    cl = nn.CellList([a, b])
    cl.insert(0, nn.ReLU())
    cl.insert(-1, c)
    assert [type(x).__name__ for x in cl] == ["ReLU", "Dense", "Dense", "Dense"]
    assert cl[2] is c and cl[-1] is b and list(cl._cells) == ["0", "1", "2", "3"]
    cl[0] = d
    assert cl[0] is d and len(cl) == 4
    del cl[1]
    assert list(cl) == [d, c, b] and list(cl._cells) == ["0", "1", "2"]
    del cl[-2:]
    assert list(cl) == [d]
    cl.extend([a, b])
    assert list(cl) == [d, a, b] and isinstance(cl[1:], nn.CellList)
    with pytest.raises(IndexError):
        cl[3]
    with pytest.raises(TypeError, match="holds Cells"):
        cl[0] = 3


def test_sequentialcell_keeps_names_and_numbers_positions():
    seq = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    seq.append(nn.Tanh())
    seq.insert(1, nn.Sigmoid())
    assert list(seq._cells) == ["fc", "1", "act", "2"]
    seq[1] = nn.ReLU6()
    assert type(seq[1]).__name__ == "ReLU6" and list(seq._cells)[1] == "1"
    del seq[0]
    assert list(seq._cells) == ["1", "act", "2"] and not hasattr(seq, "fc")
    plain = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU())
    plain.insert(0, nn.Tanh())
    plain.extend([nn.Sigmoid()])
    assert list(plain._cells) == ["0", "1", "2", "3"]
    assert isinstance(plain[1:3], nn.SequentialCell) and len(plain[1:3]) == 2


def test_a_container_changed_after_compiling_is_seen_by_the_next_call():
    net = Stack()
    x = _x()
    ms.set_context(mode=ms.GRAPH_MODE)
    first = net(x).asnumpy()
    np.testing.assert_allclose(first, _eager(net, x), rtol=1e-6)
    net.layers.insert(1, nn.ReLU())
    second = net(x).asnumpy()
    np.testing.assert_allclose(second, _eager(net, x), rtol=1e-6)
    del net.layers[0]
    net.layers[0] = nn.Dense(3, 3)
    np.testing.assert_allclose(net(x).asnumpy(), _eager(net, x), rtol=1e-6)


def test_insert_child_to_cell_parameters_dict_and_apply():
    net = nn.Cell()
    net.insert_child_to_cell("fc", nn.Dense(2, 3))
    assert isinstance(net.fc, nn.Dense)
    assert list(net.parameters_dict()) == ["fc.weight", "fc.bias"]
    with pytest.raises(KeyError):
        net.insert_child_to_cell("a.b", nn.ReLU())
    seen = []
    net.apply(lambda c: seen.append(type(c).__name__))
    assert seen == ["Dense", "Cell"]


def test_an_inserted_cell_never_takes_the_name_of_another():
    seq = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 2)), ("1", nn.ReLU())]))
    seq.insert(1, nn.Tanh())
    assert len(seq) == 3 and len(set(seq._cells)) == 3
    assert [type(c).__name__ for c in seq] == ["Dense", "Tanh", "ReLU"]


def test_sequentialcell_changed_after_compiling_is_rebuilt_and_explained():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.SequentialCell([nn.Dense(3, 3), nn.ReLU()])

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.body = net

        def construct(self, x):
            return self.body(x)
    outer, x = Outer(), _x()
    outer(x)
    net.append(nn.Dense(3, 2))
    assert outer(x).shape == (2, 2)
    entries = outer.compile_cache()
    assert len(entries) == 2 and "sub-Cells of Outer.body changed" in entries[1].reason


def test_an_integer_tensor_picks_a_cell_in_both_modes():
    class Experts(nn.Cell):
        def __init__(self):
            super().__init__()
            self.experts = nn.CellList([nn.Dense(3, 3) for _ in range(3)])
            self.seq = nn.SequentialCell([nn.Dense(3, 3), nn.ReLU()])

        def construct(self, x, k):
            return self.experts[k](x) + self.seq[k - 1](x)
    net, x, k = Experts(), _x(), ms.Tensor(1, ms.int32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x, k).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x, k).asnumpy(), eager, rtol=1e-6)
    with pytest.raises(TypeError, match="indices must be ints"):
        net.experts[1.0]
