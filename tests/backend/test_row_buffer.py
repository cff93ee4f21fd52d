"""Exact elementwise ops with a broadcast operand over rows of 256 to 8191 elements
run with a numpy ufunc buffer of one row (backend.fusion._row_buffer): same bits as
eager mode, numpy's own buffer size untouched outside the op."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, TensorType, dtypes as dt, verify
from graphjit.ir.fp_errors import FP_STATE
from graphjit.ir.registry import get_op

from helpers import run_both

pytestmark = pytest.mark.skipif(FP_STATE is None, reason="numpy < 2: no error-state variable")


def _graph(op, rows, cols, other_shape):
    g = Graph("f")
    x = g.add_param(TensorType(dt.float32, (rows, cols)), "x")
    m = g.add_param(TensorType(dt.float32, other_shape), "m")
    g.set_results([g.apply("Exp", g.apply(op, x, m))])
    verify(g)
    return compile_graph(g)


@pytest.mark.parametrize("op, rows, cols, other, wrapped", [
    ("Sub", 256, 1000, (256, 1), True),      # x - max(x, -1, keepdims)
    ("RealDiv", 64, 4000, (64, 1), True),
    ("Add", 256, 1000, (1000,), True),       # a bias
    ("Sub", 4096, 64, (4096, 1), False),     # short rows: the buffer would lose
    ("Sub", 8, 9000, (8, 1), False),         # rows longer than numpy's buffer
    ("Sub", 256, 1000, (256, 1000), False),  # nothing broadcasts
    ("Pow", 256, 1000, (256, 1), False),     # np.power is not correctly rounded
])
def test_which_nodes_run_with_a_row_buffer(op, rows, cols, other, wrapped):
    cg = _graph(op, rows, cols, other)
    assert ("_fp.set(_rows" in cg.source) == wrapped
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    m = rng.standard_normal(other).astype(np.float32) + 3
    before = np.getbufsize()
    (got,) = cg(x, m)
    assert np.getbufsize() == before
    ufunc = {"Sub": np.subtract, "RealDiv": np.divide, "Add": np.add, "Pow": np.power}[op]
    with np.errstate(all="ignore"):
        want = np.exp(ufunc(x, m))
    assert got.tobytes() == want.tobytes()


class Softmax(nn.Cell):
    def construct(self, x):
        e = ops.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


class LayerNorm(nn.Cell):
    def __init__(self, g, b):
        super().__init__()
        self.g, self.b = ms.Tensor(g), ms.Tensor(b)

    def construct(self, x):
        mu = x.mean(axis=-1, keep_dims=True)
        d = x - mu
        var = (d * d).mean(axis=-1, keep_dims=True)
        return d / ops.sqrt(var + 1e-5) * self.g + self.b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_and_layernorm_match_eager_mode_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((128, 1000)).astype(dtype)
    x[0, :4] = [np.inf, -np.inf, np.nan, 0.0]
    graph, eager = run_both(Softmax, ms.Tensor(x))
    assert graph.asnumpy().tobytes() == eager.asnumpy().tobytes()
    g, b = rng.standard_normal(1000).astype(dtype), rng.standard_normal(1000).astype(dtype)
    graph, eager = run_both(lambda: LayerNorm(g, b), ms.Tensor(x))
    assert graph.asnumpy().tobytes() == eager.asnumpy().tobytes()
    assert np.getbufsize() == 8192


@pytest.mark.parametrize("name", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape, axis", [((64, 1000), -1), ((4, 8, 300), 2), ((300, 40), -1),
                                         ((1000, 30), 0), ((2, 5000), (-1,))])
def test_softmax_kernels_give_the_plain_formulas_bits(name, shape, axis):
    """The kernels broadcast with one-row buffers and exponentiate in place; the values
    are those of m = max, e = exp(x - m), e / sum(e) (and x - m - log(sum(e)))."""
    t = TensorType(dt.float32, shape)
    kernel = get_op(name).make_kernel([t], [t], {"axis": axis})
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32) * 5
    x.reshape(-1)[:4] = [np.inf, -np.inf, np.nan, -0.0]
    before = np.getbufsize()
    with np.errstate(all="ignore"):
        got = kernel(x)
        m = np.max(x, axis=axis, keepdims=True)
        e = np.exp(x - m)
        s = np.sum(e, axis=axis, keepdims=True)
        want = x - m - np.log(s) if name == "LogSoftmax" else e / s
    assert np.getbufsize() == before
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
