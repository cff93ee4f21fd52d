"""The SMALL tables (common.kernel_modes.small_results, small_table): 0-d integer
arithmetic and 0-d comparisons through the Tensor's operators, and x[i] of an integer
or bool vector, give what the general path gives (bits, dtype, errors, no warning under
any error state), and their shared read-only results never let one tensor's update
reach another."""
import operator
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphjit as ms
from graphjit.common import kernel_modes
from graphjit.ops import _dispatch

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64]
DTYPES = [np.bool_] + INT_DTYPES + [np.float16, np.float32, np.float64]
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
OPERATORS = [(operator.add, "Add"), (operator.sub, "Sub"), (operator.mul, "Mul"),
             (operator.lt, "Less"), (operator.le, "LessEqual"), (operator.gt, "Greater"),
             (operator.ge, "GreaterEqual"), (operator.truediv, "RealDiv"),
             (operator.floordiv, "FloorDiv"), (operator.mod, "FloorMod")]


def _outcome(fn):
    try:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            r = fn()
    except Exception as e:
        return type(e)
    return r.dtype, r.shape, r.asnumpy().tobytes()


def _values(d):
    """Values of dtype d around the table's ends, the dtype's ends and zero."""
    if d is np.bool_:
        return [False, True]
    if np.dtype(d).kind == "f":
        return [0.0, -0.0, 1.0, -1.5, 3.0, 1023.0, np.inf, -np.inf, np.nan, 6e4]
    i = np.iinfo(d)
    near = [-257, -256, -255, -1, 0, 1, 2, 3, 255, 256, 1022, 1023, 1024, 1025]
    return [v for v in near if i.min <= v <= i.max] + [int(i.min), int(i.max),
                                                       int(i.max) // 2 + 1]


@st.composite
def zero_d_pairs(draw):
    d = draw(st.sampled_from(DTYPES))
    other = draw(st.sampled_from([d, d, np.int32, np.float32]))
    x = np.array(draw(st.sampled_from(_values(d))), d)
    y = np.array(draw(st.sampled_from(_values(other))), other)
    return ms.Tensor(x), ms.Tensor(y)


@SETTINGS
@given(xy=zero_d_pairs(), fn_op=st.sampled_from(OPERATORS))
def test_zero_d_operators_give_the_general_paths_outcome(xy, fn_op):
    x, y = xy
    fn, op = fn_op
    want = _outcome(lambda: _dispatch._apply_slow(op, (x, y), {}))
    for _ in range(2):                          # first call, then from the tables
        assert _outcome(lambda: fn(x, y)) == want
    for number in (y.asnumpy().item(), 3, -2, 1000, 2 ** 40, 0.5, True):
        want = _outcome(lambda: _dispatch.binary(op, x, number))
        rwant = _outcome(lambda: _dispatch.binary(op, number, x))
        for _ in range(2):
            assert _outcome(lambda: fn(x, number)) == want, number
            assert _outcome(lambda: fn(number, x)) == rwant, number


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_wrap_around_leaves_the_table_for_the_ufunc(dtype):
    top = ms.Tensor(np.array(np.iinfo(dtype).max, dtype))
    one = ms.Tensor(np.array(1, dtype))
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            assert (top + one).asnumpy() == np.iinfo(dtype).min
            assert (one - top - one - one).asnumpy() == np.array(1, dtype) - \
                np.array(np.iinfo(dtype).max, dtype) - np.array(2, dtype)
            assert (top * top).dtype == top.dtype


def test_a_table_entry_is_built_only_for_two_0_d_inputs_of_one_dtype():
    i32, f32 = ms.int32, ms.float32
    from graphjit.ir.types import TensorType
    small = kernel_modes.small_results
    t = TensorType
    assert small(np.add, [t(i32, ()), t(i32, ())], i32)[0] is operator.add
    assert small(np.less, [t(f32, ()), t(f32, ())], ms.bool_)[0] is operator.lt
    assert small(np.add, [t(f32, ()), t(f32, ())], f32) is None       # float arithmetic
    assert small(np.add, [t(ms.bool_, ()), t(ms.bool_, ())], ms.bool_) is None   # or
    assert small(np.add, [t(i32, (1,)), t(i32, ())], i32) is None
    assert small(np.add, [t(i32, ()), t(ms.int64, ())], ms.int64) is None
    assert small(np.floor_divide, [t(i32, ()), t(i32, ())], i32) is None
    assert kernel_modes.small_table(np.dtype(np.float32)) is None
    results, lo, hi = kernel_modes.small_table(np.dtype(np.uint8))
    assert (lo, hi) == (0, 256) and [int(r) for r in results] == list(range(256))
    assert all(not r.flags.writeable and r.dtype == np.uint8 for r in results)


def test_a_write_into_a_small_result_reaches_no_other_tensor():
    one = ms.Tensor(np.array(1, np.int32))
    a, b = one + one, one + one
    assert a._data is b._data                   # one shared read-only array
    a[()] = 7
    assert a.asnumpy() == 7 and b.asnumpy() == 2 and (one + one).asnumpy() == 2
    v = ms.Tensor(np.array([5, 5, 1], np.int16))
    e = v[0]
    e[()] = -1
    assert v[1].asnumpy() == 5 and v.asnumpy().tolist() == [5, 5, 1] and e.asnumpy() == -1
    c = one < one + one
    c[()] = False
    assert bool(one < one + one)


@pytest.mark.parametrize("dtype", DTYPES)
def test_an_element_of_a_vector_is_the_index_op(dtype):
    x = ms.Tensor(np.array(_values(dtype), dtype))
    for i in range(-len(_values(dtype)), len(_values(dtype))):
        want = _outcome(lambda: _dispatch._apply_slow("Index", (x,), {"index": (i,)}))
        assert _outcome(lambda: x[i]) == want
        assert _outcome(lambda: x[i]) == want


def test_under_a_gradient_tape_the_operators_record():
    x = ms.Tensor(np.array(2.0, np.float32))
    x < x, x * x                                 # noqa: B018  (the tables hold these)
    g = ms.grad(lambda v: v * v * (v < 3.0))(x)
    assert g.asnumpy() == 4.0


@pytest.mark.parametrize("shape", [(3,), (2, 3), (0, 2), (4, 1, 2)])
@pytest.mark.parametrize("dtypes", [(np.float32,) * 3, (np.int32, np.float32), (np.float16,),
                                    (np.bool_, np.int8)])
def test_stack_along_the_first_axis_is_np_stack(shape, dtypes):
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal(shape) * 9).astype(d) for d in dtypes]
    for axis in (0, -len(shape) - 1, 1):
        got = _dispatch._apply_slow("Stack", tuple(ms.Tensor(a) for a in arrays),
                                    {"axis": axis})
        want = np.stack(arrays, axis).astype(got.dtype.np)   # promoted as numpy, then cast
        assert got.shape == want.shape
        assert got.asnumpy().tobytes() == want.tobytes()
        assert ops_stack_twice(arrays, axis) == (got.dtype, got.shape, want.tobytes())


