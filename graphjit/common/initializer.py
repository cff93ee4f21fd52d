"""Weight initializers (MindSpore's `common.initializer`), drawn from one seeded numpy
generator so that a model built twice after `set_seed(n)` has the same weights.

    w = initializer("normal", (4, 3), ms.float32)     # a Tensor
    w = initializer(HeUniform(mode="fan_out", nonlinearity="relu"), (8, 4, 3, 3))

As in MindSpore, an Initializer fills a numpy array in place (`_initialize(arr)`), so a
user's subclass written for MindSpore works unchanged; the fans and gains follow
MindSpore's _calculate_fan_in_and_fan_out and _calculate_gain.
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
           "HeNormal", "XavierNormal", "Identity", "Sparse", "Dirac", "Orthogonal",
           "VarianceScaling"]

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


# -- MindSpore's helpers -------------------------------------------------------------------
def _assignment(arr, num):
    """Copy num (an array or a number) into arr, in place."""
    if arr.shape == ():
        arr[()] = np.asarray(num).reshape(())
    else:
        arr[...] = num
    return arr


def _init_random_normal(mean, sigma, shape):
    if sigma < 0:
        raise ValueError("sigma < 0")
    return _RNG[0].normal(mean, sigma, shape).astype(np.float32)


def _init_random_uniform(a, b, shape):
    return _RNG[0].uniform(a, b, shape).astype(np.float32)


def _init_truncated_normal(a, b, mean, sigma, shape):
    """N(mean, sigma^2) with every value outside [a, b] drawn again."""
    if sigma < 0:
        raise ValueError("sigma < 0")
    out = _RNG[0].normal(mean, sigma, shape)
    bad = (out < a) | (out > b)
    while np.any(bad):
        out[bad] = _RNG[0].normal(mean, sigma, int(bad.sum()))
        bad = (out < a) | (out > b)
    return out.astype(np.float32)


def _calculate_fan_in_and_fan_out(shape):
    """(fan_in, fan_out): shape[1] and shape[0] times the receptive field (the product of
    the dims after the second).

    Raises:
        ValueError: shape has fewer than 2 dims.
    """
    dimensions = len(shape)
    if dimensions < 2:
        raise ValueError("'fan_in' and 'fan_out' can not be computed for tensor with fewer "
                         f"than 2 dimensions, but got dimensions {dimensions}.")
    receptive = int(np.prod(shape[2:])) if dimensions > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(shape, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"'mode' {mode} not supported, please use one of "
                         f"['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def _calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (slope param, 0.01 if None)."""
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"For 'HeUniform', 'negative_slope' {param} is not a valid number."
                             f"When 'nonlinearity' has been set to 'leaky_relu', "
                             f"'negative_slope' should be int or float type, but got "
                             f"{type(param)}.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"For 'HeUniform', the argument 'nonlinearity' should be one of "
                     f"['sigmoid', 'tanh', 'relu' or 'leaky_relu'], but got {nonlinearity}.")


# -- the initializers ----------------------------------------------------------------------
_ALIASES = {}


