"""The functions of ops/function/misc_func_more.py (fused multiply-adds, tensordot,
logspace, stacking, sinc, shifts, pixel_shuffle, 1-D pooling, pdist, margin losses...):
each against numpy in PYNATIVE and GRAPH mode, gradients where MindSpore has them."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphjit as ms
from graphjit import ops
from test_ms_math_funcs import _both, _grad_of, _np, _numeric_grad

R = np.random.default_rng(21)
X = R.standard_normal((3, 4)).astype(np.float32)
Y = R.standard_normal((3, 4)).astype(np.float32)
V = R.standard_normal(4).astype(np.float32)
W = R.standard_normal(3).astype(np.float32)
B3 = R.standard_normal((2, 3, 4)).astype(np.float32)
C3 = R.standard_normal((2, 4, 5)).astype(np.float32)
IMG = R.standard_normal((2, 8, 3, 3)).astype(np.float32)
SEQ = R.standard_normal((2, 3, 7)).astype(np.float32)
T = np.array([1, -1, 1], np.float32)


def _sinc(x):
    return np.sinc(x)


def _pixel_shuffle(x, r):
    n, c, h, w = x.shape
    y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


def _pool1d(x, k, s, fn):
    n = (x.shape[-1] - k) // s + 1
    return np.stack([fn(x[..., i * s:i * s + k], -1) for i in range(n)], -1)


def _cos(a, b):
    return (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))


CASES = [
    ("addcmul", lambda a, b, c: ops.addcmul(a, b, c, 0.5), (X, Y, X), lambda a, b, c: a + .5 * b * c),
    ("addcdiv", lambda a, b, c: ops.addcdiv(a, b, c, 2), (X, Y, np.abs(X) + 1),
     lambda a, b, c: a + 2 * b / c),
    ("addmm", lambda i, a, b: ops.addmm(i, a, b, beta=0.5, alpha=2), (X[:, :3].copy(), X, Y.T.copy()),
     lambda i, a, b: 0.5 * i + 2 * a @ b),
    ("addmv", lambda i, a, v: ops.addmv(i, a, v), (W, X, V), lambda i, a, v: i + a @ v),
    ("addbmm", lambda i, a, b: ops.addbmm(i, a, b, alpha=3), (np.ones((3, 5), np.float32), B3, C3),
     lambda i, a, b: i + 3 * np.einsum("bij,bjk->ik", a, b)),
    ("addr", lambda x, a, b: ops.addr(x, a, b, beta=2), (X, W, V), lambda x, a, b: 2 * x + np.outer(a, b)),
    ("tensordot", lambda a, b: ops.tensordot(a, b, 1), (B3, C3[0].copy()), lambda a, b: np.tensordot(a, b, 1)),
    ("tensordot pairs", lambda a, b: ops.tensordot(a, b, ((0, 2), (0, 1))), (B3, C3),
     lambda a, b: np.tensordot(a, b, ((0, 2), (0, 1)))),
    ("inner", lambda a, b: ops.inner(a, b), (X, Y), np.inner),
    ("logspace", lambda x: ops.logspace(0.0, 3.0, 4) + x[0, 0] * 0, (X,),
     lambda x: np.logspace(0, 3, 4).astype(np.float32)),
    ("logspace base2", lambda x: ops.logspace(1.0, 4.0, 4, 2) + x[0, 0] * 0, (X,),
     lambda x: np.array([2, 4, 8, 16], np.float32)),
    ("atleast_2d", lambda v: ops.atleast_2d(v), (V,), np.atleast_2d),
    ("atleast_3d list", lambda v, x: ops.atleast_3d([v, x]), (V, X),
     lambda v, x: [np.atleast_3d(v), np.atleast_3d(x)]),
    ("atleast_1d", lambda x: ops.atleast_1d(x[0, 0]), (X,), lambda x: x[0, :1]),
    ("column_stack", lambda a, b: ops.column_stack([a, b]), (W, X[:, :2].copy()),
     lambda a, b: np.column_stack([a, b])),
    ("dstack", lambda a, b: ops.dstack([a, b]), (X, Y), lambda a, b: np.dstack([a, b])),
    ("fliplr", lambda x: ops.fliplr(x), (X,), np.fliplr),
    ("flipud", lambda x: ops.flipud(x), (X,), np.flipud),
    ("sinc", lambda x: ops.sinc(x), (np.concatenate([X.reshape(-1), [0.0]]).astype(np.float32),), _sinc),
    ("xdivy", lambda x, y: ops.xdivy(x, y), (np.where(X > 0, X, 0), Y),
     lambda x, y: np.where(x == 0, 0, x / y)),
    ("logcumsumexp", lambda x: ops.logcumsumexp(x, 1), (X * 30,),
     lambda x: np.logaddexp.accumulate(x.astype(np.float64), 1)),
    ("logdet", lambda x: ops.logdet(x), (X[:, :3] @ X[:, :3].T + np.eye(3, dtype=np.float32),),
     lambda x: np.log(np.linalg.det(x))),
    ("left shift", lambda x: ops.bitwise_left_shift(x, 3), (np.array([1, -2, 5], np.int32),),
     lambda x: np.left_shift(x, 3)),
    ("right shift", lambda x, s: ops.bitwise_right_shift(x, s),
     (np.array([17, -17, 5], np.int32), np.array([2, 2, 0], np.int32)), np.right_shift),
    ("triu_indices", lambda x: ops.triu_indices(3, 4, 1) + x[0, 0].astype(ms.int64) * 0, (X,),
     lambda x: np.stack(np.triu_indices(3, 1, 4))),
    ("tril_indices", lambda x: ops.tril_indices(4, 3, -1, dtype=ms.int32) + 0 * x[0, 0].astype(ms.int32),
     (X,), lambda x: np.stack(np.tril_indices(4, -1, 3))),
    ("matrix_band_part", lambda x: ops.matrix_band_part(x, 1, -1), (X,),
     lambda x: np.where(np.arange(3)[:, None] - np.arange(4)[None] <= 1, x, 0)),
    ("clip_by_value", lambda x: ops.clip_by_value(x, -0.5, 0.5), (X,), lambda x: np.clip(x, -.5, .5)),
    ("softmin", lambda x: ops.softmin(x, 0), (X,),
     lambda x: np.exp(-x) / np.exp(-x).sum(0, keepdims=True)),
    ("glu", lambda x: ops.glu(x), (X,), lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:]))),
    ("threshold", lambda x: ops.threshold(x, 0.1, 20.0), (X,), lambda x: np.where(x > .1, x, 20)),
    ("tanhshrink", lambda x: ops.tanhshrink(x), (X,), lambda x: x - np.tanh(x)),
    ("pixel_shuffle", lambda x: ops.pixel_shuffle(x, 2), (IMG,), lambda x: _pixel_shuffle(x, 2)),
    ("pixel_unshuffle", lambda x: ops.pixel_unshuffle(ops.pixel_shuffle(x, 2), 2), (IMG,), lambda x: x),
    ("channel_shuffle", lambda x: ops.channel_shuffle(x, 2), (IMG,),
     lambda x: x.reshape(2, 2, 4, 3, 3).transpose(0, 2, 1, 3, 4).reshape(x.shape)),
    ("avg_pool1d", lambda x: ops.avg_pool1d(x, 3, 2), (SEQ,), lambda x: _pool1d(x, 3, 2, np.mean)),
    ("max_pool1d", lambda x: ops.max_pool1d(x, 2), (SEQ,), lambda x: _pool1d(x, 2, 2, np.max)),
    ("adaptive_avg_pool1d", lambda x: ops.adaptive_avg_pool1d(x, 7), (SEQ,), lambda x: x),
    ("adaptive_max_pool1d", lambda x: ops.adaptive_max_pool1d(x, 1), (SEQ,),
     lambda x: x.max(-1, keepdims=True)),
    ("pdist", lambda x: ops.pdist(x), (X,),
     lambda x: np.array([np.linalg.norm(x[i] - x[j]) for i in range(3) for j in range(i + 1, 3)])),
    ("pdist p1", lambda x: ops.pdist(x, 1.0), (X,),
     lambda x: np.array([np.abs(x[i] - x[j]).sum() for i in range(3) for j in range(i + 1, 3)])),
    ("scatter", lambda x, s: ops.scatter(x, 1, ms.Tensor([[0, 2], [1, 3], [3, 0]]), s),
     (X, Y[:, :2].copy()), lambda x, s: _scatter(x, s)),
    ("margin_ranking_loss", lambda a, b, t: ops.margin_ranking_loss(a, b, t, 0.1), (W, W[::-1].copy(), T),
     lambda a, b, t: np.maximum(0, -t * (a - b) + 0.1).mean()),
    ("soft_margin_loss", lambda a, t: ops.soft_margin_loss(a, t, "sum"), (W, T),
     lambda a, t: np.log1p(np.exp(-t * a)).sum()),
    ("hinge_embedding_loss", lambda a, t: ops.hinge_embedding_loss(a, t, 0.5, "none"), (W, T),
     lambda a, t: np.where(t == 1, a, np.maximum(0, 0.5 - a))),
    ("cosine_embedding_loss", lambda a, b, t: ops.cosine_embedding_loss(a, b, t, 0.2), (X, Y, T),
     lambda a, b, t: np.where(t == 1, 1 - _cos(a, b), np.maximum(0, _cos(a, b) - 0.2)).mean()),
    ("triplet_margin_loss", lambda a, p, n: ops.triplet_margin_loss(a, p, n, swap=True), (X, Y, X[::-1].copy()),
     lambda a, p, n: np.maximum(
         np.linalg.norm(a - p + 1e-6, axis=-1) - np.minimum(np.linalg.norm(a - n + 1e-6, axis=-1),
                                                            np.linalg.norm(p - n + 1e-6, axis=-1)) + 1, 0).mean()),
]


def _scatter(x, s):
    out = x.copy()
    idx = np.array([[0, 2], [1, 3], [3, 0]])
    for i in range(3):
        for j in range(2):
            out[i, idx[i, j]] = s[i, j]
    return out


@pytest.mark.parametrize("name, fn, args, ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy_in_both_modes(name, fn, args, ref):
    got = _np(_both(fn, *args))
    want = ref(*args)
    got, want = (got, want) if isinstance(want, list) else ([got], [want])
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-5)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("fn, args", [
    (lambda a, b, c: ops.addcdiv(a, b, c), (X, Y, np.abs(X) + 1)),
    (lambda a, b: ops.tensordot(a, b, 1), (B3, C3[0].copy())),
    (lambda x: ops.logcumsumexp(x, 0), (X,)),
    (lambda x: ops.sinc(x), (X,)),
    (lambda x: ops.pixel_shuffle(x, 2), (IMG[:1].copy(),)),
    (lambda x: ops.pdist(x), (X,)),
    (lambda a, b: ops.cosine_embedding_loss(a, b, ms.Tensor(T)), (X, Y)),
])
def test_gradients(fn, args):
    a64 = [a.astype(np.float64) for a in args]
    grads = _grad_of(fn, *a64)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, _numeric_grad(fn, a64, k), rtol=1e-5, atol=1e-6)


def test_channel_dropouts():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    y = ops.dropout1d(ms.Tensor(np.ones((4, 16, 5), np.float32)), 0.5).asnumpy()
    assert np.all((y == 0).all(-1) | (y == 2).all(-1))
    z = ops.dropout3d(ms.Tensor(np.ones((2, 8, 2, 2, 2), np.float32)), 0.25).asnumpy()
    flat = z.reshape(2, 8, -1)
    assert np.all((flat == 0).all(-1) | np.isclose(flat, 1 / 0.75).all(-1))
    x = ms.Tensor(SEQ)
    assert ops.dropout1d(x, 0.5, training=False) is x


def test_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="must divide by 9"):
        ops.pixel_shuffle(ms.Tensor(IMG), 3)
    with pytest.raises(TypeError, match="integers"):
        ops.bitwise_left_shift(ms.Tensor(X), 1)
    with pytest.raises(ValueError, match="reduction"):
        ops.soft_margin_loss(ms.Tensor(W), ms.Tensor(T), "avg")
    assert ops.is_floating_point(ms.Tensor(X)) and not ops.is_floating_point(ms.Tensor([1]))
    assert math.isclose(float(ops.positive(ms.Tensor(2.5)).asnumpy()), 2.5)


@pytest.mark.parametrize("fn, args, ref", [
    (lambda a, b, c: a.addcmul(b, c), (X, Y, X), lambda a, b, c: a + b * c),
    (lambda i, a, b: i.addmm(a, b, alpha=2), (X[:, :3].copy(), X, Y.T.copy()),
     lambda i, a, b: i + 2 * a @ b),
    (lambda x: x.fliplr(), (X,), np.fliplr),
    (lambda x: x.sinc(), (X,), np.sinc),
    (lambda x: x.logcumsumexp(0), (X,), lambda x: np.logaddexp.accumulate(x, 0)),
    (lambda x: x.inner(x), (X,), lambda x: np.inner(x, x)),
])
def test_tensor_methods(fn, args, ref):
    np.testing.assert_allclose(_np(_both(fn, *args)), ref(*args), rtol=1e-5, atol=1e-5)
