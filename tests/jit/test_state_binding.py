"""The generated StateBinding.resolve and the written-out guard on a Parameter tuple
(jit.bindings, jit.entry): a training step binds the Parameters its sources give now,
exactly as the general code does, and recompiles when they no longer fit."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from graphjit.jit.bindings import StateBinding
from graphjit.jit.cache import _cache_for
from graphjit.jit.entry import MISS


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return (self.fc(x) ** 2).mean()


def _step():
    ms.set_seed(0)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(net, opt)
    return net, opt, step


def _entry(step):
    return _cache_for(step, type(step).construct).order[-1]


X = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)


@pytest.fixture(autouse=True)
def _graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield


def _same(a, b):
    return (a is None and b is None) or (a is not None and b is not None and
                                         len(a) == len(b) and all(p is q for p, q in zip(a, b)))


def test_the_generated_resolve_agrees_with_the_general_one():
    net, opt, step = _step()
    step(X)
    state = _entry(step).state
    assert "resolve" in state.__dict__          # written out for this binding
    general = lambda: StateBinding.resolve(state)   # noqa: E731
    assert _same(state.resolve(), general()) and state.resolve() is not None
    w = net.fc.weight
    # a new Parameter of the same type in both places: bound in the old one's stead
    fresh = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="w2")
    net.fc.weight = fresh
    assert state.resolve() is None and general() is None      # the sources disagree
    opt._parameters = ms.ParameterTuple([fresh] + list(opt._parameters)[1:])
    got = state.resolve()
    assert _same(got, general()) and got[0] is fresh
    net.fc.weight = ms.Parameter(ms.Tensor(np.ones((3, 3), np.float32)), name="w3")
    assert state.resolve() is None and general() is None      # another shape
    net.fc.weight = w
    opt._parameters = ms.ParameterTuple([w] + list(opt._parameters)[1:])
    assert _same(state.resolve(), general()) and state.resolve()[0] is w
    opt.moments = ms.ParameterTuple([opt.moments[1], opt.moments[1]])   # a wrong item
    assert state.resolve() is None and general() is None
    opt.moments = ()                                          # an item out of range
    assert state.resolve() is None and general() is None


def test_a_training_step_binds_new_parameters_and_recompiles_for_new_types():
    net, opt, step = _step()
    eager_net, eager_opt, eager_step = _step()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for _ in range(2):
        eager_step(X)
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(2):
        step(X)
    assert all(np.array_equal(p.asnumpy(), q.asnumpy())
               for p, q in zip(net.trainable_params(), eager_net.trainable_params()))
    cache = _cache_for(step, type(step).construct)
    assert cache.last is not None and cache.last((X,)) is not MISS
    # the optimizer's tuple holds a Parameter of another shape, or one item fewer: the
    # written-out guard on the tuple refuses the fast call (the general path decides)
    kept = opt._parameters
    bigger = ms.Parameter(ms.Tensor(np.zeros((2, 4), np.float32)), name="big")
    opt._parameters = ms.ParameterTuple([bigger] + list(kept)[1:])
    assert cache.last((X,)) is MISS
    opt._parameters = ms.ParameterTuple(list(kept)[:1])
    assert cache.last((X,)) is MISS
    opt._parameters = kept
    assert cache.last((X,)) is not MISS
    assert "_guards_hold" not in cache.last.source      # every guard written out


class WithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        return (self.net(x) ** 2).mean()


def test_the_guard_on_a_cells_sub_cells_is_written_out_and_checked():
    ms.set_seed(0)
    inner = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    wl = WithLoss(inner)
    step = nn.TrainOneStepCell(wl, nn.Momentum(wl.trainable_params(), 0.1, 0.9))
    step(X)
    cache = _cache_for(step, type(step).construct)
    entry = cache.order[-1]
    assert any(g[2] == "cells" for g in entry.guards)
    fast = cache.last
    assert fast is not None and "_guards_hold" not in fast.source and "_cells" in fast.source
    assert fast((X,)) is not MISS
    kept = dict(inner._cells)
    inner._cells.clear()                    # other sub-Cells (none): the guard fails
    inner._cells.update({k: kept[k] for k in reversed(list(kept))})   # another order
    assert fast((X,)) is MISS
    inner._cells.clear()
    inner._cells.update(kept)
    assert fast((X,)) is not MISS
    wl.net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    assert fast((X,)) is MISS               # another Cell in the attribute
