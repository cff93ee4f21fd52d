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


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
@pytest.mark.parametrize("c", [1, -1, 7, -7, 0, 2 ** 31, BIG, -BIG - 1])
def test_the_inline_check_against_a_constant_fails_exactly_where_int64_wraps(op, c):
    """Against a constant operand the executor writes the check as a bound on the other
    operand (one comparison), calling the kernel only outside it."""
    from graphjit.backend.executor import compile_graph
    from graphjit.ir import Graph, TensorType, dtypes as dt

    g = Graph("f")
    x = g.add_param(TensorType(dt.int64, ()), "x")
    k = g.const(np.int64(c))
    r = g.apply(op, x, k)
    g.set_results([g.apply("CheckIntOverflow", r, x, k, binary=op)])
    cg = compile_graph(g)
    assert " if " in cg.source or (op == "Mul" and c == 0)      # the bound, inline
    exact_of = {"Add": lambda a: a + c, "Sub": lambda a: a - c, "Mul": lambda a: a * c}[op]
    edges = {0, 1, -1, 3, -3, BIG, -BIG - 1, BIG - 1, -BIG, 2 ** 32, -(2 ** 32)}
    edges |= {e - c for e in (BIG, -BIG - 1)} | {e + c for e in (BIG, -BIG - 1)}
    if c not in (0,):
        edges |= {BIG // c, -BIG // c, BIG // c + 1, -(BIG // c) - 1}
    for a in sorted(v for v in edges if -BIG - 1 <= v <= BIG):
        exact = exact_of(a)
        if -BIG - 1 <= exact <= BIG:
            assert int(cg(np.asarray(np.int64(a)))[0]) == exact, (a, c)
        else:
            with pytest.raises(OverflowError):
                cg(np.asarray(np.int64(a)))
