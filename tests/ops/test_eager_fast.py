"""The eager fast paths (common.eager_fast, common.kernel_modes) give what the general
path gives: the same bits, dtypes, shapes, errors and warnings, first call or cached."""
import operator
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphjit as ms
from graphjit import ops
from graphjit.common import eager_fast, kernel_modes
from graphjit.common import tensor as tensor_module
from graphjit.ops import _dispatch

INT_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              np.uint32, np.uint64]
DTYPES = INT_DTYPES + [np.float16, np.float32, np.float64]
SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _bits(t):
    return t.dtype, t.shape, t.asnumpy().tobytes()


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = fn()
    except Exception as e:          # the same class either way
        return type(e)
    return tuple(_bits(x) for x in r) if isinstance(r, tuple) else _bits(r)


def _general(op, *inputs, **attrs):
    """The general path: every step at every call, the kernel under the ignore state."""
    return _dispatch._apply_slow(op, inputs, attrs)


def _extremes(d):
    if d is np.bool_:
        return np.array([True, False])
    i = np.iinfo(d)
    return np.array([i.min, i.max, 0, 1, i.max // 2 + 1], dtype=d)


# -- kernel modes ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_quiet_ufuncs_set_no_floating_point_flag_on_integers(dtype):
    v = _extremes(dtype)
    a, b = v[:, None], v[None, :]
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        for uf in kernel_modes.NO_FP_ERRORS:
            args = (a, b) if uf.nin == 2 else (v,)
            try:
                uf(*args)
                uf(*(np.asarray(x.flat[-1]) for x in args))
            except TypeError:        # no loop for this dtype (invert of a float...)
                continue


def test_modes():
    f32, i32, b = ms.float32, ms.int32, ms.bool_
    from graphjit.ir.dtypes import BY_NUMPY as by
    mode = kernel_modes.kernel_mode
    if kernel_modes.OUT_ARRAY:
        assert mode(np.add, [i32, i32], by) == (kernel_modes.QUIET, i32)
        assert mode(np.less, [b, b], by) == (kernel_modes.QUIET, b)
        assert mode(np.add, [f32, f32], by) == (kernel_modes.UFUNC, f32)
        assert mode(np.floor_divide, [i32, i32], by) == (kernel_modes.UFUNC, i32)
        assert mode(np.true_divide, [i32, i32], by) == (kernel_modes.UFUNC, ms.float64)
        assert mode(np.invert, [f32], by) == (kernel_modes.GENERAL, None)   # no such loop
    assert mode(lambda a: a, [f32], by) == (kernel_modes.GENERAL, None)
    assert mode(np.divmod, [f32, f32], by) == (kernel_modes.GENERAL, None)


@st.composite
def pairs(draw):
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    da, db = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    if draw(st.booleans()):
        db = da
    sa = draw(st.sampled_from([(), (3,), (2, 3)]))
    sb = draw(st.sampled_from([(), sa]))

    def arr(d, s):
        if draw(st.booleans()) and d not in (np.float16, np.float32, np.float64):
            return rng.choice(_extremes(d), s)
        v = rng.standard_normal(s) * 50
        if d in (np.float16, np.float32, np.float64) and draw(st.booleans()):
            v = v * np.array([0.0, np.inf, np.nan, 1e300])[rng.integers(0, 4, s)]
        with np.errstate(all="ignore"):
            return np.asarray(v).astype(d)
    return ms.Tensor(arr(da, sa)), ms.Tensor(arr(db, sb))


BINARY_OPS = ["Add", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "Pow", "Less",
              "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "Maximum",
              "Minimum", "BitwiseAnd", "BitwiseOr", "LogicalAnd", "LogicalOr"]


@SETTINGS
@given(xy=pairs(), op=st.sampled_from(BINARY_OPS))
def test_apply_with_modes_gives_the_general_paths_bits(xy, op):
    x, y = xy
    want = _outcome(lambda: _general(op, x, y))
    assert _outcome(lambda: _dispatch.apply(op, x, y)) == want
    assert _outcome(lambda: _dispatch.apply(op, x, y)) == want      # from the table


UNARY_OPS = ["Neg", "Abs", "Exp", "Log", "Sqrt", "Tanh", "Sign", "Square", "LogicalNot",
             "Floor", "Invert", "Sigmoid"]


@SETTINGS
@given(xy=pairs(), op=st.sampled_from(UNARY_OPS))
def test_unary_apply_with_modes_gives_the_general_paths_bits(xy, op):
    x = xy[0]
    want = _outcome(lambda: _general(op, x))
    assert _outcome(lambda: _dispatch.apply(op, x)) == want
    assert _outcome(lambda: _dispatch.apply_unary(op, x)) == want


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_integer_overflow_wraps_without_a_warning_whatever_the_error_state(dtype):
    big = ms.Tensor(np.array([np.iinfo(dtype).max], dtype))
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):                      # first call and cached
            assert (big + 1).asnumpy()[0] == np.iinfo(dtype).min
            assert (big * big).dtype == big.dtype
            assert (big - big < big).asnumpy().tolist() == [True]


def test_float_kernels_stay_under_the_ignore_state():
    x = ms.Tensor(np.array([1.0, 0.0], np.float32))
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            r = x / ms.Tensor(np.zeros(2, np.float32))
            assert np.isinf(r.asnumpy()[0]) and np.isnan(r.asnumpy()[1])
            assert ops.log(x - x).asnumpy().tolist() == [-np.inf, -np.inf]
    ints = ms.Tensor(np.array([4, 3], np.int32))
    with np.errstate(all="raise"):
        for _ in range(2):                      # integer division by zero: no error either
            assert (ints // ms.Tensor(np.zeros(2, np.int32))).asnumpy().tolist() == [0, 0]


def test_numpy_keeps_warning_outside_graphjit():
    ms.Tensor(np.array([1.0], np.float32)) / 0.0       # noqa: B018
    with pytest.warns(RuntimeWarning):
        np.array([1.0]) / 0.0


# -- the Tensor's methods ------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5,), (4, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_])
def test_int_index_is_the_index_op(shape, dtype):
    x = ms.Tensor((np.arange(np.prod(shape)).reshape(shape) % 3).astype(dtype))
    n = shape[0]
    for i in (0, n - 1, -1, -n, n, -n - 1, True):
        want = _outcome(lambda: _general("Index", x, index=(i,)))
        if i is True:
            want = _outcome(lambda: ops.functional.getitem(x, i))
        assert _outcome(lambda: x[i]) == want, i
        assert _outcome(lambda: x[i]) == want, i
    with pytest.raises(IndexError):
        ms.Tensor(np.array(3.0))[0]


REDUCTIONS = [("sum", "ReduceSum"), ("mean", "ReduceMean"), ("max", "ReduceMax"),
              ("min", "ReduceMin")]


@pytest.mark.parametrize("method,op", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float16, np.float32, np.float64])
def test_reduction_methods_take_the_table_with_the_general_outcome(method, op, dtype,
                                                                    monkeypatch):
    x = ms.Tensor((np.arange(-6, 6).reshape(3, 4) * 0.7).astype(dtype))
    cases = [(None, False), (0, True), (-1, False), (1, True), (2, False), (None, True)]
    for axis, keep in cases:
        want = _outcome(lambda: _general(op, x, axis=axis, keep_dims=keep))
        for _ in range(2):
            assert _outcome(lambda: getattr(x, method)(axis, keepdims=keep)) == want
    # once seen, the table serves them: the general path is not needed any more
    monkeypatch.setattr(tensor_module, "_F", None)
    for axis, keep in cases[:2]:
        assert _outcome(lambda: getattr(x, method)(axis, keepdims=keep)) == \
            _outcome(lambda: _general(op, x, axis=axis, keep_dims=keep))


def test_reduction_arguments_of_other_kinds_take_the_general_path():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    x.sum(1), x.max(1)                           # noqa: B018
    assert _outcome(lambda: x.sum(True)) == \
        _outcome(lambda: _general("ReduceSum", x, axis=True, keep_dims=False))
    assert x.sum((0, 1)).asnumpy() == 15
    assert x.sum(1, keepdims=1).shape == (2, 1)
    assert x.sum(dtype=ms.int32).dtype == ms.int32
    assert x.max(initial=9.0).asnumpy() == 9
    v, i = x.max(1, return_indices=True)
    assert i.asnumpy().tolist() == [2, 2]
    assert x.mean(1, dtype=ms.float64).dtype == ms.float64


def test_reductions_under_a_gradient_tape():
    x = ms.Tensor(np.array([1.0, 3.0, 2.0], np.float32))
    x.max(), x.sum(), x[1]                       # noqa: B018  (fills the tables)
    g = ms.grad(lambda v: v.max() + v.sum() * 2 + v[1])(x)
    assert g.asnumpy().tolist() == [2.0, 4.0, 2.0]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_gather_cached_gives_the_general_outcome(dtype):
    table = ms.Tensor(np.arange(20, dtype=np.float32).reshape(5, 4))
    for idx in (np.array(3), np.array(-1), np.array([0, 4, 2]), np.array([[1], [-5]]),
                np.array(5), np.array([1, 7]), np.zeros((0,))):
        i = ms.Tensor(idx.astype(dtype) if idx.min(initial=0) >= 0 or dtype != np.uint8
                      else idx)
        for axis in (0, 1, -1):
            want = _outcome(lambda: _general("Gather", table, i, axis=axis))
            assert _outcome(lambda: ops.gather(table, i, axis)) == want, (idx, axis)
            assert _outcome(lambda: ops.gather(table, i, axis)) == want, (idx, axis)
    with pytest.raises(ValueError):
        ops.gather(table, ms.Tensor(np.array(1)), 0, batch_dims=1)
    flat, scalar = ms.Tensor(np.arange(4, dtype=np.int16)), ms.Tensor(np.array(2.0))
    for x, i, axis in ((flat, ms.Tensor(np.array(-4)), 0), (flat, ms.Tensor(np.array(True)), 0),
                       (scalar, ms.Tensor(np.array(0)), 0), (table, ms.Tensor(np.array(1.0)), 0),
                       (table, ms.Tensor(np.array(1)), 2), (table, ms.Tensor(np.array(1)), -3)):
        want = _outcome(lambda: _general("Gather", x, i, axis=axis))
        assert _outcome(lambda: ops.gather(x, i, axis)) == want, (x, i, axis)
    r = ops.gather(table, ms.Tensor(np.array(2)), 0)
    r[0] = -1.0                                    # a copy: the table keeps its values
    assert table.asnumpy()[2, 0] == 8


def test_stack_cached_gives_the_general_outcome():
    a = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = ms.Tensor(np.ones((2, 3), np.int32))
    c = ms.Tensor(np.ones((3, 2), np.float32))
    for ts in ([a, a, a], (a, b), [a], [a, b, a]):
        for axis in (0, 1, -1, 2):
            want = _outcome(lambda: _general("Stack", *ts, axis=axis))
            assert _outcome(lambda: ops.stack(ts, axis)) == want
            assert _outcome(lambda: ops.stack(ts, axis)) == want
    assert _outcome(lambda: ops.stack([a, c])) == _outcome(lambda: _general("Stack", a, c,
                                                                             axis=0))
    with pytest.raises(TypeError):
        ops.stack([a, a], 1.0)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 2, 3), (3, 1)),
                                    ((2, 3), (4, 5))])
