"""Printing, identity-like markers, conversions and Parameter assignment."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ops import operations as P


class PrintsInLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.print = P.Print()

    def construct(self, x, n):
        i = 0
        while i < n:
            x = x + ops.scalar_to_tensor(i, ms.float32)
            self.print("step", x)
            i += 1
        return ops.stop_gradient(x), ops.depend(ops.tuple_to_array((1, 2)), x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_print_runs_every_time_in_order(mode, capsys):
    ms.set_context(mode=mode)
    net = PrintsInLoop()
    args = (ms.Tensor(np.zeros(2, np.float32)), ms.Tensor(np.array(3, np.int32)))
    out = net(*args)
    net(*args)
    text = capsys.readouterr().out.splitlines()
    assert text == ["step [0. 0.]", "step [1. 1.]", "step [3. 3.]"] * 2
    assert out[0].asnumpy().tolist() == [3.0, 3.0]
    assert out[1].dtype == ms.int64 and out[1].asnumpy().tolist() == [1, 2]


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="total")
        self.assign_add = P.AssignAdd()

    def construct(self, x):
        self.assign_add(self.total, x)
        return self.total


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_assign_add_changes_the_parameter_in_both_modes(mode):
    ms.set_context(mode=mode)
    net = Accumulate()
    net(ms.Tensor(np.ones(2, np.float32)))
    out = net(ms.Tensor(np.ones(2, np.float32)))
    assert out is net.total and out.asnumpy().tolist() == [2.0, 2.0]
    if mode == ms.GRAPH_MODE:
        assert len(net.compile_cache()) == 1


def test_scalar_and_tuple_conversions():
    assert ops.scalar_to_tensor(3, ms.int32).dtype == ms.int32
    assert ops.tuple_to_array((1.5, 2.0)).dtype == ms.float32
    assert ops.dtype(ms.Tensor([1, 2])) == ms.int64
    with pytest.raises(TypeError):
        ops.scalar_to_tensor("3")
