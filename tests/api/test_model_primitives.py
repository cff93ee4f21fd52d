"""Primitives published models call (ReverseV2, ReverseSequence, Pad, MirrorPad,
FastGeLU, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits): against
numpy, in both modes, and differentiable."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both

X = np.random.default_rng(5).standard_normal((3, 4)).astype(np.float32)
LENS = np.array([2, 4, 1], np.int32)
LABELS = np.array([0, 3, 1], np.int32)


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


class _All(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rev = ops.ReverseV2(axis=[1])
        self.rseq = ops.ReverseSequence(seq_dim=1, batch_dim=0)
        self.pad = ops.Pad(((1, 0), (0, 2)))
        self.reflect = ops.MirrorPad()
        self.symmetric = ops.MirrorPad(mode="SYMMETRIC")
        self.paddings = ms.Tensor(np.array([[1, 1], [2, 0]], np.int32))
        self.gelu = ops.FastGeLU()
        self.ce = ops.SoftmaxCrossEntropyWithLogits()
        self.sparse = ops.SparseSoftmaxCrossEntropyWithLogits()
        self.sparse_grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)

    def construct(self, x, lens, labels):
        dense = ops.one_hot(labels, 4, ms.Tensor(1.0), ms.Tensor(0.0))
        loss, backprop = self.ce(x, dense)
        return (self.rev(x), self.rseq(x, lens), self.pad(x),
                self.reflect(x, self.paddings), self.symmetric(x, self.paddings),
                self.gelu(x), loss, backprop, self.sparse(x, labels),
                self.sparse_grad(x, labels))


def test_against_numpy_in_both_modes():
    graph, _ = run_both(_All, ms.Tensor(X), ms.Tensor(LENS), ms.Tensor(LABELS))
    g = [t.asnumpy() for t in graph]
    np.testing.assert_array_equal(g[0], X[:, ::-1])
    want = X.copy()
    for b, n in enumerate(LENS):
        want[b, :n] = X[b, :n][::-1]
    np.testing.assert_array_equal(g[1], want)
    np.testing.assert_array_equal(g[2], np.pad(X, ((1, 0), (0, 2))))
    np.testing.assert_array_equal(g[3], np.pad(X, ((1, 1), (2, 0)), "reflect"))
    np.testing.assert_array_equal(g[4], np.pad(X, ((1, 1), (2, 0)), "symmetric"))
    np.testing.assert_allclose(g[5], X / (1 + np.exp(-1.702 * np.abs(X))) *
                               np.exp(0.851 * (X - np.abs(X))), rtol=1e-5, atol=1e-6)
    onehot = np.eye(4, dtype=np.float32)[LABELS]
    ce = -(onehot * np.log(_softmax(X))).sum(-1)
    np.testing.assert_allclose(g[6], ce, rtol=1e-5)
    np.testing.assert_allclose(g[7], _softmax(X) - onehot, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[8], ce.mean(), rtol=1e-5)
    np.testing.assert_allclose(g[9], (_softmax(X) - onehot) / 3, rtol=1e-5, atol=1e-6)


def test_gradients_and_errors():
    sparse = ops.SparseSoftmaxCrossEntropyWithLogits()
    grad = ms.grad(lambda x: sparse(x, ms.Tensor(LABELS)))(ms.Tensor(X)).asnumpy()
    np.testing.assert_allclose(grad, (_softmax(X) - np.eye(4)[LABELS]) / 3, rtol=1e-5,
                               atol=1e-6)
    rseq = ops.ReverseSequence(1)
    g = ms.grad(lambda x: (rseq(x, ms.Tensor(LENS)) * ms.Tensor(X)).sum())(ms.Tensor(X))
    want = X.copy()
    for b, n in enumerate(LENS):
        want[b, :n] = X[b, :n][::-1]
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="mode must be 'REFLECT' or 'SYMMETRIC'"):
        ops.MirrorPad("EDGE")
    with pytest.raises(ValueError, match="must differ"):
        ops.ReverseSequence(0, 0)(ms.Tensor(X), ms.Tensor(LENS))
    with pytest.raises(ValueError, match="pairs of paddings"):
        ops.Pad(((1, 1),))(ms.Tensor(X))
