"""A `for` over a long constant range: kept rolled (a Loop) where unrolling would build
a large graph, unrolled where the body is small (its ops fuse across steps) or where
it changes a Python int (a Loop would carry it as an int64: 3 ** 300 wraps)."""
import warnings

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both

RNG = np.random.default_rng(5)
W = ms.Tensor((RNG.standard_normal((8, 8)) * 0.3).astype(np.float32))


def big_body(x):
    outs = []
    for t in range(100):            # 100 steps of a 7-node body: a Loop
        x = ops.tanh(ops.matmul(x, W) + x * 0.5 - t)
        x = x / (1 + abs(x))
        outs.append(x)
    return ops.stack(outs), x


def small_body(x):
    for i in range(128):            # 128 steps of 2 nodes: unrolled (one fused kernel)
        x = x * 0.9 + i
    return x


def python_int_in_a_big_body(x):
    p = 1
    for t in range(100):
        x = ops.tanh(ops.matmul(x, W) + x * 0.5 - t)
        x = x / (1 + abs(x))
        p = p * 3                   # 3 ** 100 is no int64
    return x, p


def python_int_past_max_unroll(x):
    p = 1
    for i in range(300):
        x = x * 1.0
        p = p * 3
    return x, p


class BigBody(nn.Cell):
    def construct(self, x):
        return big_body(x)


def x0():
    return ms.Tensor(RNG.standard_normal((4, 8)).astype(np.float32))


def top_ops(graph):
    return [n.op for n in graph.nodes]


@pytest.mark.parametrize("make", [lambda: big_body, BigBody], ids=["jit", "Cell"])
def test_a_long_range_with_a_large_body_is_a_quiet_loop(make):
    x = x0()
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # nothing to say: it is within max_unroll
        run_both(make, x)
    target = make()
    if not isinstance(target, nn.Cell):
        target = ms.jit(target)
    target(x)
    graph = target.compile_cache()[0].graph
    assert top_ops(graph).count("Loop") == 1
    assert sum(1 for _ in graph.walk()) < 60
    report = str(ms.explain(target, x))
    assert "100 copies of a" in report


def test_a_long_range_with_a_small_body_is_unrolled():
    x = ms.Tensor(RNG.standard_normal(16).astype(np.float32))
    run_both(lambda: small_body, x)
    f = ms.jit(small_body)
    f(x)
    assert "Loop" not in top_ops(f.compile_cache()[0].graph)


@pytest.mark.parametrize("fn", [python_int_in_a_big_body, python_int_past_max_unroll])
def test_a_python_int_the_body_changes_is_exact(fn):
    x = x0()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # past max_unroll: said, and unrolled
        g, e = run_both(lambda: fn, x)
    assert g[1] == e[1] == 3 ** (100 if fn is python_int_in_a_big_body else 300)
    assert type(g[1]) is int


def test_past_max_unroll_a_python_int_says_why_it_unrolls():
    with pytest.warns(RuntimeWarning, match="changes a Python int"):
        ms.jit(python_int_past_max_unroll)(x0())
