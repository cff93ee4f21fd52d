"""nn.ClipByNorm, nn.Norm and nn.OneHot (graphjit/nn/layer/math_layers.py)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


def _both(fn):
    out = []
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            out.append(fn())
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    return out


class Clip(nn.Cell):
    def __init__(self, axis=None):
        super().__init__()
        self.clip = nn.ClipByNorm(axis)

    def construct(self, x, c):
        return self.clip(x, c)


def test_clip_by_norm_scales_down_only_above_the_norm():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    for got in _both(lambda: Clip()(ms.Tensor(x), ms.Tensor([5.0])).asnumpy()):
        np.testing.assert_allclose(got, x * 5.0 / np.linalg.norm(x), rtol=1e-6)
    for got in _both(lambda: Clip()(ms.Tensor(x), ms.Tensor(100.0)).asnumpy()):
        np.testing.assert_allclose(got, x, rtol=1e-6)
    rows = np.linalg.norm(x, axis=1, keepdims=True)
    for got in _both(lambda: Clip(axis=1)(ms.Tensor(x), ms.Tensor(5.0)).asnumpy()):
        np.testing.assert_allclose(got, x * 5.0 / np.maximum(rows, 5.0), rtol=1e-6)
    zero = Clip()(ms.Tensor(np.zeros((2,), np.float16)), ms.Tensor(1.0))
    assert zero.dtype is ms.float32 and not np.any(zero.asnumpy())
    with pytest.raises(TypeError):
        nn.ClipByNorm(axis="0")


def test_norm_and_one_hot():
    x = ms.Tensor(np.array([[4, 4, 9, 1], [2, 1, 3, 6]], np.float32))
    a, b = _both(lambda: nn.Norm(axis=0)(x).asnumpy())
    np.testing.assert_allclose(a, [4.472136, 4.1231055, 9.486833, 6.0827627], rtol=1e-6)
    np.testing.assert_array_equal(a, b)
    assert nn.Norm(axis=0, keep_dims=True)(x).shape == (1, 4)
    assert nn.Norm()(x).shape == ()
    idx = ms.Tensor(np.array([[1, 3], [0, 2]], np.int32))
    g, e = _both(lambda: nn.OneHot(depth=4, axis=1)(idx).asnumpy())
    assert g.shape == (2, 4, 2) and g.dtype == np.float32
    np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(g[0, :, 0], [0, 1, 0, 0])
