"""Stacks kept as lists of rows (backend.stacks): a Loop's concatenated output that only
other Loops read row by row (reversed or not) is never concatenated, and every run
gives the bits of the concatenated stack, zero iterations included."""
import re

import numpy as np
import pytest

from graphjit.backend.executor import compile_graph
from graphjit.backend.stacks import REVERSE
from graphjit.ir import Graph, TensorType, dtypes as dt, verify
from graphjit.ir.builders import loop

F32, I64 = dt.float32, dt.int64


def T(dtype, *shape):
    return TensorType(dtype, shape)


def _saved(also=None, row="expand", reverse=True):
    """A forward Loop saving h_t and h_{t-1} per step, a backward one reading them (in
    reverse) row by row: g <- g * h_t + h_{t-1}. `also`: another reader of the stack
    ("result": the graph returns it; "sum": a ReduceSum reads it)."""
    g = Graph("saved")
    xs = g.add_param(T(F32, 5, 2, 3), "xs")
    h0 = g.add_param(T(F32, 2, 3), "h0")
    n = g.add_param(T(I64), "n")

    def fwd(b, i, carried, sliced, invariant):
        (h,), (x,) = carried, sliced
        h2 = b.apply("Tanh", b.apply("Add", h, b.apply("Squeeze", x, axis=0)))
        now = b.apply("ExpandDims", h2, axis=0) if row == "expand" else \
            b.apply("Reshape", b.apply("Mul", h2, b.const(np.float32(1.5))), shape=(1, 2, 3))
        return True, [h2], [now, b.apply("ExpandDims", h, axis=0)]
    _, now, before = loop(g, fwd, trip_count=n, carried=[h0], sliced=[xs],
                          iteration_type=None, names=["h", "now", "before"])
    if reverse:
        now_r = g.apply("Index", now, index=REVERSE)
        before_r = g.apply("Index", before, index=REVERSE)
    else:
        now_r, before_r = now, before

    def bwd(b, i, carried, sliced, invariant):
        (acc,), (r, q) = carried, sliced
        r, q = b.apply("Squeeze", r, axis=0), b.apply("Squeeze", q, axis=0)
        return True, [b.apply("Add", b.apply("Mul", acc, r), q)], []
    (acc,) = loop(g, bwd, carried=[g.const(np.ones((2, 3), np.float32))],
                  sliced=[now_r, before_r], iteration_type=None, names=["acc"])
    results = [acc]
    if also == "result":
        results.append(now)
    elif also == "sum":
        results.append(g.apply("ReduceSum", now, axis=None, keep_dims=False))
    g.set_results(results)
    verify(g)
    return g


def _reference(xs, h0, n, also=None, row="expand", reverse=True):
    hs, h = [h0], h0
    for k in range(min(int(n), len(xs))):
        h = np.tanh(h + xs[k])
        hs.append(h)
    now = [q if row == "expand" else q * np.float32(1.5) for q in hs[1:]]
    before = hs[:-1]
    if reverse:
        now, before = now[::-1], before[::-1]
    acc = np.ones((2, 3), np.float32)
    for r, q in zip(now, before):
        acc = acc * r + q
    out = [acc]
    stack = np.stack(now if not reverse else now[::-1]) if now else \
        np.zeros((0, 2, 3), np.float32)
    if also == "result":
        out.append(stack)
    elif also == "sum":
        out.append(np.add.reduce(stack, None, np.float32))
    return out


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("also, row, reverse", [
    (None, "expand", True), (None, "reshape", True), (None, "expand", False),
    ("result", "expand", True), ("sum", "expand", True)])
def test_rows_read_back_give_the_stacks_bits(also, row, reverse):
    cg = compile_graph(_saved(also, row, reverse))
    kept = also is None
    assert ("np.concatenate" not in cg.source) == kept, cg.source
    if kept:       # the rows appended as they are (ExpandDims' input) or as result[0]
        assert bool(re.search(r"rows\d+_append\(\w+\[0\]\)", cg.source)) == \
            (row == "reshape"), cg.source
        # ExpandDims read by nothing but the list is not run
        assert "[None]" not in cg.source, cg.source
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 2, 3)).astype(np.float32)
    h0 = rng.standard_normal((2, 3)).astype(np.float32)
    for n in (0, 1, 3, 5, 9):
        got = cg(xs, h0, np.int64(n))
        want = _reference(xs, h0, n, also, row, reverse)
        assert len(got) == len(want)
        assert all(_same(x, y) for x, y in zip(got, want)), n


def test_a_stack_read_whole_inside_a_loop_is_concatenated():
    """A Loop reading the stack as an invariant (not row by row) gets the array."""
    g = Graph("whole")
    xs = g.add_param(T(F32, 4, 3), "xs")

    def fwd(b, i, carried, sliced, invariant):
        return True, [], [b.apply("Exp", sliced[0])]
    (st,) = loop(g, fwd, sliced=[xs], iteration_type=None, names=["st"])

    def use(b, i, carried, sliced, invariant):
        (acc,), (whole,) = carried, invariant
        return True, [b.apply("Add", acc, b.apply("ReduceSum", whole, axis=None,
                                                   keep_dims=False))], []
    (acc,) = loop(g, use, trip_count=2, carried=[g.const(np.float32(0))], invariant=[st],
                  iteration_type=None, names=["acc"])
    g.set_results([acc])
    verify(g)
    cg = compile_graph(g)
    assert "np.concatenate" in cg.source
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    s = np.add.reduce(np.exp(x), None, np.float32)
    assert _same(cg(x)[0], np.float32(0) + s + s)
