"""The primitive classes of ops/operations/more_ops.py: each called as MindSpore code
calls it (constructed in __init__ or inline, then applied), the same in PYNATIVE and
GRAPH mode, against numpy or MindSpore's documented examples."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.api import compare_results

R = np.random.default_rng(8)
X = R.standard_normal((3, 4)).astype(np.float32)
Y = R.standard_normal((3, 4)).astype(np.float32)
M = (R.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)


class Net(nn.Cell):
    def __init__(self, prim, extra=()):
        super().__init__()
        self.prim = prim
        self.extra = extra

    def construct(self, *xs):
        return self.prim(*(xs + self.extra))


def _both(prim, *arrays, extra=()):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        eager = Net(prim, extra)(*[ms.Tensor(a) for a in arrays])
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = Net(prim, extra)(*[ms.Tensor(a) for a in arrays])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    problem = compare_results(graph, eager)
    assert not problem, problem
    return eager


def _np(x):
    return [_np(v) for v in x] if isinstance(x, (tuple, list)) else x.asnumpy()


CASES = [
    ("UnsortedSegmentSum", lambda: ops.UnsortedSegmentSum(),
     (np.array([1, 2, 3, 4], np.float32), np.array([0, 0, 1, 2], np.int32)), (4,),
     np.array([3, 3, 4, 0], np.float32)),
    ("UnsortedSegmentMax", lambda: ops.UnsortedSegmentMax(),
     (np.array([[1, 2, 3], [4, 5, 6], [4, 2, 1]], np.float32), np.array([0, 1, 1], np.int32)),
     (2,), np.array([[1, 2, 3], [4, 5, 6]], np.float32)),
    ("UnsortedSegmentMin", lambda: ops.UnsortedSegmentMin(),
     (np.array([[1, 2, 3], [4, 5, 6], [4, 2, 1]], np.float32), np.array([0, 1, 1], np.int32)),
     (2,), np.array([[1, 2, 3], [4, 2, 1]], np.float32)),
    ("UnsortedSegmentProd", lambda: ops.UnsortedSegmentProd(),
     (np.array([[1, 2, 3], [4, 5, 6], [4, 2, 1]], np.float32), np.array([0, 1, 0], np.int32)),
     (2,), np.array([[4, 4, 3], [4, 5, 6]], np.float32)),
    ("LinSpace", lambda: ops.LinSpace(), (np.array(1, np.float32), np.array(10, np.float32)),
     (5,), np.array([1, 3.25, 5.5, 7.75, 10], np.float32)),
    ("Atan2", lambda: ops.Atan2(), (np.array([0, 1], np.float32), np.array([1, 1], np.float32)),
     (), np.array([0, 0.7853982], np.float32)),
    ("MatrixInverse", lambda: ops.MatrixInverse(), (M,), (), np.linalg.inv(M)),
    ("MatrixInverse adjoint", lambda: ops.MatrixInverse(True), (M,), (),
     np.swapaxes(np.linalg.inv(M), -1, -2)),
    ("MatrixDeterminant", lambda: ops.MatrixDeterminant(), (M,), (), np.linalg.det(M)),
    ("LogMatrixDeterminant", lambda: ops.LogMatrixDeterminant(), (M,), (),
     list(np.linalg.slogdet(M))),
    ("MatrixSolve", lambda: ops.MatrixSolve(), (M, X[:3, :2].copy()[None].repeat(2, 0)), (),
     np.linalg.solve(M, X[:3, :2][None].repeat(2, 0))),
    ("TensorScatterSub", lambda: ops.TensorScatterSub(),
     (X, np.array([[0, 0], [0, 0]]), np.array([1.0, 2.0], np.float32)), (),
     X - np.where(np.arange(12).reshape(3, 4) == 0, 3, 0).astype(np.float32)),
    ("TensorScatterMax", lambda: ops.TensorScatterMax(),
     (X, np.array([[2, 3]]), np.array([9.0], np.float32)), (),
     np.where(np.arange(12).reshape(3, 4) == 11, 9.0, X).astype(np.float32)),
    ("TensorScatterElements", lambda: ops.TensorScatterElements(1, "add"),
     (X, np.array([[0, 0], [1, 1], [3, 3]]), np.ones((3, 2), np.float32)), (),
     X + np.array([[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 2]], np.float32)),
    ("Erfc", lambda: ops.Erfc(), (np.array([-1, 0, 1, 2], np.float32),), (),
     np.array([1.8427008, 1, 0.1572992, 0.0046777], np.float32)),
    ("Xlogy", lambda: ops.Xlogy(), (np.array([0, 2], np.float32), np.array([3, 4], np.float32)),
     (), np.array([0, 2 * np.log(4)], np.float32)),
    ("Gcd", lambda: ops.Gcd(), (np.array([7, 8, 9], np.int32), np.array([14, 6, 12], np.int32)),
     (), np.array([7, 2, 3], np.int32)),
    ("Lerp", lambda: ops.Lerp(), (X, Y, np.full((3, 4), 0.5, np.float32)), (), (X + Y) / 2),
    ("Cummax", lambda: ops.Cummax(0),
     (np.array([[3, 4, 6, 10], [1, 6, 7, 9], [4, 3, 8, 7], [1, 3, 7, 9]], np.float32),), (),
     [np.array([[3, 4, 6, 10], [3, 6, 7, 10], [4, 6, 8, 10], [4, 6, 8, 10]], np.float32),
      np.array([[0, 0, 0, 0], [0, 1, 1, 0], [2, 1, 2, 0], [2, 1, 2, 0]])]),
    ("Cummin", lambda: ops.Cummin(0),
     (np.array([-0.2284, -0.6628, 0.0975, 0.2680, -1.3298, -0.4220], np.float32),), (),
     [np.array([-0.2284, -0.6628, -0.6628, -0.6628, -1.3298, -1.3298], np.float32),
      np.array([0, 1, 1, 1, 4, 4], np.int32)]),
    ("HShrink", lambda: ops.HShrink(0.5), (X,), (), np.where(np.abs(X) > 0.5, X, 0)),
    ("SoftShrink", lambda: ops.SoftShrink(0.5), (X,), (),
     np.where(X > .5, X - .5, np.where(X < -.5, X + .5, 0))),
    ("Diag", lambda: ops.Diag(), (np.array([1, 2, 3], np.float32),), (),
     np.diag([1, 2, 3]).astype(np.float32)),
    ("DiagPart", lambda: ops.DiagPart(), (np.diag([1, 2, 3]).astype(np.float32),), (),
     np.array([1, 2, 3], np.float32)),
    ("Trace", lambda: ops.Trace(), (X,), (), np.trace(X)),
    ("Cross", lambda: ops.Cross(), (X[:3, :3].copy(), Y[:3, :3].copy()), (),
     np.cross(X[:3, :3], Y[:3, :3], axis=0)),
    ("Median", lambda: ops.Median(False, 0, False),
     (np.array([[0.57, 0.11, 0.21], [0.38, 0.50, 0.57], [0.36, 0.16, 0.44]], np.float32),), (),
     [np.array([0.38, 0.16, 0.44], np.float32), np.array([1, 2, 2])]),
    ("Renorm", lambda: ops.Renorm(1, 0, 5.0),
     (np.array([[1, 1, 1], [2, 2, 2], [3, 3, 3]], np.float32),), (),
     np.array([[1, 1, 1], [1.6666666, 1.6666666, 1.6666666], [1.6666666, 1.6666666, 1.6666666]],
              np.float32)),
    ("Bucketize", lambda: ops.Bucketize([1.0, 3.0, 5.0, 7.0, 9.0]),
     (np.array([[3, 6, 9], [3, 6, 9]], np.int32),), (), np.array([[2, 3, 5], [2, 3, 5]])),
    ("SearchSorted", lambda: ops.SearchSorted(),
     (np.array([[0, 1, 3, 5, 7], [2, 4, 6, 8, 10]], np.float32),
      np.array([[3, 6, 9], [3, 6, 9]], np.float32)), (), np.array([[2, 4, 5], [1, 2, 4]])),
    ("Logit", lambda: ops.Logit(0.1), (np.array([0.05, 0.5, 0.9], np.float32),), (),
     np.log(np.array([0.1, 0.5, 0.9]) / (1 - np.array([0.1, 0.5, 0.9]))).astype(np.float32)),
    ("NanToNum", lambda: ops.NanToNum(1.0, 2.0, -2.0),
     (np.array([np.nan, np.inf, -np.inf, 3], np.float32),), (),
     np.array([1, 2, -2, 3], np.float32)),
    ("IndexFill", lambda: ops.IndexFill(), (X,), (1, ms.Tensor([0, 2], ms.int32), -1.0),
     np.where(np.isin(np.arange(4), [0, 2]), -1.0, X).astype(np.float32)),
    ("Tril", lambda: ops.Tril(-1), (X,), (), np.tril(X, -1)),
    ("Triu", lambda: ops.Triu(1), (X,), (), np.triu(X, 1)),
    ("Roll", lambda: ops.Roll(1, 0), (X,), (), np.roll(X, 1, 0)),
    ("Addcmul", lambda: ops.Addcmul(), (X, Y, X, np.array([0.5], np.float32)), (),
     X + 0.5 * Y * X),
    ("Addcdiv", lambda: ops.Addcdiv(), (X, Y, np.abs(X) + 1, np.array([2.0], np.float32)), (),
     X + 2 * Y / (np.abs(X) + 1)),
    ("Kron", lambda: ops.Kron(), (X[:2, :2].copy(), Y[:2, :2].copy()), (),
     np.kron(X[:2, :2], Y[:2, :2])),
]


@pytest.mark.parametrize("name, make, arrays, extra, want", CASES, ids=[c[0] for c in CASES])
def test_primitives(name, make, arrays, extra, want):
    got = _np(_both(make(), *arrays, extra=extra))
    got, want = (got, want) if isinstance(want, list) else ([got], [want])
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.shape == w.shape
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)


def test_parameter_scatters_update_in_place_in_both_modes():
    class Upd(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), name="p")
            self.add = ops.ScatterAdd()
            self.nd = ops.ScatterNdUpdate()
            self.upd = ops.ScatterUpdate()

        def construct(self, idx, u):
            self.add(self.p, idx, u)
            self.nd(self.p, ms.Tensor([[1, 1]]), ms.Tensor([7.0]))
            return self.p + 0

    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = Upd()
            out = net(ms.Tensor(np.array([0, 2, 0], np.int32)),
                      ms.Tensor(np.ones((3, 2), np.float32)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_array_equal(out.asnumpy(), [[2, 2], [0, 7], [1, 1]])
        np.testing.assert_array_equal(net.p.asnumpy(), [[2, 2], [0, 7], [1, 1]])


def test_conv3d_primitive_and_channel_dropout():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.ones((1, 2, 3, 3, 3), np.float32))
    w = ms.Tensor(np.ones((4, 2, 2, 2, 2), np.float32))
    out = ops.Conv3D(4, 2)(x, w)
    np.testing.assert_array_equal(out.asnumpy(), np.full((1, 4, 2, 2, 2), 16, np.float32))
    y, mask = ops.Dropout2D(0.5)(ms.Tensor(np.ones((2, 6, 2, 2), np.float32)))
    y, mask = y.asnumpy(), mask.asnumpy()
    assert mask.dtype == np.bool_ and mask.shape == (2, 6, 2, 2)
    np.testing.assert_array_equal(y, np.where(mask, 2.0, 0.0))
    with pytest.raises(ValueError, match="rank 5"):
        ops.Dropout3D()(ms.Tensor(np.ones((2, 2, 2, 2), np.float32)))


def test_range_runs_eagerly_and_a_graph_refuses_tensor_bounds():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = ops.Range()(ms.Tensor(0, ms.int32), ms.Tensor(10, ms.int32), ms.Tensor(4, ms.int32))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [0, 4, 8])
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="known while the graph is built"):
            Net(ops.Range())(ms.Tensor(0), ms.Tensor(10), ms.Tensor(4))
        with pytest.raises(TypeError, match="axis must be known while the graph is built"):
            Net(ops.IndexFill())(ms.Tensor(X), ms.Tensor(1), ms.Tensor([0]), ms.Tensor(1.0))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
