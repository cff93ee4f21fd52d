"""More of MindSpore 2.10's nn layers that published models use: OneHot (mindcv's Swin
relative position bias), Dropout1d/2d/3d (channel dropout), Roll, PixelShuffle /
PixelUnshuffle, FastGelu and the shrink / threshold activations; each against numpy, in
both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


class Wrap(nn.Cell):
    """Calls the layer from a construct (so graph mode builds it as a sub-Cell)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x)


def _run(layer, x, mode):
    ms.set_context(mode=mode)
    return Wrap(layer)(ms.Tensor(x)).asnumpy()


@pytest.mark.parametrize("mode", MODES)
def test_one_hot(mode):
    idx = np.array([[0, 2], [1, 3]], np.int32)
    y = _run(nn.OneHot(depth=4, on_value=5.0, off_value=-1.0), idx, mode)
    ref = np.where(np.eye(4)[idx] == 1, 5.0, -1.0)
    np.testing.assert_array_equal(y, ref)
    assert y.dtype == np.float32
    y0 = _run(nn.OneHot(axis=0, depth=3), np.array([0, 2], np.int32), mode)
    np.testing.assert_array_equal(y0, np.eye(3)[[0, 2]].T)


@pytest.mark.parametrize("mode", MODES)
def test_channel_dropout(mode):
    x = np.ones((4, 6, 3, 3), np.float32)
    layer = nn.Dropout2d(p=0.5)
    np.testing.assert_array_equal(_run(layer, x, mode), x)      # not training: identity
    layer.set_train()
    ms.set_seed(1)
    y = _run(layer, x, mode)
    per_channel = y.reshape(4, 6, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))   # whole channels
    assert set(np.unique(y).tolist()) == {0.0, 2.0}
    with pytest.raises(ValueError, match="p must be"):
        nn.Dropout2d(p=1.5)
    d1 = nn.Dropout1d(p=0.5)
    d1.set_train()
    y1 = _run(d1, np.ones((3, 8, 5), np.float32), mode)
    assert np.all(y1.min(-1) == y1.max(-1))
    d3 = nn.Dropout3d(p=1.0)
    d3.set_train()
    assert not _run(d3, np.ones((1, 2, 2, 2, 2), np.float32), mode).any()


def test_channel_dropout_same_masks_in_both_modes():
    outs = []
    for mode in MODES:
        layer = nn.Dropout2d(p=0.5)
        layer.set_train()
        ms.set_seed(7)
        outs.append(_run(layer, np.ones((2, 16, 2, 2), np.float32), mode))
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("mode", MODES)
def test_roll(mode):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(_run(nn.Roll((1, -1), (1, 2)), x, mode),
                                  np.roll(x, (1, -1), (1, 2)))
    np.testing.assert_array_equal(_run(nn.Roll(2, 0), x, mode), np.roll(x, 2, 0))


def _shuffle_ref(x, r):
    n, c, h, w = x.shape
    return x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3) \
        .reshape(n, c // (r * r), h * r, w * r)


@pytest.mark.parametrize("mode", MODES)
def test_pixel_shuffle(mode):
    x = np.random.RandomState(0).randn(2, 8, 3, 2).astype(np.float32)
    y = _run(nn.PixelShuffle(2), x, mode)
    np.testing.assert_array_equal(y, _shuffle_ref(x, 2))
    assert y[0, 0, 1, 0] == x[0, 2, 0, 0]      # channel (i, j) = (1, 0) lands at row 1
    np.testing.assert_array_equal(_run(nn.PixelUnshuffle(2), y, mode), x)
    with pytest.raises(ValueError, match="divisible"):
        _run(nn.PixelShuffle(3), x, mode)


@pytest.mark.parametrize("mode", MODES)
def test_activations(mode):
    x = np.linspace(-2, 2, 9).astype(np.float32)
    np.testing.assert_allclose(_run(nn.FastGelu(), x, mode),
                               x / (1 + np.exp(-1.702 * np.abs(x))) *
                               np.exp(0.851 * (x - np.abs(x))), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_run(nn.Tanhshrink(), x, mode), x - np.tanh(x), atol=1e-6)
    e = np.exp(-x - np.max(-x))
    np.testing.assert_allclose(_run(nn.Softmin(), x, mode), e / e.sum(), rtol=1e-5)
    np.testing.assert_allclose(_run(nn.SoftShrink(1.0), x, mode),
                               np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0)), atol=1e-6)
    np.testing.assert_array_equal(_run(nn.HShrink(1.0), x, mode), np.where(np.abs(x) > 1, x, 0))
    np.testing.assert_array_equal(_run(nn.Threshold(0.5, -3.0), x, mode),
                                  np.where(x > 0.5, x, -3.0))
    g = _run(nn.GLU(), np.array([[1., 2., 0., 3.]], np.float32), mode)
    np.testing.assert_allclose(g, [[1 / (1 + np.exp(-0.0)), 2 / (1 + np.exp(-3.0))]],
                               rtol=1e-6)
    assert isinstance(nn.get_activation("fast_gelu"), nn.FastGelu)
    assert isinstance(nn.get_activation("hswish"), nn.HSwish)


def test_module_paths():
    import importlib
    assert importlib.import_module("graphjit.nn.layer.image").PixelShuffle is nn.PixelShuffle
    assert importlib.import_module("graphjit.nn.layer.basic").OneHot is nn.OneHot
    assert importlib.import_module("graphjit.nn.layer.activation").FastGelu is nn.FastGelu
