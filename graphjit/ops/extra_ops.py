"""More MindSpore 2.x functions that model code calls in construct, written over the
registry's ops (so both modes, and gradients, come from those ops): swapaxes, tril/triu,
eye, norm, var/std, pad, flip, roll, bias_add, unstack/unbind, sequence_mask,
strided_slice/slice, index_select, narrow, hstack/vstack, mm, outer, isclose,
count_nonzero, clip_by_norm and clip_by_global_norm.

Shapes, axes and sizes are Python values known while the graph is built, as in
array_ops.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from ..ir import dtypes as dt
from ..common.tensor import SymbolicTensor, Tensor, TensorLike
from ._dispatch import apply, to_tensor
from .array_ops import (_dim_size, _int, _int_tuple, broadcast_to, concat, expand_dims,
                        full, gather, getitem, reshape, split, squeeze, stack, transpose,
                        zeros_like)
from .math_ops import (abs, amax, amin, cast, less, less_equal, logical_and, logical_or, maximum, mean,
                       minimum, mul, not_equal, pow, sqrt, sub, sum, where, isfinite, isnan, equal)
from .nn_ops import matmul

# `slice` is not in __all__ (it would shadow the builtin where this is star-imported);
# graphjit.ops imports it by name
__all__ = [
    "swapaxes", "swapdims", "tril", "triu", "eye", "norm", "var", "std", "pad", "flip",
    "roll", "bias_add", "unstack", "unbind", "sequence_mask", "strided_slice",
    "index_select", "narrow", "hstack", "vstack", "mm", "outer", "isclose", "count_nonzero",
    "clip_by_norm", "clip_by_global_norm", "repeat_elements_of", "repeat_interleave",
]


def _t(x):
    return to_tensor(x)


def _known_shape(x, what):
    s = x.shape
    if not isinstance(s, tuple) or not builtins.all(isinstance(d, int) for d in s):
        raise TypeError(f"{what} needs a tensor whose shape is known while the graph is "
                        f"built")
    return s


def _axis_of(axis, rank, what):
    a = _int(axis, what)
    if not -rank <= a < rank:
        raise ValueError(f"{what}: axis {a} is out of range for a tensor of rank {rank}")
    return a % rank


# -- shapes --------------------------------------------------------------------------------
def swapaxes(input, axis0, axis1):
    """input with dims axis0 and axis1 exchanged."""
    x = _t(input)
    r = x.ndim
    if not isinstance(r, int):
        raise TypeError("swapaxes needs a tensor of known rank")
    a, b = _axis_of(axis0, r, "swapaxes' axis0"), _axis_of(axis1, r, "swapaxes' axis1")
    perm = list(range(r))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, tuple(perm))


swapdims = swapaxes


def flip(input, dims):
    """input with the order of the elements reversed along each dim in dims."""
    x = _t(input)
    r = x.ndim
    dims = _int_tuple(dims, "flip's dims")
    key = [builtins.slice(None)] * r
    for d in dims:
        key[_axis_of(d, r, "flip's dims")] = builtins.slice(None, None, -1)
    return getitem(x, tuple(key))


def roll(input, shifts, dims=None):
    """Elements shifted along dims (the flattened tensor if dims is None), wrapping round."""
    x = _t(input)
    if dims is None:
        shape = _known_shape(x, "roll")
        return reshape(roll(reshape(x, (-1,)), shifts, 0), shape)
    shifts, dims = _int_tuple(shifts, "roll's shifts"), _int_tuple(dims, "roll's dims")
    if len(shifts) != len(dims):
        raise ValueError(f"roll: shifts {list(shifts)} and dims {list(dims)} must have the "
                         f"same length")
    out = x
    for s, d in zip(shifts, dims):
        d, n = _dim_size(out, d, "roll")
        if n == 0 or s % n == 0:
            continue
        s %= n
        pre = (builtins.slice(None),) * d
        out = concat((getitem(out, pre + (builtins.slice(n - s, None),)),
                      getitem(out, pre + (builtins.slice(0, n - s),))), d)
    return out


def unstack(input_x, axis=0):
    """The slices of input_x along axis, as a tuple."""
    x = _t(input_x)
    return tuple(squeeze(p, axis) for p in split(x, 1, axis))


def unbind(input, dim=0):
    return unstack(input, dim)


def narrow(input, axis, start, length):
    """input[..., start:start + length, ...] along axis."""
    x = _t(input)
    axis, n = _dim_size(x, _int(axis, "narrow's axis"), "narrow")
    start, length = _int(start, "narrow's start"), _int(length, "narrow's length")
    if start < 0:
        start += n
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise ValueError(f"narrow: start {start} and length {length} do not fit axis {axis} "
                         f"of size {n}")
    return getitem(x, (builtins.slice(None),) * axis + (builtins.slice(start, start + length),))


def slice(input_x, begin, size):
    """The block of input_x that starts at begin and has size (-1: to the end) per dim."""
    x = _t(input_x)
    begin, size = _int_tuple(begin, "slice's begin"), _int_tuple(size, "slice's size")
    if len(begin) != len(size) or len(begin) != x.ndim:
        raise ValueError(f"slice: begin {list(begin)} and size {list(size)} must have one "
                         f"entry per dim of the input (rank {x.ndim})")
    key = tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return getitem(x, key)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """input_x[begin:end:strides] per dim, with MindSpore's (TensorFlow's) bit masks: bit i
    of begin_mask/end_mask ignores begin[i]/end[i], of ellipsis_mask makes entry i a '...',
    of new_axis_mask a new axis, of shrink_axis_mask an integer index begin[i]."""
    begin = _int_tuple(begin, "strided_slice's begin")
    end = _int_tuple(end, "strided_slice's end")
    strides = _int_tuple(strides, "strided_slice's strides")
    if not len(begin) == len(end) == len(strides):
        raise ValueError("strided_slice: begin, end and strides must have the same length")
    masks = [_int(m, "strided_slice's masks") for m in
             (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)]
    if builtins.any(s == 0 for s in strides):
        raise ValueError("strided_slice: strides cannot be zero")
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks[2] & bit:
            key.append(Ellipsis)
        elif masks[3] & bit:
            key.append(None)
        elif masks[4] & bit:
            key.append(b)
        else:
            key.append(builtins.slice(None if masks[0] & bit else b,
                                      None if masks[1] & bit else e, s))
    return getitem(_t(input_x), tuple(key))


def index_select(input, axis, index):
    """The slices of input along axis at the positions in the 1-D integer tensor index."""
    idx = _t(index)
    if idx.ndim != 1:
        raise ValueError(f"index_select: index must be 1-D, got rank {idx.ndim}")
    return gather(input, idx, _int(axis, "index_select's axis"))


def hstack(tensors):
    """Join along axis 1 (axis 0 for 1-D tensors)."""
    ts = [_t(t) for t in tensors]
    return concat(ts, 0 if ts and ts[0].ndim == 1 else 1)


def vstack(tensors):
    """Join along axis 0, 1-D tensors as rows."""
    ts = [_t(t) for t in tensors]
    return concat([expand_dims(t, 0) if t.ndim == 1 else t for t in ts], 0)


# -- masks and matrices -----------------------------------------------------------------
def _triangle(input, diagonal, lower, what):
    x = _t(input)
    shape = x.shape
    if not isinstance(shape, tuple) or len(shape) < 2 or not builtins.all(
            isinstance(d, int) for d in shape[-2:]):
        raise TypeError(f"{what} needs a tensor of rank 2 or more whose last two dims are "
                        f"known while the graph is built")
    k = _int(diagonal, f"{what}'s diagonal")
    n, m = shape[-2:]
    keep = np.tril(np.ones((n, m), bool), k) if lower else np.triu(np.ones((n, m), bool), k)
    return where(Tensor._wrap(keep), x, zeros_like(x))


def tril(input, diagonal=0):
    """input with the elements above the diagonal-th diagonal set to zero."""
    return _triangle(input, diagonal, True, "tril")


def triu(input, diagonal=0):
    """input with the elements below the diagonal-th diagonal set to zero."""
    return _triangle(input, diagonal, False, "triu")


def eye(n, m=None, dtype=None):
    """The n x m identity matrix (float32 unless dtype is given)."""
    n = _int(n, "eye's n")
    m = n if m is None else _int(m, "eye's m")
    d = dt.float32 if dtype is None else dt.as_dtype(dtype)
    return cast(Tensor._wrap(np.eye(n, m, dtype=np.float32)), d)


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


def mm(input, mat2):
    """The matrix product of two 2-D tensors."""
    a, b = _t(input), _t(mat2)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"mm takes 2-D tensors, got ranks {a.ndim} and {b.ndim}")
    return matmul(a, b)


def outer(input, vec2):
    """out[i, j] = input[i] * vec2[j] for 1-D tensors."""
    a, b = _t(input), _t(vec2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer takes 1-D tensors, got ranks {a.ndim} and {b.ndim}")
    return mul(expand_dims(a, 1), expand_dims(b, 0))


def bias_add(input_x, bias, data_format="NCHW"):
    """input_x + bias along the channel axis (1 for NCHW/NCDHW, the last for NHWC)."""
    x, b = _t(input_x), _t(bias)
    if b.ndim != 1:
        raise ValueError(f"bias_add: bias must be 1-D, got rank {b.ndim}")
    if data_format not in ("NCHW", "NHWC", "NCDHW"):
        raise ValueError(f"bias_add: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got "
                         f"{data_format!r}")
    if x.ndim < 2:
        raise ValueError(f"bias_add: input_x must have rank 2 or more, got {x.ndim}")
    if data_format == "NHWC" or x.ndim == 2:
        return x + b
    return x + reshape(b, (-1,) + (1,) * (x.ndim - 2))


# -- statistics and norms --------------------------------------------------------------
def _float(x):
    return x if x.dtype.is_floating else cast(x, dt.float32)


def _count(x, axis):
    shape = x.shape
    axes = range(len(shape)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    n = 1
    for a in axes:
        d = shape[_axis_of(a, len(shape), "the axis")]
        if not isinstance(d, int):
            raise TypeError("var/std need the sizes of the reduced dims while the graph is "
                            "built")
        n *= d
    return n


def var(input, axis=None, ddof=0, keepdims=False):
    """The variance over axis (all elements if None); the divisor is N - ddof."""
    x = _float(_t(input))
    ddof = int(ddof)
    if isinstance(axis, list):
        axis = tuple(axis)
    m = mean(x, axis, True)
    n = _count(x, axis)
    return sum((x - m) * (x - m), axis, keepdims) / builtins.max(n - ddof, 0)


def std(input, axis=None, ddof=0, keepdims=False):
    """The standard deviation over axis (all elements if None)."""
    return sqrt(var(input, axis, ddof, keepdims))


def _vector_norm(x, ord, dim, keepdim):
    if ord == math.inf:
        return amax(abs(x), dim, keepdim)
    if ord == -math.inf:
        return amin(abs(x), dim, keepdim)
    if ord == 0:
        return sum(cast(not_equal(x, 0), x.dtype), dim, keepdim)
    if ord == 1:
        return sum(abs(x), dim, keepdim)
    if ord == 2:
        return sqrt(sum(x * x, dim, keepdim))
    return pow(sum(pow(abs(x), ord), dim, keepdim), 1.0 / ord)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """The vector norm of A over dim (of all elements if dim is None and ord is None or
    'fro'); ord is a number, inf or -inf, or 'fro' (the 2-norm of the elements)."""
    x = _t(A)
    if dtype is not None:
        x = cast(x, dtype)
    x = _float(x)
    if isinstance(dim, list):
        dim = tuple(dim)
    if isinstance(ord, str):
        if ord != "fro":
            raise ValueError(f"norm: ord={ord!r} is not supported (use None, 'fro', a number, "
                             f"inf or -inf)")
        return sqrt(sum(x * x, dim, keepdim))
    if ord is None:
        return sqrt(sum(x * x, dim, keepdim))
    if isinstance(ord, TensorLike) or not isinstance(ord, (int, float)):
        raise TypeError(f"norm: ord must be a Python number, got {ord!r}")
    if dim is None and x.ndim != 1:
        raise ValueError("norm: a numeric ord needs dim (or a 1-D input): matrix norms are "
                         "not supported")
    if isinstance(dim, tuple) and len(dim) != 1:
        raise ValueError("norm: a numeric ord over several dims (a matrix norm) is not "
                         "supported")
    return _vector_norm(x, ord, dim, keepdim)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (NaNs equal if equal_nan)."""
    a, b = _t(input), _t(other)
    out = less_equal(abs(sub(a, b)), atol + rtol * abs(b))
    out = logical_or(out, equal(a, b))   # infinities of the same sign
    if equal_nan:
        out = logical_or(out, logical_and(isnan(a), isnan(b)))
    return out


