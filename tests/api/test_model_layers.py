"""Layers the published models reach for that the sweep found missing: ResizeBilinear
(MindSpore's asymmetric mapping, align_corners, half_pixel_centers), ReflectionPad1d/2d,
MaxPool1d and AvgPool1d: against numpy, in both modes, with gradients."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both

X = np.random.default_rng(3).standard_normal((2, 3, 4, 5)).astype(np.float32)


def _bilinear(a, oh, ow, mapping):
    h, w = a.shape[2:]
    out = np.zeros(a.shape[:2] + (oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            sy, sx = mapping(i, h, oh), mapping(j, w, ow)
            y0, x0 = int(np.floor(sy)), int(np.floor(sx))
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            dy, dx = sy - y0, sx - x0
            out[:, :, i, j] = (a[:, :, y0, x0] * (1 - dy) * (1 - dx) + a[:, :, y0, x1] *
                               (1 - dy) * dx + a[:, :, y1, x0] * dy * (1 - dx) +
                               a[:, :, y1, x1] * dy * dx)
    return out


class _Resize(nn.Cell):
    def __init__(self, half=False, **kw):
        super().__init__()
        self.resize = nn.ResizeBilinear(half_pixel_centers=half)
        self.kw = kw

    def construct(self, x):
        return self.resize(x, **self.kw)


@pytest.mark.parametrize("kw, half, mapping", [
    ({"size": (8, 7)}, False, lambda d, n, m: d * n / m),
    ({"scale_factor": 2}, False, lambda d, n, m: d * n / m),
    ({"size": (7, 9), "align_corners": True}, False, lambda d, n, m: d * (n - 1) / (m - 1)),
    ({"size": (8, 10)}, True, lambda d, n, m: max((d + 0.5) * n / m - 0.5, 0)),
])
def test_resize_bilinear(kw, half, mapping):
    graph, _ = run_both(lambda: _Resize(half, **kw), ms.Tensor(X))
    size = kw.get("size") or (X.shape[2] * 2, X.shape[3] * 2)
    np.testing.assert_allclose(graph.asnumpy(), _bilinear(X, *size, mapping), rtol=1e-5,
                               atol=1e-5)


def test_resize_bilinear_errors_and_gradient():
    with pytest.raises(ValueError, match="can not both be True"):
        nn.ResizeBilinear(True)(ms.Tensor(X), size=(2, 2), align_corners=True)
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        nn.ResizeBilinear()(ms.Tensor(X))
    r = nn.ResizeBilinear()
    g = ms.grad(lambda x: r(x, scale_factor=2).sum())(ms.Tensor(X)).asnumpy()
    assert g.shape == X.shape and abs(g.sum() - 4 * X.size) < 1e-3   # each input spreads 4


class _Pads(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p2 = nn.ReflectionPad2d((1, 2, 0, 1))
        self.p1 = nn.ReflectionPad1d(2)
        self.max1 = nn.MaxPool1d(kernel_size=2, stride=2)
        self.avg1 = nn.AvgPool1d(kernel_size=3, stride=1)

    def construct(self, x):
        v = x[:, :, 0]
        return self.p2(x), self.p1(v), self.max1(v), self.avg1(v)


def test_reflection_pads_and_1d_pools_in_both_modes():
    graph, _ = run_both(_Pads, ms.Tensor(X))
    v = X[:, :, 0]
    np.testing.assert_array_equal(graph[0].asnumpy(),
                                  np.pad(X, ((0, 0), (0, 0), (0, 1), (1, 2)), "reflect"))
    np.testing.assert_array_equal(graph[1].asnumpy(),
                                  np.pad(v, ((0, 0), (0, 0), (2, 2)), "reflect"))
    np.testing.assert_array_equal(graph[2].asnumpy(), v[:, :, :4].reshape(2, 3, 2, 2).max(-1))
    np.testing.assert_allclose(graph[3].asnumpy(),
                               (v[:, :, :-2] + v[:, :, 1:-1] + v[:, :, 2:]) / 3, rtol=1e-6)
    with pytest.raises(ValueError, match="ReflectionPad2d: padding"):
        nn.ReflectionPad2d((1, 2))
    with pytest.raises(ValueError, match="rank 3"):
        nn.MaxPool1d(2)(ms.Tensor(X))