@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int32, np.float64),
                                    (np.float16, np.float16)])
def test_matmul_pair_path(shapes, dtypes):
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal(shapes[0]).astype(dtypes[0]))
    y = ms.Tensor(rng.standard_normal(shapes[1]).astype(dtypes[1]))
    want = _outcome(lambda: _general("MatMul", x, y))
    assert _outcome(lambda: ops.matmul(x, y)) == want
    assert _outcome(lambda: ops.matmul(x, y)) == want
    assert _outcome(lambda: ops.matmul(x.asnumpy(), y)) == want


@pytest.mark.parametrize("value", [0, 1, -0.0, float("nan"), True, False, 0.5])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_bool_of_one_element(value, shape):
    t = ms.Tensor(np.full(shape, value, np.float32 if isinstance(value, float) else None))
    assert bool(t) is bool(np.full(shape, value).reshape(-1)[0])
    with pytest.raises(ValueError, match="ambiguous"):
        bool(ms.Tensor(np.zeros(2)))


@pytest.mark.parametrize("number", [3, -3, 0.5, 1e30, 2 ** 40, True, 300])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.float16, np.float32,
                                   np.bool_])
@pytest.mark.parametrize("fn,op", [(operator.add, "Add"), (operator.mul, "Mul"),
                                   (operator.lt, "Less"), (operator.sub, "Sub")])
