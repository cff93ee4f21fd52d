"""Cast's kernel: numpy's C cast for every input kind a plan or eager mode hands it
(arrays, 0-d arrays, numpy scalars, Python numbers), a numpy scalar for a 0-d result
(the plans' convention), and the integer scalar path agreeing with the array cast,
wrap-around included."""
import numpy as np
from hypothesis import given, strategies as st

from graphjit.ir import dtypes as dt
from graphjit.ir.registry import get_op
from graphjit.ir.types import TensorType

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ALL = INTS + [np.float16, np.float32, np.float64, np.bool_]


def kernel(src, dst, shape=()):
    return get_op("Cast").make_kernel([TensorType(dt.from_numpy(np.dtype(src)), shape)],
                                      [TensorType(dt.from_numpy(np.dtype(dst)), shape)],
                                      {"dtype": dt.from_numpy(np.dtype(dst))})


@given(st.sampled_from(INTS), st.sampled_from(INTS), st.integers(-2 ** 63, 2 ** 64 - 1))
def test_integer_scalars_cast_as_numpy_arrays_do(src, dst, value):
    if src == dst:
        return                                          # no Cast node
    lo, hi = int(np.iinfo(src).min), int(np.iinfo(src).max)
    value = (value - lo) % (hi - lo + 1) + lo           # a value of src
    k = kernel(src, dst)
    expected = np.asarray(np.array(value, src)).astype(dst)
    for given_value in (src(value), np.array(value, src)):
        got = k(given_value)
        assert type(got) is np.dtype(dst).type          # a numpy scalar, not a 0-d array
        assert got == expected[()]


@given(st.sampled_from(ALL), st.sampled_from(ALL), st.lists(st.floats(-300, 300), max_size=4))
def test_arrays_and_scalars_keep_numpys_cast(src, dst, values):
    a = np.array(values).astype(src)
    if src == dst:
        return
    with np.errstate(all="ignore"):
        got, expected = kernel(src, dst, a.shape)(a), a.astype(dst)
        assert type(got) is np.ndarray and got.dtype == dst
        np.testing.assert_array_equal(got, expected)
        if values:
            one = kernel(src, dst)(a[0])
            assert type(one) is np.dtype(dst).type
            np.testing.assert_array_equal(one, expected[0])


def test_a_python_int_casts_too():
    k = kernel(np.int64, np.int32)
    assert k(5) == 5 and type(k(5)) is np.int32
    assert k(2 ** 31) == np.int32(-2 ** 31)                   # wraps as the array cast
