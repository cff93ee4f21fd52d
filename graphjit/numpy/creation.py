"""mindspore.numpy's functions that make tensors: array, asarray, zeros, ones, full, the
*_like forms, arange, linspace, eye, identity. Python data takes 32-bit dtypes (a list of
floats is float32, of ints int32), as MindSpore's numpy module gives."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..common.tensor import Tensor, TensorLike
from ._utils import check_dtype, check_shape, const_array, scalar_dtype, to_tensor

__all__ = ["array", "asarray", "asfarray", "copy", "zeros", "ones", "full", "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "arange", "linspace",
           "logspace", "eye", "identity", "tri", "tril", "triu", "meshgrid"]


def asarray(a, dtype=None):
    """`a` as a tensor: a Tensor as it is (cast to dtype when given); Python data as
    int32/float32/bool (numpy arrays keep their dtype)."""
    dtype = None if dtype is None else check_dtype(dtype)
    if isinstance(a, TensorLike):
        return a if dtype is None or a.dtype is dtype else a.astype(dtype)
    return const_array(a, dtype)


def array(obj, dtype=None, copy=True, ndmin=0):
    """A new tensor from array-like data; ndmin prepends dims of size 1."""
    res = asarray(obj, dtype)
    if ndmin > res.ndim:
        res = ops.reshape(res, (1,) * (ndmin - res.ndim) + tuple(res.shape))
    if copy and res is obj:
        res = res.copy()
    return res


def asfarray(a, dtype=dt.float32):
    """asarray with a floating dtype (a non-floating dtype gives float32)."""
    if dtype is None:
        return asarray(a)
    dtype = check_dtype(dtype)
    if not dtype.is_floating:
        dtype = dt.float32
    return asarray(a, dtype)


def copy(a):
    """A copy of `a` as a tensor."""
    return asarray(a).copy()


def _filled(shape, value, dtype):
    shape = check_shape(shape)
    dtype = check_dtype(dtype)
    return Tensor(np.full(shape, value, dtype=dtype.np))


def zeros(shape, dtype=dt.float32):
    """A tensor of zeros (float32 unless dtype says otherwise)."""
    return _filled(shape, 0, dtype)


def ones(shape, dtype=dt.float32):
    """A tensor of ones (float32 unless dtype says otherwise)."""
    return _filled(shape, 1, dtype)


def empty(shape, dtype=dt.float32):
    """A tensor of the shape (graphjit fills it with zeros)."""
    return _filled(shape, 0, dtype)


def full(shape, fill_value, dtype=None):
    """A tensor of the shape filled with fill_value (a scalar, or array-like broadcast to
    the shape); without dtype, a Python int gives int32, a float float32, a Tensor its
    own dtype."""
    shape = check_shape(shape)
    if dtype is not None:
        dtype = check_dtype(dtype)
    if isinstance(fill_value, (bool, int, float, np.number, np.bool_)):
        if dtype is None:
            dtype = scalar_dtype(fill_value)
        return Tensor(np.full(shape, fill_value, dtype=dtype.np))
    value = to_tensor(fill_value)
    if dtype is not None and value.dtype is not dtype:
        value = value.astype(dtype)
    return ops.broadcast_to(value, shape)


def _like(a, value, dtype, shape):
    a = to_tensor(a)
    dtype = a.dtype if dtype is None else check_dtype(dtype)
    if shape is not None:
        return full(shape, value, dtype)
    if isinstance(value, TensorLike):
        return ops.broadcast_to(value.astype(dtype), a.shape)
    return ops.full_like(a, value, dtype=dtype)


def zeros_like(a, dtype=None, shape=None):
    """Zeros with a's shape and dtype (or the ones given)."""
    return _like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    """Ones with a's shape and dtype (or the ones given)."""
    return _like(a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None):
    """A tensor like prototype (graphjit fills it with zeros)."""
    return _like(prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    """fill_value with a's shape and dtype (or the ones given)."""
    if isinstance(fill_value, (list, tuple)):
        fill_value = const_array(fill_value)
    return _like(a, fill_value, dtype, shape)


def _number(x, what):
    if isinstance(x, TensorLike):
        if isinstance(x, Tensor) and x.ndim == 0:
            return x.item()
        raise TypeError(f"mindspore.numpy.arange: {what} must be a Python number known "
                        f"while the graph is built, got a tensor")
    if not isinstance(x, (int, float, np.number)) or isinstance(x, bool):
        raise TypeError(f"mindspore.numpy.arange: {what} must be an int or a float, got "
                        f"{x!r}")
    return x.item() if isinstance(x, np.generic) else x


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop). Without dtype: int32 when every argument is
    an int, float32 otherwise. As MindSpore computes it, the values are a float32 count
    times step plus start, cast to the dtype."""
    start = _number(start, "start")
    stop = None if stop is None else _number(stop, "stop")
    step = None if step is None else _number(step, "step")
    dtype = scalar_dtype(start, stop, step) if dtype is None else check_dtype(dtype)
    if step == 0:
        raise ValueError("mindspore.numpy.arange: step must not be zero")
    if stop is None and step is None:
        num, out = math.ceil(start), lambda i: i
    elif step is None:
        num, out = math.ceil(stop - start), lambda i: i + np.float32(start)
    elif stop is None:
        num, out = math.ceil((start + 0.0) / step), lambda i: i * np.float32(step)
    else:
        num = math.ceil((stop - start + 0.0) / step)
        out = lambda i: i * np.float32(step) + np.float32(start)    # noqa: E731
    iota = np.arange(max(num, 0), dtype=np.float32)
    return Tensor(out(iota).astype(np.float32).astype(dtype.np))


def _moveaxis0(x, axis):
    if axis == 0:
        return x
    perm = list(range(1, x.ndim))
    perm.insert(axis, 0)
    return ops.transpose(x, tuple(perm))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """num evenly spaced samples from start to stop (stop included when endpoint),
    computed in float32 as start + i * step, the last sample exactly stop; array-like
    bounds give samples along a new axis. Returns (samples, step) when retstep."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise TypeError(f"mindspore.numpy.linspace: num should be an integer, got {num!r}")
    if num <= 0:
        raise ValueError("mindspore.numpy.linspace: num must be positive")
    dtype = dt.float32 if dtype is None else check_dtype(dtype)
    start = to_tensor(start).astype(dt.float32)
    stop = to_tensor(stop).astype(dt.float32)
    shape = np.broadcast_shapes(tuple(start.shape), tuple(stop.shape))
    start, stop = ops.broadcast_to(start, shape), ops.broadcast_to(stop, shape)
    nd = len(shape) + 1
    if not -nd <= axis < nd:
        raise ValueError(f"mindspore.numpy.linspace: axis {axis} is out of bounds for "
                         f"rank {nd}")
    axis %= nd
    if num == 1:
        delta = float("nan") if endpoint else stop - start
        out = ops.expand_dims(start, 0)
    else:
        div = np.float32(num - 1 if endpoint else num)
        delta = (stop - start) / div
        iota = Tensor(np.arange(num, dtype=np.float32).reshape((num,) + (1,) * len(shape)))
        out = ops.expand_dims(start, 0) + iota * ops.expand_dims(delta, 0)
        if endpoint:
            out = ops.concat((out[:num - 1], ops.expand_dims(stop, 0)), 0)
    out = _moveaxis0(out, axis).astype(dtype)
    return (out, delta) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num): samples evenly spaced on a log scale."""
    samples = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = ops.pow(Tensor(np.asarray(base, np.float32)), samples)
    return out if dtype is None else out.astype(check_dtype(dtype))


def eye(N, M=None, k=0, dtype=dt.float32):
    """A 2-D tensor with ones on the k-th diagonal (float32 unless dtype says)."""
    dtype = check_dtype(dtype)
    return Tensor(np.eye(N, M, k, dtype=dtype.np))


def identity(n, dtype=dt.float32):
    """The n x n identity (float32 unless dtype says)."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=dt.float32):
    """Ones at and below the k-th diagonal, zeros above."""
    return Tensor(np.tri(N, M, k, dtype=check_dtype(dtype).np))


def tril(m, k=0):
    """m with the elements above the k-th diagonal zeroed."""
    return ops.tril(to_tensor(m), k)


def triu(m, k=0):
    """m with the elements below the k-th diagonal zeroed."""
    return ops.triu(to_tensor(m), k)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate tensors from 1-D coordinate vectors (numpy's meshgrid)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"mindspore.numpy.meshgrid: indexing must be 'xy' or 'ij', got "
                         f"{indexing!r}")
    xs = [ops.reshape(to_tensor(x), (-1,)) for x in xi]
    n = len(xs)
    sizes = [x.shape[0] for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and n > 1 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = x.shape[0]
        g = ops.reshape(x, tuple(shape))
        out.append(g if sparse else ops.broadcast_to(g, tuple(sizes)))
    return tuple(out)
