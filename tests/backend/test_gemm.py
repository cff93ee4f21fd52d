"""Products by a constant matrix as row blocks of BLAS's small kernel (backend.gemm):
chosen only where they give the MatMul kernel's bits, and then bit-identical to eager
mode; otherwise the plan keeps the kernel's one call."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.backend import gemm
from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, TensorType, dtypes as dt, verify
from graphjit.ir.registry import get_op

from helpers import run_both

needs_small_kernel = pytest.mark.skipif(
    gemm.small_kernel_limit() is None,
    reason="numpy's BLAS is not an OpenBLAS with a small-matrix kernel (AVX-512 core)")


def _kernel(dtype, transpose_b):
    t = TensorType(dtype, None)
    return get_op("MatMul").make_kernel([t, t], [t], {"transpose_a": False,
                                                      "transpose_b": transpose_b})


@pytest.mark.parametrize("m, k, n, rows", [
    (64, 256, 256, 8), (64, 256, 128, 16), (100, 256, 256, 10), (4096, 16, 16, 2048)])
def test_block_rows_divide_m_and_keep_each_block_within_the_small_kernel(m, k, n, rows):
    assert gemm._block_rows(m, k, n, 4, gemm._SMALL_MNK) == rows
    assert m % rows == 0 and rows * k * n <= gemm._SMALL_MNK


@pytest.mark.parametrize("m, k, n", [
    (16, 64, 64),       # already small: one call is the small kernel
    (97, 256, 256),     # no divisor of 97 gives a block of at least four rows
    (64, 300, 300),     # rows of 300 floats do not fill whole 64-byte vectors
    (8, 1024, 1024)])   # one row alone is past the small kernel
def test_no_blocks_where_they_would_not_help(m, k, n):
    assert gemm._block_rows(m, k, n, 4, gemm._SMALL_MNK) is None


@needs_small_kernel
@pytest.mark.parametrize("dtype", [dt.float32, dt.float64])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_blocked_products_give_the_kernels_bits(dtype, transpose_b):
    rng = np.random.default_rng(1)
    kernel = _kernel(dtype, transpose_b)
    w = rng.standard_normal((128, 256) if transpose_b else (256, 128)).astype(dtype.np)
    f = gemm.blocked_matmul(kernel, (64, 256), w, transpose_b)
    assert f is not None
    for x in (rng.standard_normal((64, 256)).astype(dtype.np),
              np.array([[np.inf, -0.0, np.nan, 1e30] * 64] * 64, dtype.np),
              np.asfortranarray(rng.standard_normal((64, 256)).astype(dtype.np)),
              rng.standard_normal((64, 512)).astype(dtype.np)[:, ::2]):
        got, want = f(x), kernel(x, w)
        assert got.dtype == want.dtype and got.shape == want.shape == (64, 128)
        assert got.tobytes() == want.tobytes()


def test_no_blocks_when_they_would_round_differently(monkeypatch):
    """A kernel summing in another order (here: two halves of k, then their sum)
    differs from the blocked product in the last bits, so the check refuses it."""
    monkeypatch.setattr(gemm, "small_kernel_limit", lambda: gemm._SMALL_MNK)
    monkeypatch.setattr(gemm, "_SAME_BITS", {})

    def halves(a, b):
        return np.dot(a[:, :128], b[:128]) + np.dot(a[:, 128:], b[128:])
    w = np.random.default_rng(2).standard_normal((256, 256)).astype(np.float32)
    assert gemm.blocked_matmul(halves, (64, 256), w, False) is None
    assert gemm._SAME_BITS == {("<f4", (64, 256), (256, 256), False, 8, "C"): False}


def test_no_blocks_without_a_known_small_kernel(monkeypatch):
    monkeypatch.setattr(gemm, "small_kernel_limit", lambda: None)
    w = np.ones((256, 256), np.float32)
    assert gemm.blocked_matmul(np.dot, (64, 256), w, False) is None


def test_the_aligned_copy_starts_on_64_bytes_and_is_read_only():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1:]
    c = gemm._aligned(a)
    assert c.ctypes.data % 64 == 0 and c.flags.c_contiguous and not c.flags.writeable
    np.testing.assert_array_equal(c, a)


class TwoLayers(nn.Cell):
    def __init__(self, w1, w2):
        super().__init__()
        self.w1, self.w2 = ms.Tensor(w1), ms.Tensor(w2)
        self.dense = ops.MatMul(transpose_b=True)

    def construct(self, x):
        h = ops.tanh(ops.matmul(x, self.w1))
        return ops.relu(self.dense(h, self.w2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_graph_mode_and_the_compiled_model_match_eager_mode_bit_for_bit(dtype, monkeypatch):
    from graphjit.backend import kernels
    made = []

    def counting(*args):
        f = gemm.blocked_matmul(*args)
        made.append(f is not None)
        return f
    monkeypatch.setattr(kernels, "blocked_matmul", counting)
    rng = np.random.default_rng(3)
    w1 = (rng.standard_normal((256, 256)) * 0.05).astype(dtype)
    w2 = (rng.standard_normal((128, 256)) * 0.05).astype(dtype)
    x = ms.Tensor(rng.standard_normal((64, 256)).astype(dtype))
    graph, eager = run_both(lambda: TwoLayers(w1, w2), x)
    assert graph.asnumpy().tobytes() == eager.asnumpy().tobytes()
    ms.set_context(mode=ms.GRAPH_MODE)
    model = ms.compile(TwoLayers(w1, w2), x)
    assert model(x).asnumpy().tobytes() == eager.asnumpy().tobytes()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    # both products (x @ w1, and h @ w2.T) were offered the blocked form, and took it
    # where the BLAS has the small kernel
    assert len(made) >= 2
    if gemm.small_kernel_limit() is not None:
        assert all(made)


@needs_small_kernel
def test_the_plan_calls_the_blocked_product_for_a_constant_matrix_only():
    g = Graph("f")
    x = g.add_param(TensorType(dt.float32, (64, 256)), "x")
    v = g.add_param(TensorType(dt.float32, (256, 256)), "v")
    w = g.const(np.random.default_rng(4).standard_normal((256, 256)).astype(np.float32))
    g.set_results([g.apply("MatMul", x, w), g.apply("MatMul", x, v)])
    verify(g)
    cg = compile_graph(g)
    assert cg.source.count("_blocked") == 1 and cg.source.count("_dot(") == 1
    xv = np.random.default_rng(5).standard_normal((64, 256)).astype(np.float32)
    wv = np.asarray(w.producer.attrs["value"])
    a, b = cg(xv, wv)
    assert a.tobytes() == b.tobytes() == np.dot(xv, wv).tobytes()


@needs_small_kernel
@pytest.mark.parametrize("layout", ["F", "strided"])
def test_a_constant_in_another_layout_is_checked_in_that_layout(layout):
    """numpy calls BLAS with the matrix transposed when it is Fortran-ordered (another
    kernel, maybe other bits): the check uses that layout; a strided one is not
    blocked."""
    rng = np.random.default_rng(6)
    base = rng.standard_normal((256, 512)).astype(np.float32)
    w = np.asfortranarray(base[:, :256]) if layout == "F" else base[:, ::2]
    f = gemm.blocked_matmul(np.dot, (64, 256), w, False)
    if layout == "strided":
        assert f is None
        return
    key = ("<f4", (64, 256), (256, 256), False, 8, "F")
    assert key in gemm._SAME_BITS and (f is not None) == gemm._SAME_BITS[key]
    x = rng.standard_normal((64, 256)).astype(np.float32)
    if f is not None:
        assert f(x).tobytes() == np.dot(x, w).tobytes()
