"""MindSpore's own way of checking control flow: run `construct` as plain Python on numpy
arrays, and the same Cell through Model.predict in graph mode."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import Model, Tensor, context
from graphjit.nn import Cell


class ForBreak(Cell):
    def construct(self, x):
        for i in range(8):
            if i > 5:
                x *= 3
                break
            x = x * 2
        return x


class ForContinueBreak(Cell):
    def construct(self, x):
        for i in range(8):
            if i < 3:
                i *= 2
                continue
            if i > 5:
                x *= 3
                break
            x = x * 2
        return x


class NestedForBreak(Cell):
    def construct(self, x):
        for _ in range(3):
            for j in range(5):
                if j > 3:
                    x *= 2
                    break
                x = x * 1.5
        return x


class WhileForNested(Cell):
    def construct(self, x):
        i = 0
        while i < 5:
            if i > 3:
                for j in range(3):
                    if j > 1:
                        break
                    x *= 2
                i += 1
                continue
            x = x * 1.5
            i += 1
        return x


class PassBranch(Cell):
    def construct(self, x):
        i = 0
        while i < 5:
            if i > 3:
                pass
            else:
                x = x * 1.5
            i += 1
        return x


@pytest.mark.parametrize("cls", [ForBreak, ForContinueBreak, NestedForBreak, WhileForNested,
                                 PassBranch])
def test_python_on_numpy_equals_graph(cls):
    context.set_context(mode=context.GRAPH_MODE)
    net = cls()
    model = Model(net)
    rng = np.random.default_rng(7)
    for _ in range(3):
        input_np = rng.standard_normal((2, 3)).astype(np.float32)
        input_ms = Tensor(input_np)
        output_np = net.construct(input_np)       # plain Python (it may write into input_np)
        output_ms = model.predict(input_ms)       # the graph
        np.testing.assert_array_almost_equal(output_np, output_ms.asnumpy(), decimal=3)


def test_tensor_copies_the_array_it_is_made_from():
    a = np.ones(3, np.float32)
    t = Tensor(a)
    a *= 5
    assert t.asnumpy().tolist() == [1.0, 1.0, 1.0]
