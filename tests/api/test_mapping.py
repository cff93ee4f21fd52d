"""MultitypeFuncGraph, HyperMap and Map (ops.composite), tuple_div and typeof
(ops.functional), nn.TensorArray: in both modes, with MindSpore's values."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ops import composite as C
from graphjit.ops import functional as F
from helpers import run_both, T

add = C.MultitypeFuncGraph("add")


@add.register("Tensor", "Tensor")
def _add_tensors(x, y):
    if x.sum() > y.sum():          # control flow on tensors: built as any user code
        return x + y
    return x - y


@add.register("Number", "Number")
def _add_numbers(x, y):
    return x * 10 + y


def test_hypermap_applies_leaf_by_leaf_through_nested_tuples():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.hyper = C.HyperMap(add)

        def construct(self, a, b):
            return self.hyper((a, (b, 1)), (b, (a, 2))), C.HyperMap()(add, [a], [b])
    g, _ = run_both(Net, T([3.0, 4.0]), T([1.0, 1.0]))
    (s, (d, n)), [s2] = g
    assert s.asnumpy().tolist() == [4.0, 5.0] and d.asnumpy().tolist() == [-2.0, -3.0]
    assert n == 12 and s2.asnumpy().tolist() == [4.0, 5.0]


def test_map_is_one_level_and_takes_plain_functions():
    class Net(nn.Cell):
        def construct(self, a, b):
            pairs = C.Map()(lambda x, y: (x * y, x + y), (a, b), (b, 2.0))
            return pairs, C.Map(ops.square)((a, b))
    g, _ = run_both(Net, T([2.0]), T([3.0]))
    assert g[0][0][0].asnumpy().tolist() == [6.0] and g[0][1][1].asnumpy().tolist() == [5.0]
    assert g[1][1].asnumpy().tolist() == [9.0]


def test_mapping_errors_are_clear():
    with pytest.raises(TypeError, match=r"does not support the type \[String, Int\]"):
        add("a", 1)
    with pytest.raises(TypeError, match="one type and one length"):
        C.HyperMap(add)((1, 2), (1, 2, 3))


def test_tuple_div_and_typeof():
    assert F.tuple_div((4, 6, 9), (2, 3, 3)) == (2, 2, 3)
    with pytest.raises(ValueError, match="not divisible"):
        F.tuple_div((5,), (2,))

    class Net(nn.Cell):
        def construct(self, x):
            return F.tuple_div(x.shape, (1, 2)), F.typeof(x) == F.typeof(x * 2), \
                F.typeof(1) == ms.int64, F.typeof(x).element_type() == ms.float32
    g, _ = run_both(Net, T(np.ones((3, 4), np.float32)))
    assert g == ((3, 2), True, True, True)
    assert str(F.typeof(T(np.ones(2, np.float32)))) == "Tensor[Float32]"


def test_tensor_array_writes_reads_and_stacks():
    class Net(nn.Cell):
        def construct(self, x):
            ta = nn.TensorArray(ms.int64, ())
            for i in range(5):
                ta.write(i, x + i)
            first = ta.read(1)
            out = ta.stack()
            size = ta.size()
            ta.clear()
            return first, out, size, ta.size()
    g, _ = run_both(Net, T(1))
    assert g[0].asnumpy() == 2 and g[1].asnumpy().tolist() == [1, 2, 3, 4, 5]
    assert g[2].asnumpy() == 5 and g[3].asnumpy() == 0


def test_tensor_array_written_under_a_tensor_condition():
    class Net(nn.Cell):
        def construct(self, x):
            ta = nn.TensorArray(ms.float32, (2,))
            ta.write(0, x)
            if x.sum() > 0:
                ta.write(0, x * 2)
            return ta.stack()
    assert run_both(Net, T(np.array([1.0, 2.0], np.float32)))[0].asnumpy().tolist() == \
        [[2.0, 4.0]]
    assert run_both(Net, T(np.array([-1.0, 0.0], np.float32)))[0].asnumpy().tolist() == \
        [[-1.0, 0.0]]


def test_hypermap_with_a_partial_function_as_optimizers_write_it():
    scale = C.MultitypeFuncGraph("scale")

    @scale.register("Number", "Tensor")
    def _scale(k, g):
        if g.sum() > 0:
            return g * k
        return g

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.hyper_map = C.HyperMap()

        def construct(self, a, b):
            grads = (a, b)
            return self.hyper_map(F.partial(scale, 2.0), grads), F.tuple_len(grads)
    g, _ = run_both(Net, T([1.0]), T([-1.0]))
    assert g[0][0].asnumpy().tolist() == [2.0] and g[0][1].asnumpy().tolist() == [-1.0]
    assert g[1] == 2
