"""recipes.select_into: np.where(c, x, y) written into a buffer (a fresh one, x's or
y's) bit for bit, NaN payloads, -0.0 and infinities included, for every dtype."""
import numpy as np
from hypothesis import given, settings, strategies as st

from graphjit.backend import recipes
from graphjit.backend.executor import compile_graph
from graphjit.backend.recipes import select_into, select_zero_into
from graphjit.ir import Graph, TensorType, dtypes as dt, verify

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint16,
          np.bool_, np.complex64]


def _values(rng, dtype, shape):
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    v = (rng.standard_normal(shape) * 10).astype(dtype)
    flat = v.reshape(-1)
    specials = [np.nan, -0.0, 0.0, np.inf, -np.inf]
    for k in range(0, flat.size, 3):
        flat[k] = specials[k % len(specials)]
    if np.dtype(dtype).kind == "f" and flat.size:
        bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[flat.itemsize])
        bits[0] |= 1      # a NaN with a payload
    return v


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.dtype, a.shape, a.tobytes()


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2 ** 32 - 1),
       shape=st.sampled_from([(), (7,), (3, 5), (4, 1, 6)]),
       c_full=st.booleans(), y_kind=st.sampled_from(["full", "scalar", "zero"]),
       into=st.sampled_from(["fresh", "x", "y"]), fortran=st.booleans(),
       bits=st.booleans())
def test_select_into_gives_np_wheres_bits(dtype, seed, shape, c_full, y_kind, into, fortran,
                                          bits):
    rng = np.random.default_rng(seed)
    x = np.array(_values(rng, dtype, shape))        # buffers are arrays, 0-d included
    if fortran and x.ndim > 1:
        x = np.asfortranarray(x)
    c = rng.random(shape if c_full else shape[-1:]) < 0.5
    y = np.array(_values(rng, dtype, shape)) if y_kind == "full" else \
        np.asarray(_values(rng, dtype, (1,))[0]) if y_kind == "scalar" else \
        np.zeros((), dtype)
    if into == "y" and y_kind != "full":
        into = "fresh"
    want = np.where(c, x, y)
    out = np.empty(shape, dtype) if into == "fresh" else x if into == "x" else y
    fn = select_zero_into if y_kind == "zero" and into != "y" and seed % 2 else select_into
    old = recipes.SELECT_BITS_MIN
    recipes.SELECT_BITS_MIN = 0 if bits else old     # the bit path for small arrays too
    try:
        fn(out, c, x, y)
    finally:
        recipes.SELECT_BITS_MIN = old
    assert _bits(out) == _bits(want)


def test_select_into_a_buffer_that_is_both_x_and_y():
    x = np.array([1.5, -0.0, np.nan], np.float32)
    select_into(x, np.array([True, False, True]), x, x)
    assert _bits(x) == _bits(np.array([1.5, -0.0, np.nan], np.float32))


def test_a_fused_select_writes_into_xs_buffer_with_the_kernels_bits():
    """A ReLU gradient: Select(x > 0, g, 0) where g dies there is written into g."""
    g = Graph("relu_grad")
    a = g.add_param(TensorType(dt.float32, (64, 48)), "a")
    b = g.add_param(TensorType(dt.float32, (64, 48)), "b")
    gh = g.apply("Mul", a, b)
    zero = g.const(np.float32(0))
    g.set_results([g.apply("Select", g.apply("Greater", a, zero), gh, zero)])
    verify(g)
    cg = compile_graph(g)
    assert "_select_zero_into(" in cg.source, cg.source
    rng = np.random.default_rng(3)
    av = _values(rng, np.float32, (64, 48))
    bv = _values(rng, np.float32, (64, 48))
    with np.errstate(all="ignore"):
        want = np.where(av > 0, av * bv, np.float32(0))
    assert _bits(cg(av, bv)[0]) == _bits(want)