def test_numbers_keep_their_dtype_in_the_one_lookup_table(number, dtype, fn, op):
    x = ms.Tensor(np.arange(3).astype(dtype))
    want = _outcome(lambda: _dispatch.binary(op, x, number))
    rwant = _outcome(lambda: _dispatch.binary(op, number, x))
    for _ in range(3):
        assert _outcome(lambda: fn(x, number)) == want
        assert _outcome(lambda: fn(number, x)) == rwant
    # an equal number of another type (1, 1.0, True) is another entry
    assert _outcome(lambda: fn(x, float(number))) == \
        _outcome(lambda: _dispatch.binary(op, x, float(number)))


def test_a_redefined_op_clears_the_fast_tables():
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    x.sum(), x * 2.0                             # noqa: B018
    assert eager_fast._FAST and eager_fast._WITH_NUMBER
    from graphjit.ir import registry
    for cb in registry.ON_REPLACE:
        cb("ReduceSum")
    assert not eager_fast._FAST and not eager_fast._WITH_NUMBER
    assert x.sum().asnumpy() == 3 and (x * 2.0).asnumpy().tolist() == [0, 2, 4]


# -- the context that ignores floating-point errors ------------------------------------------
needs_context = pytest.mark.skipif(not kernel_modes.OUT_ARRAY,
                                   reason="numpy < 2.3: no out=..., the state is set per op")


