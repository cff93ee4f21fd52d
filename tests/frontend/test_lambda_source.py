"""Lambdas in graph mode whose line holds other lambdas (a table of cases, a list of
activations, a lambda continued on the next line beside another one): the front-end
picks the right one by the source positions of its code, not the first it sees."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import ops

TABLE = [
    ("relu", lambda x: ops.relu(x), (1,),
     lambda x: x - 1),
    ("neg", lambda x: -x, (2,), lambda x: x * 3),
]
ACTS = [lambda x: x + 10, lambda x: x + 20, lambda y: ops.tanh(y) * 0 + 30]


class Holder:
    def make(self):
        return [lambda x: x - 5, lambda x: x - 6]


def _run(f, v):
    ms.set_context(mode=ms.GRAPH_MODE)
    return float(ms.jit(f)(ms.Tensor(np.float32(v))))


@pytest.mark.parametrize("i", range(2))
def test_each_lambda_of_a_table_row_is_itself(i):
    _, f, _, g = TABLE[i]
    assert _run(f, -2.0) == [0.0, 2.0][i]
    assert _run(g, 2.0) == [1.0, 6.0][i]


def test_lambdas_side_by_side_in_a_list_and_in_a_method():
    assert [_run(f, 1.0) for f in ACTS] == [11.0, 21.0, 30.0]
    assert [_run(f, 1.0) for f in Holder().make()] == [-4.0, -5.0]


def test_two_equal_lambdas_on_one_line_are_told_apart_by_column():
    same = [lambda x: x + 1, lambda x: x + 1]
    ms.set_context(mode=ms.GRAPH_MODE)
    # the same text twice: the columns of the code's instructions pick the second
    assert float(ms.jit(same[1])(ms.Tensor(np.float32(1.0)))) == 2.0
