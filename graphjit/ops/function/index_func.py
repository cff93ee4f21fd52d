"""Array functions that compute or use indices, on top of array_func and math_func:
max/min/argmax (values and their indices), nonzero, masked_select, gather_nd, scatter_nd,
tensor_scatter_add, sequence_mask, and slice (kept out of array_func, whose functions use the
builtin slice) (MindSpore keeps them all in `array_func`)."""
from __future__ import annotations

import builtins
import math
import numpy as np

from .array_func import (broadcast_to, cast, expand_dims, gather, getitem, one_hot, ones_like,
                         reshape, stack, transpose, where, zeros)
from .math_func import _extreme, _masked, add, cumsum, less, matmul, mul, not_equal, sub, sum
from .._dispatch import apply, to_tensor
from .._utils import _const, _int, _int_tuple, _rank, _shape, _t
from ...ir import dtypes as dt
from ...common.tensor import Tensor, TensorLike

__all__ = ["max", "min", "argmax", "sequence_mask", "masked_select", "nonzero", "gather_nd",
           "tensor_scatter_add", "scatter_nd"]


def _with_index(op, arg_op, fn_name, input, axis, keepdims, initial, mask):
    x = _masked(input, initial, mask, fn_name)
    if axis is None:   # MindSpore: keepdims is ignored and the index is always 0
        return _extreme(op, x, None, False, initial), to_tensor(0, dt.int64)
    return (_extreme(op, x, axis, keepdims, initial),
            apply(arg_op, x, axis=axis, keep_dims=bool(keepdims)))


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices) of the maximum along axis, as MindSpore 2.x. With axis None the
    values are the maximum of all elements and the index is 0."""
    return _with_index("ReduceMax", "ArgMax", "max", input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices) of the minimum along axis; see max."""
    return _with_index("ReduceMin", "ArgMin", "min", input, axis, keepdims, initial, where)


def argmax(input, dim=None, keepdim=False, *, axis=None):
    """int64 index of the maximum along dim (of the flattened tensor if None); `axis` is
    numpy's name for dim."""
    if axis is not None:
        if dim is not None:
            raise TypeError("argmax: give dim or axis, not both")
        dim = axis
    return apply("ArgMax", _t(input), axis=dim, keep_dims=bool(keepdim))


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]: a bool tensor of lengths' shape plus maxlen."""
    lens = _t(lengths)
    if maxlen is None:
        if not isinstance(lens, Tensor):
            raise TypeError("sequence_mask: maxlen must be given in a graph (the mask's "
                            "length would be known only at run time)")
        maxlen = int(np.max(lens._need_data())) if lens.size else 0
    maxlen = _int(maxlen, "sequence_mask's maxlen")
    steps = Tensor._wrap(np.arange(maxlen, dtype=lens.dtype.np))
    return less(steps, expand_dims(lens, -1))


# -- run-time length selections ------------------------------------------------------------
def masked_select(input, mask):
    """The elements of input where mask (broadcast against it) is true, as a 1-D tensor
    whose length is known only when the program runs."""
    x, m = _t(input), _t(mask)
    if not m.dtype.is_bool:
        raise TypeError(f"masked_select: mask must be bool, got {m.dtype}")
    if x.type.shape != m.type.shape:   # static shapes (None: known only at run time)
        target = np.broadcast_shapes(_shape(x, "masked_select"), _shape(m, "masked_select"))
        x, m = broadcast_to(x, target), broadcast_to(m, target)
    return apply("BooleanMask", reshape(x, (-1,)), reshape(m, (-1,)))


def nonzero(input, *, as_tuple=False):
    """The indices (int64) of input's nonzero elements, one row (z, ndim) per element in
    row-major order; as_tuple gives one 1-D tensor per dim instead."""
    x = _t(input)
    r = _rank(x, "nonzero")
    if not r:
        raise ValueError("nonzero: the input must have rank 1 or more")
    shape = tuple(x.shape)
    flags = not_equal(x, 0) if not x.dtype.is_bool else x
    if builtins.all(isinstance(d, int) for d in shape):
        coords = _const(np.indices(shape, dtype=np.int64).reshape(r, -1).T.copy())
    else:   # dims known only at run time: each coordinate is a running count along its axis
        one = ones_like(flags, dtype=dt.int64)
        coords = reshape(stack([sub(cumsum(one, k), 1) for k in range(r)], -1), (-1, r))
    rows = apply("BooleanMask", coords, reshape(flags, (-1,)))
    if as_tuple:
        return tuple(getitem(rows, (builtins.slice(None), k)) for k in range(len(shape)))
    return rows


