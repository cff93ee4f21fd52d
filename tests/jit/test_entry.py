"""The per-call fast path (jit.entry): each cache entry's own generated call checks a
call's signature and runs the plan; anything it does not take goes down the general
path, which recompiles or reports it, so results never change."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ir.errors import GraphRuntimeError
import importlib

from graphjit.jit import cache as cache_mod

jit_api = importlib.import_module("graphjit.jit.api")
from graphjit.jit.cache import _cache_for, cache_of
from graphjit.jit.entry import MISS


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2.0
        self.w = ms.Tensor(np.float32(3))

    def construct(self, x, n):
        y = x * self.k * self.w
        while n > 0:
            y = y + 1
            n = n - 1
        return y


def _last(net):
    return _cache_for(net, type(net).construct).last


def _no_general_path(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(cache_mod, "_fast_key", refuse)
    monkeypatch.setattr(jit_api, "get_entry", refuse)


def test_a_repeated_call_runs_the_entrys_own_call(monkeypatch):
    net = Scale()
    x, n = ms.Tensor(np.arange(3, dtype=np.float32)), ms.Tensor(np.int32(2))
    first = net(x, n).asnumpy()
    assert _last(net) is cache_of(net)[0].fast_call and "def call(args)" in _last(net).source
    _no_general_path(monkeypatch)
    assert np.array_equal(net(x, n).asnumpy(), first)
    assert np.array_equal(first, np.arange(3, dtype=np.float32) * 6 + 2)


def test_other_signatures_attributes_and_constants_take_the_general_path():
    net = Scale()
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    n = ms.Tensor(np.int32(1))
    assert net(x, n).asnumpy().tolist() == [1, 7, 13]
    x4 = ms.Tensor(np.ones(4, np.float32))
    assert _last(net)((x4, n)) is MISS
    assert net(x4, n).asnumpy().tolist() == [7] * 4           # a new entry
    assert net(x, n).asnumpy().tolist() == [1, 7, 13]         # the first again
    assert len(cache_of(net)) == 2
    net.k = 3.0                                               # a guarded Python value
    assert net(x, n).asnumpy().tolist() == [1, 10, 19]
    net.w = ms.Tensor(np.float32(1))                          # a guarded tensor attribute
    assert net(x, n).asnumpy().tolist() == [1, 4, 7]
    assert _last(net)((x, 1)) is MISS                         # a constant where a tensor was
    assert _last(net)((x, n, n)) is MISS
    assert _last(net)((x.astype(ms.float64), n)) is MISS


def test_keyword_arguments_and_parameters_go_the_general_way():
    class P(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")

        def construct(self, x):
            return x * self.p

    net = P()
    x = ms.Tensor(np.array([2.0, 3.0], np.float32))
    assert net(x).asnumpy().tolist() == [2, 3]
    net.p.set_data(ms.Tensor(np.array([5.0, 7.0], np.float32)))  # new data, same Parameter
    assert net(x).asnumpy().tolist() == [10, 21]
    net.p = ms.Parameter(ms.Tensor(np.array([1.0, -1.0], np.float32)), name="p")
    assert net(x).asnumpy().tolist() == [2, -3]                # bound anew, no recompile
    assert len(cache_of(net)) == 1
    assert net(x=x).asnumpy().tolist() == [2, -3]


def test_check_equivalence_and_a_pynative_tape_bypass_it():
    net = Scale()
    x, n = ms.Tensor(np.arange(3, dtype=np.float32)), ms.Tensor(np.int32(0))
    net(x, n)
    ms.set_context(check_equivalence=True)
    assert _last(net)((x, n)) is MISS
    ms.set_context(check_equivalence=False)

    def loss(v):
        return net(v, n).sum()
    g = ms.grad(loss)(x)                      # PYNATIVE gradient through a graph-mode call
    assert g.asnumpy().tolist() == [6, 6, 6]


def test_runtime_errors_still_name_the_node():
    class Pick(nn.Cell):
        def construct(self, x, i):
            return ops.gather(x, i, 0) * 2

    net = Pick()
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    assert float(net(x, ms.Tensor(np.int32(1))).asnumpy()) == 2.0
    with pytest.raises(GraphRuntimeError) as info:
        net(x, ms.Tensor(np.int32(9)))
    assert isinstance(info.value, IndexError) and "Gather" in str(info.value)


def test_the_programs_own_raise_leaves_the_fast_path_as_it_is(monkeypatch):
    """A `raise` in construct gives the user's exception on every call, not a
    GraphRuntimeError from the second call on (found by tests/frontend/run_repeat_calls.py)."""
    class Refuse(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                raise ValueError("positive sum")
            return x * 2

    net = Refuse()
    x = ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="^positive sum$") as first:
        net(x)
    _no_general_path(monkeypatch)
    for _ in range(2):
        with pytest.raises(ValueError, match="^positive sum$") as again:
            net(x)
        assert type(again.value) is type(first.value) is ValueError
    assert np.array_equal(net(-x).asnumpy(), -2 * np.ones(3, np.float32))


@pytest.mark.parametrize("order", [(0.0, -0.0), (-0.0, 0.0)])
def test_negative_zero_and_zero_are_different_signatures(order):
    """-0.0 == 0.0 (and hash alike), but a graph folds the constant: x / -0.0 is -inf.
    Neither the cache key, the fast key nor an entry's own call may take one for the
    other."""
    class Divide(nn.Cell):
        def construct(self, x, q):
            return x / q

    net = Divide()
    x = ms.Tensor(np.ones(2, np.float32))
    for q in order * 3:
        assert net(x, q).asnumpy().tolist() == [np.copysign(np.inf, q)] * 2, q
    assert len(cache_of(net)) == 2


def test_a_nan_constant_compiles_once():
    """Every float('nan') is unequal to every other and hashes by identity: keyed as it
    is, each call with a new NaN compiled (and kept) one more graph."""
    class Add(nn.Cell):
        def construct(self, x, q):
            return x + q

    net = Add()
    x = ms.Tensor(np.ones(2, np.float32))
    for _ in range(4):
        assert np.isnan(net(x, float("nan")).asnumpy()).all()
    assert len(cache_of(net)) == 1
    assert len(_cache_for(net, type(net).construct).fast) <= 1   # no fast key a call


def test_a_result_the_build_computed_is_a_new_tensor_each_call():
    """ops.ones(x.shape) * 3, ops.fill(...) are computed while the graph is built and
    kept in the returned structure: each call returns a tensor of its own (as eager mode
    makes one each call), so writing to one call's result does not change the next's."""
    class Buffers(nn.Cell):
        def construct(self, x):
            return ops.ones(x.shape, ms.float32) * 3, ops.fill(ms.float32, x.shape, 2.0), x + 1

    net = Buffers()
    x = ms.Tensor(np.ones(2, np.float32))
    for _ in range(3):
        a, b, c = net(x)
        assert a.asnumpy().tolist() == [3, 3] and b.asnumpy().tolist() == [2, 2]
        assert c.asnumpy().tolist() == [2, 2]
        a[0] = 7
        b[1] = 9
        c[0] = 5


def test_scalar_inputs_and_outputs_keep_dtype_and_do_not_alias():
    class Id(nn.Cell):
        def construct(self, x, c):
            if c > 0:
                x = x + 1
            return x

    net = Id()
    x = ms.Tensor(np.float32(1.5))
    for c in (0, 1, 0):
        out = net(x, ms.Tensor(np.int32(c)))
        assert out.dtype == ms.float32 and out.shape == () and float(out.asnumpy()) == 1.5 + c


def test_the_compiled_model_takes_the_fast_call_and_owns_its_outputs(monkeypatch):
    class C(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c = ms.Tensor(np.ones(3, np.float32))

        def construct(self, x, flag, k):
            if flag > 0:
                y = self.c                   # a graph result that is the constant's array
            else:
                y = x * k
            return y

    one = ms.Tensor(np.int32(1))
    model = ms.compile(C(), ms.Tensor(np.ones(3, np.float32)), one, 2)
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    a = model(x, one, 2)
    assert model._fast_call is not None and "_consts" in model._fast_call.source
    _no_general_path(monkeypatch)
    b = model(x, one, 2)
    b._data[:] = 7                                            # written into
    assert model(x, one, 2).asnumpy().tolist() == [1, 1, 1]   # the constant is intact
    assert a.asnumpy().tolist() == [1, 1, 1]
    assert model(x, ms.Tensor(np.int32(0)), 2).asnumpy().tolist() == [0, 2, 4]
    monkeypatch.undo()
    with pytest.raises(ValueError, match="compiled"):
        model(x, one, 3)                      # compiled for k=2: refused, as before
    with pytest.raises(TypeError):
        model(x.astype(ms.float64), one, 2)


def test_a_gradient_steps_guards_are_checked_on_its_fast_path():
    class Lin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = 2.0
            self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x):
            return (x * self.w * self.k).sum()

    net = Lin()
    step = ms.value_and_grad(net, None, net.trainable_params())
    x = ms.Tensor(np.array([3.0, 4.0], np.float32))
    for _ in range(2):
        loss, (g,) = step(x)
        assert float(loss.asnumpy()) == 22.0 and g.asnumpy().tolist() == [6.0, 8.0]
    net.k = 3.0                                           # a guarded Python value
    loss, (g,) = step(x)
    assert float(loss.asnumpy()) == 33.0 and g.asnumpy().tolist() == [9.0, 12.0]
    net.w.set_data(ms.Tensor(np.array([0.0, 1.0], np.float32)))     # new data: bound
    loss, (g,) = step(x)
    assert float(loss.asnumpy()) == 12.0 and g.asnumpy().tolist() == [9.0, 12.0]


def test_attributes_the_graph_sets_are_set_again_on_the_fast_path(monkeypatch):
    class Mark(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seen = 0

        def construct(self, x):
            self.seen = 1
            return x * 2

    net = Mark()
    x = ms.Tensor(np.ones(2, np.float32))
    net(x)
    assert net.seen == 1
    _no_general_path(monkeypatch)
    net.__dict__["seen"] = 0                 # behind the guard's back: no recompile needed
    assert net(x).asnumpy().tolist() == [2, 2] and net.seen == 1