@needs_context
def test_ops_inside_the_taken_context_set_the_state_instead():
    from graphjit.ir.fp_errors import RUN_IGNORING
    x = ms.Tensor(np.array([1.0, 0.0], np.float32))
    z = ms.Tensor(np.zeros(2, np.float32))
    x / z, x.sum(), ops.matmul(x, x)             # noqa: B018  (in the tables)

    def inner():                # RUN_IGNORING is entered: every op below falls back
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return x / z, x.sum(), ops.matmul(x, x), ops.log(z)
    with np.errstate(all="raise"):
        q, s, m, lg = RUN_IGNORING(inner)
    assert np.isinf(q.asnumpy()[0]) and np.isnan(q.asnumpy()[1])
    assert s.asnumpy() == 1 and m.asnumpy() == 1 and lg.asnumpy().tolist() == [-np.inf] * 2


def test_threads_running_ops_at_once_agree_with_one_thread():
    import threading
    rng = np.random.default_rng(1)
    xs = [ms.Tensor(rng.standard_normal((64, 64)).astype(np.float32)) for _ in range(4)]
    zero = ms.Tensor(np.zeros((64, 64), np.float32))

    def work(x):
        y = x
        for _ in range(30):
            y = ops.tanh(ops.matmul(y, x) / (zero + 0.0) * 0.0 + y).sum(0) * 0.5 + x
        return y.asnumpy()
    want = [work(x) for x in xs]
    got, errors = [None] * 4, []

    def run(i):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got[i] = work(xs[i])
        except Exception as e:               # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for g, w in zip(got, want):
        assert np.array_equal(g, w, equal_nan=True)


