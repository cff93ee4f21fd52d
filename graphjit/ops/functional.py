"""MindSpore's `mindspore.ops.functional` (often imported as F): every operator function of
ops/function/, and the functional forms of item assignment (index_update), identity,
dtype, make_tuple, tuple_getitem and tensor_scatter_update."""
from __future__ import annotations

import builtins
import functools as _functools
import numpy as np

from ._dispatch import apply, to_tensor
from ._utils import _const, _t
from .function import array_func as array_ops
from ..autodiff import tape as _tape
from .function.array_func import cast, expand_dims, gather, one_hot, reshape, where
from .function.index_func import _scatter_parts
from .function.math_func import amax, greater_equal, maximum, mul, sub
from ..common.tensor import SymbolicTensor, Tensor, TensorLike
from ..ir.defs.shape import encode_index

from . import function as _function
from .function import *  # noqa: F401,F403  (every operator function, by family)
from .function.index_func import max, min  # noqa: F401  (shadow the builtins)
from .function.math_func import abs, all, any, pow, round, sum  # noqa: F401  (shadow builtins)
from .function.grad.grad_func import stop_gradient  # noqa: F401
from .composite.math_ops import mm  # noqa: F401
from .composite.type_ops import tuple_div, typeof  # noqa: F401  (F.tuple_div, F.typeof)
from builtins import len as tuple_len  # noqa: F401,E402  (F.tuple_len)
from .functional_scalar import *  # noqa: F401,F403  (F.tensor_add, F.make_range, ...)
from . import functional_scalar as _fs

__all__ = [n for n in _function.__all__ if n not in (
    "grad", "value_and_grad", "get_grad", "GradFunction", "tensor_leaves", "map_leaves")] + [
    "mm", "index_update", "identity", "dtype", "make_tuple", "tuple_getitem",
    "tensor_scatter_update", "tuple_div", "typeof", "partial", "tuple_len", "switch"] + \
    _fs.__all__


def partial(fn, *args):
    """fn with its first arguments bound (MindSpore's F.partial, Partial()'s function)."""
    if not callable(fn):
        raise TypeError(f"For 'partial', the first argument must be callable, got "
                        f"{type(fn).__name__}")
    return _functools.partial(fn, *args)


# -- updates and effects ---------------------------------------------------------------------
def index_update(x, key, value):
    """A copy of x with x[key] = value (the functional form of item assignment)."""
    if not isinstance(x, TensorLike):
        raise TypeError(f"index_update: x must be a Tensor, got {type(x).__name__}")
    key = array_ops.eager_slice_bounds(key)
    items = key if isinstance(key, tuple) else (key,)
    tape = _tape.current()
    recorded = tape is not None and (tape.tracks(x) or tape.tracks(value))
    if recorded and builtins.any(isinstance(k, (list, np.ndarray)) or (
            isinstance(k, Tensor) and k.ndim > 0) for k in items):
        return _index_put(x, items, value)      # numpy's advanced indexing, on the tape
    if builtins.any(isinstance(k, TensorLike) for k in items):
        if not builtins.any(isinstance(k, SymbolicTensor) for k in items) and \
                not isinstance(x, SymbolicTensor) and not isinstance(value, SymbolicTensor) \
                and not recorded:
            y = Tensor._wrap(np.array(x._need_data()))
            y[key] = value
            return y
        return _index_update_by_tensor(x, key, value)
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    return apply("IndexUpdate", xt, v, index=encode_index(key))


def _index_put(x, items, value):
    """x[items] = value with array indices, as one op the PYNATIVE tape records."""
    key = []
    for k in items:
        if isinstance(k, Tensor):
            k = k._need_data()
        if isinstance(k, (list, np.ndarray)):
            key.append(np.asarray(k))
        elif isinstance(k, slice):
            key.append(("slice", k.start, k.stop, k.step))
        elif k is Ellipsis:
            key.append("...")
        else:
            key.append(k)
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    return apply("IndexPut", xt, v, key=tuple(key))


