"""Type promotion as API.md "Type promotion" states it, in eager and graph mode: a
table of the rules' own examples, then hypothesis properties over every dtype pair,
every weak Python scalar kind and the arithmetic, division and comparison operators."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphjit as ms
from graphjit import ops
from graphjit.ir import dtypes as D
from helpers import run_both

DTYPES = D.ALL_DTYPES
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


# -- the programs (module level: graph mode reads their source) ----------------------------
def p_add(x, y):
    return x + y


def p_sub(x, y):
    return x - y


def p_mul(x, y):
    return x * y


def p_div(x, y):
    return x / y


def p_floordiv(x, y):
    return x // y


def p_mod(x, y):
    return x % y


def p_pow(x, y):
    return x ** y


def p_maximum(x, y):
    return ops.maximum(x, y)


def p_lt(x, y):
    return x < y


def p_eq(x, y):
    return x == y


def p_ge(x, y):
    return x >= y


ARITH = {"+": (p_add, np.add), "-": (p_sub, np.subtract), "*": (p_mul, np.multiply),
         "max": (p_maximum, np.maximum)}
FLOORING = {"//": (p_floordiv, np.floor_divide), "%": (p_mod, np.mod)}
COMPARE = {"<": (p_lt, np.less), "==": (p_eq, np.equal), ">=": (p_ge, np.greater_equal)}


# -- the rules of API.md, written out independently of graphjit ----------------------------
def rule_tensor_tensor(a, b):
    """Exactly one side floating: that side's dtype; otherwise numpy's promotion."""
    if a.is_floating != b.is_floating:
        return a if a.is_floating else b
    return D.from_numpy(np.promote_types(a.np, b.np))


def rule_weak(d, scalar):
    """A Python scalar beside a tensor of dtype d."""
    if isinstance(scalar, bool):
        return d
    if isinstance(scalar, int):
        return D.int64 if d.is_bool else d
    return d if d.is_floating else D.float32


def rule_div(d):
    return d if d.is_floating else D.float32


def both(program, *args):
    graph, eager = run_both(lambda: program, *args)
    return eager


def T(values, dtype):
    return ms.Tensor(np.asarray(values).astype(dtype.np))


# -- the table: every example API.md gives -------------------------------------------------
def test_tensor_construction_dtypes():
    assert ms.Tensor(3).dtype is ms.int64
    assert ms.Tensor(2.5).dtype is ms.float32
    assert ms.Tensor([1.0, 2.0]).dtype is ms.float32
    assert ms.Tensor([1, 2]).dtype is ms.int64
    assert ms.Tensor(True).dtype is ms.bool_
    assert ms.Tensor(np.array([1, 2], np.int8)).dtype is ms.int8
    assert ms.Tensor(np.array([1.5], np.float64)).dtype is ms.float64
    assert ms.Tensor(np.float16(1)).dtype is ms.float16
    assert ms.Tensor(3, dtype=ms.float16).dtype is ms.float16
    assert ms.Tensor(np.array([1.7, -1.7]), dtype="int32").asnumpy().tolist() == [1, -1]


TENSOR_TENSOR = [
    (D.int32, D.float16, D.float16), (D.float16, D.int32, D.float16),
    (D.int32, D.int64, D.int64), (D.float16, D.float32, D.float32),
    (D.bool_, D.int8, D.int8), (D.uint8, D.int8, D.int16), (D.bool_, D.bool_, D.bool_),
    (D.int64, D.float16, D.float16), (D.uint8, D.bool_, D.uint8),
    (D.float32, D.float64, D.float64), (D.bool_, D.float16, D.float16),
]


@pytest.mark.parametrize("a,b,want", TENSOR_TENSOR, ids=str)
def test_tensor_with_tensor(a, b, want):
    out = both(p_add, T([1, 0], a), T([1, 1], b))
    assert out.dtype is want
    assert both(p_mul, T([1, 0], a), T([1, 1], b)).dtype is want


WEAK = [
    (D.int32, 1, D.int32), (D.int8, 100, D.int8), (D.bool_, 1, D.int64),
    (D.bool_, True, D.bool_), (D.uint8, True, D.uint8), (D.float16, 2.5, D.float16),
    (D.float64, 1, D.float64), (D.int8, 2.5, D.float32), (D.bool_, 2.5, D.float32),
    (D.int64, 0.5, D.float32), (D.float16, True, D.float16),
]


@pytest.mark.parametrize("d,scalar,want", WEAK, ids=str)
def test_tensor_with_python_scalar(d, scalar, want):
    x = T([1, 0], d)
    assert both(p_add, x, scalar).dtype is want
    assert both(p_mul, scalar, x).dtype is want      # the scalar on the left: the same


@pytest.mark.parametrize("a,b,want", [
    (D.int32, D.int32, D.float32), (D.int8, D.int64, D.float32), (D.bool_, D.bool_, D.float32),
    (D.float16, D.int64, D.float16), (D.uint8, D.float64, D.float64),
], ids=str)
def test_true_division(a, b, want):
    out = both(p_div, T([3, 1], a), T([2, 1], b))
    assert out.dtype is want
    assert both(p_div, T([3, 1], a), 2).dtype is (want if a.is_floating else D.float32)
    assert both(p_div, T([3, 1], a), 2.5).dtype is (a if a.is_floating else D.float32)


def test_integer_true_division_values():
    out = both(p_div, T([7, -7, 1], D.int32), T([2, 2, 3], D.int32))
    np.testing.assert_allclose(out.asnumpy(), [3.5, -3.5, 1 / 3], rtol=1e-6)


@pytest.mark.parametrize("d", [D.int8, D.int32, D.int64, D.float16, D.float32, D.float64],
                         ids=str)
def test_floor_division_and_modulo_follow_python(d):
    xs = [-7, 7, -7, 7, 0, 5]
    ys = [2, -2, -2, 2, 3, 5]
    q = both(p_floordiv, T(xs, d), T(ys, d))
    r = both(p_mod, T(xs, d), T(ys, d))
    assert q.dtype is d and r.dtype is d
    assert q.asnumpy().tolist() == [x // y for x, y in zip(xs, ys)]
    assert r.asnumpy().tolist() == [x % y for x, y in zip(xs, ys)]
    if d.is_floating:
        assert both(p_mod, T([7.5, -7.5], d), -2).asnumpy().tolist() == [7.5 % -2, -7.5 % -2]
        assert both(p_floordiv, T([-7.5], d), 2).asnumpy().tolist() == [-7.5 // 2]


def p_reductions(x):
    return x.sum(), ops.sum(x, 0), x.mean(), ops.mean(x, 0), x.max(), x.min(), \
        ops.amax(x, 0), ops.prod(x)


@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_reduction_dtypes(d):
    s, s0, m, m0, mx, mn, mx0, p = both(p_reductions, T([[1, 0], [1, 1]], d))
    whole = d if d.is_floating else D.int64
    assert s.dtype is whole and s0.dtype is whole and p.dtype is whole
    assert m.dtype is rule_div(d) and m0.dtype is rule_div(d)
    assert mx.dtype is d and mn.dtype is d and mx0.dtype is d
    assert s.asnumpy() == 3 and m.asnumpy() == 0.75


@pytest.mark.parametrize("a,b", [(D.int8, D.float32), (D.bool_, D.uint8),
                                 (D.float16, D.float64), (D.int64, D.int64)], ids=str)
def test_comparisons_give_bool(a, b):
    for program in (p_lt, p_eq, p_ge):
        assert both(program, T([1, 2], a), T([2, 1], b)).dtype is D.bool_
        assert both(program, T([1, 2], a), 1).dtype is D.bool_
        assert both(program, T([1, 2], a), 1.5).dtype is D.bool_


def test_integer_overflow_of_a_weak_int_wraps():
    out = both(p_add, T([250], D.uint8), 10)
    assert out.dtype is D.uint8 and out.asnumpy().tolist() == [4]
    out = both(p_sub, T([0], D.uint8), 1)
    assert out.asnumpy().tolist() == [255]


def test_integer_to_negative_power_truncates():
    out = both(p_pow, T([1, -1, -1, 2, 0], D.int32), T([-1, -1, -2, -1, 2], D.int32))
    assert out.dtype is D.int32
    assert out.asnumpy().tolist() == [1, -1, 1, 0, 0]


# -- properties over every dtype pair ------------------------------------------------------
_dtype = st.sampled_from(DTYPES)
_shape_pair = st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,))])


def _values(draw, d, shape, nonzero=False):
    if d.is_bool:
        arr = np.asarray(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                                       max_size=int(np.prod(shape)))), bool)
        if nonzero:
            arr[:] = True
    elif d.is_floating:
        ints = draw(st.lists(st.integers(-8, 8), min_size=int(np.prod(shape)),
                             max_size=int(np.prod(shape))))
        arr = np.asarray(ints, np.float64) / 2
    else:
        lo = 0 if d.kind == "u" else -8
        arr = np.asarray(draw(st.lists(st.integers(lo, 8), min_size=int(np.prod(shape)),
                                       max_size=int(np.prod(shape)))))
    if nonzero and not d.is_bool:
        arr = np.where(arr == 0, 1, arr)
    return arr.reshape(shape).astype(d.np)


@st.composite
def tensor_pairs(draw, nonzero_rhs=False):
    a, b = draw(_dtype), draw(_dtype)
    sa, sb = draw(_shape_pair)
    if draw(st.booleans()):
        sa, sb = sb, sa
    return _values(draw, a, sa), _values(draw, b, sb, nonzero_rhs)


def _check(program, numpy_fn, x, y, want_dtype, compute_dtype=None):
    out = both(program, ms.Tensor(x) if isinstance(x, np.ndarray) else x,
               ms.Tensor(y) if isinstance(y, np.ndarray) else y)
    assert out.dtype is want_dtype, f"{program.__name__}: got {out.dtype}, rule says {want_dtype}"
    c = (compute_dtype or want_dtype).np
    with np.errstate(all="ignore"):
        ref = numpy_fn(np.asarray(x).astype(c), np.asarray(y).astype(c))
    np.testing.assert_allclose(out.asnumpy().astype(np.float64),
                               np.asarray(ref).astype(np.float64), rtol=2e-3)


@PROPERTY
@given(tensor_pairs(), st.sampled_from(sorted(ARITH)))
def test_property_arithmetic(pair, op):
    x, y = pair
    a, b = D.from_numpy(x.dtype), D.from_numpy(y.dtype)
    if op == "-" and a.is_bool and b.is_bool:
        return      # bool - bool is refused (tested in test_ops_catalog)
    program, fn = ARITH[op]
    _check(program, fn, x, y, rule_tensor_tensor(a, b))


@PROPERTY
@given(tensor_pairs(nonzero_rhs=True))
def test_property_true_division(pair):
    x, y = pair
    want = rule_div(rule_tensor_tensor(D.from_numpy(x.dtype), D.from_numpy(y.dtype)))
    _check(p_div, np.true_divide, x, y, want)


@PROPERTY
@given(tensor_pairs(nonzero_rhs=True), st.sampled_from(sorted(FLOORING)))
def test_property_flooring(pair, op):
    x, y = pair
    a, b = D.from_numpy(x.dtype), D.from_numpy(y.dtype)
    if a.is_bool and b.is_bool:
        return
    program, fn = FLOORING[op]
    _check(program, fn, x, y, rule_tensor_tensor(a, b))


@PROPERTY
@given(tensor_pairs(), st.sampled_from(sorted(COMPARE)))
def test_property_comparisons(pair, op):
    x, y = pair
    program, fn = COMPARE[op]
    common = rule_tensor_tensor(D.from_numpy(x.dtype), D.from_numpy(y.dtype))
    _check(program, fn, x, y, D.bool_, compute_dtype=common)


_scalar = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([-1.5, 0.5, 2.0, 2.5]))


@PROPERTY
@given(_dtype, _scalar, st.booleans(), st.sampled_from(["+", "*", "max", "/", "<"]),
       st.data())
def test_property_weak_scalars(d, scalar, scalar_left, op, data):
    x = _values(data.draw, d, (2, 3))
    if d.kind == "u" and isinstance(scalar, int) and not isinstance(scalar, bool):
        scalar = abs(scalar)
    if op == "/":
        program, fn, want = p_div, np.true_divide, rule_div(rule_weak(d, scalar))
        if scalar == 0:
            scalar = 2
    elif op == "<":
        program, fn = COMPARE["<"]
        want = D.bool_
    else:
        (program, fn), want = ARITH[op], rule_weak(d, scalar)
    compute = rule_weak(d, scalar) if op != "/" else want
    args = (scalar, x) if scalar_left else (x, scalar)
    _check(program, fn, *args, want, compute_dtype=compute)


# -- exhaustive: every dtype pair and every weak scalar kind, in both modes -------------------------
def p_all_binary(x, y):
    return x + y, x * y, ops.maximum(x, y), x / y, x < y, x == y


@pytest.mark.parametrize("b", DTYPES, ids=str)
@pytest.mark.parametrize("a", DTYPES, ids=str)
def test_every_dtype_pair(a, b):
    add, mul, mx, div, lt, eq = both(p_all_binary, T([[1, 0]], a), T([1, 1], b))
    want = rule_tensor_tensor(a, b)
    assert (add.dtype, mul.dtype, mx.dtype) == (want, want, want)
    assert div.dtype is rule_div(want)
    assert lt.dtype is D.bool_ and eq.dtype is D.bool_
    assert add.shape == (1, 2)


def p_all_weak(x, s):
    return x + s, s * x, ops.maximum(x, s), x / s, s < x, ops.where(x > 0, x, s)


@pytest.mark.parametrize("scalar", [True, 2, 2.5], ids=["bool", "int", "float"])
@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_every_dtype_with_every_weak_scalar(d, scalar):
    add, rmul, mx, div, lt, wh = both(p_all_weak, T([1, 0], d), scalar)
    want = rule_weak(d, scalar)
    assert (add.dtype, rmul.dtype, mx.dtype, wh.dtype) == (want, want, want, want)
    assert div.dtype is rule_div(want)
    assert lt.dtype is D.bool_
