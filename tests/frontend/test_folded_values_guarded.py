"""Python values a graph folds (module variables, a closure's lists and dicts, a Cell's
list and dict attributes) are guarded: when the user changes one between calls, graph
mode builds again and answers as eager mode reads the new value, never from the value
the graph was built with."""
import warnings

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.cache import cache_of

SCALE = 2.0
TABLE = [1.0, 2.0]
NESTED = {"w": [1.0, 2.0]}


@pytest.fixture(autouse=True)
def _graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _x():
    return ms.Tensor(np.ones(2, np.float32))


def _both(net, expect):
    """Graph mode's answer, then eager mode's, each equal to expect."""
    ms.set_context(mode=ms.GRAPH_MODE)
    g = net(_x()).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    e = net(_x()).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(g, np.full(2, expect, np.float32))


class UsesGlobals(nn.Cell):
    def construct(self, x):
        return x * SCALE + x * TABLE[1] + x * NESTED["w"][0]


def test_module_variables_rebound_or_changed_in_place_are_read_again():
    global SCALE
    net = UsesGlobals()
    try:
        _both(net, 2 + 2 + 1)
        SCALE = 5.0
        _both(net, 5 + 2 + 1)
        TABLE[1] = 7.0
        _both(net, 5 + 7 + 1)
        NESTED["w"][0] = 3.0                 # inside a list inside a dict
        _both(net, 5 + 7 + 3)
    finally:
        SCALE, TABLE[1], NESTED["w"][0] = 2.0, 2.0, 1.0


class UsesAttributes(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scales = [3.0, 4.0]
        self.table = {"a": 1.0}

    def construct(self, x):
        return x * self.scales[1] + x * self.table["a"]


def test_list_and_dict_attributes_changed_in_place_are_read_again():
    net = UsesAttributes()
    _both(net, 4 + 1)
    net.scales[1] = 20.0
    _both(net, 20 + 1)
    net.table["a"] = 5.0
    _both(net, 20 + 5)
    net.scales = [0.0, 1.0]                  # a new list in its place
    _both(net, 1 + 5)


def test_a_closure_list_changed_in_place_is_read_again():
    weights = [2.0]

    @ms.jit
    def f(x):
        return x * weights[0]

    assert f(_x()).asnumpy().tolist() == [2.0, 2.0]
    weights[0] = 9.0
    assert f(_x()).asnumpy().tolist() == [9.0, 9.0]


def test_unchanged_folded_values_build_once():
    net = UsesAttributes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # warn_recompile would raise
        ms.set_context(warn_recompile=True)
        try:
            for _ in range(3):
                net(_x())
        finally:
            ms.set_context(warn_recompile=False)
    assert len(cache_of(net)) == 1


def test_a_list_changed_on_every_call_keeps_one_graph():
    net = UsesAttributes()
    for i in range(4):
        net.scales[1] = float(i)
        _both(net, i + 1)
    assert len(cache_of(net)) == 1


WEIGHT = ms.Tensor(np.ones((2, 2), np.float32))


class UsesTensors(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Tensor(np.ones((2, 2), np.float32))

    def construct(self, x):
        return ops.matmul(x, self.w) + ops.matmul(x, WEIGHT)


def test_tensors_written_in_place_are_read_again():
    net = UsesTensors()
    x = ms.Tensor(np.ones((1, 2), np.float32))

    def both():
        ms.set_context(mode=ms.GRAPH_MODE)
        g = net(x).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        e = net(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_array_equal(g, e)
        return g.tolist()

    try:
        assert both() == [[4.0, 4.0]]
        net.w[0, 0] = 5.0                    # the attribute's tensor, in place
        assert both() == [[8.0, 4.0]]
        WEIGHT[1, 1] = 3.0                   # a module variable's tensor, in place
        assert both() == [[8.0, 6.0]]
    finally:
        WEIGHT[1, 1] = 1.0
