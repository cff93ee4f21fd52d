"""Weight initializers (MindSpore's `common.initializer`), drawn from one seeded numpy
generator so that a model built twice after `set_seed(n)` has the same weights.

    w = initializer("normal", (4, 3), ms.float32)     # a Tensor
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..ir import dtypes as dt
from ..ir.defs import random as _random_ops
from .tensor import Tensor

__all__ = ["initializer", "set_seed", "get_seed", "Initializer", "Normal", "Uniform",
           "HeUniform", "XavierUniform", "Zero", "One", "Constant", "TruncatedNormal",
           "HeNormal", "XavierNormal"]

_SEED = [0]
_RNG = [np.random.default_rng(0)]


def set_seed(seed: int) -> None:
    """Reseed the generator every initializer draws from, and those of random ops
    (dropout)."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed needs a non-negative int, got {seed!r}")
    _SEED[0] = int(seed)
    _RNG[0] = np.random.default_rng(int(seed))
    _random_ops.reseed(int(seed))


def get_seed() -> int:
    return _SEED[0]


def _fans(shape):
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Makes a numpy array of a shape; subclasses define `_sample(shape)`."""

    def __call__(self, shape, dtype) -> np.ndarray:
        return np.asarray(self._sample(tuple(shape)), dtype=dt.as_dtype(dtype).np)

    def _sample(self, shape):
        raise NotImplementedError(type(self).__name__)


class Normal(Initializer):
    """N(mean, sigma^2); MindSpore's default sigma is 0.01."""

    def __init__(self, sigma=0.01, mean=0.0):
        self.sigma, self.mean = sigma, mean

    def _sample(self, shape):
        return _RNG[0].normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    """U(-scale, scale); MindSpore's default scale is 0.07."""

    def __init__(self, scale=0.07):
        self.scale = scale

    def _sample(self, shape):
        return _RNG[0].uniform(-self.scale, self.scale, shape)


class HeUniform(Initializer):
    """Kaiming uniform: U(-b, b) with b = gain * sqrt(3 / fan_in), gain for leaky_relu."""

    def __init__(self, negative_slope=0.0):
        self.negative_slope = negative_slope

    def _sample(self, shape):
        fan_in, _ = _fans(shape)
        gain = math.sqrt(2.0 / (1 + self.negative_slope ** 2))
        bound = gain * math.sqrt(3.0 / max(fan_in, 1))
        return _RNG[0].uniform(-bound, bound, shape)


class XavierUniform(Initializer):
    """Glorot uniform: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def _sample(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / max(fan_in + fan_out, 1))
        return _RNG[0].uniform(-bound, bound, shape)


def _gain(negative_slope, nonlinearity):
    if nonlinearity in ("leaky_relu", None):
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity in ("linear", "sigmoid", "conv1d", "conv2d", "conv3d"):
        return 1.0
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}")


def _fan(shape, mode):
    fan_in, fan_out = _fans(shape)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return max(fan_in if mode == "fan_in" else fan_out, 1)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [a, b] (two sigmas about the mean by default, as
    MindSpore's TruncatedNormal(sigma=0.01))."""

    def __init__(self, sigma=0.01, mean=0.0, a=None, b=None):
        self.sigma, self.mean = sigma, mean
        self.a = mean - 2 * sigma if a is None else a
        self.b = mean + 2 * sigma if b is None else b

    def _sample(self, shape):
        out = _RNG[0].normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        while np.any(bad):          # redraw the values outside [a, b]
            out[bad] = _RNG[0].normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


class HeNormal(Initializer):
    """Kaiming normal: N(0, std^2), std = gain / sqrt(fan) (fan_in or fan_out)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _sample(self, shape):
        std = _gain(self.negative_slope, self.nonlinearity) / math.sqrt(_fan(shape, self.mode))
        return _RNG[0].normal(0.0, std, shape)


class XavierNormal(Initializer):
    """Glorot normal: N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def _sample(self, shape):
        fan_in, fan_out = _fans(shape)
        return _RNG[0].normal(0.0, self.gain * math.sqrt(2.0 / max(fan_in + fan_out, 1)),
                              shape)


class Constant(Initializer):
    """Every element `value`."""

    def __init__(self, value):
        self.value = value

    def _sample(self, shape):
        return np.full(shape, self.value)


class Zero(Constant):
    def __init__(self):
        super().__init__(0)


class One(Constant):
    def __init__(self):
        super().__init__(1)


# MindSpore's initializer names (lower case) and the class each one makes.
_BY_NAME = {"normal": Normal, "uniform": Uniform, "zeros": Zero, "zero": Zero, "ones": One,
            "one": One, "he_uniform": HeUniform, "heuniform": HeUniform,
            "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
            "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
            "he_normal": HeNormal, "henormal": HeNormal, "xavier_normal": XavierNormal,
            "xaviernormal": XavierNormal}


def initializer(init, shape, dtype=dt.float32) -> Tensor:
    """A Tensor of `shape` made by `init`: a Tensor or numpy array (used as it is, its
    shape must match), a number (a constant), a name ('normal', 'uniform', 'zeros',
    'ones', 'he_uniform', 'xavier_uniform') or an Initializer.

    Raises:
        ValueError: an array of the wrong shape, or an unknown name.
        TypeError: `init` is none of the above.
    """
    shape = tuple(int(d) for d in ((shape,) if isinstance(shape, int) else shape))
    if isinstance(init, (Tensor, np.ndarray)):
        arr = np.asarray(init)
        if arr.shape != shape:
            raise ValueError(f"the initial value has shape {arr.shape}, but the parameter "
                             f"needs {shape}")
        return Tensor(np.array(arr))
    if isinstance(init, str):
        cls = _BY_NAME.get(init.lower())
        if cls is None:
            raise ValueError(f"unknown initializer '{init}'; use one of "
                             f"{', '.join(sorted(_BY_NAME))}, a number or an array")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    if not isinstance(init, Initializer):
        raise TypeError(f"cannot initialize a parameter from {type(init).__name__}; use a "
                        f"Tensor, a numpy array, a number or an initializer name")
    return Tensor(init(shape, dtype))
