"""MindSpore's `mindspore.ops.function.random_func`: random tensors (standard_normal, randn,
rand, uniform, normal, randint, ...)."""
from __future__ import annotations

from . import math_func as M
from .._dispatch import apply, to_tensor
from .._utils import _int_tuple
from ...ir import dtypes as dt
from ...common.tensor import current_recorder, TensorLike

__all__ = ["standard_normal", "randn", "rand", "randn_like", "rand_like", "uniform", "normal",
           "randint"]


def _seed(seed):
    if seed is None or seed == 0:      # MindSpore's 0: the global seed
        return None
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be None or a non-negative int, got {seed!r}")
    return int(seed)


def _random(op, **attrs):
    """Run or record a random op without inputs; while a graph is built it is always
    recorded (drawing at build time would freeze one draw into the graph)."""
    recorder = current_recorder()
    if recorder is not None:
        return recorder.apply(op, (), attrs)
    return apply(op, **attrs)


def _size(size, what):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return _int_tuple(size, what)


def _float_dtype(dtype, what):
    d = dt.float32 if dtype is None else dt.as_dtype(dtype)
    if not d.is_floating:
        raise TypeError(f"{what} makes floating tensors; dtype {d} is not one")
    return d


def standard_normal(shape, seed=None):
    """Draws from N(0, 1), float32."""
    return _random("RandomNormal", shape=_int_tuple(shape, "standard_normal's shape"),
                   dtype=dt.float32, seed=_seed(seed))


def randn(*size, dtype=None, seed=None):
    """Draws from N(0, 1) of shape size (float32 unless dtype is given)."""
    return _random("RandomNormal", shape=_size(size, "randn's size"),
                   dtype=_float_dtype(dtype, "randn"), seed=_seed(seed))


def rand(*size, dtype=None, seed=None):
    """Draws from U[0, 1) of shape size (float32 unless dtype is given)."""
    return _random("RandomUniform", shape=_size(size, "rand's size"),
                   dtype=_float_dtype(dtype, "rand"), seed=_seed(seed))


def _like_shape(input, what):
    shape = to_tensor(input).shape
    if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
        raise TypeError(f"{what} needs a tensor whose shape is known while the graph is "
                        f"built")
    return shape


def randn_like(input, seed=None, *, dtype=None):
    """Draws from N(0, 1) with input's shape (and floating dtype, unless given)."""
    x = to_tensor(input)
    d = dtype if dtype is not None else (x.dtype if x.dtype.is_floating else dt.float32)
    return randn(_like_shape(x, "randn_like"), dtype=d, seed=seed)


def rand_like(input, seed=None, *, dtype=None):
    """Draws from U[0, 1) with input's shape (and floating dtype, unless given)."""
    x = to_tensor(input)
    d = dtype if dtype is not None else (x.dtype if x.dtype.is_floating else dt.float32)
    return rand(_like_shape(x, "rand_like"), dtype=d, seed=seed)


def uniform(shape, minval, maxval, seed=None, dtype=dt.float32):
    """Draws from U[minval, maxval) (tensors or numbers, broadcast to shape)."""
    d = dt.as_dtype(dtype)
    if d.is_integer:
        for v in (minval, maxval):
            if isinstance(v, TensorLike):
                raise TypeError("uniform: integer draws need Python int bounds")
        return randint(int(minval), int(maxval), shape, seed, dtype=d)
    u = _random("RandomUniform", shape=_int_tuple(shape, "uniform's shape"),
                dtype=_float_dtype(d, "uniform"), seed=_seed(seed))
    lo = to_tensor(minval, d) if not isinstance(minval, TensorLike) else minval
    hi = to_tensor(maxval, d) if not isinstance(maxval, TensorLike) else maxval
    return M.add(lo, M.mul(u, M.sub(hi, lo)))


def normal(shape, mean, stddev, seed=None):
    """Draws from N(mean, stddev^2) (tensors or numbers, broadcast to shape)."""
    z = _random("RandomNormal", shape=_int_tuple(shape, "normal's shape"), dtype=dt.float32,
                seed=_seed(seed))
    return M.add(M.mul(z, stddev), mean)


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers drawn uniformly from [low, high) (int64 unless dtype is given)."""
    for v in (low, high):
        if isinstance(v, TensorLike) or not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"randint: low and high must be Python ints, got {v!r}")
    if not low < high:
        raise ValueError(f"randint: low ({low}) must be less than high ({high})")
    d = dt.int64 if dtype is None else dt.as_dtype(dtype)
    return _random("RandomInt", shape=_int_tuple(size, "randint's size"), low=low, high=high,
                   dtype=d, seed=_seed(seed))
