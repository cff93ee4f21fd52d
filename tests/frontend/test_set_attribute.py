"""`self.attr = value` (not a Parameter) inside construct: MindSpore 2.x sets it at every
call (JIT Fallback), so graph mode does too for constants on paths known while
building; a value or a path that depends on tensors is refused."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from helpers import run_both, T


class _Sets(nn.Cell):
    def __init__(self, start):
        super().__init__()
        self.data = start

    def construct(self, x):
        y = x + self.data
        self.data = 2
        self.m: int = 5
        return y, self.data, self.m


def test_a_constant_is_set_at_every_call_and_read_after_it():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = _Sets(1)
        out = net(T(1))
        assert out[0].asnumpy() == 2 and out[1:] == (2, 5)
        assert net.data == 2 and net.m == 5
        net.data = 1                       # changed between calls: set again by the call
        assert net(T(1))[0].asnumpy() == 2 and net.data == 2
        assert net(T(1))[0].asnumpy() == 3     # this call reads the 2 the last one set


def test_constants_of_other_kinds_and_a_global_object():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.data = 1

        def construct(self, x):
            self.data = ms.Tensor([1, 2, 3, 4])
            self.arr = np.array([1, 2])
            return self.data + x
    g, _ = run_both(Net, T([1, 1, 1, 1]))
    assert g.asnumpy().tolist() == [2, 3, 4, 5]

    class Box:
        x = 100
    box = Box()

    def f():
        box.x = 99
        return box.x
    ms.set_context(mode=ms.GRAPH_MODE)
    box.x = 100
    assert ms.jit(f)() == 99 and box.x == 99


def test_a_tensor_value_is_set_after_the_run_and_a_path_chosen_by_tensors_is_refused():
    class Computed(nn.Cell):
        def construct(self, x):
            self.data = x * 2
            return x

    class Conditional(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flag = 0

        def construct(self, x):
            if x > 0:
                self.flag = 1
            return x
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Computed()          # a tensor value on a path known while building: set after
    net(T(1))                 # each run, as eager mode sets it
    assert isinstance(net.data, ms.Tensor) and net.data.asnumpy().item() == 2
    with pytest.raises(ms.UnsupportedSyntaxError, match="path chosen by tensor values"):
        Conditional()(T(1))


class _Counter(nn.Cell):
    def __init__(self, start):
        super().__init__()
        self.a = start

    def construct(self):
        self.a = self.a + 1
        return self.a


@pytest.mark.parametrize("start", [1, ms.Tensor([1, 2, 3]), np.array([1, 2, 3])],
                         ids=["int", "tensor", "ndarray"])
def test_an_attribute_updated_from_itself_counts_up_at_every_call(start):
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = _Counter(start)
        got = [np.asarray(net()).tolist() for _ in range(3)]
        first = np.asarray(start).tolist()
        step = [np.asarray(np.asarray(start) + k).tolist() for k in (1, 2, 3)]
        assert got == step, (mode, got, first)


def test_nested_attributes_augmented_assignment_and_loops_over_an_attribute():
    class Inner:
        def __init__(self):
            self.i = 3

    class Outer:
        def __init__(self):
            self.inner = Inner()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.outer = Outer()
            self.x = 4

        def construct(self):
            self.outer.inner.i += 10
            count = 0
            while self.x:
                count += 1
                self.x -= 1
            self.x = count
            first = self.x
            self.x = count * 2
            return self.outer.inner.i, first, self.x
    g, _ = run_both(Net)
    assert g == (13, 4, 8)