def ops_stack_twice(arrays, axis):
    from graphjit import ops
    ts = [ms.Tensor(a) for a in arrays]
    r = [ops.stack(ts, axis) for _ in range(2)]           # the second from the table
    assert r[0].asnumpy().tobytes() == r[1].asnumpy().tobytes()
    return r[1].dtype, r[1].shape, r[1].asnumpy().tobytes()


def test_a_redefined_op_clears_the_reductions_table():
    from graphjit.common import eager_reductions
    from graphjit.ir import registry
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    x.sum(), x.sum(), x.max(0)                  # noqa: B018
    assert ("ReduceSum", None, False, ms.float32, (3,)) in eager_reductions._REDUCED
    for cb in registry.ON_REPLACE:
        cb("ReduceSum")
    assert not eager_reductions._REDUCED
    assert x.sum().asnumpy() == 3 and x.sum().dtype == ms.float32


def test_zeros_of_each_type_are_told_apart_in_the_number_tables():
    x = ms.Tensor(np.array([1.0, -2.0], np.float32))
    for _ in range(2):
        for number in (0, -0.0, 0.0, False, float("nan"), 0, -0.0):
            for fn, op in ((operator.mul, "Mul"), (operator.add, "Add")):
                want = _outcome(lambda: _dispatch.binary(op, x, number))
                assert _outcome(lambda: fn(x, number)) == want, (number, op)
                assert _outcome(lambda: fn(number, x)) == \
                    _outcome(lambda: _dispatch.binary(op, number, x)), (number, op)


SHAPES = [(), (1,), (3,), (4,), (2, 3), (3, 1), (1, 4), (0,), (2, 0), (2, 1, 3)]


@SETTINGS
@given(d=st.sampled_from(DTYPES), d2=st.sampled_from([None, np.float32, np.int64]),
       shapes=st.lists(st.tuples(st.sampled_from(SHAPES), st.sampled_from(SHAPES)),
                       min_size=2, max_size=5),
       fn_op=st.sampled_from(OPERATORS + [(operator.pow, "Pow")]))
def test_any_shape_entries_give_the_general_outcome_for_every_shape(d, d2, shapes, fn_op):
    """A ufunc's entry serves the dtypes whatever the shapes: shapes seen first or not,
    broadcasting or not (the general path's error), and numbers beside each."""
    fn, op = fn_op
    rng = np.random.default_rng(len(shapes))
    for sa, sb in shapes:
        x = ms.Tensor((rng.standard_normal(sa) * 5).astype(d))
        y = ms.Tensor((rng.standard_normal(sb) * 5).astype(d2 or d))
        want = _outcome(lambda: _dispatch._apply_slow(op, (x, y), {}))
        for _ in range(2):                      # the second call from the tables
            assert _outcome(lambda: fn(x, y)) == want, (sa, sb)
        for number in (2, 0.5):
            assert _outcome(lambda: fn(x, number)) == \
                _outcome(lambda: _dispatch.binary(op, x, number)), (sa, number)
            assert _outcome(lambda: fn(number, y)) == \
                _outcome(lambda: _dispatch.binary(op, number, y)), (sb, number)
