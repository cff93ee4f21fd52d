"""MindSpore's `mindspore.ops.function.array_func`: shapes, joins and splits, indexing,
gathers and scatters, fills, where/cast/max/min/argmax, one_hot, sorting."""
from __future__ import annotations

import builtins
import numpy as np

from .._dispatch import apply, is_weak, to_tensor
from .._utils import _axes, _axis_of, _int, _int_tuple, _known_shape, _pair, _t
from ...autodiff import current_tape, tape as _tape
from ...ir import dtypes as dt
from ...common.eager_fast import cached, cached2, remember, take_one
from ...common.tensor import SymbolicTensor, Tensor, TensorLike
from ...ir.defs.shape import encode_index

__all__ = ["reshape", "flatten", "transpose", "expand_dims", "unsqueeze", "squeeze", "concat",
           "cat", "stack", "split", "chunk", "tile", "broadcast_to", "gather", "shape",
           "tensor_shape", "rank", "size", "getitem", "zeros", "ones", "full", "full_like", "fill",
           "zeros_like", "ones_like", "arange", "swapaxes", "swapdims", "tril", "triu", "eye",
           "unstack", "unbind", "strided_slice", "index_select", "narrow", "hstack",
           "repeat_elements_of", "repeat_interleave", "where", "select", "masked_fill", "cast",
           "scalar_to_tensor", "tuple_to_array", "one_hot", "topk", "sort", "unique",
           "gather_elements"]


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
    if type(tensors) in (list, tuple) and type(axis) is int:   # eager Tensors seen before
        r = cached("Stack", tensors, axis)
        if r is not None:
            return r
    if hasattr(tensors, "stacked"):        # a list appended to in a Loop
        return tensors.stacked(_int(axis, "stack's axis"))
    r = apply("Stack", *_seq(tensors, "stack"), axis=_int(axis, "stack's axis"))
    if type(tensors) in (list, tuple) and type(axis) is int:
        remember("Stack", tensors, axis, {"axis": axis}, many=True)
    return r


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
    plain = type(axis) is int and batch_dims == 0
    if plain:             # eager Tensors: one index in range, or a signature seen before
        r = take_one(input_params, input_indices, axis)
        if r is None:
            r = cached2("Gather", input_params, input_indices, axis)
        if r is not None:
            return r
    if batch_dims != 0:
        raise ValueError(f"gather: only batch_dims=0 is supported, got {batch_dims}")
    r = apply("Gather", _t(input_params), _t(input_indices), axis=_int(axis, "gather's axis"))
    if plain:
        remember("Gather", (input_params, input_indices), axis, {"axis": axis})
    return r


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
    if not isinstance(x, TensorLike):
        raise TypeError(f"getitem: x must be a Tensor, got {type(x).__name__}")
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


# -- statistics and norms --------------------------------------------------------------
def _float(x):
    return x if x.dtype.is_floating else cast(x, dt.float32)


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


def where(condition, input, other):
    """input where condition else other (broadcasting all three); input and other are
    promoted together as a binary operator would."""
    c = _t(condition)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    both_weak = is_weak(input) and is_weak(other)
    x, y = _pair(input, other)
    out = apply("Select", c, x, y)
    if both_weak and isinstance(out, SymbolicTensor):
        out.weak = True       # a choice between Python numbers is a Python number
    return out


def select(cond, x, y):
    return where(cond, x, y)


def masked_fill(input_x, mask, value):
    """input_x with value wherever mask is true; value takes input_x's dtype."""
    x = _t(input_x)
    v = to_tensor(value, x.dtype)
    return where(mask, v, x)


def cast(input, dtype):
    return apply("Cast", _t(input), dtype=dt.as_dtype(dtype))


# -- reductions ----------------------------------------------------------------------------
def _axis(axis, what="axis"):
    if axis is None or axis == () or axis == []:
        return None
    if isinstance(axis, TensorLike):
        raise TypeError(f"the {what} of a reduction must be a Python int or tuple of ints, "
                        f"not a tensor")
    if isinstance(axis, list):
        return tuple(axis)
    return axis


def scalar_to_tensor(input_x, dtype=dt.float32):
    """A 0-d tensor of `dtype` holding a number (a Python number or one-element tensor)."""
    d = dt.as_dtype(dtype)
    if isinstance(input_x, TensorLike):
        out = apply("Cast", input_x, dtype=d)
        if getattr(out, "weak", False):
            out.weak = False
        return out
    if not isinstance(input_x, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"scalar_to_tensor needs a number, got {type(input_x).__name__}")
    return Tensor._wrap(np.asarray(input_x, dtype=d.np))


def tuple_to_array(input_x):
    """A 1-D tensor of a tuple of numbers (ints give int64, floats float32)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError("tuple_to_array needs a non-empty tuple of numbers")
    tape = current_tape()
    if any(isinstance(v, SymbolicTensor) or (tape is not None and tape.tracks(v))
           for v in input_x):
        return stack([to_tensor(v) for v in input_x])
    return Tensor(tuple(input_x))


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


def _int_arg(v, what):
    if isinstance(v, TensorLike) or not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{what} must be a Python int known while the graph is built, got "
                        f"{v!r}")
    return v


def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, indices) of the k largest (smallest if not largest) elements along dim
    (the last one if None), largest first. An unsorted result comes sorted too."""
    return apply("TopK", to_tensor(input), k=_int_arg(k, "topk's k"),
                 axis=-1 if dim is None else _int_arg(dim, "topk's dim"), largest=bool(largest),
                 sorted=bool(sorted))


def sort(input_x, axis=-1, descending=False):
    """(values, indices): input_x sorted along axis, and where each value came from."""
    return apply("Sort", to_tensor(input_x), axis=_int_arg(axis, "sort's axis"),
                 descending=bool(descending))


def unique(input):
    """(y, idx): the distinct elements of input (flattened) in order of first occurrence,
    and for each element of input the index of its value in y. y's length is known only
    when the program runs."""
    return apply("Unique", to_tensor(input))


def gather_elements(input, dim, index):
    """out[i][j][k] = input[index[i][j][k]][j][k] for dim 0 (likewise for other dims):
    the elements of input picked along dim by index, in index's shape."""
    return apply("GatherD", to_tensor(input), to_tensor(index),
                 dim=_int_arg(dim, "gather_elements' dim"))
