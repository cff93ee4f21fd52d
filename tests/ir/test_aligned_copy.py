"""ir.memory: constants copied onto 64-byte boundaries, and the fact that makes it
safe: BLAS products give the same bits whatever their operands' alignment."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ir.memory import ALIGN, MIN_BYTES, aligned_copy

RNG = np.random.default_rng(3)


def _at(shape, dtype, offset):
    """An array of shape and dtype starting `offset` bytes past a 64-byte boundary."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) * dt.itemsize
    raw = np.empty(n + 2 * ALIGN, np.uint8)
    start = (-raw.ctypes.data) % ALIGN + offset
    return raw[start:start + n].view(dt).reshape(shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
@pytest.mark.parametrize("shape", [(64, 64), (3, 100), (1000,), (2, 3, 50)])
def test_aligned_copy_is_an_equal_c_array_on_a_cache_line(dtype, shape):
    a = (RNG.standard_normal(shape) * 10).astype(dtype)
    c = aligned_copy(a)
    assert c.dtype == a.dtype and c.shape == a.shape and c.tobytes() == a.tobytes()
    assert c.flags.c_contiguous and not np.shares_memory(a, c)
    if a.nbytes >= MIN_BYTES:
        assert c.ctypes.data % ALIGN == 0


def test_small_fortran_and_object_arrays_are_copied_as_they_are():
    f = np.asfortranarray(RNG.standard_normal((40, 30)))
    c = aligned_copy(f)
    assert c.flags.f_contiguous and not c.flags.c_contiguous and np.array_equal(c, f)
    small = np.arange(3, dtype=np.float32)
    assert aligned_copy(small).tobytes() == small.tobytes()
    o = np.array([1, "a", None] * 40, dtype=object)
    assert aligned_copy(o).tolist() == o.tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mkn", [(16, 64, 64), (16, 32, 64), (3, 7, 5), (1, 64, 64),
                                 (100, 300, 17), (16, 64, 1), (5, 1000, 3)])
def test_blas_products_do_not_depend_on_alignment(dtype, mkn):
    m, k, n = mkn
    a0 = RNG.standard_normal((m, k)).astype(dtype)
    b0 = RNG.standard_normal((k, n)).astype(dtype)
    want, want_v = np.dot(a0, b0), np.dot(a0[0].copy(), b0)
    for off_a in (0, 8, 16, 48):
        for off_b in (0, 16, 32):
            a, b = _at((m, k), dtype, off_a), _at((k, n), dtype, off_b)
            a[...], b[...] = a0, b0
            assert np.dot(a, b).tobytes() == want.tobytes()
            assert (a @ b).tobytes() == want.tobytes()
            v = _at((k,), dtype, off_a)
            v[...] = a0[0]
            assert np.dot(v, b).tobytes() == want_v.tobytes()


def test_a_cells_weights_become_aligned_constants():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.u = ms.Tensor(RNG.standard_normal((64, 64)).astype(np.float32))

        def construct(self, h):
            return ops.tanh(ops.matmul(h, self.u))

    net = Net()
    h = RNG.standard_normal((16, 64)).astype(np.float32)
    eager = net(ms.Tensor(h)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = net(ms.Tensor(h)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert out.tobytes() == eager.tobytes()
    from graphjit.jit.cache import cache_of
    consts = [v for v in cache_of(net)[0].plan.fn.__globals__.values()
              if isinstance(v, np.ndarray) and v.shape == (64, 64)]
    assert consts and all(c.ctypes.data % ALIGN == 0 for c in consts)
