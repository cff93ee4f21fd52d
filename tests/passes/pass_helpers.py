"""Helpers of the pass tests: build, run and compare graphs bit for bit."""
from __future__ import annotations

import numpy as np

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, TensorType, dtypes as dt, verify

F16, F32, F64, I32, I64, BOOL = dt.float16, dt.float32, dt.float64, dt.int32, dt.int64, dt.bool_


def T(dtype, *shape):
    return TensorType(dtype, shape)


def run(g: Graph, *args):
    verify(g)
    return compile_graph(g)(*args)


def same_bits(a, b) -> bool:
    """a and b are equal arrays bit for bit (dtype, shape and every byte)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def check_pass(pass_fn, g: Graph, golden: str, *inputs):
    """Run the pass on g: the verifier accepts the result, it prints as golden, and on
    each tuple of inputs it computes the same bits as before."""
    before = [run(g, *args) for args in inputs]
    out = pass_fn(g)
    assert out is g
    verify(g)
    assert str(g) == golden, "\n" + str(g)
    for args, want in zip(inputs, before):
        got = run(g, *args)
        assert len(got) == len(want)
        for x, y in zip(got, want):
            assert same_bits(x, y), (x, y)


def count(g: Graph, op: str) -> int:
    return sum(1 for n in g.walk() if n.op == op)
