"""The mindspore.numpy names added in numpy/math_more.py, array_more.py and
stats_more.py: each against numpy, with the same values, dtypes and shapes eagerly and
in a graph; the functions whose output length depends on the data (unique, bincount
without length) run eagerly and say why a graph refuses them (or run in it with a
length known only at run time)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import graphjit as ms
import graphjit.numpy as mnp
from helpers import run_both

R = np.random.default_rng(3)
A = R.standard_normal((3, 4)).astype(np.float32)
B = R.standard_normal((3, 4)).astype(np.float32)
C3 = R.standard_normal((2, 3, 4)).astype(np.float32)
V = R.standard_normal(6).astype(np.float32)
I = np.array([[12, -18, 7], [0, 5, 9]], np.int32)
J = np.array([[8, 24, -21], [6, 4, 3]], np.int32)
NANS = np.where(A > 0.8, np.nan, A).astype(np.float32)
SPECIAL = np.array([-np.inf, -2.5, -0.0, 0.0, 1.5, np.inf], np.float32)


def _both(fn, *args):
    """fn over Tensors of args eagerly and under ms.jit (tests/helpers.run_both: they
    agree in values, dtypes and shapes); the eager result."""
    return run_both(lambda: fn, *[ms.Tensor(a) for a in args])[1]


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return np.asarray(x.asnumpy()) if hasattr(x, "asnumpy") else np.asarray(x)


def _check(got, want, exact_dtype=None):
    got = _np(got)
    if isinstance(want, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _check_one(g, np.asarray(w), exact_dtype)
    else:
        _check_one(got, np.asarray(want), exact_dtype)


def _check_one(g, w, exact_dtype):
    assert g.shape == w.shape, (g.shape, w.shape)
    if exact_dtype is not None:
        assert g.dtype == exact_dtype, g.dtype
    if w.dtype.kind == "f" or g.dtype.kind == "f":
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=3e-6,
                                   atol=3e-6)
    else:
        np.testing.assert_array_equal(g, w)


CASES = [
    ("rollaxis", lambda x: mnp.rollaxis(x, 2), (C3,), lambda x: np.rollaxis(x, 2)),
    ("rollaxis start", lambda x: mnp.rollaxis(x, 0, 2), (C3,), lambda x: np.rollaxis(x, 0, 2)),
    ("atleast_3d", lambda x: mnp.atleast_3d(x), (A,), np.atleast_3d),
    ("atleast_3d 1d", lambda x: mnp.atleast_3d(x), (V,), np.atleast_3d),
    ("column_stack", lambda a, b: mnp.column_stack((a, b)), (V, V), lambda a, b:
     np.column_stack((a, b))),
    ("dstack", lambda a, b: mnp.dstack((a, b)), (A, B), lambda a, b: np.dstack((a, b))),
    ("broadcast_arrays", lambda a, b: mnp.broadcast_arrays(a, b), (A[:1], A[:, :1]),
     lambda a, b: list(np.broadcast_arrays(a, b))),
    ("append", lambda a, b: mnp.append(a, b), (A, V), np.append),
    ("append axis", lambda a, b: mnp.append(a, b, 0), (A, B), lambda a, b: np.append(a, b, 0)),
    ("vsplit", lambda x: mnp.vsplit(x, 3), (A,), lambda x: np.vsplit(x, 3)),
    ("hsplit", lambda x: mnp.hsplit(x, [1, 3]), (A,), lambda x: np.hsplit(x, [1, 3])),
    ("dsplit", lambda x: mnp.dsplit(x, 2), (C3,), lambda x: np.dsplit(x, 2)),
    ("select", lambda a: mnp.select([a < -0.5, a > 0.5], [a, a * 2], 7.0), (A,),
     lambda a: np.select([a < -0.5, a > 0.5], [a, a * 2], 7.0)),
    ("choose", lambda i, a, b: mnp.choose(i, (a, b)), (np.array([[0, 1, 1, 0]] * 3), A, B),
     lambda i, a, b: np.choose(i, (a, b))),
    ("choose wrap", lambda i, a, b: mnp.choose(i, (a, b), "wrap"),
     (np.array([0, 3, -1, 2]), A[0], B[0]), lambda i, a, b: np.choose(i, (a, b), mode="wrap")),
    ("apply_along_axis", lambda x: mnp.apply_along_axis(lambda v: v.max() - v.min(), 1, x),
     (A,), lambda x: np.apply_along_axis(lambda v: v.max() - v.min(), 1, x)),
    ("apply_along_axis vector", lambda x: mnp.apply_along_axis(lambda v: v * 2, 0, x), (A,),
     lambda x: np.apply_along_axis(lambda v: v * 2, 0, x)),
    ("piecewise", lambda x: mnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v]),
     (A,), np.abs),
    ("piecewise default", lambda x: mnp.piecewise(x, [x < 0], [-1.0, 1.0]), (A,), np.sign),
    ("unravel_index", lambda i: mnp.unravel_index(i, (3, 4, 5)),
     (np.array([0, 17, 59, 33], np.int32),),
     lambda i: list(np.unravel_index(i, (3, 4, 5)))),
    ("unravel_index F", lambda i: mnp.unravel_index(i, (3, 4), "F"),
     (np.array([0, 7, 11], np.int32),), lambda i: list(np.unravel_index(i, (3, 4), order="F"))),
    ("ravel_multi_index", lambda a, b: mnp.ravel_multi_index((a, b), (3, 4)),
     (np.array([0, 2, 1], np.int32), np.array([3, 1, 0], np.int32)),
     lambda a, b: np.ravel_multi_index((a, b), (3, 4))),
    ("apply_over_axes", lambda x: mnp.apply_over_axes(mnp.sum, x, [0, 2]), (C3,),
     lambda x: np.apply_over_axes(np.sum, x, [0, 2])),
    ("diagonal", lambda x: mnp.diagonal(x, 1, 1, 2), (C3,), lambda x: np.diagonal(x, 1, 1, 2)),
    ("diagflat", lambda x: mnp.diagflat(x, -1), (A[:2, :2].copy(),),
     lambda x: np.diagflat(x, -1)),
    ("geomspace", lambda x: mnp.geomspace(1, 256, 9) + x[0, 0] * 0, (A,),
     lambda x: np.geomspace(1, 256, 9).astype(np.float32)),
    ("geomspace neg", lambda x: mnp.geomspace(-1000, -1, 4, endpoint=False) + x[0, 0] * 0,
     (A,), lambda x: np.geomspace(-1000, -1, 4, endpoint=False)),
    ("vander", lambda x: mnp.vander(x, 4, True), (V,), lambda x: np.vander(x, 4, True)),
    ("pad constant", lambda x: mnp.pad(x, ((1, 2), (0, 3)), constant_values=5), (A,),
     lambda x: np.pad(x, ((1, 2), (0, 3)), constant_values=5)),
    ("pad int constant", lambda x: mnp.pad(x, 1), (I,), lambda x: np.pad(x, 1)),
    ("pad edge", lambda x: mnp.pad(x, 2, "edge"), (A,), lambda x: np.pad(x, 2, "edge")),
    ("pad reflect", lambda x: mnp.pad(x, (3, 2), "reflect"), (A,),
     lambda x: np.pad(x, (3, 2), "reflect")),
    ("pad symmetric", lambda x: mnp.pad(x, (3, 2), "symmetric"), (A,),
     lambda x: np.pad(x, (3, 2), "symmetric")),
    ("pad wrap", lambda x: mnp.pad(x, (1, 5), "wrap"), (A,), lambda x: np.pad(x, (1, 5), "wrap")),
    ("pad maximum", lambda x: mnp.pad(x, 1, "maximum"), (A,), lambda x: np.pad(x, 1, "maximum")),
    ("pad mean", lambda x: mnp.pad(x, (2, 1), "mean", stat_length=2), (A,),
     lambda x: np.pad(x, (2, 1), "mean", stat_length=2)),
    ("pad median", lambda x: mnp.pad(x, 1, "median"), (A,), lambda x: np.pad(x, 1, "median")),
    ("pad linear_ramp", lambda x: mnp.pad(x, (2, 3), "linear_ramp", end_values=1.0), (V,),
     lambda x: np.pad(x, (2, 3), "linear_ramp", end_values=1.0)),
    ("float_power", lambda a, b: mnp.float_power(a, b), (np.abs(A), B),
     lambda a, b: np.float_power(a, b).astype(np.float32)),    # float32 in MindSpore's numpy
    ("float_power doc", lambda a: mnp.float_power(a, mnp.array(3)), (np.arange(6, dtype=np.int32),),
     lambda a: np.array([0, 1, 8, 27, 64, 125], np.float32)),
    ("fix", lambda x: mnp.fix(x * 3), (A,), lambda x: np.fix(x * 3)),
    ("fix int", lambda x: mnp.fix(x), (I,), lambda x: x.astype(np.float32)),
    ("kron", lambda a, b: mnp.kron(a, b), (A[:2, :2].copy(), B[:2].copy()), np.kron),
    ("divmod", lambda a, b: mnp.divmod(a, b), (I, J), lambda a, b: list(np.divmod(a, b))),
    ("cross", lambda a, b: mnp.cross(a, b), (A[:, :3].copy(), B[:, :3].copy()), np.cross),
    ("cross 2", lambda a, b: mnp.cross(a, b), (A[:, :2].copy(), B[:, :3].copy()),
     lambda a, b: np.cross(np.pad(a, ((0, 0), (0, 1))), b)),    # a 2-vector's z is 0
    ("cross axis", lambda a, b: mnp.cross(a, b, axis=0), (A[:, :3].copy(), B[:, :3].copy()),
     lambda a, b: np.cross(a, b, axis=0)),
    ("trapz", lambda y: mnp.trapz(y), (A,), np.trapezoid),
    ("gcd", lambda a, b: mnp.gcd(a, b), (I, J), np.gcd),
    ("lcm", lambda a, b: mnp.lcm(a, b), (I, J), np.lcm),
    ("convolve", lambda a, v: mnp.convolve(a, v), (V, V[:3].copy()), np.convolve),
    ("convolve same", lambda a, v: mnp.convolve(a, v, "same"), (V[:3].copy(), V),
     lambda a, v: np.convolve(a, v, "same")),
    ("convolve valid int", lambda a, v: mnp.convolve(a, v, "valid"),
     (I.reshape(-1).copy(), J[0].copy()), lambda a, v: np.convolve(a, v, "valid")),
    ("correlate", lambda a, v: mnp.correlate(a, v), (V, V[:3].copy()), np.correlate),
    ("correlate full", lambda a, v: mnp.correlate(a, v, "full"), (V, V[:4].copy()),
     lambda a, v: np.correlate(a, v, "full")),
    ("logaddexp", lambda a, b: mnp.logaddexp(a, b), (A, B), np.logaddexp),
    ("logaddexp2", lambda a, b: mnp.logaddexp2(a, b), (A, B), np.logaddexp2),
    ("ediff1d", lambda x: mnp.ediff1d(x, to_end=mnp.array([9.0]), to_begin=-1.0), (A,),
     lambda x: np.ediff1d(x, to_end=[9.0], to_begin=-1.0)),
    ("nansum", lambda x: mnp.nansum(x, 1), (NANS,), lambda x: np.nansum(x, 1)),
    ("nanmean", lambda x: mnp.nanmean(x, 0, keepdims=True), (NANS,),
     lambda x: np.nanmean(x, 0, keepdims=True)),
    ("nanvar", lambda x: mnp.nanvar(x, 1, ddof=1), (NANS,), lambda x: np.nanvar(x, 1, ddof=1)),
    ("nanstd", lambda x: mnp.nanstd(x), (NANS,), np.nanstd),
    ("nancumsum", lambda x: mnp.nancumsum(x, 1), (NANS,), lambda x: np.nancumsum(x, 1)),
    ("nanmax", lambda x: mnp.nanmax(x, 1), (NANS,), lambda x: np.nanmax(x, 1)),
    ("nanmin", lambda x: mnp.nanmin(x), (NANS,), np.nanmin),
    ("cov", lambda x: mnp.cov(x), (A,), np.cov),
    ("cov rowvar bias", lambda x, y: mnp.cov(x, y, rowvar=False, bias=True), (A, B),
     lambda x, y: np.cov(x, y, rowvar=False, bias=True)),
    ("cov weights", lambda x, f, a: mnp.cov(x, fweights=f, aweights=a),
     (A, np.array([1, 2, 1, 3], np.int32), np.array([1, 1, 2, 3], np.int32)),
     lambda x, f, a: np.cov(x, fweights=f, aweights=a)),
    ("cov doc", lambda x: mnp.cov(x), (np.array([[2., 3., 4., 5.], [0., 2., 3., 4.],
                                                [7., 8., 9., 10.]], np.float64),),
     lambda x: np.array([[1.6666666, 2.1666667, 1.6666666], [2.1666667, 2.9166667, 2.1666667],
                         [1.6666666, 2.1666667, 1.6666666]], np.float32)),
    ("corrcoef", lambda x: mnp.corrcoef(x), (A,), np.corrcoef),
    ("multi_dot", lambda a, b, c: mnp.multi_dot([a, b, c]), (V[:3].copy(), A, V[:4].copy()),
     lambda a, b, c: np.linalg.multi_dot([a, b, c])),
    ("multi_dot mats", lambda a, b: mnp.multi_dot([a, b, a]), (A[:, :3].copy(), A[:, :3].copy()),
     lambda a, b: np.linalg.multi_dot([a, b, a])),
    ("matrix_power", lambda x: mnp.matrix_power(x, 3), (A[:, :3].copy(),),
     lambda x: np.linalg.matrix_power(x, 3)),
    ("searchsorted", lambda a, v: mnp.searchsorted(a, v), (np.sort(V), A),
     lambda a, v: np.searchsorted(a, v).astype(np.int32)),
    ("searchsorted right", lambda a, v: mnp.searchsorted(a, v, "right"),
     (np.array([1, 2, 2, 3], np.float32), np.array([2.0, 0.0, 5.0], np.float32)),
     lambda a, v: np.searchsorted(a, v, "right").astype(np.int32)),
    ("interp", lambda x, xp, fp: mnp.interp(x, xp, fp),
     (np.array([-1, 0, 0.5, 1.5, 2.0, 3.5, 9], np.float32), np.array([0, 1, 2, 3], np.float32),
      np.array([1, 3, 2, 0], np.float32)), np.interp),
    ("interp lr", lambda x, xp, fp: mnp.interp(x, xp, fp, -5.0, 5.0),
     (np.array([-1, 0.25, 9], np.float32), np.array([0, 1], np.float32),
      np.array([1, 3], np.float32)), lambda x, xp, fp: np.interp(x, xp, fp, -5.0, 5.0)),
    ("gradient", lambda x: mnp.gradient(x), (A,), lambda x: list(np.gradient(x))),
    ("gradient axis", lambda x: mnp.gradient(x, 0.5, axis=1), (A,),
     lambda x: np.gradient(x, 0.5, axis=1)),
    ("copysign", lambda a, b: mnp.copysign(a, b), (A, SPECIAL[1:5].copy()),
     lambda a, b: np.where(b < 0, -np.abs(a), np.abs(a))),     # -0.0 is not negative here
    ("digitize", lambda x, b: mnp.digitize(x, b), (A, np.array([-1, 0, 1], np.float32)),
     lambda x, b: np.digitize(x, b)),
    ("digitize right", lambda x, b: mnp.digitize(x, b, True),
     (np.array([0.0, 1.0, 2.5], np.float32), np.array([0, 1, 2], np.float32)),
     lambda x, b: np.digitize(x, b, True)),
    ("bincount length", lambda x: mnp.bincount(x, length=6), (np.array([0, 1, 1, 4], np.int32),),
     lambda x: np.bincount(x, minlength=6)),
    ("bincount negative", lambda x: mnp.bincount(x, length=3), (np.array([-2, 1, 5], np.int32),),
     lambda x: np.array([1, 1, 0])),        # negatives count as 0, 5 is beyond length
    ("histogram", lambda x: mnp.histogram(x, 5), (A,),
     lambda x: list(np.histogram(x, 5))),
    ("histogram range weights", lambda x, w: mnp.histogram(x, 4, (-1, 1), w),
     (A, np.abs(B)), lambda x, w: list(np.histogram(x, 4, (-1, 1), weights=w))),
    ("histogram density", lambda x: mnp.histogram(x, [-2.0, 0.0, 0.5, 2.0], density=True),
     (A,), lambda x: list(np.histogram(x, [-2.0, 0.0, 0.5, 2.0], density=True))),
    ("histogram_bin_edges", lambda x: mnp.histogram_bin_edges(x, 3), (A,),
     lambda x: np.histogram_bin_edges(x, 3)),
    ("histogram2d", lambda x, y: mnp.histogram2d(x, y, 3), (V, V[::-1].copy()),
     lambda x, y: list(np.histogram2d(x, y, 3))),
    ("histogramdd", lambda s: mnp.histogramdd(s, (2, 3, 2))[0], (A[:, :3].copy(),),
     lambda s: np.histogramdd(s, (2, 3, 2))[0]),
    ("polyadd", lambda a, b: mnp.polyadd(a, b), (V[:3].copy(), V), np.polyadd),
    ("polysub", lambda a, b: mnp.polysub(a, b), (V, V[:2].copy()), np.polysub),
    ("polyval", lambda p, x: mnp.polyval(p, x), (V[:4].copy(), A), np.polyval),
    ("polyder", lambda p: mnp.polyder(p, 2), (V,), lambda p: np.polyder(p, 2)),
    ("polymul", lambda a, b: mnp.polymul(a, b), (V[:3].copy(), V), np.polymul),
    ("polyint", lambda p: mnp.polyint(p, 2, [1.0, 2.0]), (V[:3].copy(),),
     lambda p: np.polyint(p, 2, [1.0, 2.0])),
    ("unwrap", lambda p: mnp.unwrap(p), (np.cumsum(np.abs(V) * 3).astype(np.float32),),
     np.unwrap),
    ("cumprod", lambda x: mnp.cumprod(x), (A,), np.cumprod),
    ("cumprod axis", lambda x: mnp.cumprod(x, 1), (I,), lambda x: np.cumprod(x, 1)),
    ("norm", lambda x: mnp.norm(x), (A,), np.linalg.norm),
    ("norm vec ord", lambda x: mnp.norm(x, 3, 1), (A,), lambda x: np.linalg.norm(x, 3, 1)),
    ("norm matrix 1", lambda x: mnp.norm(x, 1), (A,), lambda x: np.linalg.norm(x, 1)),
    ("norm matrix inf keep", lambda x: mnp.norm(x, np.inf, (0, 1), True), (A,),
     lambda x: np.linalg.norm(x, np.inf, (0, 1), True)),
    ("bitwise_and", lambda a, b: mnp.bitwise_and(a, b), (I, J), np.bitwise_and),
    ("bitwise_or", lambda a, b: mnp.bitwise_or(a, b), (I, J), np.bitwise_or),
    ("bitwise_xor", lambda a, b: mnp.bitwise_xor(a, b), (I, J), np.bitwise_xor),
    ("invert", lambda a: mnp.invert(a), (I,), np.invert),
    ("bitwise_not bool", lambda a: mnp.bitwise_not(a > 0), (A,), lambda a: ~(a > 0)),
    ("radians", lambda x: mnp.radians(x), (A,), np.radians),
    ("isposinf", lambda x: mnp.isposinf(x), (SPECIAL,), np.isposinf),
    ("isneginf", lambda x: mnp.isneginf(x), (SPECIAL,), np.isneginf),
    ("in1d", lambda a, b: mnp.in1d(a, b), (I, J), lambda a, b: np.isin(a.reshape(-1), b)),
    ("isin invert", lambda a, b: mnp.isin(a, b, invert=True),
     (I, np.array([0, 7, 9], np.int32)), lambda a, b: np.isin(a, b, invert=True)),
    ("signbit", lambda x: mnp.signbit(x), (SPECIAL,), np.signbit),
    ("sometrue", lambda x: mnp.sometrue(x > 1, 1), (A,), lambda x: np.any(x > 1, 1)),
    ("array_equiv", lambda a, b: mnp.array_equiv(a, b), (A[:1], np.tile(A[:1], (3, 1))),
     lambda a, b: np.array_equiv(a, b)),
    ("fabs", lambda x: mnp.fabs(x), (I,), np.abs),      # MindSpore: fabs = absolute
    ("arctan2", lambda a, b: mnp.arctan2(a, b), (A, B), np.arctan2),
    ("round", lambda x: mnp.round(x, 2), (A,), lambda x: np.round(x, 2)),
]


@pytest.mark.parametrize("name, fn, args, ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy_in_both_modes(name, fn, args, ref):
    _check(_both(fn, *args), ref(*args))


def test_constructors_and_index_helpers():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _check(mnp.mgrid[0:3, 0:4:2], np.mgrid[0:3, 0:4:2], np.int32)
    _check(mnp.ogrid[0:1:3j], np.ogrid[0:1:3j], np.float32)
    _check(mnp.indices((2, 3)), np.indices((2, 3)), np.int32)
    _check(mnp.diag_indices(3), list(np.diag_indices(3)), np.int32)
    _check(mnp.ix_([0, 2], [1, 3]), list(np.ix_([0, 2], [1, 3])))
    for fn in ("hamming", "hanning", "bartlett", "blackman"):
        _check(getattr(mnp, fn)(7), getattr(np, fn)(7), np.float32)
    _check(mnp.triu_indices(4, 1), list(np.triu_indices(4, 1)), np.int32)
    _check(mnp.tril_indices(3, 0, 4), list(np.tril_indices(3, 0, 4)), np.int32)
    _check(mnp.triu_indices_from(mnp.ones((3, 3))), list(np.triu_indices_from(np.ones((3, 3)))))
    _check(mnp.tril_indices_from(mnp.ones((2, 3)), -1),
           list(np.tril_indices_from(np.ones((2, 3)), -1)))
    assert mnp.array_str(mnp.array([1, 2])) == np.array_str(np.array([1, 2]))
    assert mnp.isscalar(3.0) and not mnp.isscalar(mnp.array(3.0))
    assert mnp.uint is mnp.uint32 and mnp.uint16 is ms.uint16 and mnp.uint64 is ms.uint64


def test_histogram_follows_mindspores_examples():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    hist, edges = mnp.histogram([1, 2, 1], bins=[0, 1, 2, 3])
    _check(hist, np.array([0, 2, 1], np.float32), np.float32)
    _check(edges, np.array([0, 1, 2, 3], np.int32), np.int32)
    hist, _ = mnp.histogram(mnp.arange(4), bins=mnp.arange(5), density=True)
    _check(hist, np.full(4, 0.25, np.float32), np.float32)


def test_nan_functions_follow_mindspores_numpy():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a = mnp.array([[1, np.nan], [3, 4]])
    _check(mnp.nanvar(a), np.float32(1.5555557), np.float32)
    _check(mnp.nanstd(a, axis=1), np.array([0, 0.5], np.float32), np.float32)
    _check(mnp.nanmean(a, axis=1), np.array([1, 3.5], np.float32), np.float32)
    assert mnp.nanvar(mnp.ones(3, mnp.float64)).dtype == ms.float32
    every_nan = mnp.array([[np.nan, 1.0], [np.nan, 2.0]])
    _check(mnp.nanmax(every_nan, 0), np.array([-2.0 ** 63, 2], np.float32))
    _check(mnp.nanmin(every_nan, 0), np.array([2.0 ** 63, 1], np.float32))
    assert mnp.cov(mnp.ones((2, 3), mnp.float64)).dtype == ms.float32
    with pytest.raises(TypeError, match="weights must be integer"):
        mnp.cov(mnp.ones((2, 3)), aweights=mnp.array([0.5, 1.0, 1.0]))


def test_float_power_is_float32():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert mnp.float_power(mnp.arange(3), 2).dtype == ms.float32
    assert mnp.float_power(mnp.ones(2, mnp.float64), 2.0).dtype == ms.float32


def test_type_helpers():
    assert mnp.promote_types(mnp.int32, mnp.float16) is mnp.float16
    assert mnp.promote_types("int8", "int64") is mnp.int64
    assert mnp.result_type(mnp.ones(2, mnp.int16), 1) is mnp.int32
    assert mnp.result_type(mnp.int32, 2.0) is mnp.float32


def test_unique_sorted_with_inverse_in_both_modes():
    x = np.array([[3, 1, 3], [7, 1, 0]], np.int32)
    out = _both(lambda t: mnp.unique(t, return_inverse=True), x)
    vals, inv = np.unique(x, return_inverse=True)
    _check(out, [vals, inv.reshape(-1)])


def test_bincount_without_length_is_eager_only():
    x = np.array([0, 3, 3, 1], np.int32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _check(mnp.bincount(ms.Tensor(x), minlength=6), np.bincount(x, minlength=6))
    with pytest.raises(TypeError, match="pass length="):
        ms.jit(lambda t: mnp.bincount(t))(ms.Tensor(x))


def test_array_str_refused_in_a_graph():
    with pytest.raises(TypeError, match="outside the graph"):
        ms.jit(lambda t: mnp.array_str(t))(ms.Tensor(A))


@pytest.mark.parametrize("call, exc, match", [
    (lambda: mnp.vsplit(mnp.ones((5, 2)), 2), ValueError, "equal division"),
    (lambda: mnp.select([mnp.ones(2) > 0], []), ValueError, "same length"),
    (lambda: mnp.pad(mnp.ones(2), 1, "nearest"), ValueError, "mode must be one of"),
    (lambda: mnp.pad(mnp.ones(2), -1), ValueError, "non-negative"),
    (lambda: mnp.cross(mnp.ones(4), mnp.ones(4)), ValueError, "must be 2 or 3"),
    (lambda: mnp.choose(mnp.array([0]), (mnp.ones(1),), "raise"), ValueError, "clip"),
    (lambda: mnp.multi_dot([mnp.ones(2)]), ValueError, "at least two"),
    (lambda: mnp.convolve(mnp.ones(3), mnp.ones(2), "middle"), ValueError, "mode"),
    (lambda: mnp.histogram(mnp.ones(3), 2, (1, 0)), ValueError, "max must be larger"),
    (lambda: mnp.histogramdd(mnp.ones((3, 2)), (2, 3, 4)), ValueError, "dimension of bins"),
])
def test_errors(call, exc, match):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(exc, match=match):
        call()


def test_a_gradient_through_a_composed_function():
    def f(x):
        return mnp.nansum(mnp.logaddexp(x, x * 2.0)) + mnp.norm(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = A.astype(np.float64)
    g = ms.grad(f)(ms.Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        g2 = ms.jit(ms.grad(f))(ms.Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    # d/dx logaddexp(x, 2x) = (e^x + 2 e^2x) / (e^x + e^2x)
    want = (np.exp(x) + 2 * np.exp(2 * x)) / (np.exp(x) + np.exp(2 * x)) + x / np.linalg.norm(x)
    np.testing.assert_allclose(g, want, rtol=1e-10)
    np.testing.assert_allclose(g2, g, rtol=0, atol=0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100, width=32), min_size=1, max_size=12),
       st.integers(1, 6))
def test_histogram_counts_agree_with_numpy(values, bins):
    x = np.array(values, np.float32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    counts, edges = mnp.histogram(ms.Tensor(x), bins)
    want_counts, want_edges = np.histogram(x.astype(np.float32), bins)
    np.testing.assert_allclose(edges.asnumpy(), want_edges, rtol=1e-5, atol=1e-5)
    if np.allclose(edges.asnumpy(), want_edges.astype(np.float32), rtol=0, atol=0):
        np.testing.assert_array_equal(counts.asnumpy(), want_counts)
    assert int(counts.asnumpy().sum()) == x.size


# -- MindSpore's documented examples (mindspore/numpy/math_ops.py, array_ops.py) -----------
DOC = [
    (lambda: mnp.interp([0, 1, 1.5, 2.72, 3.14], [1, 2, 3], [3, 2, 0]),
     np.array([3., 3., 2.5, 0.55999994, 0.], np.float32)),
    (lambda: mnp.interp(3.14, [1, 2, 3], [3, 2, 0], right=-99.0), np.float32(-99.0)),
    (lambda: mnp.bincount(mnp.arange(5)), np.ones(5, np.float32)),
    (lambda: mnp.bincount(mnp.array([0, 1, 1, 3, 2, 1, 7])),
     np.array([1., 3., 1., 1., 0., 0., 0., 1.], np.float32)),
    (lambda: mnp.bincount(mnp.array([0, 1, 1, 2, 2, 2]),
                          weights=mnp.array([0.3, 0.5, 0.2, 0.7, 1., -0.6])),
     np.array([0.3, 0.7, 1.1], np.float32)),
    (lambda: mnp.ravel_multi_index(mnp.array([[3, 6, 6], [4, 5, 1]]), (7, 6)),
     np.array([22., 41., 37.], np.float32)),
    (lambda: mnp.ravel_multi_index((3, 1, 4, 1), (6, 7, 8, 9)), np.float32(1621.0)),
    (lambda: mnp.polyadd([1, 2], [9, 5, 4]), np.array([9, 6, 6], np.int32)),
    (lambda: mnp.polysub([2, 10, -2], [3, 10, -4]), np.array([-1, 0, 2], np.int32)),
    (lambda: mnp.polyval([3., 0., 1.], 5.), np.float32(76.0)),
    (lambda: mnp.polyder([1, 1, 1, 1]), np.array([3, 2, 1], np.int32)),
    (lambda: mnp.polyder([1, 1], 3), np.zeros(0, np.float32)),
    (lambda: mnp.polymul([3, 1, 2], [2, 5]), np.array([6, 17, 9, 10], np.int32)),
    (lambda: mnp.polyint([1, 1, 1]), np.array([0.33333334, 0.5, 1., 0.], np.float32)),
    (lambda: mnp.gcd(mnp.arange(6), mnp.array(20)), np.array([20, 1, 2, 1, 4, 5], np.int32)),
    (lambda: mnp.lcm(mnp.arange(6), mnp.array(20)), np.array([0, 20, 20, 60, 20, 20], np.int32)),
    (lambda: mnp.trapz(mnp.arange(6).reshape(2, 3), x=[-2, 1, 2], axis=1),
     np.array([3., 15.], np.float32)),
    (lambda: mnp.trapz(mnp.arange(6).reshape(2, 3), dx=3, axis=0),
     np.array([4.5, 7.5, 10.5], np.float32)),
    (lambda: mnp.ediff1d(mnp.array([1, 3, -1, 0, 4])), np.array([2, -4, 1, 4], np.int32)),
    (lambda: mnp.nanmax(mnp.array([[1, 2], [3, np.nan]]), axis=0), np.array([3., 2.], np.float32)),
    (lambda: mnp.nanmin(mnp.array([[1, 2], [3, np.nan]])), np.float32(1.0)),
    (lambda: mnp.nansum(mnp.array([[1, 1], [1, np.nan]]), axis=0), np.array([2., 1.], np.float32)),
    (lambda: mnp.nanmean(mnp.array([[1, np.nan], [3, 4]])), np.float32(2.6666667)),
    (lambda: mnp.nanstd(mnp.array([[1, np.nan], [3, 4]])), np.float32(1.2472192)),
    (lambda: mnp.nancumsum(mnp.array([[1, 2], [3, np.nan]]), axis=1),
     np.array([[1., 3.], [3., 3.]], np.float32)),
    (lambda: mnp.searchsorted([1, 2, 3, 4, 5], [-10, 10, 2, 3]), np.array([0, 5, 1, 2], np.int32)),
    (lambda: mnp.searchsorted([1, 2, 3, 4, 5], 3, side="right"), np.int32(3)),
    (lambda: mnp.digitize(mnp.array([1.2, 10.0, 12.4, 15.5, 20.]), mnp.array([0, 5, 10, 15, 20])),
     np.array([1, 3, 3, 4, 5], np.int32)),
    (lambda: mnp.convolve([1., 2., 3., 4., 5.], [2., 3.], mode="valid"),
     np.array([7., 12., 17., 22.], np.float32)),
    (lambda: mnp.correlate([1, 2, 3], [0, 1, 0.5]), np.array([3.5], np.float32)),
    (lambda: mnp.correlate([1, 2, 3], [0, 1, 0.5], mode="same"), np.array([2., 3.5, 3.], np.float32)),
    (lambda: mnp.correlate([1, 2, 3, 4, 5], [1, 2], mode="same"),
     np.array([2., 5., 8., 11., 14.], np.float32)),
    (lambda: mnp.kron([1, 10, 100], [5, 6, 7]),
     np.array([5, 6, 7, 50, 60, 70, 500, 600, 700], np.int32)),
    (lambda: mnp.cross(mnp.array([[1, 2, 3], [4, 5, 6]]), mnp.array([[4, 5, 6], [1, 2, 3]]), axisc=0),
     np.array([[-3, 3], [6, -6], [-3, 3]], np.int32)),
    (lambda: mnp.gradient([[1, 2, 6], [3, 4, 5]], axis=-1),
     np.array([[1., 2.5, 4.], [1., 1., 1.]], np.float32)),
    (lambda: mnp.norm(mnp.arange(9).astype(np.float32)), np.float32(14.282857)),
    (lambda: mnp.cumprod(mnp.array([1, 2, 3])), np.array([1, 2, 6], np.int32)),
    (lambda: mnp.fix(mnp.array([2.1, 2.9, -2.1, -2.9])), np.array([2., 2., -2., -2.], np.float32)),
    (lambda: mnp.copysign(mnp.array([1, -1, -1]), mnp.array([-1, 1, -1])),
     np.array([-1, 1, -1], np.int32)),
    (lambda: mnp.matrix_power(mnp.arange(16).reshape(4, 4).astype("float32"), 2),
     np.array([[56., 62., 68., 74.], [152., 174., 196., 218.], [248., 286., 324., 362.],
               [344., 398., 452., 506.]], np.float32)),
    (lambda: mnp.histogram2d(mnp.arange(5), mnp.arange(2, 7), bins=(2, 3))[0],
     np.array([[2., 0., 0.], [0., 1., 2.]], np.float32)),
    (lambda: mnp.histogramdd(mnp.arange(15).reshape(5, 3), bins=(2, 3, 4))[1][2],
     np.array([2., 5., 8., 11., 14.], np.float32)),
]


@pytest.mark.parametrize("make, want", DOC, ids=[str(i) for i in range(len(DOC))])
def test_mindspore_documented_examples(make, want):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    got = _np(make())
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_mindspore_refusals():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="n < 0 is not supported"):
        mnp.matrix_power(mnp.ones((2, 2)), -1)
    with pytest.raises(NotImplementedError, match="not implemented"):
        mnp.norm(mnp.ones((2, 2)), "nuc")
