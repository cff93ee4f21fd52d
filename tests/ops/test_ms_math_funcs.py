"""MindSpore 2.x functional ops composed in ops/function/math_func_more.py and
array_func_more.py: each against numpy (or MindSpore's documented example), the same
values, dtypes and shapes in PYNATIVE and GRAPH mode, gradients of the composed ones,
and MindSpore's argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import graphjit as ms
from graphjit import ops
from graphjit.jit.api import compare_results
from helpers import run_both

R = np.random.default_rng(11)
X = R.standard_normal((3, 4)).astype(np.float32)
Y = R.standard_normal((3, 4)).astype(np.float32)
P = R.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
V = R.standard_normal(5).astype(np.float32)
X3 = R.standard_normal((2, 3, 4)).astype(np.float32)
I = np.array([[12, -18, 7], [0, 5, 9]], np.int32)
J = np.array([[8, 24, -21], [6, 0, 3]], np.int32)
SPECIAL = np.array([-np.inf, -2.5, -0.0, 0.0, 1.5, np.inf, np.nan], np.float32)


def _both(fn, *args):
    """fn over Tensors of args eagerly and under ms.jit (tests/helpers.run_both: they
    agree in values, dtypes and shapes); the eager result."""
    return run_both(lambda: fn, *[ms.Tensor(a) for a in args])[1]


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return np.asarray(x.asnumpy())


CASES = [
    ("log2", lambda x: ops.log2(x), (np.abs(X) + 0.5,), np.log2),
    ("log2 int", lambda x: ops.log2(x), (np.array([1, 2, 8, 1024], np.int32),),
     lambda x: np.log2(x).astype(np.float32)),
    ("log10", lambda x: ops.log10(x), (np.abs(X) + 0.5,), np.log10),
    ("exp2", lambda x: ops.exp2(x), (X,), np.exp2),
    ("exp2 int", lambda x: ops.exp2(x), (np.array([0, 3, -1], np.int32),),
     lambda x: np.exp2(x).astype(np.float32)),
    ("atan2", lambda y, x: ops.atan2(y, x), (X, Y), np.arctan2),
    ("atan2 special", lambda y, x: ops.atan2(y, x),
     (np.repeat(SPECIAL, 7), np.tile(SPECIAL, 7)), np.arctan2),
    ("atan2 f64", lambda y, x: ops.atan2(y, x), (X.astype(np.float64), Y.astype(np.float64)),
     np.arctan2),
    ("hypot", lambda a, b: ops.hypot(a, b), (X, Y), np.hypot),
    ("lerp", lambda a, b, w: ops.lerp(a, b, w), (X, Y, P), lambda a, b, w: a + w * (b - a)),
    ("lerp scalar", lambda a, b: ops.lerp(a, b, 0.25), (X, Y), lambda a, b: a + 0.25 * (b - a)),
    ("logit", lambda x: ops.logit(x), (P,), lambda p: np.log(p / (1 - p))),
    ("logit eps", lambda x: ops.logit(x, 0.2), (P,),
     lambda p: np.log(np.clip(p, 0.2, 0.8) / (1 - np.clip(p, 0.2, 0.8)))),
    ("xlogy", lambda x, y: ops.xlogy(x, y), (np.where(X > 0, X, 0), np.abs(Y)),
     lambda x, y: np.where(x == 0, 0, x * np.log(y)).astype(np.float32)),
    ("erfc doc", lambda x: ops.erfc(x), (np.array([-1, 0, 1, 2, 3], np.float32),),
     lambda x: np.array([1.8427008e+00, 1.0000000e+00, 1.5729921e-01, 4.6777348e-03,
                         2.2090497e-05], np.float32)),     # MindSpore's documented example
    ("erfc tail f64", lambda x: ops.erfc(x), (np.linspace(-2, 12, 57),),
     lambda x: np.array([math.erfc(v) for v in x])),
    ("hypot doc", lambda a, b: ops.hypot(a, b), (np.array([3, 5, 7], np.float32),
                                                 np.array([4, 12, 24], np.float32)),
     lambda a, b: np.array([5, 13, 25], np.float32)),
    ("erfc", lambda x: ops.erfc(x), (X,),
     lambda x: np.float32(1) - np.vectorize(math.erf)(x).astype(np.float32)),
    ("frac", lambda x: ops.frac(x * 3), (X,), lambda x: np.fmod(x * 3, 1)),
    ("deg2rad", lambda x: ops.deg2rad(x), (X,), np.deg2rad),
    ("rad2deg", lambda x: ops.rad2deg(x), (X,), np.rad2deg),
    ("isneginf", lambda x: ops.isneginf(x), (SPECIAL,), np.isneginf),
    ("isposinf", lambda x: ops.isposinf(x), (SPECIAL,), np.isposinf),
    ("nan_to_num", lambda x: ops.nan_to_num(x), (SPECIAL,), np.nan_to_num),
    ("nan_to_num args", lambda x: ops.nan_to_num(x, 1.0, 9.0, -9.0), (SPECIAL,),
     lambda x: np.nan_to_num(x, nan=1.0, posinf=9.0, neginf=-9.0)),
    ("fmax", lambda a, b: ops.fmax(a, b), (SPECIAL, SPECIAL[::-1].copy()), np.fmax),
    ("fmin", lambda a, b: ops.fmin(a, b), (SPECIAL, SPECIAL[::-1].copy()), np.fmin),
    ("float_power", lambda a, b: ops.float_power(a, b), (np.abs(X), Y),
     lambda a, b: np.float_power(a, b)),
    ("copysign", lambda a, b: ops.copysign(a, b), (np.tile(SPECIAL[1:6], 5),
                                                   np.repeat(SPECIAL[1:6], 5)), np.copysign),
    ("signbit", lambda x: ops.signbit(x), (SPECIAL[:-1].copy(),), np.signbit),
    ("heaviside", lambda x, v: ops.heaviside(x, v), (SPECIAL, np.full(7, 0.5, np.float32)),
     np.heaviside),
    ("gcd", lambda a, b: ops.gcd(a, b), (I, J), np.gcd),
    ("lcm", lambda a, b: ops.lcm(a, b), (I, J), np.lcm),
    ("gcd int64", lambda a, b: ops.gcd(a, b),
     (np.array([2 ** 40, 6, 0], np.int64), np.array([2 ** 20 * 3, 4, 0], np.int64)), np.gcd),
    ("logaddexp", lambda a, b: ops.logaddexp(a, b), (X, Y), np.logaddexp),
    ("logaddexp inf", lambda a, b: ops.logaddexp(a, b),
     (np.array([-np.inf, np.inf, 1.0], np.float32), np.array([-np.inf, 1.0, 1.0], np.float32)),
     np.logaddexp),
    ("logaddexp2", lambda a, b: ops.logaddexp2(a, b), (X, Y), np.logaddexp2),
    ("ldexp", lambda x, e: ops.ldexp(x, e), (X, np.array([1, -2, 3, 0], np.int32)),
     lambda x, e: np.ldexp(x, e)),
    ("nansum", lambda x: ops.nansum(x), (SPECIAL[1:5].copy(),),
     lambda x: np.nansum(x)),
    ("nansum axis", lambda x: ops.nansum(x, 1, True), (np.where(X > 1, np.nan, X),),
     lambda x: np.nansum(x, 1, keepdims=True)),
    ("nanmean", lambda x: ops.nanmean(x, 0), (np.where(X > 1, np.nan, X),),
     lambda x: np.nanmean(x, 0)),
    ("median", lambda x: ops.median(x, 0), (np.array([[0.57, 0.11, 0.21], [0.38, 0.50, 0.57],
                                                      [0.36, 0.16, 0.44]], np.float32),),
     lambda x: [np.array([0.38, 0.16, 0.44], np.float32), np.array([1, 2, 2], np.int64)]),
    ("median doc2", lambda x: ops.median(x, 0, True),
     (np.array([[9, 3, 4, 5], [5, 2, 7, 4], [8, 1, 3, 6]], np.int64),),
     lambda x: [np.array([[8, 2, 4, 5]]), np.array([[2, 1, 0, 0]])]),
    ("median default", lambda x: ops.median(x),
     (np.array([[9, 3, 4, 5], [5, 2, 7, 4], [8, 1, 3, 6]], np.int64),),
     lambda x: [np.array([4, 4, 3]), np.array([2, 3, 2])]),
    ("quantile", lambda x: ops.quantile(x, 0.3, 1), (X,), lambda x: np.quantile(x, 0.3, 1)),
    ("quantile all", lambda x: ops.quantile(x, 0.75), (X,), lambda x: np.quantile(x, 0.75)),
    ("quantile q tensor", lambda x, q: ops.quantile(x, q, 0, True),
     (X, np.array([0.0, 0.5, 1.0], np.float32)),
     lambda x, q: np.quantile(x, q, 0, keepdims=True)),
    ("std_mean", lambda x: ops.std_mean(x, 1), (X,), lambda x: [np.std(x, 1), np.mean(x, 1)]),
    ("var_mean", lambda x: ops.var_mean(x, 0, 1, True), (X,),
     lambda x: [np.var(x, 0, ddof=1, keepdims=True), np.mean(x, 0, keepdims=True)]),
    ("diff", lambda x: ops.diff(x), (X,), np.diff),
    ("diff n2 axis0", lambda x: ops.diff(x, 2, 0), (X,), lambda x: np.diff(x, 2, 0)),
    ("diff bool", lambda x: ops.diff(x), (X > 0,), np.diff),
    ("trapz", lambda y: ops.trapz(y), (X,), lambda y: np.trapezoid(y)),
    ("trapz x", lambda y, x: ops.trapz(y, x), (X, np.array([0, 1, 3, 6], np.float32)),
     lambda y, x: np.trapezoid(y, x)),
    ("trapz dx", lambda y: ops.trapz(y, dx=0.5, dim=0), (X,), lambda y: np.trapezoid(y, dx=0.5,
                                                                                 axis=0)),
    ("dot", lambda a, b: ops.dot(a, b), (X3, R.standard_normal((2, 4, 5)).astype(np.float32)),
     np.dot),
    ("dot 2d", lambda a, b: ops.dot(a, b), (X, X.T.copy()), np.dot),
    ("mv", lambda m, v: ops.mv(m, v), (X, V[:4].copy()), np.dot),
    ("baddbmm", lambda i, a, b: ops.baddbmm(i, a, b, 0.5, 2.0),
     (np.ones((2, 3, 3), np.float32), X3, np.swapaxes(X3, 1, 2).copy()),
     lambda i, a, b: 0.5 * i + 2 * a @ b),
    ("trace", lambda x: ops.trace(x), (X,), np.trace),
    ("trace int", lambda x: ops.trace(x), (I[:, :2].copy(),), lambda x: np.trace(x)),
    ("diag", lambda x: ops.diag(x), (V,), np.diag),
    ("diag 2d", lambda x: ops.diag(x), (X[:2, :2].copy(),),
     lambda x: np.einsum("ij,ik,jl->ijkl", x, np.eye(2), np.eye(2)).astype(np.float32)),
    ("diagonal", lambda x: ops.diagonal(x), (X,), np.diagonal),
    ("diagonal offset", lambda x: ops.diagonal(x, 1, 2, 0), (X3,),
     lambda x: np.diagonal(x, 1, 2, 0)),
    ("diagonal neg", lambda x: ops.diagonal(x, -1), (X,), lambda x: np.diagonal(x, -1)),
    ("kron", lambda a, b: ops.kron(a, b), (X[:2, :2].copy(), Y[:3, :2].copy()), np.kron),
    ("kron ranks", lambda a, b: ops.kron(a, b), (V[:2].copy(), X), np.kron),
    ("cross", lambda a, b: ops.cross(a, b), (X[:, :3].T.copy(), Y[:, :3].T.copy()),
     lambda a, b: np.cross(a, b, axis=0)),
    ("cross dim", lambda a, b: ops.cross(a, b, -1), (X[:, :3].copy(), Y[:, :3].copy()),
     np.cross),
    ("vander", lambda x: ops.vander(x), (V,), np.vander),
    ("vander N", lambda x: ops.vander(x, 3), (np.array([1, 2, 3], np.int32),),
     lambda x: np.vander(x, 3)),
    ("renorm", lambda x: ops.renorm(x, 2, 0, 1.0), (X,),
     lambda x: x * np.where(np.linalg.norm(x, axis=1, keepdims=True) > 1,
                            1 / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-7), 1)),
    ("hardshrink", lambda x: ops.hardshrink(x), (X,), lambda x: np.where(np.abs(x) > .5, x, 0)),
    ("softshrink", lambda x: ops.softshrink(x, 0.3), (X,),
     lambda x: np.where(x > .3, x - .3, np.where(x < -.3, x + .3, 0))),
    ("l2_normalize", lambda x: ops.l2_normalize(x, 1), (X,),
     lambda x: x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-4))),
    ("normalize", lambda x: ops.normalize(x), (X,),
     lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)),
    ("linear", lambda x, w: ops.linear(x, w), (X, Y), lambda x, w: x @ w.T),
    ("linspace", lambda x: ops.linspace(1, 10, 5) + x[0, 0] * 0, (X,),
     lambda x: np.linspace(1, 10, 5).astype(np.float32)),
    ("linspace tensors", lambda a, b: ops.linspace(a, b, 7),
     (np.array(-1.0, np.float32), np.array(2.0, np.float32)),
     lambda a, b: np.linspace(a, b, 7).astype(np.float32)),
    ("meshgrid", lambda a, b: ops.meshgrid(a, b), (V[:3].copy(), V),
     lambda a, b: list(np.meshgrid(a, b))),
    ("meshgrid ij", lambda a, b, c: ops.meshgrid(a, b, c, indexing="ij"),
     (V[:2].copy(), V[:3].copy(), V), lambda a, b, c: list(np.meshgrid(a, b, c,
                                                                     indexing="ij"))),
    ("range", lambda x: ops.range(0, 10, 3) + x[0, 0].astype(ms.int64) * 0, (X,),
     lambda x: np.arange(0, 10, 3)),
    ("moveaxis", lambda x: ops.moveaxis(x, 0, -1), (X3,), lambda x: np.moveaxis(x, 0, -1)),
    ("movedim tuple", lambda x: ops.movedim(x, (0, 1), (2, 0)), (X3,),
     lambda x: np.moveaxis(x, (0, 1), (2, 0))),
    ("tensor_split", lambda x: ops.tensor_split(x, 3, 1), (X,),
     lambda x: np.array_split(x, 3, 1)),
    ("tensor_split idx", lambda x: ops.tensor_split(x, [1, 3]), (V,),
     lambda x: np.array_split(x, [1, 3])),
    ("hsplit", lambda x: ops.hsplit(x, 2), (X,), lambda x: np.hsplit(x, 2)),
    ("hsplit uneven", lambda x: ops.hsplit(x, 3), (X,), lambda x: np.array_split(x, 3, 1)),
    ("vsplit", lambda x: ops.vsplit(x, [1]), (X,), lambda x: np.vsplit(x, [1])),
    ("dsplit", lambda x: ops.dsplit(x, 2), (X3,), lambda x: np.dsplit(x, 2)),
    ("rot90", lambda x: ops.rot90(x), (X,), np.rot90),
    ("rot90 k", lambda x: ops.rot90(x, -1, (1, 2)), (X3,), lambda x: np.rot90(x, -1, (1, 2))),
    ("rot90 2", lambda x: ops.rot90(x, 2, (0, 1)), (X,), lambda x: np.rot90(x, 2)),
    ("argsort", lambda x: ops.argsort(x), (X,),
     lambda x: np.argsort(x, kind="stable").astype(np.int32)),
    ("argsort desc", lambda x: ops.argsort(x, 0, True), (X,),
     lambda x: np.argsort(-x, 0, kind="stable").astype(np.int32)),
    ("searchsorted", lambda s, v: ops.searchsorted(s, v),
     (np.array([1, 3, 5, 7, 9], np.float32), np.array([[3, 6, 9], [0, 1, 10]], np.float32)),
     lambda s, v: np.searchsorted(s, v).astype(np.int64)),
    ("searchsorted right", lambda s, v: ops.searchsorted(s, v, right=True, out_int32=True),
     (np.array([1, 3, 5, 7, 9], np.float32), np.array([3, 6, 9], np.float32)),
     lambda s, v: np.searchsorted(s, v, "right").astype(np.int32)),
    ("searchsorted nd", lambda s, v: ops.searchsorted(s, v, side="right"),
     (np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], np.float32),
      np.array([[3, 6, 9], [3, 6, 9]], np.float32)),
     lambda s, v: np.stack([np.searchsorted(s[i], v[i], "right") for i in range(2)])),
    ("bucketize", lambda x: ops.bucketize(x, [1.0, 3.0, 5.0, 7.0]),
     (np.array([[3, 6, 9], [3, 6, 9]], np.int32),),      # MindSpore's example
     lambda x: np.array([[1, 3, 4], [1, 3, 4]], np.int32)),
    ("bucketize right", lambda x: ops.bucketize(x, [1.0, 3.0, 5.0, 7.0, 9.0], right=True),
     (np.array([[3, 6, 9], [3, 6, 9]], np.int32),),      # MindSpore's documented example
     lambda x: np.array([[2, 3, 5], [2, 3, 5]], np.int32)),
    ("cummin doc", lambda x: ops.cummin(x, 0),
     (np.array([-0.2284, -0.6628, 0.0975, 0.2680, -1.3298, -0.4220], np.float32),),
     lambda x: [np.minimum.accumulate(x), np.array([0, 1, 1, 1, 4, 4])]),
    ("cummax", lambda x: ops.cummax(x, 0),
     (np.array([[3, 4, 6, 10], [1, 6, 7, 9], [4, 3, 8, 7], [1, 3, 7, 9]], np.float32),),
     lambda x: [np.maximum.accumulate(x, 0),
                np.array([[0, 0, 0, 0], [0, 1, 1, 0], [2, 1, 2, 0], [2, 1, 2, 0]])]),
    ("cummin", lambda x: ops.cummin(x, -1), (np.array([[2, 1, 1, 3, 0]], np.int32),),
     lambda x: [np.minimum.accumulate(x, -1), np.array([[0, 1, 2, 2, 4]])]),
    ("unsorted_segment_sum", lambda x, s: ops.unsorted_segment_sum(x, s, 4),
     (X, np.array([0, 2, 0], np.int32)),
     lambda x, s: np.stack([x[s == k].sum(0) for k in range(4)])),
    ("unsorted_segment_sum int", lambda x, s: ops.unsorted_segment_sum(x, s, 3),
     (I, np.array([[0, 1, 1], [2, 2, 5]], np.int32)),
     lambda x, s: np.array([12, -11, 5], np.int32)),   # id 5 is dropped
    ("unsorted_segment_max", lambda x, s: ops.unsorted_segment_max(x, s, 3),
     (X, np.array([1, 1, 0], np.int32)),
     lambda x, s: np.stack([x[2], np.maximum(x[0], x[1]),
                            np.full(4, np.finfo(np.float32).min, np.float32)])),
    ("unsorted_segment_min", lambda x, s: ops.unsorted_segment_min(x, s, 2),
     (X, np.array([1, 1, 0], np.int32)),
     lambda x, s: np.stack([x[2], np.minimum(x[0], x[1])])),
    ("unsorted_segment_prod", lambda x, s: ops.unsorted_segment_prod(x, s, 3),
     (X, np.array([1, 1, 0], np.int32)), lambda x, s: np.stack([x[2], x[0] * x[1],
                                                                 np.ones(4, np.float32)])),
    ("gather_d", lambda x, i: ops.gather_d(x, 1, i), (X, np.array([[0, 0], [3, 1], [2, 2]])),
     lambda x, i: np.take_along_axis(x, i, 1)),
    ("argwhere", lambda x: ops.argwhere(x), (np.array([[0, 1.5], [2, 0]], np.float32),),
     lambda x: np.argwhere(x)),
    ("ravel", lambda x: ops.ravel(x), (X3,), np.ravel),
    ("tensor_scatter_sub", lambda x, i, u: ops.tensor_scatter_sub(x, i, u),
     (X, np.array([[0, 1], [2, 3], [0, 1]]), np.array([1.0, 2.0, 3.0], np.float32)),
     lambda x, i, u: x - np.array([[0, 4, 0, 0], [0] * 4, [0, 0, 0, 2]], np.float32)),
    ("tensor_scatter_mul", lambda x, i, u: ops.tensor_scatter_mul(x, i, u),
     (X, np.array([[0], [2]]), np.stack([V[:4], V[1:]])),
     lambda x, i, u: x * np.stack([u[0], np.ones(4, np.float32), u[1]])),
    ("tensor_scatter_div", lambda x, i, u: ops.tensor_scatter_div(x, i, u),
     (X, np.array([[1, 1]]), np.array([4.0], np.float32)),
     lambda x, i, u: x / np.where(np.arange(12).reshape(3, 4) == 5, 4, 1).astype(np.float32)),
    ("tensor_scatter_max", lambda x, i, u: ops.tensor_scatter_max(x, i, u),
     (X, np.array([[0, 0], [1, 1], [0, 0]]), np.array([5.0, -9.0, 6.0], np.float32)),
     lambda x, i, u: np.where(np.arange(12).reshape(3, 4) == 0, 6.0, x).astype(np.float32)),
    ("tensor_scatter_min", lambda x, i, u: ops.tensor_scatter_min(x, i, u),
     (X, np.array([[0, 0], [1, 1]]), np.array([5.0, -9.0], np.float32)),
     lambda x, i, u: np.where(np.arange(12).reshape(3, 4) == 5, -9.0, x).astype(np.float32)),
    ("tensor_scatter_elements", lambda x, i, u: ops.tensor_scatter_elements(x, i, u, 1),
     (X, np.array([[3, 0], [1, 2], [0, 3]]), np.ones((3, 2), np.float32)),
     lambda x, i, u: _put_along(x, i, u, 1, False)),
    ("tensor_scatter_elements add", lambda x, i, u: ops.tensor_scatter_elements(
        x, i, u, 0, "add"), (X, np.array([[2, 0, 0, 1], [2, 1, 0, 0]]),
                             np.full((2, 4), 2.0, np.float32)),
     lambda x, i, u: _put_along(x, i, u, 0, True)),
    ("tensor_scatter_elements small", lambda x, i, u: ops.tensor_scatter_elements(x, i, u, 0),
     (X, np.array([[2, 0]]), np.array([[7.0, 8.0]], np.float32)),
     lambda x, i, u: _put_along(x, i, u, 0, False)),
    ("index_fill", lambda x: ops.index_fill(x, 1, ms.Tensor([0, 2], ms.int32), -1.0), (X,),
     lambda x: np.where(np.isin(np.arange(4), [0, 2]), -1.0, x).astype(np.float32)),
    ("index_add", lambda x, i, y: ops.index_add(x, i, y, 1),
     (X, np.array([0, 2, 0], np.int32), np.ones((3, 3), np.float32)),
     lambda x, i, y: x + np.array([2, 0, 1, 0], np.float32)),
]


def _put_along(x, idx, u, axis, add):
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = idx[pos]
        if add:
            out[tuple(tgt)] += u[pos]
        else:
            out[tuple(tgt)] = u[pos]
    return out


@pytest.mark.parametrize("name, fn, args, ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy_in_both_modes(name, fn, args, ref):
    out = _both(fn, *args)
    want = ref(*args)
    got = _np(out)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
    else:
        got, want = [got], [want]
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        if name in ("hypot doc",):
            np.testing.assert_array_equal(g, w)           # exactly, as MindSpore prints
        elif w.dtype.kind == "f" and g.dtype.kind == "f":
            np.testing.assert_allclose(g, w.astype(g.dtype), rtol=2e-6, atol=2e-6)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("fn, dtype", [
    (lambda x: ops.log2(x), ms.float32), (lambda x: ops.exp2(x), ms.float32),
    (lambda x: ops.atan2(x, x), ms.float32), (lambda x: ops.hypot(x, x), ms.float32),
    (lambda x: ops.float_power(x, 2), ms.float64), (lambda x: ops.xlogy(x, x), ms.float32),
    (lambda x: ops.bucketize(x, [1.0]), ms.int32), (lambda x: ops.searchsorted(x, x), ms.int64),
    (lambda x: ops.argsort(x), ms.int32), (lambda x: ops.trace(ops.diag(x)), ms.int32),
    (lambda x: ops.cummax(x, 0)[1], ms.int64), (lambda x: ops.cummin(x, 0)[1], ms.int32),
    (lambda x: ops.median(x)[1], ms.int64),
])
def test_result_dtypes_follow_mindspore(fn, dtype):
    assert _both(fn, np.array([1, 2, 3], np.int32)).dtype == dtype


def _grad_of(fn, *arrays):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        g_eager = ms.grad(fn, grad_position=tuple(range(len(arrays))))(
            *[ms.Tensor(a) for a in arrays])
        ms.set_context(mode=ms.GRAPH_MODE)
        g_graph = ms.jit(ms.grad(fn, grad_position=tuple(range(len(arrays)))))(
            *[ms.Tensor(a) for a in arrays])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not compare_results(g_graph, g_eager)
    return [g.asnumpy() for g in g_eager]


def _numeric_grad(fn, arrays, k, eps=1e-6):
    base = [a.astype(np.float64) for a in arrays]
    g = np.zeros_like(base[k])
    for pos in np.ndindex(*base[k].shape):
        hi = [b.copy() for b in base]
        lo = [b.copy() for b in base]
        hi[k][pos] += eps
        lo[k][pos] -= eps
        g[pos] = (fn(*[ms.Tensor(h) for h in hi]).asnumpy().sum() -
                  fn(*[ms.Tensor(v) for v in lo]).asnumpy().sum()) / (2 * eps)
    return g


GRADS = [
    ("atan2", lambda y, x: ops.atan2(y, x), (X[:2, :3].copy(), Y[:2, :3].copy())),
    ("hypot", lambda a, b: ops.hypot(a, b), (X[:2].copy(), Y[:2].copy())),
    ("logaddexp", lambda a, b: ops.logaddexp(a, b), (X[:2].copy(), Y[:2].copy())),
    ("logit", lambda p: ops.logit(p), (P[:2].copy(),)),
    ("lerp", lambda a, b, w: ops.lerp(a, b, w), (X[:1].copy(), Y[:1].copy(), P[:1].copy())),
    ("cummax", lambda x: ops.cummax(x, 1)[0], (X,)),
    ("median", lambda x: ops.median(x, 0)[0], (X,)),
    ("quantile", lambda x: ops.quantile(x, 0.4, 1), (X,)),
    ("diagonal", lambda x: ops.diagonal(x, 1), (X,)),
    ("kron", lambda a, b: ops.kron(a, b), (X[:2, :2].copy(), Y[:2, :2].copy())),
    ("cross", lambda a, b: ops.cross(a, b, 1), (X[:, :3].copy(), Y[:, :3].copy())),
    ("unsorted_segment_max", lambda x: ops.unsorted_segment_max(
        x, ms.Tensor([1, 0, 1], ms.int32), 2), (X,)),
    ("tensor_scatter_mul", lambda x, u: ops.tensor_scatter_mul(
        x, ms.Tensor([[0, 1], [2, 3]]), u), (X, np.array([2.0, 3.0], np.float32))),
    ("tensor_scatter_elements", lambda x, u: ops.tensor_scatter_elements(
        x, ms.Tensor([[1, 0, 2, 2]]), u, 0, "add"), (X, Y[:1].copy())),
    ("index_add", lambda x, y: ops.index_add(x, ms.Tensor([2, 0], ms.int32), y, 0),
     (X, Y[:2].copy())),
    ("renorm", lambda x: ops.renorm(x, 2, 0, 1.0), (X,)),
    ("nanmean", lambda x: ops.nanmean(x, 1), (X,)),
]


@pytest.mark.parametrize("name, fn, args", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_finite_differences(name, fn, args):
    args64 = [a.astype(np.float64) for a in args]
    grads = _grad_of(fn, *args64)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, _numeric_grad(fn, args64, k), rtol=1e-5, atol=1e-6)


_FLOATS = st.floats(-1e6, 1e6, allow_nan=False, width=32)


@settings(max_examples=40, deadline=None)
@given(st.lists(_FLOATS, min_size=1, max_size=6), st.lists(_FLOATS, min_size=1, max_size=6))
def test_atan2_and_hypot_agree_with_numpy(ys, xs):
    y = np.array(ys, np.float32)[:, None]
    x = np.array(xs, np.float32)[None, :]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(ops.atan2(ms.Tensor(y), ms.Tensor(x)).asnumpy(),
                               np.arctan2(y, x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ops.hypot(ms.Tensor(y), ms.Tensor(x)).asnumpy(),
                               np.hypot(y, x), rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-10 ** 6, 10 ** 6), min_size=1, max_size=8),
       st.sampled_from([np.int32, np.int64]))
def test_gcd_lcm_agree_with_numpy(values, dtype):
    a = np.array(values, dtype)
    b = a[::-1].copy() // 3 + 1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(ops.gcd(ms.Tensor(a), ms.Tensor(b)).asnumpy(), np.gcd(a, b))
    np.testing.assert_array_equal(ops.lcm(ms.Tensor(a), ms.Tensor(b)).asnumpy(), np.lcm(a, b))


def test_scatter_nd_ops_update_a_parameter():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    p = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="p")
    out = ops.scatter_nd_add(p, ms.Tensor([[0], [2]]), ms.Tensor(np.full((2, 2), 2.0,
                                                                         np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [[3, 3], [1, 1], [3, 3]])
    assert out is p
    ops.scatter_nd_mul(p, ms.Tensor([[1, 1]]), ms.Tensor([5.0]))
    np.testing.assert_array_equal(p.asnumpy(), [[3, 3], [1, 5], [3, 3]])


def test_dropout2d_drops_whole_channels():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.ones((4, 8, 3, 3), np.float32))
    y = ops.dropout2d(x, 0.5).asnumpy()
    per_channel = y.reshape(4, 8, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert ops.dropout2d(x, 0.5, training=False) is x


def test_bincount_eagerly_and_refused_in_graphs():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.array([0, 1, 1, 3, 2, 1, 7]))
    np.testing.assert_array_equal(ops.bincount(x).asnumpy(), np.bincount(x.asnumpy()))
    w = ms.Tensor(np.linspace(0, 1, 7))
    np.testing.assert_allclose(ops.bincount(x, w, minlength=10).asnumpy(),
                               np.bincount(x.asnumpy(), w.asnumpy(), 10))
    with pytest.raises(TypeError, match="output length depends on the input's values"):
        ms.jit(lambda t: ops.bincount(t))(x)


def test_argwhere_in_a_graph_has_a_run_time_length():
    out = _both(lambda x: ops.argwhere(x > 0), X)
    np.testing.assert_array_equal(out.asnumpy(), np.argwhere(X > 0))


@pytest.mark.parametrize("call, exc, match", [
    (lambda: ops.deg2rad(ms.Tensor([1, 2])), TypeError, "float16, float32 or float64"),
    (lambda: ops.median(ms.Tensor([1.0]), 1), ValueError, "out of range"),
    (lambda: ops.median(ms.Tensor([1.0]), 0.5), TypeError, "axis must be an int"),
    (lambda: ops.gcd(ms.Tensor([1.0]), ms.Tensor([2.0])), TypeError, "integers"),
    (lambda: ops.quantile(ms.Tensor([1.0]), 1.5), ValueError, r"\[0, 1\]"),
    (lambda: ops.cross(ms.Tensor(X[:2]), ms.Tensor(Y[:2])), ValueError, "size 3"),
    (lambda: ops.hsplit(ms.Tensor(V), 3), ValueError, "rank 2 or more"),
    (lambda: ops.dsplit(ms.Tensor(X), 2), ValueError, "rank 3 or more"),
    (lambda: ops.searchsorted(ms.Tensor(V), ms.Tensor(V), side="middle"), ValueError,
     "'left' or 'right'"),
    (lambda: ops.tensor_scatter_elements(ms.Tensor(X), ms.Tensor([[0]]), ms.Tensor([[1.0]]),
                                         0, "mul"), ValueError, "reduction"),
    (lambda: ops.range(0, 5, 0), ValueError, "step"),
    (lambda: ops.dot(ms.Tensor(X), ms.Tensor(X)), ValueError, "second-to-last"),
])
def test_argument_errors(call, exc, match):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(exc, match=match):
        call()


def test_is_tensor():
    assert ops.is_tensor(ms.Tensor(1.0)) and not ops.is_tensor(np.ones(2))


# -- square matrices (linalg_func.py) ------------------------------------------------------
MAT = R.standard_normal((2, 4, 4)).astype(np.float32)
RHS = R.standard_normal((2, 4, 3)).astype(np.float32)
LINALG = [
    ("inverse", lambda a: ops.inverse(a), (MAT,), np.linalg.inv),
    ("det", lambda a: ops.det(a), (MAT,), np.linalg.det),
    ("det 2d", lambda a: ops.det(a), (MAT[0].copy(),), np.linalg.det),
    ("det singular", lambda a: ops.det(a), (np.array([[1, 2], [2, 4]], np.float32),),
     np.linalg.det),
    ("slogdet", lambda a: ops.slogdet(a), (MAT,), lambda a: list(np.linalg.slogdet(a))),
    ("slogdet singular", lambda a: ops.slogdet(a), (np.array([[1, 2], [2, 4]], np.float64),),
     lambda a: [np.float64(0), np.float64(-np.inf)]),
    ("matrix_solve", lambda a, b: ops.matrix_solve(a, b), (MAT, RHS), np.linalg.solve),
    ("matrix_solve adjoint", lambda a, b: ops.matrix_solve(a, b, True), (MAT, RHS),
     lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), b)),
    ("matrix_power", lambda a: ops.matrix_power(a, 5), (MAT,),
     lambda a: np.linalg.matrix_power(a, 5)),
    ("matrix_power neg", lambda a: ops.matrix_power(a, -2), (MAT,),
     lambda a: np.linalg.matrix_power(a, -2)),
    ("matrix_power 0", lambda a: ops.matrix_power(a, 0), (MAT,),
     lambda a: np.broadcast_to(np.eye(4, dtype=np.float32), a.shape)),
]


@pytest.mark.parametrize("name, fn, args, ref", LINALG, ids=[c[0] for c in LINALG])
def test_square_matrices_against_numpy(name, fn, args, ref):
    got = _np(_both(fn, *args))
    want = ref(*args)
    got, want = (got, want) if isinstance(want, list) else ([got], [want])
    for g, w in zip(got, want):
        assert g.shape == np.shape(w) and g.dtype == args[0].dtype
        np.testing.assert_allclose(g, np.asarray(w, g.dtype), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("fn", [lambda a: ops.det(a), lambda a: ops.slogdet(a)[1],
                                lambda a: ops.inverse(a)])
def test_square_matrix_gradients(fn):
    a = MAT[0].astype(np.float64)
    (g,) = _grad_of(fn, a)
    np.testing.assert_allclose(g, _numeric_grad(fn, [a], 0), rtol=1e-5, atol=1e-6)


def test_det_gradient_is_det_times_inverse_transpose():
    a = MAT[1].astype(np.float64)
    (g,) = _grad_of(lambda m: ops.det(m), a)
    np.testing.assert_allclose(g, np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-9)


def test_square_matrix_errors():
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        ops.inverse(ms.Tensor(np.eye(2, dtype=np.int32)))
    with pytest.raises(ValueError, match="square"):
        ops.det(ms.Tensor(X))


# -- the Tensor method spellings -----------------------------------------------------------
METHODS = [
    ("log2", lambda x: x.log2(), (np.abs(X) + 1,), np.log2),
    ("log10", lambda x: x.log10(), (np.abs(X) + 1,), np.log10),
    ("atan2", lambda x, y: x.atan2(y), (X, Y), np.arctan2),
    ("hypot", lambda x, y: x.hypot(y), (X, Y), np.hypot),
    ("argsort", lambda x: x.argsort(), (X,), lambda x: np.argsort(x, kind="stable")),
    ("diagonal", lambda x: x.diagonal(1), (X,), lambda x: np.diagonal(x, 1)),
    ("trace", lambda x: x.trace(), (X,), np.trace),
    ("diag", lambda x: x.diag(), (V,), np.diag),
    ("nan_to_num", lambda x: x.nan_to_num(), (SPECIAL,), np.nan_to_num),
    ("cummin", lambda x: x.cummin(0)[0], (X,), lambda x: np.minimum.accumulate(x, 0)),
    ("moveaxis", lambda x: x.moveaxis(0, 2), (X3,), lambda x: np.moveaxis(x, 0, 2)),
    ("tensor_split", lambda x: x.tensor_split(2, 1), (X,), lambda x: np.array_split(x, 2, 1)),
    ("rot90", lambda x: x.rot90(), (X,), np.rot90),
    ("median", lambda x: x.median(0)[0], (X[:3].copy(),), lambda x: np.sort(x, 0)[1]),
    ("nansum", lambda x: x.nansum(), (SPECIAL[1:5].copy(),), np.nansum),
    ("det", lambda x: x.det(), (MAT,), np.linalg.det),
    ("inverse", lambda x: x.inverse(), (MAT,), np.linalg.inv),
    ("diff", lambda x: x.diff(), (X,), np.diff),
    ("float_power", lambda x: x.float_power(2), (X,), lambda x: np.float_power(x, 2)),
    ("frac", lambda x: x.frac(), (X * 3,), lambda x: np.fmod(x, 1)),
    ("searchsorted", lambda s, v: s.searchsorted(v, side="right"),
     (np.array([1, 2, 2, 3], np.float32), np.array([2.0], np.float32)), lambda s, v: [3]),
]


@pytest.mark.parametrize("name, fn, args, ref", METHODS, ids=[m[0] for m in METHODS])
def test_tensor_methods(name, fn, args, ref):
    got = _np(_both(fn, *args))
    want = ref(*args)
    got, want = (got, want) if isinstance(want, (list, tuple)) and isinstance(got, list) \
        else ([got], [want])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, g.dtype), rtol=2e-5, atol=2e-5)


# -- conv3d (one conv2d per kernel depth) --------------------------------------------------
def _conv3d_ref(x, w, stride, pads, dil, groups):
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(3)])
    n, c, d, h, wd = x.shape
    o, cg, kd, kh, kw = w.shape
    od = (d - dil[0] * (kd - 1) - 1) // stride[0] + 1
    oh = (h - dil[1] * (kh - 1) - 1) // stride[1] + 1
    ow = (wd - dil[2] * (kw - 1) - 1) // stride[2] + 1
    out = np.zeros((n, o, od, oh, ow), np.float64)
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(od):
            for j in range(oh):
                for k in range(ow):
                    patch = x[:, g * cg:(g + 1) * cg,
                              i * stride[0]:i * stride[0] + dil[0] * (kd - 1) + 1:dil[0],
                              j * stride[1]:j * stride[1] + dil[1] * (kh - 1) + 1:dil[1],
                              k * stride[2]:k * stride[2] + dil[2] * (kw - 1) + 1:dil[2]]
                    out[:, oc, i, j, k] = (patch * w[oc]).sum((1, 2, 3, 4))
    return out


XV = R.standard_normal((2, 4, 5, 6, 5)).astype(np.float32)
WV = R.standard_normal((6, 2, 2, 3, 2)).astype(np.float32)


@pytest.mark.parametrize("kw, pads", [
    (dict(), (0,) * 6),
    (dict(stride=(2, 1, 2), dilation=(2, 1, 1), groups=2), (0,) * 6),
    (dict(pad_mode="pad", padding=(1, 0, 2, 1, 0, 1), groups=2), (1, 0, 2, 1, 0, 1)),
    (dict(pad_mode="pad", padding=1, stride=2, groups=2), (1,) * 6),
])
def test_conv3d_against_a_direct_loop(kw, pads):
    w = WV if kw.get("groups", 1) == 2 else R.standard_normal((3, 4, 2, 3, 2)).astype(np.float32)
    b = np.arange(w.shape[0], dtype=np.float32)
    out = _both(lambda x, wt, bb: ops.conv3d(x, wt, bb, **kw), XV, w, b)
    want = _conv3d_ref(XV.astype(np.float64), w.astype(np.float64), kw.get("stride", 1) if
                       isinstance(kw.get("stride", 1), tuple) else (kw.get("stride", 1),) * 3,
                       pads, kw.get("dilation", (1, 1, 1)), kw.get("groups", 1))
    want = want + b.reshape(1, -1, 1, 1, 1)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_conv3d_same_and_gradient():
    x = XV[:1, :2, :4, :4, :4].astype(np.float64)
    w = WV[:2, :, :, :2, :2].astype(np.float64)
    out = _both(lambda a, b: ops.conv3d(a, b, pad_mode="same", stride=2), x, w)
    assert out.shape == (1, 2, 2, 2, 2)
    gx, gw = _grad_of(lambda a, b: ops.conv3d(a, b, pad_mode="pad", padding=1), x, w)
    np.testing.assert_allclose(gw, _numeric_grad(
        lambda a, b: ops.conv3d(a, b, pad_mode="pad", padding=1), [x, w], 1), rtol=1e-5,
        atol=1e-6)


# -- broadcasting and dtypes of the binary functions, many cases -----------------------------
_BINARY_REFS = {
    "fmax": (ops.fmax, np.fmax, False), "fmin": (ops.fmin, np.fmin, False),
    "hypot": (ops.hypot, np.hypot, True), "atan2": (ops.atan2, np.arctan2, True),
    "logaddexp": (ops.logaddexp, np.logaddexp, True),
    "copysign": (ops.copysign, np.copysign, True),
    "heaviside": (ops.heaviside, np.heaviside, False),
}
_DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64]
_SHAPES = st.lists(st.integers(1, 3), min_size=0, max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_BINARY_REFS)), st.sampled_from(_DTYPES),
       st.sampled_from(_DTYPES), _SHAPES, st.data())
def test_binary_functions_broadcast_and_promote(name, da, db, shape, data):
    fn, ref, float_out = _BINARY_REFS[name]
    sb = list(shape)
    for i in range(len(sb)):                       # some dims broadcast
        if data.draw(st.booleans()):
            sb[i] = 1
    sb = sb[data.draw(st.integers(0, len(sb))):]   # and b may have fewer dims
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    a = (rng.standard_normal(shape) * 4).astype(da)
    b = (rng.standard_normal(sb) * 4).astype(db)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = fn(ms.Tensor(a), ms.Tensor(b))
    promoted = ops.add(ms.Tensor(a), ms.Tensor(b)).dtype   # API.md's tensor-tensor rule
    want_dtype = promoted if promoted.is_floating or not float_out else ms.float32
    if name == "copysign":                          # MindSpore: the dtype of x (float)
        want_dtype = ms.Tensor(a).dtype if a.dtype.kind == "f" else ms.float32
    assert out.dtype == want_dtype
    assert out.shape == np.broadcast_shapes(a.shape, b.shape)
    np_dt = out.asnumpy().dtype
    want = ref(a.astype(np.float64), b.astype(np.float64)).astype(np_dt)
    tol = 2e-3 if np_dt == np.float16 else 2e-6
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want.astype(np.float64),
                               rtol=tol, atol=tol)


def test_erfc_keeps_relative_precision_in_the_tail():
    x = np.linspace(-3, 25, 113)
    got = _both(lambda t: ops.erfc(t), x).asnumpy()
    want = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)
    g32 = _both(lambda t: ops.erfc(t), x.astype(np.float32)[:60]).asnumpy()
    np.testing.assert_allclose(g32, want[:60].astype(np.float32), rtol=1e-6, atol=0)
