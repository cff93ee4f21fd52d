"""Every operator of the catalog, eager and graph (run_both), checked against numpy:
broadcasting, 0-d tensors, negative axes, keepdims, primitives, Tensor methods and
the MindSpore signatures of the functions."""
import inspect
import math

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ir import dtypes as D
from helpers import run_both

RNG = np.random.default_rng(7)


def T(x, dtype=None):
    return ms.Tensor(np.asarray(x), dtype=dtype)


def R(*shape, dtype=np.float32):
    return ms.Tensor(RNG.standard_normal(shape).astype(dtype))


def both(fn, *args):
    """Run fn in both modes (run_both checks they agree); the eager result."""
    return run_both(lambda: fn, *args)[1]


def both_made(make, *args):
    """Run a fresh make() (a Cell) in each mode; the eager result."""
    return run_both(make, *args)[1]


def close(t, ref, dtype=None):
    a = t.asnumpy()
    ref = np.asarray(ref)
    assert a.shape == ref.shape, (a.shape, ref.shape)
    if dtype is not None:
        assert t.dtype is dtype
    np.testing.assert_allclose(a.astype(np.float64), ref.astype(np.float64), rtol=1e-5,
                               atol=1e-6)


# -- elementwise binary, with broadcasting -------------------------------------------------
def f_binary(x, y):
    return (x + y, x - y, x * y, x / y, x // y, x % y, ops.add(x, y), ops.sub(x, y),
            ops.mul(x, y), ops.div(x, y), ops.floor_divide(x, y), ops.remainder(x, y),
            ops.maximum(x, y), ops.minimum(x, y))


BROADCAST = [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (3,)), ((4, 1, 3), (2, 1)), ((), ())]


@pytest.mark.parametrize("sx,sy", BROADCAST, ids=str)
def test_binary_arithmetic_broadcasts(sx, sy):
    x, y = R(*sx), ms.Tensor(np.abs(RNG.standard_normal(sy)).astype(np.float32) + 0.5)
    a, b = x.asnumpy(), y.asnumpy()
    out = both(f_binary, x, y)
    refs = [a + b, a - b, a * b, a / b, a // b, a % b, a + b, a - b, a * b, a / b, a // b,
            a % b, np.maximum(a, b), np.minimum(a, b)]
    for o, r in zip(out, refs):
        close(o, r, D.float32)


def f_pow(x, y):
    return x ** y, ops.pow(x, y), x ** 2, 2 ** y


def test_pow():
    x, y = T([[1.5, 2.0, 3.0]], D.float32), T([2.0, 0.5, -1.0], D.float32)
    out = both(f_pow, x, y)
    a, b = x.asnumpy(), y.asnumpy()
    for o, r in zip(out, [a ** b, a ** b, a ** 2, 2 ** b]):
        close(o, r, D.float32)
    i = both(f_pow, T([2, 3], D.int32), T([3, 2], D.int32))
    assert [o.asnumpy().tolist() for o in i] == [[8, 9], [8, 9], [4, 9], [8, 4]]


def f_int_division(x, y):
    return (ops.div(x, y, rounding_mode="floor"), ops.div(x, y, rounding_mode="trunc"),
            ops.fmod(x, y), ops.truncate_div(x, y), ops.Mod()(x, y), ops.FloorMod()(x, y))


def test_rounding_divisions():
    xs, ys = [-7, 7, -7, 7, 6], [2, -2, -2, 2, 3]
    out = both(f_int_division, T(xs, D.int64), T(ys, D.int64))
    assert [o.dtype for o in out] == [D.int64] * 6
    floor = [x // y for x, y in zip(xs, ys)]
    trunc = [int(x / y) for x, y in zip(xs, ys)]
    fmod = [int(math.fmod(x, y)) for x, y in zip(xs, ys)]
    mod = [x % y for x, y in zip(xs, ys)]
    assert [o.asnumpy().tolist() for o in out] == [floor, trunc, fmod, trunc, fmod, mod]
    f = both(f_int_division, T([-7.5, 7.5], D.float32), T([2.0, -2.0], D.float32))
    assert f[1].asnumpy().tolist() == [-3.0, -3.0]
    assert f[2].asnumpy().tolist() == [math.fmod(-7.5, 2.0), math.fmod(7.5, -2.0)]


def f_sub_bool(x):
    return x - x


def test_bool_subtraction_is_refused_in_both_modes():
    x = T([True, False])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="not defined for two bool tensors"):
        f_sub_bool(x)
    with pytest.raises(ValueError, match="not defined for two bool tensors"):
        ms.jit(f_sub_bool)(x)


