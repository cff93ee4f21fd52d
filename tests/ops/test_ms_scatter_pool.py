"""ops/function/scatter_pool_func.py: masked/slice/select/diagonal_scatter, unfold/fold,
avg_pool3d/max_pool3d, affine_grid, embedding, gumbel_softmax: against numpy in both
modes, gradients of the composed ones."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import ops
from test_ms_math_funcs import _both, _grad_of, _np, _numeric_grad

R = np.random.default_rng(5)
X = R.standard_normal((3, 4)).astype(np.float32)
X3 = R.standard_normal((2, 3, 4)).astype(np.float32)
IMG = R.standard_normal((2, 3, 5, 6)).astype(np.float32)
VOL = R.standard_normal((2, 3, 5, 6, 4)).astype(np.float32)


def _masked_scatter(x, m, s):
    out = x.copy()
    out[m] = s.reshape(-1)[:m.sum()]
    return out


def _unfold(x, k, d, p, s):
    x = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    n, c, h, w = x.shape
    oh = (h - d * (k - 1) - 1) // s + 1
    ow = (w - d * (k - 1) - 1) // s + 1
    cols = np.zeros((n, c, k, k, oh, ow), x.dtype)
    for i in range(k):
        for j in range(k):
            cols[:, :, i, j] = x[:, :, i * d:i * d + (oh - 1) * s + 1:s,
                                 j * d:j * d + (ow - 1) * s + 1:s]
    return cols.reshape(n, c * k * k, oh * ow)


def _pool3d(x, k, s, fn):
    n, c, d, h, w = x.shape
    od, oh, ow = [(v - kk) // ss + 1 for v, kk, ss in zip((d, h, w), k, s)]
    out = np.zeros((n, c, od, oh, ow), x.dtype)
    for a in range(od):
        for b in range(oh):
            for e in range(ow):
                out[:, :, a, b, e] = fn(x[:, :, a * s[0]:a * s[0] + k[0], b * s[1]:b * s[1] + k[1],
                                          e * s[2]:e * s[2] + k[2]].reshape(n, c, -1), -1)
    return out


def _select_scatter(x, s, axis, i):
    out = x.copy()
    idx = [slice(None)] * x.ndim
    idx[axis] = i
    out[tuple(idx)] = s
    return out


def _diag_scatter(x, s, off):
    out = x.copy()
    n, m = x.shape
    for k in range(len(s)):
        i, j = (k, k + off) if off >= 0 else (k - off, k)
        out[i, j] = s[k]
    return out


CASES = [
    ("masked_scatter", lambda x, s: ops.masked_scatter(x, x > 0, s), (X, np.arange(12, dtype=np.float32)),
     lambda x, s: _masked_scatter(x, x > 0, s)),
    ("masked_scatter broadcast", lambda x, s: ops.masked_scatter(x, ms.Tensor([True, False, True, False]), s),
     (X, np.arange(6, dtype=np.float32)),
     lambda x, s: _masked_scatter(x, np.broadcast_to([True, False, True, False], x.shape), s)),
    ("slice_scatter", lambda x, s: ops.slice_scatter(x, s, 1, 0, 4, 2), (X, np.ones((3, 2), np.float32)),
     lambda x, s: np.where(np.arange(4) % 2 == 0, 1.0, x).astype(np.float32)),
    ("select_scatter", lambda x, s: ops.select_scatter(x, s, 1, -1), (X3, np.zeros((2, 4), np.float32)),
     lambda x, s: _select_scatter(x, s, 1, -1)),
    ("diagonal_scatter", lambda x, s: ops.diagonal_scatter(x, s, 1), (X, np.full(3, 7.0, np.float32)),
     lambda x, s: _diag_scatter(x, s, 1)),
    ("diagonal_scatter neg", lambda x, s: ops.diagonal_scatter(x, s, -1), (X, np.full(2, 7.0, np.float32)),
     lambda x, s: _diag_scatter(x, s, -1)),
    ("unfold", lambda x: ops.unfold(x, 2), (IMG,), lambda x: _unfold(x, 2, 1, 0, 1)),
    ("unfold args", lambda x: ops.unfold(x, 3, 2, 1, 2), (IMG,), lambda x: _unfold(x, 3, 2, 1, 2)),
    ("fold of unfold", lambda x: ops.fold(ops.unfold(x, 2, 1, 0, 2), (4, 6), 2, 1, 0, 2),
     (IMG[:, :, :4].copy(),), lambda x: x),
    ("avg_pool3d", lambda x: ops.avg_pool3d(x, 2, 2), (VOL,), lambda x: _pool3d(x, (2, 2, 2), (2, 2, 2), np.mean)),
    ("max_pool3d", lambda x: ops.max_pool3d(x, (3, 2, 2), 1), (VOL,),
     lambda x: _pool3d(x, (3, 2, 2), (1, 1, 1), np.max)),
    ("affine_grid", lambda t: ops.affine_grid(t, (1, 1, 2, 3)),
     (np.array([[[1, 0, 0], [0, 1, 0]]], np.float32),),
     lambda t: np.stack(np.meshgrid([-2 / 3, 0, 2 / 3], [-0.5, 0.5]), -1)[None].astype(np.float32)),
    ("embedding", lambda i, w: ops.embedding(i, w), (np.array([[0, 2], [1, 1]]), X),
     lambda i, w: w[i]),
    ("embedding max_norm", lambda i, w: ops.embedding(i, w, max_norm=1.0), (np.array([0, 2]), X),
     lambda i, w: (w * np.where(np.linalg.norm(w, axis=1, keepdims=True) > 1,
                                1 / (np.linalg.norm(w, axis=1, keepdims=True) + 1e-7), 1))[i]),
]


@pytest.mark.parametrize("name, fn, args, ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy_in_both_modes(name, fn, args, ref):
    got = _np(_both(fn, *args))
    want = np.asarray(ref(*args))
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, args", [
    (lambda x: ops.unfold(x, 2, 1, 1, 2), (IMG[:1, :2].copy(),)),
    (lambda x: ops.max_pool3d(x, 2, 1), (VOL[:1, :1].copy(),)),
    (lambda x, s: ops.diagonal_scatter(x, s, 1), (X, np.ones(3, np.float32))),
    (lambda x, s: ops.masked_scatter(x, x > 0, s), (X, np.arange(12, dtype=np.float32))),
])
def test_gradients(fn, args):
    a64 = [a.astype(np.float64) for a in args]
    for k, g in enumerate(_grad_of(fn, *a64)):
        np.testing.assert_allclose(g, _numeric_grad(fn, a64, k), rtol=1e-5, atol=1e-6)


def test_gumbel_softmax():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    y = ops.gumbel_softmax(ms.Tensor(X), 0.5).asnumpy()
    np.testing.assert_allclose(y.sum(-1), 1, rtol=1e-5)
    h = ops.gumbel_softmax(ms.Tensor(X), hard=True).asnumpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(-1) == 1).all()
    assert not ops.is_complex(ms.Tensor(X))


def test_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="src must have shape"):
        ops.slice_scatter(ms.Tensor(X), ms.Tensor(np.ones((3, 3), np.float32)), 1, 0, 4, 2)
    with pytest.raises(TypeError, match="mask must be bool"):
        ops.masked_scatter(ms.Tensor(X), ms.Tensor(X), ms.Tensor(X))
    with pytest.raises(ValueError, match="blocks do not match"):
        ops.fold(ms.Tensor(np.ones((1, 4, 5), np.float32)), (4, 4), 2)
