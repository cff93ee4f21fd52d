"""Python ints a graph computes (carried by a tensor-dependent Loop, or made from
unknown dims) are int64s there; where Python's int would grow past int64 the graph
says so at run time (OverflowError) instead of wrapping around."""
import numpy as np
import pytest

import graphjit as ms
from graphjit.ir.registry import get_op
from helpers import run_both

BIG = 2 ** 63 - 1


def grows(x, k):
    p = 1
    while x.sum() < 1e6:
        x = x * 2
        p = p * k + 1
    return x, p


def counts_down(x, start):
    n = start
    while x.sum() < 100:
        x = x + 1
        n = n - 7
    return n


def test_python_ints_in_range_agree_with_eager():
    x = ms.Tensor(np.ones(2, np.float32))
    g, e = run_both(lambda: grows, x, 3)
    assert type(g[1]) is int and g[1] == e[1]
    g, e = run_both(lambda: counts_down, x, 5)
    assert g == e and type(g) is int


def test_a_python_int_past_int64_is_an_overflow_error_not_a_wrapped_value():
    x = ms.Tensor(np.ones(2, np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    exact = grows(x, 10)[1]
    assert exact > BIG
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(OverflowError, match="left int64"):
        ms.jit(grows)(x, 10)
    with pytest.raises(OverflowError, match="left int64"):
        ms.jit(counts_down)(x, -BIG)


@pytest.mark.parametrize("op, a, b", [
    ("Add", BIG, 1), ("Add", -BIG - 1, -1), ("Sub", -BIG - 1, 1), ("Sub", BIG, -1),
    ("Mul", 2 ** 32, 2 ** 31), ("Mul", -1, -BIG - 1), ("Add", BIG - 1, 1), ("Mul", -1, BIG),
    ("Sub", 0, BIG), ("Mul", 3, 5)])
def test_the_check_fails_exactly_where_int64_wraps(op, a, b):
    kernel = get_op("CheckIntOverflow").kernel_factory((), (), {"binary": op})
    x, y = np.int64(a), np.int64(b)
    with np.errstate(all="ignore"):
        r = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}[op](
            np.asarray(x), np.asarray(y))
    exact = {"Add": a + b, "Sub": a - b, "Mul": a * b}[op]
    if -BIG - 1 <= exact <= BIG:
        assert kernel(np.asarray(r), np.asarray(x), np.asarray(y)) == exact
    else:
        with pytest.raises(OverflowError):
            kernel(np.asarray(r), np.asarray(x), np.asarray(y))
