"""Float powers with a small integer exponent (ir.defs.integer_pow): repeated
multiplication in both modes, bit-identical between eager mode, graph mode's fused
kernels (inline and blocked) and its unfused kernel, within one ulp of np.power, and
their gradients."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import graphjit as ms
from graphjit import ops
from graphjit.backend import fusion
from graphjit.jit.cache import cache_of
from graphjit.ir.defs.integer_pow import integer_exponent, integer_power, wide_dtype

FLOATS = [np.float16, np.float32, np.float64]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -3.0, 0.5, -0.75, 1e-3,
           -7e-5, 65504.0, -300.0, 1e-8]
_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def ulps(a, b):
    """How many representable values lie between a and b (same float dtype)."""
    it = _INT[a.dtype.itemsize]
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)

    def ordered(v):
        i = v.view(it).astype(np.int64)
        return np.where(i < 0, -(i & (sign - 1)), i)
    return np.abs(ordered(a) - ordered(b))


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_close_to_np_power(got, x, n):
    with np.errstate(all="ignore"):
        want = np.power(x, x.dtype.type(n))
    finite = np.isfinite(want)
    assert (ulps(got[finite], want[finite]) <= 1).all(), (x[finite], got[finite], n)
    # where np.power is not finite, the same infinity or a NaN
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)


def _graph_of(fn):
    ms.set_context(mode=ms.GRAPH_MODE)
    return ms.jit(fn)


def _eager(fn, x):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return fn(ms.Tensor(x)).asnumpy()


@st.composite
def bases(draw):
    """Special values, values hypothesis picks (any float of the dtype), and a few
    hundred of moderate size (where products keep many digits: rounding shows)."""
    dtype = draw(st.sampled_from(FLOATS))
    body = draw(hnp.arrays(dtype, draw(st.integers(1, 40)),
                           elements=st.floats(width=np.dtype(dtype).itemsize * 8)))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    scale = draw(st.sampled_from([1.0, 10.0, 1e-3]))
    moderate = (rng.standard_normal(300) * scale).astype(dtype)
    special = np.array(SPECIAL, np.float32 if dtype == np.float16 else dtype).astype(dtype)
    return np.concatenate([special, body, moderate])


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(x=bases(), n=st.integers(-4, 8), as_float=st.booleans())
def test_integer_powers_agree_in_both_modes_and_with_np_power(x, n, as_float):
    e = float(n) if as_float else n

    def power(v):
        return v ** e

    def in_chain(v):                        # fused with neighbours in one kernel
        return (ops.abs(v) * 1.0) ** e - v

    with np.errstate(all="ignore"):
        for fn in (power, in_chain):
            eager = _eager(fn, x)
            graph = _graph_of(fn)(ms.Tensor(x)).asnumpy()
            assert eager.dtype == x.dtype
            assert same_bits(eager, graph), (fn.__name__, x, n)
        assert_close_to_np_power(_eager(power, x), x, n)


@pytest.mark.parametrize("dtype", FLOATS)
def test_the_blocked_fused_kernel_gives_the_same_bits(dtype, monkeypatch):
    """A large chain runs over cache-sized blocks; the power inside gives the bits of
    eager mode's kernel, which widens a large array a chunk at a time."""
    monkeypatch.setattr(fusion, "MIN_BLOCKED_BYTES", 64)
    monkeypatch.setattr(fusion, "MIN_BLOCKED_POWER_BYTES", 64)
    monkeypatch.setattr(fusion, "BLOCK_BYTES", 256)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(100_003) * 4).astype(dtype)
    x[:len(SPECIAL)] = SPECIAL

    def f(v):
        return (v * 0.5) ** 3 + v ** -2 - v ** 7

    with np.errstate(all="ignore"):
        eager = _eager(f, x)
        jf = _graph_of(f)
        graph = jf(ms.Tensor(x)).asnumpy()
        assert same_bits(eager, graph)
        src = cache_of(jf)[0].plan.source
        assert "for b in range" in src                                 # fused, blocked
        # the blocks form the powers themselves: v widened once for v ** -2 and v ** 7,
        # (v * 0.5) once for its cube
        block = src[src.index("for b in range"):src.index("return o")]
        assert "integer_power" not in block and block.count("_copyto") == 2 + 3


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(x=bases(), ns=st.lists(st.integers(-4, 8), min_size=2, max_size=4),
       as_float=st.booleans())