# -- gathering and scattering by index tuples -----------------------------------------------
def _linear_index(x, indices, what, dynamic_first=False):
    """(flat index of each index tuple, x's first K dims flattened, the rest of x's
    dims). indices may have dims known only at run time but its last one (K)."""
    idx = _t(indices)
    if not idx.dtype.is_integer:
        raise TypeError(f"{what}: indices must be integers, got {idx.dtype}")
    ishape = idx.shape
    if not isinstance(ishape, tuple) or not ishape or not isinstance(ishape[-1], int):
        raise TypeError(f"{what}: indices must have rank 1 or more and a last dim known "
                        f"while the graph is built, got shape {ishape}")
    xshape = tuple(x.shape) if isinstance(x.shape, tuple) else None
    if xshape is None or not builtins.all(isinstance(d, int) for d in xshape[1:]) or \
            not (dynamic_first or isinstance(xshape[0], int)):
        raise TypeError(f"{what} needs an input whose shape is known while the graph is "
                        f"built{' (but for its first dim)' if dynamic_first else ''}, got "
                        f"shape {x.shape}")
    k = ishape[-1]
    if not 1 <= k <= len(xshape):
        raise ValueError(f"{what}: index tuples of length {k} for an input of rank "
                         f"{len(xshape)}")
    strides = np.array([math.prod(xshape[i + 1:k]) for i in range(k)], dtype=np.int64)
    if isinstance(xshape[0], int):
        bounds = _const(np.array(xshape[:k], dtype=np.int64))
    else:   # the first dim is a run-time value
        bounds = stack([cast(_t(d), dt.int64) for d in xshape[:k]])
    idx = cast(idx, dt.int64)
    idx = where(less(idx, 0), add(idx, bounds), idx)   # negative: from the end
    lin = sum(mul(idx, _const(strides)), -1)
    n = math.prod(xshape[:k]) if isinstance(xshape[0], int) else -1
    return lin, n, xshape[k:]


def gather_nd(input_x, indices):
    """out[i...] = input_x[indices[i..., 0], ..., indices[i..., K-1]] (the rest of
    input_x's dims kept): shape indices.shape[:-1] + input_x.shape[K:]."""
    x = _t(input_x)
    lin, n, rest = _linear_index(x, indices, "gather_nd", dynamic_first=True)
    return gather(reshape(x, (n,) + rest), lin, 0)


def _scatter_parts(x, indices, updates, what):
    lin, n, rest = _linear_index(x, indices, what)
    u = _t(updates)
    want = tuple(lin.shape) + tuple(rest)
    got = tuple(u.shape) if isinstance(u.shape, tuple) else None
    if got is None or len(got) != len(want) or builtins.any(
            isinstance(a, int) and isinstance(b, int) and a != b for a, b in zip(got, want)):
        raise ValueError(f"{what}: updates must have shape indices.shape[:-1] + "
                         f"input_x.shape[K:] ({want}), got {u.shape}")
    r = math.prod(rest)
    return reshape(lin, (-1,)), n, rest, reshape(cast(u, x.dtype), (-1, r)), r


def tensor_scatter_add(input_x, indices, updates):
    """A copy of input_x with each updates slice added at its index tuple (an index
    given twice gets both)."""
    x = _t(input_x)
    lin, n, rest, u, r = _scatter_parts(x, indices, updates, "tensor_scatter_add")
    hot = one_hot(lin, n, Tensor._wrap(np.ones((), x.dtype.np)),
                  Tensor._wrap(np.zeros((), x.dtype.np)))            # (m, n)
    added = matmul(transpose(hot, (1, 0)), u)                           # (n, r)
    return add(x, reshape(added, tuple(x.shape)))


def scatter_nd(indices, updates, shape):
    """Zeros of shape with the updates slices added at their index tuples."""
    u = _t(updates)
    if isinstance(shape, TensorLike):
        raise TypeError("scatter_nd's shape must be Python ints known while the graph is "
                        "built")
    return tensor_scatter_add(zeros(tuple(shape), u.dtype), indices, u)


def slice(input_x, begin, size):
    """The block of input_x that starts at begin and has size (-1: to the end) per dim."""
    x = _t(input_x)
    begin, size = _int_tuple(begin, "slice's begin"), _int_tuple(size, "slice's size")
    if len(begin) != len(size) or len(begin) != x.ndim:
        raise ValueError(f"slice: begin {list(begin)} and size {list(size)} must have one "
                         f"entry per dim of the input (rank {x.ndim})")
    key = tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return getitem(x, key)