def _register(*aliases):
    def reg(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _ALIASES.setdefault(name, cls)
        return cls
    return reg


class Initializer:
    """Base class: a subclass fills a numpy array in place in `_initialize(arr)`.
    `init(arr)` fills arr (MindSpore's form); `init(shape, dtype)` returns a new array."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._seed = None

    @property
    def seed(self):
        return (get_seed(), 0) if self._seed is None else (self._seed + 1, 0)

    @seed.setter
    def seed(self, value):
        self._seed = value

    def _initialize(self, arr):
        raise NotImplementedError(f"{type(self).__name__} must define _initialize(arr)")

    def __call__(self, arr, dtype=None):
        if isinstance(arr, np.ndarray):
            self._initialize(arr)
            return arr
        return self._make(tuple(arr), dt.float32 if dtype is None else dtype)

    def _make(self, shape, dtype) -> np.ndarray:
        arr = np.zeros(shape, dtype=dt.as_dtype(dtype).np)
        self._initialize(arr)
        return arr


@_register("zeros")
class Zero(Initializer):
    """Every element 0."""

    def _initialize(self, arr):
        arr.fill(0)


@_register("ones")
class One(Initializer):
    """Every element 1."""

    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    """Every element `value` (a number, or an array broadcast to the shape)."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        _assignment(arr, self.value)


@_register()
class Normal(Initializer):
    """N(mean, sigma^2); MindSpore's default sigma is 0.01."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, arr):
        _assignment(arr, _init_random_normal(self.mean, self.sigma, arr.shape))


@_register()
class Uniform(Initializer):
    """U(-scale, scale); MindSpore's default scale is 0.07."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _assignment(arr, _init_random_uniform(-self.scale, self.scale, arr.shape))


@_register("truncated_normal")
class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [a, b], two sigmas about the mean by default (as
    MindSpore documents TruncatedNormal(sigma=0.01))."""

    def __init__(self, sigma=0.01, mean=0.0, a=None, b=None):
        super().__init__(sigma=sigma)
        self.sigma, self.mean = sigma, mean
        self.a = mean - 2 * sigma if a is None else a
        self.b = mean + 2 * sigma if b is None else b

    def _initialize(self, arr):
        _assignment(arr, _init_truncated_normal(self.a, self.b, self.mean, self.sigma,
                                                arr.shape))


@_register("he_uniform")
class HeUniform(Initializer):
    """Kaiming uniform: U(-b, b), b = sqrt(3) * gain / sqrt(fan) with fan_in or fan_out
    (mode) and the gain of nonlinearity (negative_slope for leaky_relu)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _initialize(self, arr):
        fan = _calculate_correct_fan(arr.shape, self.mode)
        std = _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        bound = math.sqrt(3.0) * std
        _assignment(arr, _init_random_uniform(-bound, bound, arr.shape))


@_register("he_normal")
class HeNormal(Initializer):
    """Kaiming normal: N(0, std^2), std = gain / sqrt(fan) (fan_in or fan_out)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _initialize(self, arr):
        fan = _calculate_correct_fan(arr.shape, self.mode)
        std = _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        _assignment(arr, _init_random_normal(0, std, arr.shape))


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """Glorot uniform: U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        n_in, n_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (n_in + n_out))
        _assignment(arr, _init_random_uniform(-bound, bound, arr.shape))


@_register("xavier_normal")
class XavierNormal(Initializer):
    """Glorot normal: N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        n_in, n_out = _calculate_fan_in_and_fan_out(arr.shape)
        std = self.gain * math.sqrt(2.0 / float(n_in + n_out))
        _assignment(arr, _init_random_normal(0, std, arr.shape))


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (ones on the diagonal of a rectangular one)."""

    def _initialize(self, arr):
        if len(arr.shape) != 2:
            raise ValueError(f"For Identity initializer, the dimension of the initialized "
                             f"tensor should be 2, but got {len(arr.shape)}.")
        _assignment(arr, np.eye(arr.shape[0], arr.shape[1]))


