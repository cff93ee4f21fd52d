"""Array operators as functions, with MindSpore 2.x names and signatures: reshaping,
joining and splitting, indexing, and the functions that make tensors.

Shapes, axes and sizes are Python values known while the graph is built; a tensor
where one is expected is a TypeError that says so.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import tape as _tape
from ..ir import dtypes as dt
from ..ir.defs.shape import encode_index
from ..common.tensor import SymbolicTensor, Tensor, TensorLike
from ._dispatch import apply, to_tensor

__all__ = [
    "reshape", "flatten", "transpose", "permute", "expand_dims", "unsqueeze", "squeeze",
    "concat", "cat", "stack", "split", "chunk", "tile", "broadcast_to", "gather", "shape",
    "tensor_shape", "rank", "size", "numel", "getitem", "zeros", "ones", "full", "full_like",
    "fill", "zeros_like", "ones_like", "arange",
]


def _t(x):
    return to_tensor(x)


def _int(x, what):
    if isinstance(x, TensorLike):
        raise TypeError(f"{what} must be a Python int known while the graph is built, not a "
                        f"tensor")
    if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
        raise TypeError(f"{what} must be an int, got {x!r}")
    return int(x)


def _int_tuple(shape, what):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, TensorLike):
        raise TypeError(f"{what} must be Python ints known while the graph is built, not a "
                        f"tensor")
    try:
        out = tuple(shape)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}") from None
    return tuple(_int(d, what) for d in out)


def _axes(axis, what):
    return None if axis is None else (
        _int(axis, what) if not isinstance(axis, (tuple, list)) else _int_tuple(axis, what))


# -- shapes --------------------------------------------------------------------------------
def reshape(input, shape):
    """The same elements in a new shape; one dim may be -1 (inferred). In a graph, an
    entry may be a dim of unknown size (x.reshape(x.shape[0], -1))."""
    x = _t(input)
    if isinstance(shape, (tuple, list)) and any(isinstance(d, TensorLike) for d in shape):
        if any(isinstance(d, SymbolicTensor) for d in shape) and hasattr(x, "_reshape_to"):
            return x._reshape_to(tuple(shape))
        if not any(isinstance(d, SymbolicTensor) for d in shape):   # eager int tensors
            shape = tuple(d.__index__() if isinstance(d, TensorLike) else d for d in shape)
    return apply("Reshape", x, shape=_int_tuple(shape, "reshape's shape"))


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Merge dims start_dim..end_dim into one; works with unknown dims."""
    if order != "C":
        raise ValueError(f"flatten: only order='C' is supported, got {order!r}")
    return apply("Flatten", _t(input), start_dim=_int(start_dim, "flatten's start_dim"),
                 end_dim=_int(end_dim, "flatten's end_dim"))


def transpose(input, input_perm=None):
    """Permute the dims (reverse them if input_perm is None)."""
    perm = None if input_perm is None else _int_tuple(input_perm, "transpose's perm")
    return apply("Transpose", _t(input), perm=perm)


def permute(input, axis):
    return transpose(input, axis)


def expand_dims(input_x, axis):
    """Insert a dim of size 1 at axis."""
    return apply("ExpandDims", _t(input_x), axis=_int(axis, "expand_dims' axis"))


def unsqueeze(input, dim):
    return expand_dims(input, dim)


def squeeze(input, axis=None):
    """Remove dims of size 1: those in axis, or all of them if axis is None."""
    return apply("Squeeze", _t(input), axis=_axes(axis, "squeeze's axis"))


def _seq(tensors, what):
    if isinstance(tensors, TensorLike):
        raise TypeError(f"{what} takes a tuple or list of tensors, not one tensor")
    return [_t(t) for t in tensors]


def concat(tensors, axis=0):
    """Join tensors along an existing axis."""
    if hasattr(tensors, "concatenated"):   # a list appended to in a Loop
        return tensors.concatenated(_int(axis, "concat's axis"))
    return apply("Concat", *_seq(tensors, "concat"), axis=_int(axis, "concat's axis"))


cat = concat


def stack(tensors, axis=0):
    """Join tensors of one shape along a new axis."""
    if hasattr(tensors, "stacked"):        # a list appended to in a Loop
        return tensors.stacked(_int(axis, "stack's axis"))
    return apply("Stack", *_seq(tensors, "stack"), axis=_int(axis, "stack's axis"))


def _dim_size(x, axis, what):
    s = x.shape
    if s is None or not isinstance(s, tuple):
        raise TypeError(f"{what} needs a tensor of known rank")
    if not -len(s) <= axis < len(s):
        raise ValueError(f"{what}: axis {axis} is out of range for a tensor of rank {len(s)}")
    n = s[axis]
    if not isinstance(n, int) or n < 0:
        raise TypeError(f"{what} needs the size of axis {axis} while the graph is built; it is "
                        f"unknown here")
    return axis % len(s), n