def _index_update_by_tensor(x, key, value):
    """x[mask] = v (a bool tensor of x's shape) or x[i] = v (an int scalar tensor on the
    first axis), as Select over a mask: the shapes stay known."""
    from ..ir.errors import UnsupportedSyntaxError
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    k = key
    if isinstance(k, TensorLike) and k.dtype.is_bool:
        if k.type.shape != xt.type.shape:
            raise UnsupportedSyntaxError(
                f"item assignment with a bool mask of shape {k.type} into a tensor of type "
                f"{xt.type}", hint="use a mask of the tensor's shape, or ops.where")
        return where(k, v, xt)
    shape = xt.type.shape
    if isinstance(k, TensorLike) and k.dtype.is_integer and k.type.shape in ((), (1,)) and \
            shape and shape[0] is not None:
        n = shape[0]
        i = reshape(k, ())
        i = where(i < 0, i + n, i)
        rows = Tensor._wrap(np.arange(n, dtype=k.dtype.np))
        mask = reshape(equal(rows, i), (n,) + (1,) * (len(shape) - 1))
        return where(mask, v, xt)
    if isinstance(k, tuple) and k and isinstance(k[0], TensorLike) and \
            k[0].dtype.is_integer and k[0].type.shape in ((), (1,)) and shape and \
            shape[0] is not None and not builtins.any(isinstance(r, TensorLike)
                                                      for r in k[1:]):
        # x[i, rest] = v: update every row at `rest`, keep only row i
        n = shape[0]
        every_row = index_update(xt, (slice(None),) + tuple(k[1:]), v)
        i = reshape(k[0], ())
        i = where(i < 0, i + n, i)
        rows = Tensor._wrap(np.arange(n, dtype=k[0].dtype.np))
        mask = reshape(equal(rows, i), (n,) + (1,) * (len(shape) - 1))
        return where(mask, every_row, xt)
    pos = [j for j, r in enumerate(k)] if isinstance(k, tuple) else []
    pos = [j for j in pos if isinstance(k[j], TensorLike)]
    if len(pos) == 1 and shape and pos[0] < len(shape) and shape[pos[0]] is not None:
        p = pos[0]
        t = k[p]
        if t.dtype.is_integer and t.type.shape in ((), (1,)) and builtins.all(
                isinstance(r, slice) and r == slice(None) for r in k[:p]) and builtins.all(
                isinstance(r, (int, np.integer, slice)) and not isinstance(r, bool)
                for r in k[p + 1:]):
            # x[:, ..., i, rest] = v (buf[:, t] = token in a decoding loop): update axis p
            # everywhere at `rest`, keep only position i
            n = shape[p]
            target = getitem(xt, tuple(k[:p]) + (0,) + tuple(k[p + 1:]))
            vb = add(v, zeros_like(target))            # v in the shape x[key] has
            every = index_update(xt, tuple(k[:p]) + (slice(None),) + tuple(k[p + 1:]),
                                 expand_dims(vb, p))
            i = reshape(t, ())
            i = where(i < 0, i + n, i)
            rows = Tensor._wrap(np.arange(n, dtype=t.dtype.np))
            mask = reshape(equal(rows, i), (1,) * p + (n,) + (1,) * (len(shape) - p - 1))
            return where(mask, every, xt)
    raise UnsupportedSyntaxError(
        "item assignment with this tensor index (a bool mask of the tensor's shape, or one "
        "integer tensor on an axis after full slices (x[i], x[:, i]), possibly followed by "
        "ints and slices, keep the shapes known)", hint="use ops.where(mask, value, x)")


def identity(input):
    return apply("Identity", to_tensor(input))


def dtype(input):
    """The dtype of a tensor (known while the graph is built)."""
    if not isinstance(input, TensorLike):
        raise TypeError(f"For 'dtype', the input must be a Tensor, but got "
                        f"{type(input).__name__}.")
    return input.dtype


def switch(cond, true_value, false_value):
    """MindSpore's F.switch (the Switch primitive): true_value when the scalar bool cond
    holds, else false_value. A Python bool picks while the graph is built; a tensor
    condition picks when it runs, between two tensors of one dtype and shape."""
    if isinstance(cond, (bool, np.bool_)):
        return true_value if cond else false_value
    c = _t(cond)
    if tuple(c.shape) not in ((), (1,)) or not c.dtype.is_bool:
        raise TypeError(f"For 'Switch', the condition must be a bool scalar (a tensor of shape "
                        f"() or (1,)), got {c.dtype} of shape {tuple(c.shape)}")
    t, f = _t(true_value), _t(false_value)
    if t.dtype != f.dtype or tuple(t.shape) != tuple(f.shape):
        raise TypeError(f"For 'Switch', the two values must have one dtype and shape, got "
                        f"{t.dtype}{list(t.shape)} and {f.dtype}{list(f.shape)}")
    return where(reshape(c, ()), t, f)


def make_tuple(*inputs):
    """The tuple of the inputs (MindSpore's F.make_tuple)."""
    return tuple(inputs)


def tuple_getitem(x, index):
    """x[index] of a tuple (MindSpore's F.tuple_getitem)."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"tuple_getitem needs a tuple, got {type(x).__name__}")
    return x[index]


def tensor_scatter_update(input_x, indices, updates):
    """A copy of input_x with the updates slice at each index tuple (of an index given
    twice, the last update)."""
    x = _t(input_x)
    lin, n, rest, u, r = _scatter_parts(x, indices, updates, "tensor_scatter_update")
    m = lin.shape[0]
    if not isinstance(m, int):
        raise TypeError("tensor_scatter_update needs indices whose shape is known while the "
                        "graph is built")
    hot = one_hot(lin, n, Tensor._wrap(np.ones((), np.int64)),
                  Tensor._wrap(np.zeros((), np.int64)))              # (m, n)
    order = _const(np.arange(1, m + 1, dtype=np.int64).reshape(m, 1))
    last = sub(amax(mul(hot, order), 0), 1)                       # (n,): -1 if none
    picked = gather(u, maximum(last, 0), 0)                           # (n, r)
    flat = reshape(x, (n, r))
    out = where(expand_dims(greater_equal(last, 0), 1), picked, flat)
    return reshape(out, tuple(x.shape))