def count_nonzero(x, axis=(), keep_dims=False, dtype=dt.int32):
    """The number of non-zero elements over axis (all if ())."""
    t = _t(x)
    return cast(sum(cast(not_equal(t, 0), dt.int32), None if axis == () else axis,
                    keep_dims), dtype)


# -- clipping (gradient clipping in training steps) -------------------------------------
def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """The tensors of x scaled by clip_norm / max(global_norm, clip_norm), where
    global_norm is the 2-norm of all their elements: a tuple like x."""
    ts = [_t(t) for t in x]
    if use_norm is None:
        total = None
        for t in ts:
            s = sum(_float(t) * _float(t))
            total = s if total is None else total + s
        global_norm = sqrt(total)
    else:
        global_norm = _t(use_norm)
    scale = clip_norm / maximum(global_norm, to_tensor(float(clip_norm), global_norm.dtype))
    return tuple(t * cast(scale, t.dtype) for t in ts)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """x (a tensor, or a list or tuple of them) scaled so that the norm_type-norm of all
    their elements is at most max_norm: by min(1, max_norm / (total_norm + 1e-6))."""
    single = isinstance(x, TensorLike)
    ts = [_t(x)] if single else [_t(t) for t in x]
    if norm_type == math.inf:
        total = None
        for t in ts:
            m = amax(abs(_float(t)))
            total = m if total is None else maximum(total, m)
    else:
        p = float(norm_type)
        acc = None
        for t in ts:
            s = sum(pow(abs(_float(t)), p))
            acc = s if acc is None else acc + s
        total = pow(acc, 1.0 / p)
    if error_if_nonfinite:
        message = "clip_by_norm: the total norm of the inputs is nan or inf"
        ok = isfinite(total)
        if isinstance(ok, SymbolicTensor):
            apply("Check", ok, error="RuntimeError", message=message)
        elif not bool(np.all(ok._need_data())):
            raise RuntimeError(message)
    coef = minimum(max_norm / (total + 1e-6), to_tensor(1.0, total.dtype))
    out = [t * cast(coef, t.dtype) for t in ts]
    if single:
        return out[0]
    return type(x)(out) if isinstance(x, (list, tuple)) else tuple(out)


