"""Neural-network operators as functions, with MindSpore 2.x names and signatures:
matrix products, softmax, activations, one_hot and dense.

Activations without an operator of their own are compositions of registry ops, so
they run the same in both modes.
"""
from __future__ import annotations

import math

from ..ir import dtypes as dt
from ..common.tensor import TensorLike
from . import math_ops as M
from ._dispatch import apply, to_tensor

__all__ = [
    "matmul", "bmm", "dense", "softmax", "log_softmax", "relu6", "leaky_relu", "gelu",
    "silu", "softplus", "elu", "one_hot", "batch_dot",
]


def _t(x):
    return to_tensor(x)


def matmul(input, other):
    """Matrix product with numpy's batching and 1-D rules."""
    return apply("MatMul", _t(input), _t(other))


def bmm(input_x, mat2):
    """Batched matrix product."""
    return matmul(input_x, mat2)


def dense(input, weight, bias=None):
    """input @ weight.T + bias: weight is (out_channels, in_channels)."""
    out = apply("MatMul", _t(input), _t(weight), transpose_b=True)
    return out if bias is None else M.add(out, bias)


def _softmax(op, input, axis, dtype):
    x = _t(input)
    if dtype is not None:
        x = M.cast(x, dtype)
    if isinstance(axis, list):
        axis = tuple(axis)
    return apply(op, x, axis=axis)


def softmax(input, axis=-1, *, dtype=None):
    """exp(x) / sum(exp(x)) along axis (computed stably); integers give float32."""
    return _softmax("Softmax", input, axis, dtype)


def log_softmax(logits, axis=-1):
    """log(softmax(logits)) along axis, computed stably."""
    return _softmax("LogSoftmax", logits, axis, None)


def relu6(x):
    """min(max(x, 0), 6)."""
    return M.minimum(M.relu(x), 6)


def leaky_relu(input, alpha=0.2):
    """x where x >= 0, else alpha * x."""
    x = _t(input)
    return M.where(M.greater_equal(x, 0), x, M.mul(x, alpha))


def gelu(input_x, approximate="none"):
    """x * Phi(x): with the error function ('none') or the tanh approximation ('tanh')."""
    x = _t(input_x)
    if approximate == "none":
        inner = M.erf(M.mul(x, 1.0 / math.sqrt(2.0)))
    elif approximate == "tanh":
        cube = M.mul(M.mul(M.mul(x, x), x), 0.044715)
        inner = M.tanh(M.mul(M.add(x, cube), math.sqrt(2.0 / math.pi)))
    else:
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return M.mul(M.mul(x, 0.5), M.add(inner, 1.0))


def silu(input):
    """x * sigmoid(x)."""
    x = _t(input)
    return M.mul(x, M.sigmoid(x))


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold."""
    x = _t(input)
    bx = M.mul(x, beta)
    soft = M.div(M.log1p(M.exp(bx)), beta)
    return M.where(M.greater(bx, threshold), M.cast(x, soft.dtype), soft)


def elu(input_x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = _t(input_x)
    neg = M.mul(M.expm1(x), alpha)
    return M.where(M.greater(x, 0), M.cast(x, neg.dtype), neg)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """on_value where the new axis (at `axis`) equals the index, off_value elsewhere. The
    dtype is on_value's if it is a tensor, else float32."""
    if isinstance(depth, TensorLike):
        raise TypeError("one_hot's depth must be a Python int known while the graph is built")
    out = on_value.dtype if isinstance(on_value, TensorLike) else dt.float32
    for v in (on_value, off_value):
        if isinstance(v, TensorLike) and v.shape not in ((), (1,)):
            raise ValueError("one_hot's on_value and off_value must be scalars")
    on = on_value.asnumpy().reshape(()).item() if isinstance(on_value, TensorLike) else on_value
    off = off_value.asnumpy().reshape(()).item() if isinstance(off_value, TensorLike) \
        else off_value
    return apply("OneHot", _t(indices), depth=depth, on_value=on, off_value=off, axis=axis,
                 dtype=out)


def batch_dot(x1, x2, axes=None):
    """Per batch (axis 0), the dot product of x1 and x2 over one axis of each: axes is
    (axis of x1, axis of x2), an int n for axis n of both, or None for the last axis of
    x1 and the second-to-last of x2 (the last if x2 has rank 2). The result is (batch,
    the other dims of x1, the other dims of x2); two (batch, n) inputs give (batch, 1)."""
    a, b = _t(x1), _t(x2)
    ra, rb = a.type.rank, b.type.rank
    if ra is None or rb is None:
        raise TypeError("batch_dot needs inputs of known rank")
    if ra < 2 or rb < 2:
        raise ValueError(f"batch_dot: inputs must have rank >= 2, got {a.type} and {b.type}")
    if axes is None:
        axes = (ra - 1, rb - 1 if rb == 2 else rb - 2)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        if axes == 0:
            raise ValueError("batch_dot: axes must not be 0 (the batch axis)")
        axes = (axes + ra, axes + rb) if axes < 0 else (axes, axes)
    elif isinstance(axes, (tuple, list)) and len(axes) == 2 and all(
            isinstance(i, int) and not isinstance(i, bool) for i in axes):
        axes = (axes[0] + ra if axes[0] < 0 else axes[0], axes[1] + rb if axes[1] < 0
                else axes[1])
    else:
        raise ValueError(f"batch_dot: axes must be None, an int or a pair of ints, got "
                         f"{axes!r}")
    return apply("BatchDot", a, b, axes=tuple(int(i) for i in axes))
