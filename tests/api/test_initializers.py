"""Initializers with MindSpore's signatures and fan/gain rules (common/initializer.py):
bounds and spreads against the formulas, the structured ones (Identity, Dirac,
Orthogonal, Sparse), initializer()'s inputs and errors, a MindSpore-style subclass that
fills an array in place, and layers built with them running alike in both modes."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from graphjit.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity,
                                         Initializer, Normal, One, Orthogonal, Sparse,
                                         TruncatedNormal, Uniform, VarianceScaling,
                                         XavierNormal, XavierUniform, Zero, initializer)
from graphjit.common.initializer import _calculate_fan_in_and_fan_out, _calculate_gain
from helpers import run_both


def test_fans_follow_mindspore():
    assert _calculate_fan_in_and_fan_out((8, 4)) == (4, 8)
    assert _calculate_fan_in_and_fan_out((8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        _calculate_fan_in_and_fan_out((5,))


@pytest.mark.parametrize("nonlinearity, param, gain", [
    ("linear", None, 1), ("conv2d", None, 1), ("sigmoid", None, 1), ("tanh", None, 5 / 3),
    ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0, math.sqrt(2)), ("leaky_relu", math.sqrt(5), math.sqrt(1 / 3)),
])
def test_gains(nonlinearity, param, gain):
    assert _calculate_gain(nonlinearity, param) == pytest.approx(gain)


def test_gain_errors():
    with pytest.raises(ValueError, match="'nonlinearity' should be one of"):
        _calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        _calculate_gain("leaky_relu", "0.1")


@pytest.mark.parametrize("init, shape, bound", [
    (HeUniform(), (64, 32, 3, 3), math.sqrt(3) * math.sqrt(2) / math.sqrt(32 * 9)),
    (HeUniform(mode="fan_out", nonlinearity="relu"), (64, 32, 3, 3),
     math.sqrt(3) * math.sqrt(2) / math.sqrt(64 * 9)),
    (HeUniform(negative_slope=math.sqrt(5)), (40, 50), 1 / math.sqrt(50)),
    (XavierUniform(), (40, 60), math.sqrt(6 / 100)),
    (XavierUniform(gain=2), (40, 60), 2 * math.sqrt(6 / 100)),
    (Uniform(), (50, 50), 0.07),
    (Uniform(scale=0.5), (50, 50), 0.5),
    (VarianceScaling(2.0, "fan_avg", "uniform"), (40, 60), math.sqrt(3 * 2.0 / 50)),
])
def test_uniform_bounds(init, shape, bound):
    w = initializer(init, shape, ms.float32).asnumpy()
    assert w.dtype == np.float32 and w.shape == shape
    assert np.abs(w).max() <= bound * (1 + 1e-6)
    assert np.abs(w).max() > 0.9 * bound                # the whole range is used


@pytest.mark.parametrize("init, shape, std", [
    (HeNormal(), (64, 32, 3, 3), math.sqrt(2) / math.sqrt(32 * 9)),
    (HeNormal(mode="fan_out", nonlinearity="tanh"), (128, 64), 5 / 3 / math.sqrt(128)),
    (XavierNormal(), (100, 60), math.sqrt(2 / 160)),
    (XavierNormal(gain=3), (100, 60), 3 * math.sqrt(2 / 160)),
    (Normal(), (100, 100), 0.01),
    (Normal(sigma=0.5, mean=1.0), (100, 100), 0.5),
    (VarianceScaling(1.0, "fan_out", "untruncated_normal"), (100, 60), math.sqrt(1 / 100)),
    (VarianceScaling(), (100, 60), math.sqrt(1 / 60)),      # truncated, std corrected
])
def test_normal_spreads(init, shape, std):
    w = initializer(init, shape).asnumpy()
    assert abs(float(w.std()) - std) < 0.08 * std


def test_truncated_normal_stays_within_two_sigmas():
    w = initializer(TruncatedNormal(0.02), (100, 100)).asnumpy()
    assert np.abs(w).max() <= 0.04 and 0.01 < w.std() < 0.02
    assert np.abs(initializer(Normal(sigma=1.0, mean=5.0), (100, 100)).asnumpy().mean()
                  - 5.0) < 0.1


def test_structured_initializers():
    np.testing.assert_array_equal(initializer(Identity(), (2, 3)).asnumpy(), np.eye(2, 3))
    d = initializer(Dirac(groups=2), (6, 4, 3, 3)).asnumpy()
    assert d.sum() == 6 and d[0, 0, 1, 1] == 1 and d[3, 0, 1, 1] == 1 and d[5, 2, 1, 1] == 1
    x = np.random.default_rng(0).standard_normal((1, 4, 5)).astype(np.float32)
    conv = nn.Conv1d(4, 4, 3, pad_mode="same", weight_init=Dirac(), has_bias=False)
    np.testing.assert_allclose(conv(ms.Tensor(x)).asnumpy(), x, rtol=1e-6)
    q = initializer(Orthogonal(gain=2.0), (4, 3, 2)).asnumpy().reshape(4, 6)
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(4), atol=1e-5)
    s = initializer(Sparse(sparsity=0.5, sigma=1.0), (6, 4)).asnumpy()
    assert ((s == 0).sum(0) >= 3).all()
    with pytest.raises(ValueError, match="dimension of 3, 4 or 5"):
        initializer(Dirac(), (3, 3))
    with pytest.raises(ValueError, match="divisible by groups"):
        initializer(Dirac(groups=4), (6, 4, 3))
    with pytest.raises(ValueError, match="should be 2"):
        initializer(Identity(), (2, 2, 2))


def test_variance_scaling_checks_its_arguments():
    with pytest.raises(ValueError, match="'scale' must be greater than 0"):
        VarianceScaling(0)
    with pytest.raises(ValueError, match="'mode' must be fan_in"):
        VarianceScaling(mode="avg")
    with pytest.raises(ValueError, match="'distribution' must be uniform"):
        VarianceScaling(distribution="normal")


@pytest.mark.parametrize("name, cls", [
    ("zeros", Zero), ("ZERO", Zero), ("ones", One), ("one", One), ("normal", Normal),
    ("uniform", Uniform), ("he_uniform", HeUniform), ("heuniform", HeUniform),
    ("he_normal", HeNormal), ("xavier_uniform", XavierUniform),
    ("XavierNormal", XavierNormal), ("truncatedNormal", TruncatedNormal),
    ("orthogonal", Orthogonal), ("varianceScaling", VarianceScaling),
    ("identity", Identity),
])
def test_names(name, cls):
    ms.set_seed(3)
    a = initializer(name, (4, 4)).asnumpy()
    ms.set_seed(3)
    b = initializer(cls(), (4, 4)).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_initializer_inputs_and_errors():
    t = ms.Tensor(np.ones((2, 3), np.float32))
    assert initializer(t, (2, 3)) is t and initializer(t, [2, 3]) is t
    np.testing.assert_array_equal(initializer(2.5, [2], ms.float16).asnumpy(), [2.5, 2.5])
    assert initializer(2.5, 3, ms.float16).dtype is ms.float16
    assert initializer("normal", (2, 2), ms.float64).dtype is ms.float64
    np.testing.assert_array_equal(initializer(Constant(np.arange(3)), (2, 3)).asnumpy(),
                                  [[0, 1, 2], [0, 1, 2]])
    assert initializer(One(), (2,), ms.int32).dtype is ms.int32
    with pytest.raises(ValueError, match=r"'init' shape \[2, 3\] and the 'shape' \[3, 2\]"):
        initializer(t, (3, 2))
    with pytest.raises(ValueError, match="must be positive integer"):
        initializer("zeros", (2, 0))
    with pytest.raises(ValueError, match="'bogus' was not found"):
        initializer("bogus", (2,))
    with pytest.raises(TypeError, match="'Tensor', 'number', 'string' or 'initializer'"):
        initializer([1, 2], (2,))


class _Checkerboard(Initializer):
    """A user's initializer written for MindSpore: it fills arr in place."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        arr[...] = 0
        arr[::2, ::2] = self.value


def test_a_mindspore_style_subclass_works():
    w = initializer(_Checkerboard(3.0), (3, 3)).asnumpy()
    np.testing.assert_array_equal(w, [[3, 0, 3], [0, 0, 0], [3, 0, 3]])
    arr = np.ones((2, 2), np.float32)
    assert _Checkerboard(1.0)(arr) is arr and arr[1, 1] == 0


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, weight_init=HeUniform(mode="fan_out",
                                                            nonlinearity="relu"))
        self.fc = nn.Dense(8, 4, weight_init=XavierUniform(gain=1.5),
                           bias_init=Normal(0.02))
        self.ortho = nn.Dense(4, 4, weight_init="orthogonal", has_bias=False)

    def construct(self, x):
        h = self.conv(x).mean((2, 3))
        return self.ortho(self.fc(h))


def test_layers_built_with_them_run_alike_in_both_modes():
    x = ms.Tensor(np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32))

    def make():
        ms.set_seed(5)
        return _Net()
    run_both(make, x)