# -- unary math ----------------------------------------------------------------------------
UNARY = {
    "neg": (ops.neg, np.negative), "abs": (ops.abs, np.abs), "exp": (ops.exp, np.exp),
    "log": (ops.log, np.log), "sqrt": (ops.sqrt, np.sqrt), "sin": (ops.sin, np.sin),
    "cos": (ops.cos, np.cos), "tanh": (ops.tanh, np.tanh),
    "sigmoid": (ops.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "relu": (ops.relu, lambda a: np.maximum(a, 0)), "square": (ops.square, np.square),
    "log1p": (ops.log1p, np.log1p), "expm1": (ops.expm1, np.expm1),
    "rsqrt": (ops.rsqrt, lambda a: 1 / np.sqrt(a)),
    "reciprocal": (ops.reciprocal, lambda a: 1 / a),
    "erf": (ops.erf, np.vectorize(math.erf)), "floor": (ops.floor, np.floor),
    "ceil": (ops.ceil, np.ceil), "round": (ops.round, np.round), "trunc": (ops.trunc, np.trunc),
    "sign": (ops.sign, np.sign),
}


def unary_program(fn):
    def prog(x):
        return fn(x), fn(x[0]), fn(x[0, 0])
    return prog


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float(name):
    fn, ref = UNARY[name]
    x = ms.Tensor(np.array([[0.25, 1.5, 2.5], [3.0, 0.5, 4.0]], np.float32))
    if name in ("neg", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "square", "erf",
                "floor", "ceil", "round", "trunc", "sign", "expm1"):
        x = ms.Tensor(x.asnumpy() - 2.0)
    full, row, scalar = both(unary_program(fn), x)
    a = x.asnumpy()
    close(full, ref(a), D.float32)
    close(row, ref(a[0]), D.float32)
    close(scalar, ref(a[0, 0]), D.float32)       # 0-d in, 0-d out
    assert scalar.shape == ()


def f_unary_int(x):
    return -x, abs(x), ops.exp(x), ops.sqrt(abs(x)), ops.sigmoid(x), ops.relu(x), \
        ops.tanh(x), ops.sign(x), ops.square(x)


def test_unary_integer_dtypes():
    x = T([-2, 0, 3], D.int32)
    neg, ab, ex, sq, sg, re, th, sign, square = both(f_unary_int, x)
    assert [neg.dtype, ab.dtype, re.dtype, sign.dtype, square.dtype] == [D.int32] * 5
    assert [ex.dtype, sq.dtype, sg.dtype, th.dtype] == [D.float32] * 4
    assert re.asnumpy().tolist() == [0, 0, 3] and sign.asnumpy().tolist() == [-1, 0, 1]
    close(ex, np.exp([-2.0, 0, 3]))


def f_predicates(x):
    return ops.isnan(x), ops.isinf(x), ops.isfinite(x), ops.logical_not(x > 0)


def test_predicates():
    x = T([np.nan, np.inf, -1.0, 2.0], D.float32)
    nan, inf, fin, neg = both(f_predicates, x)
    assert nan.asnumpy().tolist() == [True, False, False, False]
    assert inf.asnumpy().tolist() == [False, True, False, False]
    assert fin.asnumpy().tolist() == [False, False, True, True]
    assert neg.asnumpy().tolist() == [True, False, True, False] and neg.dtype is D.bool_


# -- comparisons, logic, where, cast, clamp ------------------------------------------------
def f_compare(x, y):
    return (x < y, x <= y, x > y, x >= y, x == y, x != y, ops.less(x, y), ops.equal(x, 1),
            ops.not_equal(x, y), ops.ge(x, y), ops.gt(x, 0.5))


def test_comparisons_broadcast():
    x, y = T([[1, 2, 3], [3, 2, 1]], D.int32), T([2, 2, 2], D.int64)
    out = both(f_compare, x, y)
    a, b = x.asnumpy(), y.asnumpy()
    refs = [a < b, a <= b, a > b, a >= b, a == b, a != b, a < b, a == 1, a != b, a >= b,
            a > 0.5]
    for o, r in zip(out, refs):
        assert o.dtype is D.bool_ and o.asnumpy().tolist() == r.tolist()


def f_logic(x, y):
    return (ops.logical_and(x, y), ops.logical_or(x, y), ops.logical_xor(x, y),
            ops.logical_not(x), x & y, x | y, x ^ y, ~x)


def test_logic():
    x, y = T([True, True, False, False]), T([True, False, True, False])
    out = both(f_logic, x, y)
    a, b = x.asnumpy(), y.asnumpy()
    refs = [a & b, a | b, a ^ b, ~a, a & b, a | b, a ^ b, ~a]
    for o, r in zip(out, refs):
        assert o.dtype is D.bool_ and o.asnumpy().tolist() == r.tolist()
    ints = both(f_logic, T([1, 0, 2], D.int32), T([1, 1, 0], D.int32))
    assert ints[0].dtype is D.bool_ and ints[0].asnumpy().tolist() == [True, False, False]
    assert ints[4].dtype is D.int32 and ints[4].asnumpy().tolist() == [1, 0, 0]   # bitwise
    assert ints[7].asnumpy().tolist() == [-2, -1, -3]


def f_where(c, x, y):
    return (ops.where(c, x, y), ops.where(c, x, 0), ops.where(c, 1.5, x),
            ops.select(c, x, y), ops.Select()(c, x, y), ops.masked_fill(x, c, -1.0))


def test_where_broadcasts_and_promotes():
    c = T([[True], [False]])
    x, y = T([1, 2, 3], D.int32), T([[10.0], [20.0]], D.float16)
    w, w0, wf, s, sp, mf = both(f_where, c, x, y)
    assert w.dtype is D.float16 and w.shape == (2, 3)
    assert w.asnumpy().tolist() == [[1, 2, 3], [20, 20, 20]]
    assert w0.dtype is D.int32 and w0.asnumpy().tolist() == [[1, 2, 3], [0, 0, 0]]
    assert wf.dtype is D.float32 and wf.asnumpy().tolist() == [[1.5] * 3, [1, 2, 3]]
    assert s.asnumpy().tolist() == w.asnumpy().tolist() == sp.asnumpy().tolist()
    assert mf.dtype is D.int32 and mf.asnumpy().tolist() == [[-1, -1, -1], [1, 2, 3]]


def f_cast(x):
    return (ops.cast(x, ms.int32), x.astype(ms.bool_), ops.Cast()(x, ms.float16),
            ops.cast(x, "int8"), x.int(), x.float(), x.half(), x.long())


def test_cast():
    x = T([1.7, -1.7, 0.0, 2.5], D.float32)
    out = both(f_cast, x)
    assert [o.dtype for o in out] == [D.int32, D.bool_, D.float16, D.int8, D.int32, D.float32,
                                      D.float16, D.int64]
    assert out[0].asnumpy().tolist() == [1, -1, 0, 2]          # truncation toward zero
    assert out[1].asnumpy().tolist() == [True, True, False, True]


def f_clamp(x):
    return ops.clamp(x, 0, 2), ops.clamp(x, max=1), ops.clip(x, -1.5, None), x.clamp(1, 1)


def test_clamp():
    x = T([-3, 0, 1, 5], D.int32)
    a, b, c, d = both(f_clamp, x)
    assert a.dtype is D.int32 and a.asnumpy().tolist() == [0, 0, 1, 2]
    assert b.asnumpy().tolist() == [-3, 0, 1, 1]
    assert c.dtype is D.float32 and c.asnumpy().tolist() == [-1.5, 0, 1, 5]
    assert d.asnumpy().tolist() == [1, 1, 1, 1]


# -- matmul --------------------------------------------------------------------------------
def f_matmul(x, y):
    return ops.matmul(x, y), x @ y


MATMUL = [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((3,), (3, 4)),
          ((2, 3), (3,)), ((3,), (3,)), ((1, 2, 3), (4, 3, 2)), ((2, 1, 2, 3), (5, 3, 1))]


@pytest.mark.parametrize("sx,sy", MATMUL, ids=str)
def test_matmul_batching(sx, sy):
    x, y = R(*sx), R(*sy)
    a, b = both(f_matmul, x, y)
    ref = np.matmul(x.asnumpy(), y.asnumpy())
    close(a, ref, D.float32)
    close(b, ref, D.float32)


def f_matmul_prims(x, y, z, w):
    return (ops.MatMul(transpose_b=True)(x, y), ops.MatMul(transpose_a=True)(y, w),
            ops.BatchMatMul()(ops.expand_dims(x, 0), ops.expand_dims(z, 0)), ops.bmm(x, z),
            ops.dense(x, y), ops.dense(x, y, ops.ones((4,))))


def test_matmul_primitives():
    x, y, z, w = R(2, 3), R(4, 3), R(3, 5), R(4, 2)
    a, b, c, d, e, f = both(f_matmul_prims, x, y, z, w)
    xa, ya, za, wa = x.asnumpy(), y.asnumpy(), z.asnumpy(), w.asnumpy()
    close(a, xa @ ya.T)
    close(b, ya.T @ wa)
    close(c, (xa @ za)[None])
    close(d, xa @ za)
    close(e, xa @ ya.T)
    close(f, xa @ ya.T + 1)


def test_matmul_mixed_dtypes():
    out, _ = both(f_matmul, T(np.ones((2, 3)), D.int32), T(np.ones((3, 2)), D.float16))
    assert out.dtype is D.float16 and out.asnumpy().tolist() == [[3, 3], [3, 3]]


# -- reductions ----------------------------------------------------------------------------
AXES = [None, 0, -1, (0, 2), (-1, 0), 1]


def reduce_program(axis, keepdims):
    def prog(x):
        return (ops.sum(x, axis, keepdims), ops.mean(x, axis, keepdims),
                ops.amax(x, axis, keepdims), ops.amin(x, axis, keepdims),
                ops.prod(x, axis, keepdims), x.sum(axis, keepdims=keepdims),
                x.mean(axis, keepdims), x.max(axis, keepdims), x.min(axis, keepdims),
                ops.ReduceSum(keep_dims=keepdims)(x, () if axis is None else axis),
                ops.ReduceMean(keepdims)(x, () if axis is None else axis),
                ops.ReduceMax(keepdims)(x, () if axis is None else axis),
                ops.ReduceMin(keepdims)(x, () if axis is None else axis),
                ops.ReduceProd(keepdims)(x, () if axis is None else axis))
    return prog


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
def test_reductions(axis, keepdims):
    x = R(2, 3, 4)
    a = x.asnumpy()
    out = both(reduce_program(axis, keepdims), x)
    refs = [np.sum, np.mean, np.max, np.min, np.prod, np.sum, np.mean, np.max, np.min,
            np.sum, np.mean, np.max, np.min, np.prod]
    for o, ref in zip(out, refs):
        close(o, ref(a, axis=axis, keepdims=keepdims), D.float32)


def f_reduce_int(x):
    return x.sum(), x.mean(), x.max(), ops.prod(x, 1), ops.sum(x, 0, dtype=ms.int32), \
        ops.prod(x, dtype=ms.float32)


def test_integer_reductions():
    x = T([[1, 2, 3], [4, 5, 6]], D.int8)
    s, m, mx, p, s32, pf = both(f_reduce_int, x)
    assert (s.dtype, m.dtype, mx.dtype, p.dtype) == (D.int64, D.float32, D.int8, D.int64)
    assert s.asnumpy() == 21 and m.asnumpy() == 3.5 and mx.asnumpy() == 6
    assert p.asnumpy().tolist() == [6, 120]
    assert s32.dtype is D.int32 and s32.asnumpy().tolist() == [5, 7, 9]
    assert pf.dtype is D.float32 and pf.asnumpy() == 720


def f_scalar_reductions(x):
    return x.sum(), x.mean(), x.max(), ops.argmax(x), ops.sum(x, keepdim=True)


def test_reductions_of_a_0d_tensor():
    s, m, mx, am, sk = both(f_scalar_reductions, T(2.5, D.float32))
    assert s.shape == m.shape == mx.shape == am.shape == sk.shape == ()
    assert s.asnumpy() == 2.5 and am.asnumpy() == 0


def f_float16_sum(x):
    return x.sum(), x.mean()


def test_float16_sums_accumulate_in_float32():
    x = ms.Tensor(np.full(4096, 1.0, np.float16))
    s, m = both(f_float16_sum, x)
    assert s.dtype is D.float16 and s.asnumpy() == 4096      # float16 accumulation: 2048
    assert m.asnumpy() == 1.0


def f_arg(x):
    return (ops.argmax(x), ops.argmax(x, 1), ops.argmax(x, dim=-1, keepdim=True),
            ops.argmin(x, 0), ops.argmin(x, axis=-1, keepdims=True), x.argmax(1),
            x.argmin(), ops.Argmax()(x), ops.Argmax(axis=0, output_type=ms.int64)(x),
            ops.Argmin(axis=1)(x))


def test_argmax_argmin():
    x = T([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], D.float32)
    a = x.asnumpy()
    out = both(f_arg, x)
    refs = [np.argmax(a), np.argmax(a, 1), np.argmax(a, -1, keepdims=True), np.argmin(a, 0),
            np.argmin(a, -1, keepdims=True), np.argmax(a, 1), np.argmin(a), np.argmax(a, -1),
            np.argmax(a, 0), np.argmin(a, 1)]
    dtypes = [D.int64] * 7 + [D.int32, D.int64, D.int32]       # Argmax's output_type: int32
    for o, r, d in zip(out, refs, dtypes):
        assert o.dtype is d and o.asnumpy().tolist() == np.asarray(r).tolist()


def f_max_tuple(x):
    v, i = ops.max(x, 1)
    vk, ik = ops.min(x, axis=0, keepdims=True)
    whole, zero = ops.max(x)
    iv = ops.ArgMaxWithValue(axis=1)(x)
    mv = x.max(axis=1, return_indices=True)
    return v, i, vk, ik, whole, zero, iv, mv, ops.max(x, 1, initial=6.0)[0]


def test_max_min_return_values_and_indices():
    x = T([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], D.float32)
    v, i, vk, ik, whole, zero, (iv_i, iv_v), (mv_v, mv_i), init = both(f_max_tuple, x)
    assert v.asnumpy().tolist() == [5, 7] and i.asnumpy().tolist() == [1, 0]
    assert i.dtype is D.int64
    assert vk.asnumpy().tolist() == [[1, 0, 2]] and ik.asnumpy().tolist() == [[0, 1, 0]]
    assert whole.asnumpy() == 7 and zero.asnumpy() == 0 and zero.dtype is D.int64
    assert iv_i.asnumpy().tolist() == [1, 0] and iv_v.asnumpy().tolist() == [5, 7]
    assert mv_v.asnumpy().tolist() == [5, 7] and mv_i.asnumpy().tolist() == [1, 0]
    assert init.asnumpy().tolist() == [6, 7]


def f_all_any(x):
    return (ops.all(x), ops.any(x), ops.all(x, 1), ops.any(x, 0, True), x.all(1), x.any(),
            ops.ReduceAll(keep_dims=True)(x, 1), ops.ReduceAny()(x))


def test_all_any():
    x = T([[1, 0, 2], [3, 4, 5]], D.int32)
    a = x.asnumpy() != 0
    out = both(f_all_any, x)
    refs = [a.all(), a.any(), a.all(1), a.any(0, keepdims=True), a.all(1), a.any(),
            a.all(1, keepdims=True), a.any()]
    for o, r in zip(out, refs):
        assert o.dtype is D.bool_ and o.asnumpy().tolist() == np.asarray(r).tolist()


def f_scans(x):
    return (ops.cumsum(x, 1), ops.cumsum(x, 0, ms.float32), ops.cumprod(x, -1), x.cumsum(),
            ops.CumSum(exclusive=True)(x, 1), ops.CumSum(reverse=True)(x, 1),
            ops.CumProd(exclusive=True, reverse=True)(x, 0), ops.logsumexp(x, 1))


def test_scans():
    x = T([[1, 2, 3], [4, 5, 6]], D.int32)
    a = x.asnumpy()
    out = both(f_scans, x)
    assert out[0].dtype is D.int32 and out[1].dtype is D.float32
    assert out[0].asnumpy().tolist() == np.cumsum(a, 1).tolist()
    assert out[1].asnumpy().tolist() == np.cumsum(a, 0).tolist()
    assert out[2].asnumpy().tolist() == np.cumprod(a, -1).tolist()
    assert out[3].asnumpy().tolist() == np.cumsum(a).tolist()
    assert out[4].asnumpy().tolist() == [[0, 1, 3], [0, 4, 9]]
    assert out[5].asnumpy().tolist() == [[6, 5, 3], [15, 11, 6]]
    assert out[6].asnumpy().tolist() == [[4, 5, 6], [1, 1, 1]]
    close(out[7], np.log(np.exp(a.astype(np.float64)).sum(1)), D.float32)


# -- shapes --------------------------------------------------------------------------------
def f_reshape(x):
    return (ops.reshape(x, (3, -1)), x.reshape(-1), x.reshape(4, 6), x.reshape((2, -1, 3)),
            ops.Reshape()(x, (24,)), x.view(6, 4), ops.flatten(x), x.flatten(),
            ops.flatten(x, start_dim=0, end_dim=1), nn.Flatten()(x))


def test_reshape_and_flatten():
    x = R(2, 3, 4)
    a = x.asnumpy()
    out = both(f_reshape, x)
    refs = [a.reshape(3, -1), a.reshape(-1), a.reshape(4, 6), a.reshape(2, -1, 3),
            a.reshape(24), a.reshape(6, 4), a.reshape(2, 12), a.reshape(-1), a.reshape(6, 4),
            a.reshape(2, 12)]
    for o, r in zip(out, refs):
        close(o, r, D.float32)


def f_transpose(x):
    return (ops.transpose(x, (2, 0, 1)), x.transpose(), x.transpose(1, 0, 2),
            x.transpose((0, 2, 1)), ops.Transpose()(x, (-1, 0, 1)), x.T, ops.permute(x, (1, 2, 0)))


def test_transpose():
    x = R(2, 3, 4)
    a = x.asnumpy()
    out = both(f_transpose, x)
    refs = [a.transpose(2, 0, 1), a.T, a.transpose(1, 0, 2), a.transpose(0, 2, 1),
            a.transpose(2, 0, 1), a.T, a.transpose(1, 2, 0)]
    for o, r in zip(out, refs):
        close(o, r)


def f_dims(x):
    return (ops.expand_dims(x, 0), ops.expand_dims(x, -1), ops.ExpandDims()(x, 1),
            x.expand_dims(2), ops.unsqueeze(x, -2), ops.squeeze(ops.expand_dims(x, 0)),
            ops.squeeze(ops.expand_dims(x, -1), -1), ops.Squeeze(0)(ops.expand_dims(x, 0)),
            ops.squeeze(x[None, :, None], (0, 2)), x.squeeze())


def test_expand_dims_and_squeeze():
    x = R(2, 3)
    a = x.asnumpy()
    out = both(f_dims, x)
    refs = [a[None], a[..., None], a[:, None], a[:, :, None], a[:, None, :], a, a, a, a, a]
    for o, r in zip(out, refs):
        close(o, r)
    scalar = both(f_dims_scalar, T(1.5, D.float32))
    assert [o.shape for o in scalar] == [(1,), (1,), (), (), (1,), ()]


def f_dims_scalar(x):
    return (ops.expand_dims(x, 0), ops.expand_dims(x, -1), ops.squeeze(ops.expand_dims(x, 0)),
            x.squeeze(), x[None], x[...])


def f_join(x, y):
    return (ops.concat((x, y)), ops.concat([x, y], -1), ops.cat((x, x, y), 1),
            ops.Concat(axis=1)((x, y)), ops.stack([x, y]), ops.stack((x, y), -1),
            ops.Stack(axis=1)([x, y]))


def test_concat_and_stack():
    x, y = R(2, 3), R(2, 3)
    a, b = x.asnumpy(), y.asnumpy()
    out = both(f_join, x, y)
    refs = [np.concatenate([a, b]), np.concatenate([a, b], -1), np.concatenate([a, a, b], 1),
            np.concatenate([a, b], 1), np.stack([a, b]), np.stack([a, b], -1),
            np.stack([a, b], 1)]
    for o, r in zip(out, refs):
        close(o, r, D.float32)
    mixed = both(f_join, T([[1, 2, 3]], D.int32), T([[0.5, 1, 2]], D.float32))
    assert mixed[0].dtype is D.float32


def f_split(x):
    return (ops.split(x, 2, 1), ops.split(x, [1, 3], axis=-1), ops.chunk(x, 2, 1),
            ops.Split(axis=1, output_num=2)(x), ops.Unstack(axis=0)(x))


def test_split_chunk_unstack():
    x = R(2, 4)
    a = x.asnumpy()
    halves, sections, chunks, prim, rows = both(f_split, x)
    for got, ref in [(halves, [a[:, :2], a[:, 2:]]), (sections, [a[:, :1], a[:, 1:]]),
                     (chunks, [a[:, :2], a[:, 2:]]), (prim, [a[:, :2], a[:, 2:]]),
                     (rows, [a[0], a[1]])]:
        assert isinstance(got, tuple) and len(got) == len(ref)
        for o, r in zip(got, ref):
            close(o, r)


def f_tile_broadcast(x):
    return (ops.tile(x, (2, 1)), ops.Tile()(x, (2,)), ops.broadcast_to(x, (2, 2, 3)),
            ops.broadcast_to(x, (4, -1)), ops.BroadcastTo((3, 1, 3))(x), x.expand_as(
                ops.zeros((2, 3))))


def test_tile_and_broadcast_to():
    x = R(1, 3)
    a = x.asnumpy()
    out = both(f_tile_broadcast, x)
    refs = [np.tile(a, (2, 1)), np.tile(a, 2), np.broadcast_to(a, (2, 2, 3)),
            np.broadcast_to(a, (4, 3)), np.broadcast_to(a, (3, 1, 3)),
            np.broadcast_to(a, (2, 3))]
    for o, r in zip(out, refs):
        close(o, r)


def f_index(x):
    return (x[0], x[-1], x[1, 2], x[-1, -2], x[:, 1], x[::-1], x[1:, ::2], x[..., 0],
            x[None], x[:, None, 1], x[0, ..., None], x[:-1, -2:], x[-5:5])


def test_basic_indexing_and_slicing():
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    a = x.asnumpy()
    out = both(f_index, x)
    refs = [a[0], a[-1], a[1, 2], a[-1, -2], a[:, 1], a[::-1], a[1:, ::2], a[..., 0], a[None],
            a[:, None, 1], a[0, ..., None], a[:-1, -2:], a[-5:5]]
    for o, r in zip(out, refs):
        close(o, r, D.float32)


def f_gather(x, i):
    return (x[i], x[:, i], ops.gather(x, i, 1), ops.Gather()(x, i, 0), x[[0, 2]], x[i, 1])


def test_tensor_indices():
    x = ms.Tensor(np.arange(12, dtype=np.int32).reshape(3, 4))
    i = T([2, 0], D.int64)
    a = x.asnumpy()
    out = both(f_gather, x, i)
    refs = [a[[2, 0]], a[:, [2, 0]], a[:, [2, 0]], a[[2, 0]], a[[0, 2]], a[[2, 0], 1]]
    for o, r in zip(out, refs):
        assert o.dtype is D.int32 and o.asnumpy().tolist() == r.tolist()


# -- creation ------------------------------------------------------------------------------
def f_create(x):
    return (ops.zeros((2, 3)), ops.zeros(2, ms.int32), ops.ones((1, 2), ms.float16),
            ops.ones(3), ops.full((2,), 7), ops.full((2,), 1.5), ops.full((1,), True),
            ops.full((2,), 3, dtype=ms.int8), ops.fill(ms.int32, (2, 2), 4),
            ops.zeros_like(x), ops.ones_like(x), ops.ones_like(x, dtype=ms.int8),
            ops.full_like(x, 2), ops.Zeros()((2,), ms.float64), ops.Ones()(2, ms.int32),
            ops.Fill()(ms.float32, (1,), 0.5), ops.ZerosLike()(x), ops.OnesLike()(x),
            ops.arange(4), ops.arange(1, 2, 0.5), ops.arange(5, dtype=ms.float32))


def test_creation():
    x = T([[1, 2, 3]], D.int16)
    out = both(f_create, x)
    want = [(D.float32, [[0, 0, 0], [0, 0, 0]]), (D.int32, [0, 0]), (D.float16, [[1, 1]]),
            (D.float32, [1, 1, 1]), (D.int64, [7, 7]), (D.float32, [1.5, 1.5]),
            (D.bool_, [True]), (D.int8, [3, 3]), (D.int32, [[4, 4], [4, 4]]),
            (D.int16, [[0, 0, 0]]), (D.int16, [[1, 1, 1]]), (D.int8, [[1, 1, 1]]),
            (D.int16, [[2, 2, 2]]), (D.float64, [0, 0]), (D.int32, [1, 1]),
            (D.float32, [0.5]), (D.int16, [[0, 0, 0]]), (D.int16, [[1, 1, 1]]),
            (D.int64, [0, 1, 2, 3]), (D.float32, [1.0, 1.5]), (D.float32, [0, 1, 2, 3, 4])]
    for o, (d, v) in zip(out, want):
        assert o.dtype is d and o.asnumpy().tolist() == v


# -- softmax, one_hot, activations ---------------------------------------------------------
def f_softmax(x):
    return (ops.softmax(x), ops.softmax(x, 0), ops.Softmax(axis=-2)(x), ops.log_softmax(x),
            ops.LogSoftmax(0)(x), x.softmax(), nn.Softmax(0)(x), ops.softmax(x, dtype=ms.float64))


def _softmax(a, axis):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _log_softmax(a, axis):
    r = a - a.max(axis, keepdims=True)
    return r - np.log(np.exp(r).sum(axis, keepdims=True))


def test_softmax():
    x = ms.Tensor(np.array([[1.0, 2.0, 3.0], [1000.0, 0.0, -1000.0]], np.float32))
    a = x.asnumpy().astype(np.float64)
    out = both(f_softmax, x)
    refs = [_softmax(a, -1), _softmax(a, 0), _softmax(a, -2), _log_softmax(a, -1),
            _log_softmax(a, 0), _softmax(a, -1), _softmax(a, 0), _softmax(a, -1)]
    for o, r in zip(out, refs):
        assert np.isfinite(o.asnumpy()).all()       # stable for large inputs
        close(o, r)
    assert out[-1].dtype is D.float64 and out[0].dtype is D.float32


def f_softmax_int(x):
    return ops.softmax(x), ops.softmax(x[0])


def test_softmax_of_integers_and_scalars():
    s, s0 = both(f_softmax_int, T([3, 1], D.int32))
    assert s.dtype is D.float32 and s0.shape == () and s0.asnumpy() == 1.0


def f_one_hot(i):
    return (ops.one_hot(i, 3), ops.one_hot(i, 4, T(5, D.int32), T(-1, D.int32), 0),
            ops.OneHot()(i, 3, T(1.0, D.float16), T(0.0, D.float16)))


def test_one_hot():
    i = T([0, 2, 5], D.int64)
    a, b, c = both(f_one_hot, i)
    assert a.dtype is D.float32 and a.asnumpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    assert b.dtype is D.int32 and b.shape == (4, 3)
    assert b.asnumpy()[:, 0].tolist() == [5, -1, -1, -1]
    assert c.dtype is D.float16


def gelu_tanh(x):
    return ops.gelu(x, approximate="tanh")


ACTIVATIONS = {
    "relu6": (ops.relu6, lambda a: np.clip(a, 0, 6)),
    "leaky_relu": (ops.leaky_relu, lambda a: np.where(a >= 0, a, 0.2 * a)),
    "silu": (ops.silu, lambda a: a / (1 + np.exp(-a))),
    "gelu": (ops.gelu, lambda a: 0.5 * a * (1 + np.vectorize(math.erf)(a / math.sqrt(2)))),
    "gelu_tanh": (gelu_tanh,
                  lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                   (a + 0.044715 * a ** 3)))),
    "elu": (ops.elu, lambda a: np.where(a > 0, a, np.expm1(a))),
    "softplus": (ops.softplus, lambda a: np.log1p(np.exp(a))),
}


