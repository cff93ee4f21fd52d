"""The Cell fast call (jit.entry) for a tuple or list of Tensors as an argument (an
optimizer called on gradients) and for a tuple of Tensors as the result: taken after
the first call, refused for another structure, and giving eager mode's bits."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from graphjit.jit import cache as cache_mod
from graphjit.jit.cache import _cache_for
from graphjit.jit.entry import MISS


class Scale(nn.Cell):
    def construct(self, xs, k):
        return tuple(x * k for x in xs)


def _last(net):
    return _cache_for(net, type(net).construct).last


@pytest.fixture(autouse=True)
def _graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _bits(out):
    return [(str(t.dtype), t.shape, t.asnumpy().tobytes()) for t in out]


@pytest.mark.parametrize("seq", [tuple, list])
def test_a_sequence_of_tensors_takes_the_fast_call(seq, monkeypatch):
    net = Scale()
    a = ms.Tensor(np.array([1.5, -2.0], np.float32))
    b = ms.Tensor(np.arange(6, dtype=np.float64).reshape(2, 3))
    first = net(seq([a, b]), 3.0)
    fast = _last(net)
    assert fast is not None and "_seq0" in fast.source
    def refuse(*a, **k):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(cache_mod, "_fast_key", refuse)
    again = net(seq([a, b]), 3.0)
    assert type(again) is tuple and _bits(again) == _bits(first)
    monkeypatch.undo()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert _bits(net(seq([a, b]), 3.0)) == _bits(again)
    ms.set_context(mode=ms.GRAPH_MODE)
    other = tuple if seq is list else list
    for args in ((seq([a]), 3.0), (seq([a, a]), 3.0), (other([a, b]), 3.0), (seq([a, b]), 2.0),
                 (seq([a, b.astype(ms.float32)]), 3.0), (seq([a, ms.Tensor(np.ones(3))]), 3.0),
                 (seq([a, 1.0]), 3.0)):
        assert fast(args) is MISS, args
    got = net(seq([a, a]), 2.0)                 # the general path: a new entry
    assert _bits(got) == _bits((a * 2.0, a * 2.0))


def test_an_optimizer_called_on_gradients_matches_eager_mode():
    def run(mode):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.Dense(3, 2)
        opt = nn.SGD(net.trainable_params(), 0.1, momentum=0.9)
        grads = tuple(ms.Tensor(np.full(p.shape, 0.5, np.float32)) for p in opt.parameters)
        for _ in range(3):
            opt(grads)
        return [p.asnumpy().tobytes() for p in net.trainable_params()], opt
    graph, opt = run(ms.GRAPH_MODE)
    assert _last(opt) is not None
    eager, _ = run(ms.PYNATIVE_MODE)
    assert graph == eager
