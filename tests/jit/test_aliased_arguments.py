"""A Tensor passed in two places of one call (`net(x, x)`, `net(x, [x, y])`) is one value
in the graph, as it is one object in eager Python: `a is b`, `a in [a, c]` and the
cached fast call agree with PYNATIVE mode, and a call with distinct tensors after an
aliased one (or the other way round) takes its own graph."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


class Same(nn.Cell):
    def construct(self, a, b):
        return a is b


class Member(nn.Cell):
    def construct(self, a, items):
        return a in items


class InTuple(nn.Cell):
    def construct(self, pair):
        return pair[0] is pair[1], pair[0] + pair[1]


@ms.jit
def same_fn(a, b, c):
    return a is c, b is c


def _t(v):
    return ms.Tensor(np.full((2, 2), v, np.float32))


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _both(call):
    out = [call()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out.append(call())
    ms.set_context(mode=ms.GRAPH_MODE)
    return out


def test_is_between_arguments_agrees_with_eager_across_calls():
    net = Same()
    x, y = _t(1), _t(0)
    for a, b, want in [(x, y, False), (x, x, True), (x, y, False), (y, y, True), (x, x, True)]:
        assert _both(lambda: net(a, b)) == [want, want]


def test_membership_by_identity_agrees_with_eager():
    net = Member()
    x, y = _t(1), _t(0)
    assert _both(lambda: net(x, [x, y])) == [True, True]
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):   # y == x first: no truth value
        ms.set_context(mode=mode)
        with pytest.raises(ValueError, match="truth value"):
            net(x, (y, x))


def test_a_tuple_holding_one_tensor_twice():
    net = InTuple()
    x = _t(2)
    graph, eager = _both(lambda: net((x, x)))
    assert graph[0] is True and eager[0] is True
    np.testing.assert_array_equal(graph[1].asnumpy(), eager[1].asnumpy())
    assert net((x, _t(2)))[0] is False


def test_jit_functions_too():
    x, y = _t(1), _t(0)
    assert same_fn(x, y, x) == (True, False)
    assert same_fn(x, y, y) == (False, True)
    assert same_fn(x, y, _t(3)) == (False, False)