def test_powers_of_one_x_in_a_blocked_kernel_agree_with_eager_mode(x, ns, as_float):
    """Several powers of one x in one blocked kernel share x widened and its squares;
    each still gets eager mode's bits (blocks of 8 elements: a short last block)."""
    es = [float(n) if as_float else n for n in ns]

    def f(v):
        r = v * 1.0
        for e in es:
            r = r + v ** e
        return r

    saved = fusion.MIN_BLOCKED_BYTES, fusion.MIN_BLOCKED_POWER_BYTES, fusion.BLOCK_BYTES
    fusion.MIN_BLOCKED_BYTES = fusion.MIN_BLOCKED_POWER_BYTES = 16
    fusion.BLOCK_BYTES = 64
    try:
        with np.errstate(all="ignore"):
            eager = _eager(f, x)
            jf = _graph_of(f)
            graph = jf(ms.Tensor(x)).asnumpy()
        assert same_bits(eager, graph), (x, ns)
        assert "for b in range" in cache_of(jf)[0].plan.source
    finally:
        fusion.MIN_BLOCKED_BYTES, fusion.MIN_BLOCKED_POWER_BYTES, fusion.BLOCK_BYTES = saved


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [-16, -5, -3, 3, 9, 16])
def test_chunked_widening_matches_whole_array_widening(dtype, n):
    rng = np.random.default_rng(n % 7)
    x = (rng.standard_normal(70_001) * 3).astype(dtype)
    with np.errstate(all="ignore"):
        whole = np.empty_like(x)
        for i in range(0, x.size, 1000):          # pieces under one chunk
            integer_power(x[i:i + 1000], n, whole[i:i + 1000])
        chunked = integer_power(x, n)
        assert same_bits(whole, chunked)
        assert_close_to_np_power(chunked, x, n)
        inplace = x.copy()
        assert integer_power(inplace, n, inplace) is inplace and same_bits(inplace, chunked)
        strided = integer_power(x[::2], n)       # a copy of a strided input, same bits
        assert same_bits(strided, chunked[::2])


def test_which_exponents_count_as_integer():
    assert [integer_exponent(v) for v in (3, 3.0, -4.0, np.float16(16), np.int8(-16),
                                          np.array([2.0]))] == [3, 3, -4, 16, -16, 2]
    for v in (2.5, 17, -17.0, np.inf, np.nan, np.array([1.0, 2.0]), True):
        assert integer_exponent(v) is None or isinstance(v, bool)
    assert wide_dtype(np.float16) == np.float32 and wide_dtype(np.float32) == np.float64
    assert wide_dtype(np.int32) is None


def test_zero_one_two_and_minus_one_are_single_operations():
    x = np.array([np.nan, -np.inf, -0.0, 0.0, 3.0, -2.5, 1e-45], np.float32)
    with np.errstate(all="ignore"):
        assert same_bits(integer_power(x, 0), np.ones_like(x))
        assert same_bits(integer_power(x, 1), x)
        assert same_bits(integer_power(x, 2), x * x)
        assert same_bits(integer_power(x, -1), np.float32(1) / x)


def test_large_or_fractional_exponents_keep_np_power():
    x = np.array([1.5, -2.0, 0.25, 3.0], np.float32)

    def f(v):
        return v ** 17 + ops.abs(v) ** 2.5

    with np.errstate(all="ignore"):
        want = np.power(x, np.float32(17)) + np.power(np.abs(x), np.float32(2.5))
        assert same_bits(_eager(f, x), want)
        assert same_bits(_graph_of(f)(ms.Tensor(x)).asnumpy(), want)


def test_integer_bases_keep_exact_integer_powers():
    k = np.array([3, -7, 1 << 20, 1, -1, 0, 2], np.int32)

    def f(v):
        return v ** 3, v ** -2, v ** 5

    with np.errstate(all="ignore"):
        want = (np.power(k, 3), np.array([0, 0, 0, 1, 1, 0, 0], np.int32), np.power(k, 5))
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            ms.set_context(mode=mode)
            g = f if mode == ms.PYNATIVE_MODE else ms.jit(f)
            got = [r.asnumpy() for r in g(ms.Tensor(k))]
            for a, b in zip(got, want):
                assert same_bits(a, b), (mode, a, b)


@pytest.mark.parametrize("n", [-3, -2, 3, 4, 7, 3.0])
def test_gradients_of_integer_powers(n):
    x = np.array([0.5, -1.25, 2.0, 3.0, -0.75], np.float32)

    def f(v):
        return (v ** n).sum()

    grads = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        grads.append(ms.grad(f)(ms.Tensor(x)).asnumpy())
    assert same_bits(grads[0], grads[1])
    want = n * x.astype(np.float64) ** (n - 1)
    np.testing.assert_allclose(grads[0], want, rtol=2e-6)