def activation_program(fn):
    def prog(x):
        return fn(x)
    return prog


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations(name):
    fn, ref = ACTIVATIONS[name]
    x = ms.Tensor(np.array([-8.0, -1.0, -0.25, 0.0, 0.5, 3.0, 7.0], np.float32))
    out = both(activation_program(fn), x)
    close(out, ref(x.asnumpy().astype(np.float64)), D.float32)


ACTIVATION_CELLS = [(nn.ReLU, ops.relu), (nn.ReLU6, ops.relu6), (nn.Sigmoid, ops.sigmoid),
                    (nn.Tanh, ops.tanh), (nn.SiLU, ops.silu), (nn.LeakyReLU, ops.leaky_relu),
                    (nn.ELU, ops.elu), (nn.Softplus, ops.softplus),
                    (nn.GELU, lambda x: ops.gelu(x, "tanh")),
                    (nn.LogSoftmax, ops.log_softmax), (nn.Identity, lambda x: x),
                    (nn.Dropout, lambda x: x)]


@pytest.mark.parametrize("cell,fn", ACTIVATION_CELLS, ids=lambda c: getattr(c, "__name__", ""))
def test_activation_cells(cell, fn):
    x = R(2, 3)
    out = both_made(cell, x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    close(out, fn(x).asnumpy())


# -- nn.Dense and initializers -------------------------------------------------------------
class TwoLayers(nn.Cell):
    def __init__(self, activation="relu"):
        super().__init__()
        self.fc1 = nn.Dense(4, 8, activation=activation)
        self.fc2 = nn.Dense(8, 3, weight_init="normal", bias_init="zeros", has_bias=False)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def _two_layers():
    ms.set_seed(3)
    return TwoLayers()


def test_dense_matches_numpy():
    x = R(5, 4)
    out = both_made(_two_layers, x)
    net = _two_layers()
    h = np.maximum(x.asnumpy() @ net.fc1.weight.asnumpy().T + net.fc1.bias.asnumpy(), 0)
    close(out, h @ net.fc2.weight.asnumpy().T, D.float32)
    assert net.fc2.bias is None
    assert net.fc1.weight.shape == (8, 4) and net.fc1.bias.shape == (8,)
    bound = 1 / math.sqrt(4)          # HeUniform(sqrt(5)) and the bias both use 1/sqrt(fan_in)
    assert np.abs(net.fc1.weight.asnumpy()).max() <= bound
    assert np.abs(net.fc1.bias.asnumpy()).max() <= bound


def test_dense_batched_input_and_activation_cell():
    def make():
        ms.set_seed(0)
        return nn.Dense(3, 2, activation=nn.Tanh())
    x = R(2, 5, 3)
    out = both_made(make, x)
    net = make()
    ref = np.tanh(x.asnumpy() @ net.weight.asnumpy().T + net.bias.asnumpy())
    close(out, ref)


def test_dense_initializers():
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert nn.Dense(2, 3, weight_init=w).weight.asnumpy().tolist() == w.tolist()
    assert nn.Dense(2, 3, weight_init=ms.Tensor(w)).weight.dtype is D.float32
    assert (nn.Dense(2, 3, weight_init="zeros").weight.asnumpy() == 0).all()
    assert (nn.Dense(2, 3, weight_init="ones", bias_init=0.5).bias.asnumpy() == 0.5).all()
    assert nn.Dense(2, 3, dtype=ms.float16).weight.dtype is D.float16
    ms.set_seed(11)
    a = nn.Dense(2, 3, weight_init="normal").weight.asnumpy()
    ms.set_seed(11)
    b = nn.Dense(2, 3, weight_init="normal").weight.asnumpy()
    c = nn.Dense(2, 3, weight_init="normal").weight.asnumpy()
    assert (a == b).all() and not (a == c).all()
    assert 0 < np.abs(a).max() < 0.1            # MindSpore's Normal: sigma 0.01
    with pytest.raises(ValueError, match=r"'init' shape \[2, 2\] and the 'shape' \[3, 2\]"):
        nn.Dense(2, 3, weight_init=np.ones((2, 2)))
    with pytest.raises(ValueError, match="the class corresponding to 'bogus' was not found"):
        nn.Dense(2, 3, weight_init="bogus")
    with pytest.raises(TypeError, match="in_channels must be a positive int"):
        nn.Dense(0, 3)
    with pytest.raises(KeyError, match="unknown activation 'swishy'"):
        nn.Dense(2, 3, activation="swishy")


# -- unknown dims: the same programs compiled for a dynamic batch --------------------------
class Everything(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)

    def construct(self, x):
        h = ops.relu(self.fc(x))
        s = ops.softmax(h, -1) + ops.sigmoid(h) * 2 - ops.exp(-h) / 3
        red = s.sum(-1, keepdims=True) + ops.mean(s, 1, True) + s.max(1, True)
        flat = ops.flatten(ops.expand_dims(s, 1))
        cat = ops.concat((flat, red), 1)
        idx = ops.argmax(cat, -1)
        return ops.transpose(cat, (1, 0)), idx, cat[:, 1:3], ops.where(cat > 1, cat, 0.0)


def test_ops_with_an_unknown_batch_dim():
    def make():
        ms.set_seed(5)
        net = Everything()
        net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
        return net
    for n in (1, 4):
        both_made(make, R(n, 3))
    net = make()
    net(R(2, 3))
    text = str(net.compile_cache()[0].graph)
    assert "f32[?,3]" in text and "f32[?,5]" in text and "i64[?]" in text


# -- MindSpore signatures ------------------------------------------------------------------
SIGNATURES = {
    ops.sum: "(input, dim=None, keepdim=False, *, dtype=None)",
    ops.mean: "(input, axis=None, keep_dims=False)",
    ops.prod: "(input, axis=None, keep_dims=False, dtype=None)",
    ops.max: "(input, axis=None, keepdims=False, *, initial=None, where=None)",
    ops.min: "(input, axis=None, keepdims=False, *, initial=None, where=None)",
    ops.amax: "(input, axis=None, keepdims=False, *, initial=None, where=None)",
    ops.argmin: "(input, axis=None, keepdims=False)",
    ops.all: "(input, axis=None, keep_dims=False)",
    ops.any: "(input, axis=None, keep_dims=False)",
    ops.cumsum: "(x, axis, dtype=None)",
    ops.add: "(input, other)",
    ops.div: "(input, other, *, rounding_mode=None)",
    ops.pow: "(input, exponent)",
    ops.clamp: "(input, min=None, max=None)",
    ops.where: "(condition, input, other)",
    ops.cast: "(input, dtype)",
    ops.reshape: "(input, shape)",
    ops.transpose: "(input, input_perm=None)",
    ops.expand_dims: "(input_x, axis)",
    ops.unsqueeze: "(input, dim)",
    ops.squeeze: "(input, axis=None)",
    ops.flatten: "(input, order='C', *, start_dim=1, end_dim=-1)",
    ops.concat: "(tensors, axis=0)",
    ops.stack: "(tensors, axis=0)",
    ops.split: "(tensor, split_size_or_sections, axis=0)",
    ops.tile: "(input, multiples)",
    ops.zeros: "(size, dtype=None)",
    ops.ones: "(shape, dtype=None)",
    ops.full: "(size, fill_value, *, dtype=None)",
    ops.fill: "(type, shape, value)",
    ops.zeros_like: "(input, *, dtype=None)",
    ops.ones_like: "(input, *, dtype=None)",
    ops.matmul: "(input, other)",
    ops.softmax: "(input, axis=-1, *, dtype=None)",
    ops.log_softmax: "(logits, axis=-1)",
    ops.one_hot: "(indices, depth, on_value=1, off_value=0, axis=-1)",
    ops.leaky_relu: "(input, alpha=0.2)",
    ops.gelu: "(input_x, approximate='none')",
    ops.conv2d: "(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1, "
                "groups=1)",
    ops.max_pool2d: "(x, kernel_size, stride=None, padding=0, dilation=1, "
                    "return_indices=False, ceil_mode=False)",
    ops.avg_pool2d: "(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, "
                    "count_include_pad=True, divisor_override=0)",
    ops.batch_norm: "(input_x, running_mean, running_var, weight, bias, training=False, "
                    "momentum=0.1, eps=1e-05)",
    ops.layer_norm: "(input, normalized_shape, weight=None, bias=None, eps=1e-05)",
    ops.dropout: "(input, p=0.5, training=True, seed=None)",
    ops.topk: "(input, k, dim=None, largest=True, sorted=True)",
    ops.sort: "(input_x, axis=-1, descending=False)",
    ops.unique: "(input)",
    ops.gather_elements: "(input, dim, index)",
    ops.batch_dot: "(x1, x2, axes=None)",
}


@pytest.mark.parametrize("fn,signature", list(SIGNATURES.items()),
                         ids=[f.__name__ for f in SIGNATURES])
def test_mindspore_signatures(fn, signature):
    assert str(inspect.signature(fn)) == signature


def test_argmax_signature_and_numpy_axis_name():
    params = list(inspect.signature(ops.argmax).parameters)
    assert params[:3] == ["input", "dim", "keepdim"]
    x = T([[1, 3], [4, 2]], D.int32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert ops.argmax(x, axis=1).asnumpy().tolist() == [1, 0]
    with pytest.raises(TypeError, match="dim or axis"):
        ops.argmax(x, 0, axis=1)


# MindSpore's parameters first; numpy's trailing names (out, keepdims) let np.sum(t) work
TENSOR_METHODS = {
    "sum": "(axis=None, dtype=None, keepdims=False, initial=None, out=None)",
    "mean": "(axis=None, keep_dims=False, dtype=None, out=None, keepdims=None)",
    "max": "(axis=None, keepdims=False, *, initial=None, where=None, return_indices=False, "
           "out=None)",
    "prod": "(axis=None, keep_dims=False, dtype=None, out=None, keepdims=None)",
    "argmax": "(axis=None, keepdims=False, out=None)",
    "squeeze": "(axis=None)",
    "expand_dims": "(axis)",
    "cumsum": "(axis=None, dtype=None)",
    "astype": "(dtype, copy=True)",
}


@pytest.mark.parametrize("name", sorted(TENSOR_METHODS))
def test_tensor_method_signatures(name):
    sig = str(inspect.signature(getattr(ms.Tensor, name))).replace("(self, ", "(")
    assert sig == TENSOR_METHODS[name]


def test_functions_and_primitives_are_exported():
    for name in ["ones_like", "full", "full_like", "logical_and", "logical_or", "logical_not",
                 "cumsum", "clamp", "argmax", "squeeze", "concat", "gelu", "one_hot"]:
        assert callable(getattr(ops, name)), name
    for name in ["ReduceAll", "ReduceAny", "Sqrt", "Exp", "ReLU", "Sigmoid", "Tanh", "MatMul",
                 "Softmax", "Argmax", "CumSum", "OneHot", "ArgMaxWithValue", "ExpandDims",
                 "Squeeze", "Transpose", "Reshape", "Concat", "Stack", "Cast", "Select"]:
        assert isinstance(getattr(ops, name)(), ops.Primitive), name
    assert not hasattr(ops, "np") and not hasattr(ops, "builtins")   # __all__ keeps it clean


def f_prims_unary(x):
    return (ops.Sqrt()(x), ops.Exp()(x), ops.ReLU()(x), ops.Sigmoid()(x), ops.Tanh()(x),
            ops.Abs()(x), ops.Neg()(x), ops.Square()(x), ops.Log()(x), ops.Rsqrt()(x),
            ops.AddN()([x, x, x]), ops.Add()(x, 1), ops.Mul()(x, x), ops.RealDiv()(x, 2),
            ops.Maximum()(x, 2.0), ops.Equal()(x, x), ops.Pow()(x, 2), ops.Erf()(x))


def test_unary_and_binary_primitives():
    x = ms.Tensor(np.array([0.5, 1.0, 4.0], np.float32))
    a = x.asnumpy().astype(np.float64)
    out = both(f_prims_unary, x)
    refs = [np.sqrt(a), np.exp(a), a, 1 / (1 + np.exp(-a)), np.tanh(a), a, -a, a * a,
            np.log(a), 1 / np.sqrt(a), 3 * a, a + 1, a * a, a / 2, np.maximum(a, 2),
            a == a, a ** 2, np.vectorize(math.erf)(a)]
    for o, r in zip(out, refs):
        close(o, r)