@_register()
class Sparse(Initializer):
    """A 2-D N(0, sigma^2) matrix with ceil(sparsity * rows) zeros in each column."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__()
        self.sparsity, self.sigma = sparsity, sigma

    def _initialize(self, arr):
        if len(arr.shape) != 2:
            raise ValueError(f"For Sparse initializer, the dimension of the initialized "
                             f"tensor should be 2, but got {len(arr.shape)}.")
        rows, cols = arr.shape
        zero_num = int(np.ceil(self.sparsity * rows))
        data = _init_random_normal(0, self.sigma, arr.shape)
        for col in range(cols):
            data[_RNG[0].permutation(rows)[:zero_num], col] = 0.0
        _assignment(arr, data)


@_register()
class Dirac(Initializer):
    """The Dirac delta for 3-, 4- and 5-D convolution weights (the identity of the input
    channels, per group of output channels)."""

    def __init__(self, groups=1):
        super().__init__()
        self.groups = groups

    def _initialize(self, arr):
        shape = arr.shape
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"For Dirac initializer, only support to initialize tensor with "
                             f"dimension of 3, 4 or 5, but got {len(shape)}.")
        if shape[0] % self.groups != 0:
            raise ValueError(f"For Dirac initializer, the first dimension of the initialized "
                             f"tensor must be divisible by groups, but got first dimension "
                             f"{shape[0]}, groups {self.groups}.")
        data = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(d // 2 for d in shape[2:])
        for g in range(self.groups):
            for d in range(min(per_group, shape[1])):
                data[(g * per_group + d, d) + centre] = 1
        _assignment(arr, data)


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over the dims after the first, times gain."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        if len(arr.shape) < 2:
            raise ValueError(f"For Orthogonal initializer, the dimension of the initialized "
                             f"tensor should be no less than 2, but got {len(arr.shape)}.")
        rows = arr.shape[0]
        cols = int(np.prod(arr.shape)) // rows
        data = _init_random_normal(0, 1, (rows, cols)).astype(np.float64)
        if rows < cols:
            data = data.T
        q, r = np.linalg.qr(data)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        _assignment(arr, (q * self.gain).reshape(arr.shape))


@_register()
class VarianceScaling(Initializer):
    """Samples scaled by the fan: std = sqrt(scale / n) with n fan_in, fan_out or their
    mean (mode), from a truncated normal, a normal or a uniform in +-sqrt(3 scale / n)
    (distribution)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0.0:
            raise ValueError(f"For VarianceScaling initializer, the argument 'scale' must be "
                             f"greater than 0, but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For VarianceScaling initializer, the argument 'mode' must be "
                             f"fan_in, fan_out or fan_avg, but got {mode}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"For VarianceScaling initializer, the argument 'distribution' "
                             f"must be uniform, truncated_norm or untruncated_norm, but got "
                             f"{distribution}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, n[self.mode])
        if self.distribution == "truncated_normal":
            # the std of N(0, 1) truncated to [-2, 2] is 0.8796...: divide it out
            std = math.sqrt(scale) / 0.87962566103423978
            data = _init_truncated_normal(-2 * std, 2 * std, 0, std, arr.shape)
        elif self.distribution == "untruncated_normal":
            data = _init_random_normal(0, math.sqrt(scale), arr.shape)
        else:
            limit = math.sqrt(3.0 * scale)
            data = _init_random_uniform(-limit, limit, arr.shape)
        _assignment(arr, data)


def initializer(init, shape=None, dtype=dt.float32) -> Tensor:
    """A Tensor of `shape` and `dtype` made by `init`: a Tensor (returned as it is; its
    shape must match), a numpy array (copied), a number (a Constant), a name ('normal',
    'zeros', 'he_uniform', 'xavier_uniform', 'orthogonal', ...: MindSpore's class names in
    lower case and their aliases) or an Initializer.

    Raises:
        ValueError: a shape that does not match or is not positive ints, an unknown name.
        TypeError: `init` is none of the above.
    """
    if isinstance(init, (Tensor, np.ndarray)):
        init_shape = tuple(init.shape)
        if shape is not None:
            want = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
            if init_shape != want:
                raise ValueError(f"For 'initializer', the shape of the 'init' argument should "
                                 f"be same as the argument 'shape', but got the 'init' shape "
                                 f"{list(init_shape)} and the 'shape' {list(want)}.")
        return init if isinstance(init, Tensor) else Tensor(np.array(init))
    if not isinstance(init, (numbers.Number, str, Initializer)) or isinstance(init, bool):
        raise TypeError(f"For 'initializer', the type of the 'init' argument should be "
                        f"'Tensor', 'number', 'string' or 'initializer', but got "
                        f"{type(init)}.")
    if shape is None:
        raise ValueError("For 'initializer', the argument 'shape' is needed unless 'init' is "
                         "a Tensor")
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d <= 0:
            raise ValueError(f"For 'initializer', the argument 'shape' is invalid, the value "
                             f"of 'shape' must be positive integer, but got {shape}")
    shape = tuple(int(d) for d in shape)
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the class corresponding to '{init}' was "
                             f"not found (known: {', '.join(sorted(_ALIASES))}).")
        init = cls()
    elif isinstance(init, numbers.Number):
        init = Constant(init)
    return Tensor(init._make(shape, dtype))