# -- padding ---------------------------------------------------------------------------------
def pad(input_x, padding, mode="constant", value=None):
    """input_x padded: padding is (left, right) for the last dim, then (top, bottom) for the
    one before, and so on; mode 'constant' (value, 0 by default), 'reflect' or
    'replicate'. Negative padding removes elements."""
    x = _t(input_x)
    p = _int_tuple(padding, "pad's padding")
    if len(p) % 2 or len(p) // 2 > x.ndim:
        raise ValueError(f"pad: padding {list(p)} must have an even length of at most twice "
                         f"the input's rank {x.ndim}")
    if mode not in ("constant", "reflect", "replicate"):
        raise ValueError(f"pad: mode must be 'constant', 'reflect' or 'replicate', got "
                         f"{mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"pad: value is only for mode 'constant', not {mode!r}")
    out = x
    for i in range(len(p) // 2):
        axis = x.ndim - 1 - i
        lo, hi = p[2 * i], p[2 * i + 1]
        out = _pad_axis(out, axis, lo, hi, mode, 0 if value is None else value)
    return out


def _pad_axis(x, axis, lo, hi, mode, value):
    pre = (builtins.slice(None),) * axis
    _, n = _dim_size(x, axis, "pad")
    if lo < 0:
        x, n, lo = getitem(x, pre + (builtins.slice(-lo, None),)), n + lo, 0
    if hi < 0:
        x, n, hi = getitem(x, pre + (builtins.slice(0, n + hi),)), n + hi, 0
    if lo == 0 and hi == 0:
        return x
    parts = []
    if mode == "constant":
        shape = _known_shape(x, "pad")
        for k in (lo, hi):
            block = None
            if k:
                block = cast(full(shape[:axis] + (k,) + shape[axis + 1:], value), x.dtype)
            parts.append(block)
    elif mode == "replicate":
        if n == 0:
            raise ValueError("pad: 'replicate' needs a non-empty dim")
        shape = x.shape
        for k, edge in ((lo, 0), (hi, n - 1)):
            block = None
            if k:
                e = getitem(x, pre + (builtins.slice(edge, edge + 1),))
                block = broadcast_to(e, (-1,) * axis + (k,) + (-1,) * (len(shape) - axis - 1))
            parts.append(block)
    else:   # reflect: the edge itself is not repeated
        if lo >= n or hi >= n:
            raise ValueError(f"pad: 'reflect' padding ({lo}, {hi}) must be less than the dim "
                             f"size {n}")
        left = getitem(x, pre + (builtins.slice(lo, 0, -1),)) if lo else None
        stop = n - 2 - hi if n - 2 - hi >= 0 else None
        right = getitem(x, pre + (builtins.slice(n - 2, stop, -1),)) if hi else None
        parts = [left, right]
    pieces = [t for t in (parts[0], x, parts[1]) if t is not None]
    return concat(pieces, axis)


# -- repeating elements --------------------------------------------------------------------
def repeat_elements_of(input, repeats, axis=None):
    """Each element repeated `repeats` times along axis (of the flattened tensor if axis is
    None), as numpy.repeat with an int: Tensor.repeat and ops.repeat_interleave."""
    x = _t(input)
    if isinstance(repeats, (tuple, list)) and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, TensorLike) or not isinstance(repeats, int) or \
            isinstance(repeats, bool):
        raise TypeError(f"repeat: repeats must be a Python int (one count for every "
                        f"element), got {repeats!r}")
    if repeats < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {repeats}")
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis, n = _dim_size(x, _int(axis, "repeat's axis"), "repeat")
    shape = _known_shape(x, "repeat")
    y = broadcast_to(expand_dims(x, axis + 1),
                     shape[:axis + 1] + (repeats,) + shape[axis + 1:])
    return reshape(y, shape[:axis] + (n * repeats,) + shape[axis + 1:])


def repeat_interleave(input, repeats, axis=None):
    """ops.repeat_interleave: see repeat_elements_of."""
    return repeat_elements_of(input, repeats, axis)