def _slices(x, axis, bounds):
    pre = (slice(None),) * axis
    return tuple(getitem(x, pre + (slice(a, b),)) for a, b in zip(bounds, bounds[1:]))


def split(tensor, split_size_or_sections, axis=0):
    """Split along axis into pieces of split_size (the last may be smaller), or into
    pieces of the sizes in a list of sections."""
    x = _t(tensor)
    axis, n = _dim_size(x, _int(axis, "split's axis"), "split")
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = _int_tuple(split_size_or_sections, "split's sections")
        if any(s < 0 for s in sizes) or sum(sizes) != n:
            raise ValueError(f"split: sections {list(sizes)} must be non-negative and add up "
                             f"to the size {n} of axis {axis}")
    else:
        step = _int(split_size_or_sections, "split's split_size")
        if step <= 0:
            raise ValueError(f"split: split_size must be positive, got {step}")
        sizes = [step] * (n // step) + ([n % step] if n % step else [])
    bounds = [0]
    for s in sizes:
        bounds.append(bounds[-1] + s)
    return _slices(x, axis, bounds)


def chunk(input, chunks, axis=0):
    """Split along axis into `chunks` pieces of ceil(size / chunks) (fewer if it runs out)."""
    x = _t(input)
    chunks = _int(chunks, "chunk's chunks")
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be positive, got {chunks}")
    axis, n = _dim_size(x, _int(axis, "chunk's axis"), "chunk")
    step = max(1, -(-n // chunks))
    return split(x, step, axis) if n else (x,)


def tile(input, multiples):
    """Repeat input multiples[i] times along dim i."""
    return apply("Tile", _t(input), multiples=_int_tuple(multiples, "tile's multiples"))


def broadcast_to(input, shape):
    """Broadcast input to shape; a -1 keeps the input's dim."""
    return apply("BroadcastTo", _t(input), shape=_int_tuple(shape, "broadcast_to's shape"))


def gather(input_params, input_indices, axis=0, batch_dims=0):
    """Slices of input_params along axis, chosen by integer indices."""
    if batch_dims != 0:
        raise ValueError(f"gather: only batch_dims=0 is supported, got {batch_dims}")
    return apply("Gather", _t(input_params), _t(input_indices),
                 axis=_int(axis, "gather's axis"))


def shape(input):
    """The shape as a tuple (unknown dims are int64 scalars in a graph)."""
    return _t(input).shape


def tensor_shape(input):
    """The shape as a 1-D int64 tensor."""
    return apply("Shape", _t(input))


def rank(input):
    return _t(input).ndim


def size(input):
    """The number of elements."""
    return _t(input).size


numel = size


def eager_slice_bounds(key):
    """key with the eager integer Tensors used as slice bounds (x[i:i + 1], as MindSpore's
    PYNATIVE mode takes them) turned into ints; graph values stay (the front-end refuses
    a slice of run-time bounds)."""
    def bound(p):
        return p.__index__() if isinstance(p, Tensor) else p

    def fix(k):
        if isinstance(k, slice) and any(isinstance(p, Tensor) for p in (k.start, k.stop,
                                                                         k.step)):
            return slice(bound(k.start), bound(k.stop), bound(k.step))
        return k
    if isinstance(key, tuple):
        return tuple(fix(k) for k in key)
    return fix(key)


def getitem(x, key):
    """x[key]: basic indexing, plus integer-tensor indices (a Gather per axis)."""
    key = eager_slice_bounds(key)
    items = key if isinstance(key, tuple) else (key,)
    tensor_pos = [i for i, k in enumerate(items) if isinstance(k, (TensorLike, list,
                                                                      np.ndarray))]
    if not tensor_pos:
        return apply("Index", x, index=encode_index(key))
    idx = [_t(items[i]) if not isinstance(items[i], TensorLike) else items[i]
           for i in tensor_pos]
    for t in idx:
        if t.dtype.is_bool:
            if isinstance(x, SymbolicTensor) or isinstance(t, SymbolicTensor):
                raise TypeError("indexing with a bool mask gives a shape known only at run "
                                "time; use ops.where(mask, x, 0) or ops.masked_fill instead")
            tape = _tape.current()
            if tape is not None and tape.tracks(x) and len(items) == 1 and t.ndim >= 1:
                # recorded as BooleanMask over the flattened masked dims (same values)
                rows = reshape(x, (-1,) + tuple(x.shape[t.ndim:]))
                return apply("BooleanMask", rows, reshape(t, (-1,)))
            return Tensor._wrap(np.asarray(x._need_data()[t._need_data()]))
    if len(tensor_pos) > 1 and any(t.ndim != 0 for t in idx if isinstance(t.ndim, int)):
        raise TypeError("several tensor indices at once (numpy advanced indexing) are not "
                        "supported; index one axis at a time")
    basic = list(items)
    for i in tensor_pos:
        basic[i] = slice(None)
    out = x
    if any(not (isinstance(k, slice) and k == slice(None)) for k in basic):
        out = apply("Index", x, index=encode_index(tuple(basic)))
    # the axis of each tensor index in `out`: count the items before it that keep a dim
    offset = 0
    for i, t in zip(tensor_pos, idx):
        axis = 0
        for k in items[:i]:
            if k is Ellipsis:
                raise TypeError("a tensor index after '...' is not supported")
            if k is None or isinstance(k, slice) or isinstance(k, TensorLike):
                axis += 1
        axis += offset
        if not t.dtype.is_integer:
            raise TypeError(f"tensor indices must be integers, got {t.dtype}")
        out = apply("Gather", out, t, axis=axis)
        nd = t.ndim if isinstance(t.ndim, int) else 0
        offset += nd - 1
    return out


# -- creation ------------------------------------------------------------------------------
def _dtype_of_value(value):
    """The dtype a Python fill value gives: bool, int64 for ints, float32 for floats."""
    if isinstance(value, (bool, np.bool_)):
        return dt.bool_
    if isinstance(value, (int, np.integer)):
        return dt.int64
    return dt.float32


def _fill(shape, value, dtype, what):
    if isinstance(value, TensorLike):
        raise TypeError(f"{what}'s fill value must be a Python number; use ops.broadcast_to "
                        f"for a tensor")
    if isinstance(shape, (tuple, list)) and any(isinstance(d, TensorLike) for d in shape):
        if any(isinstance(d, SymbolicTensor) for d in shape):
            return _fill_to(tuple(shape), value, dtype, what)
        shape = tuple(d.__index__() if isinstance(d, TensorLike) else d for d in shape)
    return apply("Fill", shape=_int_tuple(shape, f"{what}'s shape"), dtype=dt.as_dtype(dtype),
                 value=value)


def _fill_to(shape, value, dtype, what):
    """A fill whose shape holds dims of unknown size (ops.zeros((x.shape[0], H)) in a graph
    with a dynamic batch): FillTo over the shape as a 1-D int64 tensor."""
    parts, hint = [], []
    for d in shape:
        if isinstance(d, TensorLike):
            if d.type.shape not in ((), (1,)) or not d.dtype.is_integer:
                raise TypeError(f"{what}'s shape entries must be ints or integer scalars, got "
                                f"a tensor of type {d.type}")
            parts.append(reshape(apply("Cast", d, dtype=dt.int64), (1,)))
            hint.append(None)
        else:
            n = _int(d, f"{what}'s shape")
            if n < 0:
                raise ValueError(f"{what}: negative dimensions are not allowed: {shape}")
            parts.append(Tensor._wrap(np.array([n], np.int64)))
            hint.append(n)
    return apply("FillTo", concat(parts, 0), shape_hint=tuple(hint),
                 dtype=dt.as_dtype(dtype), value=value)


def zeros(size, dtype=None):
    """A tensor of zeros (float32 unless dtype is given)."""
    return _fill(size, 0, dt.float32 if dtype is None else dtype, "zeros")


def ones(shape, dtype=None):
    """A tensor of ones (float32 unless dtype is given)."""
    return _fill(shape, 1, dt.float32 if dtype is None else dtype, "ones")


def full(size, fill_value, *, dtype=None):
    """A tensor of fill_value; the dtype follows the value unless given."""
    return _fill(size, fill_value, _dtype_of_value(fill_value) if dtype is None else dtype,
                 "full")


def fill(type, shape, value):
    return _fill(shape, value, type, "fill")


def _like(op, input, dtype):
    return apply(op, _t(input), dtype=None if dtype is None else dt.as_dtype(dtype))


def zeros_like(input, *, dtype=None):
    """Zeros with input's shape (and dtype, unless given)."""
    return _like("ZerosLike", input, dtype)


def ones_like(input, *, dtype=None):
    """Ones with input's shape (and dtype, unless given)."""
    return _like("OnesLike", input, dtype)


def full_like(input, fill_value, *, dtype=None):
    """fill_value with input's shape (and dtype, unless given)."""
    ones_ = ones_like(input, dtype=dtype)
    return apply("Mul", ones_, to_tensor(fill_value, ones_.dtype))


def arange(start=0, end=None, step=1, *, dtype=None):
    """start, start + step, ... below end; int64 for int bounds, float32 otherwise."""
    if end is None:
        start, end = 0, start
    for v in (start, end, step):
        if isinstance(v, TensorLike):
            raise TypeError("arange bounds must be Python numbers known while the graph is "
                            "built")
    if dtype is None:
        dtype = dt.float32 if any(isinstance(v, float) for v in (start, end, step)) \
            else dt.int64
    return apply("Range", start=start, limit=end, delta=step, dtype=dt.as_dtype(dtype))
