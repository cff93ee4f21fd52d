"""A gradient step's fast call (jit.grad_entry): after a call, the gradient function
runs the entry's generated call first; anything it does not take (another
signature, keyword arguments, PYNATIVE mode, check_equivalence, a changed guard)
goes down the general path, so results are eager mode's bits either way."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import context, nn
from graphjit.ir.errors import GraphRuntimeError


class Lin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2.0
        self.seen = 0
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.b = ms.Parameter(ms.Tensor(np.float32(0.5)), name="b")

    def construct(self, x, i):
        self.seen = 1
        y = x * self.w * self.k + self.b
        return (y * y).mean() + y[i]


def _bits(out):
    loss, grads = out
    return [loss.asnumpy().tobytes()] + [g.asnumpy().tobytes() for g in grads] + \
        [str(loss.dtype)] + [str(g.dtype) for g in grads]


def _eager(net, *args):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return ms.value_and_grad(net, None, net.trainable_params())(*args)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


@pytest.fixture(autouse=True)
def _graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _refuse_general_path(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(context.compiler, "call_grad", refuse)


def test_a_repeated_step_runs_its_own_call_with_eager_modes_bits(monkeypatch):
    net = Lin()
    step = ms.value_and_grad(net, None, net.trainable_params())
    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    first = step(x, 1)
    assert step._graphjit_fast is not None
    _refuse_general_path(monkeypatch)
    net.seen = 0
    again = step(x, 1)
    assert net.seen == 1                      # the graph's attribute write, every call
    assert _bits(again) == _bits(first)
    monkeypatch.undo()
    assert _bits(again) == _bits(_eager(net, x, 1))


def test_what_the_fast_call_does_not_take_goes_the_general_way():
    net = Lin()
    step = ms.value_and_grad(net, None, net.trainable_params())
    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    step(x, 1)
    fast = step._graphjit_fast
    assert fast((x, 1)) is not None
    x3 = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    for args in ((x3, 1), (x, 0), (x.astype(ms.float64), 1), (x, 1.0), (x,)):
        assert fast(args) is None, args
    assert _bits(step(x, 0)) == _bits(_eager(net, x, 0))          # another constant
    assert _bits(step(x, i=1)) == _bits(_eager(net, x, 1))        # keyword argument
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert fast((x, 1)) is None
    assert _bits(step(x, 1)) == _bits(_eager(net, x, 1))
    ms.set_context(mode=ms.GRAPH_MODE, check_equivalence=True)
    try:
        assert fast((x, 1)) is None
        assert _bits(step(x, 1)) == _bits(_eager(net, x, 1))
    finally:
        ms.set_context(check_equivalence=False)


def test_a_changed_guard_or_weight_is_seen_on_the_fast_path():
    net = Lin()
    step = ms.value_and_grad(net, None, net.trainable_params())
    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    step(x, 1)
    step(x, 1)
    net.k = 3.0                                           # a guarded Python value
    assert _bits(step(x, 1)) == _bits(_eager(net, x, 1))
    net.w.set_data(ms.Tensor(np.array([0.0, 1.0], np.float32)))     # new data: read
    assert _bits(step(x, 1)) == _bits(_eager(net, x, 1))
    assert _bits(step(x, 1)) == _bits(_eager(net, x, 1))


def test_a_failure_on_the_fast_path_is_the_general_paths():
    class Pick(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x, i):
            return (x * self.w)[i]

    net = Pick()
    step = ms.value_and_grad(net, None, net.trainable_params())
    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    i = ms.Tensor(np.int64(1))
    step(x, i)
    assert step._graphjit_fast is not None
    with pytest.raises(IndexError) as fast:
        step(x, ms.Tensor(np.int64(5)))
    assert isinstance(fast.value, GraphRuntimeError)
    step._graphjit_fast = None
    with pytest.raises(IndexError) as general:
        step(x, ms.Tensor(np.int64(5)))
    assert str(fast.value) == str(general.value)


def test_grad_without_value_and_one_weight():
    net = Lin()
    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    g = ms.grad(net, None, net.w)
    first = g(x, 1)
    assert g._graphjit_fast is not None
    again = g(x, 1)
    assert isinstance(again, ms.Tensor) and again.asnumpy().tobytes() == \
        first.asnumpy().tobytes()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = ms.grad(net, None, net.w)(x, 1)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert again.asnumpy().tobytes() == want.asnumpy().tobytes()


def test_gradient_functions_made_at_each_step_share_the_entrys_call():
    """`ms.grad(net, None, w)(x)` made anew every step generates the fast call once."""
    net = Lin()
    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    calls = set()
    for _ in range(3):
        gf = ms.value_and_grad(net, None, net.trainable_params())
        out = gf(x, 1)
        calls.add(id(gf._graphjit_fast))
        assert _bits(out) == _bits(_eager(net, x, 1))
    assert len(calls) == 1


@pytest.mark.parametrize("get_value", [True, False])
def test_has_aux_takes_the_fast_call_with_eager_modes_structure(get_value, monkeypatch):
    """MindSpore's training loop: value_and_grad(forward_fn, None, weights,
    has_aux=True) of a function returning (loss, logits)."""
    net = Lin()
    weights = net.trainable_params()

    def forward(x, i):
        y = x * net.w
        return (y * y).sum() + i, y, y * 2

    x = ms.Tensor(np.array([3.0, -4.0], np.float32))
    make = (lambda: ms.value_and_grad(forward, None, weights, has_aux=True)) if get_value \
        else (lambda: ms.grad(forward, None, weights, has_aux=True))
    gf = make()
    first = gf(x, 1)
    assert gf._graphjit_fast is not None
    _refuse_general_path(monkeypatch)
    again = gf(x, 1)
    monkeypatch.undo()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = make()(x, 1)
    ms.set_context(mode=ms.GRAPH_MODE)

    def flat(o):
        if isinstance(o, (tuple, list)):
            return [type(o).__name__, len(o)] + [z for v in o for z in flat(v)]
        return [str(o.dtype), o.asnumpy().tobytes()]
    assert flat(again) == flat(first) == flat(want)