def test_only_built_in_definitions_run_as_pure():
    from graphjit.ir import registry
    assert registry.get_op("MatMul") in _dispatch._PURE_DEFS
    registry.register_op("EagerFastProbe", ("x",), infer=lambda ts, attrs: ts[0],
                         kernel=lambda x: np.asarray(x) * 2, exact_dtype=True)
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    assert _dispatch.apply("EagerFastProbe", x).asnumpy().tolist() == [0, 2, 4]
    entry = _dispatch._EAGER[("EagerFastProbe", ms.float32, (3,))]
    assert entry[3] == kernel_modes.GENERAL
    ops.matmul(x, x)                             # noqa: B018
    entry = _dispatch._EAGER[("MatMul", ms.float32, (3,), ms.float32, (3,))]
    assert entry[3] == (kernel_modes.PURE if kernel_modes.OUT_ARRAY else kernel_modes.GENERAL)


def test_parameters_keep_the_general_methods_and_tensors_without_data_say_so():
    from graphjit.common.tensor import TensorLike
    assert eager_fast._GENERAL_METHODS
    for name in eager_fast._GENERAL_METHODS:
        assert getattr(ms.Parameter, name) is getattr(TensorLike, name), name
    p = ms.Parameter(np.ones(2, np.float32), name="p")
    x = ms.Tensor(np.ones(2, np.float32))
    x + x, x + 1.0                               # noqa: B018
    assert (p + x).asnumpy().tolist() == [2, 2] and (x + p).asnumpy().tolist() == [2, 2]
    assert (p * 3.0).asnumpy().tolist() == [3, 3] and (3.0 - p).asnumpy().tolist() == [2, 2]
    spec = ms.Tensor(shape=(2,), dtype=ms.float32)
    for fn in (lambda: spec + x, lambda: x + spec, lambda: spec + 1.0, lambda: 1.0 + spec,
               lambda: spec < x):
        with pytest.raises(ValueError, match="no data"):
            fn()


def test_parameters_in_a_graph_are_read_when_it_runs_whatever_the_tables_hold():
    from graphjit import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(np.ones(3, np.float32), name="p")

        def construct(self, x):
            return ops.stack([self.p, self.p]).sum() + self.p.sum() + self.p[0] + x

    t = ms.Tensor(np.ones(3, np.float32))
    ops.stack([t, t]).sum(), t.sum(), t[0]       # noqa: B018  (the tables hold these)
    net = Net()
    x = ms.Tensor(np.array(0.0, np.float32))
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        assert net(x).asnumpy() == 10
        net.p.set_data(ms.Tensor(np.full(3, 2.0, np.float32)))
        assert net(x).asnumpy() == 20
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert net(x).asnumpy() == 20


@pytest.mark.parametrize("dtype", DTYPES + [np.complex64, np.dtype(">f4")])
def test_tensor_of_an_array_copies_it_in_its_dtype(dtype):
    from graphjit.ir.dtypes import from_numpy
    with np.errstate(all="ignore"):
        a = (np.arange(6).reshape(2, 3) - 2).astype(dtype)
    if np.dtype(dtype).kind == "c" or not np.dtype(dtype).isnative:
        with pytest.raises(TypeError):
            ms.Tensor(a)
        return
    before = a.copy()
    t = ms.Tensor(a)
    a[0, 0] = 1                                     # later writes leave the tensor alone
    assert _bits(t) == (from_numpy(np.dtype(dtype)), (2, 3), before.tobytes())
    assert _bits(ms.Tensor(before[:, ::2])) == \
        (t.dtype, (2, 2), np.ascontiguousarray(before[:, ::2]).tobytes())
    assert ms.Tensor(a, dtype=ms.float64).dtype == ms.float64
