"""Operators that move data without arithmetic: Reshape, Flatten, Transpose, ExpandDims,
Squeeze, Concat, Stack, Index (basic indexing and slicing), IndexUpdate, Gather, Shape,
BroadcastTo, Tile."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..errors import ShapeInferenceError
from ..registry import REQUIRED, register_op
from ..types import TensorType, format_shape, num_elements
from .common import broadcast_shapes, fail, norm_axis, promote_all, unify_shapes

__all__ = ["encode_index", "decode_index", "IndexOutOfRangeError"]


class IndexOutOfRangeError(ShapeInferenceError, IndexError):
    """An integer index outside a known dim (IndexError, as numpy raises)."""


IndexOutOfRangeError.__str__ = ShapeInferenceError.__str__


# -- Reshape -------------------------------------------------------------------------------
def _reshape_infer(ts, attrs):
    (x,) = ts
    shape = attrs["shape"]
    if not isinstance(shape, tuple) or not all(isinstance(d, (int, np.integer)) and
                                               not isinstance(d, bool) for d in shape):
        raise fail("Reshape", f"shape must be a tuple of ints, got {shape!r}")
    shape = tuple(int(d) for d in shape)
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise fail("Reshape", f"shape {shape} may hold at most one -1 and no other negative dim")
    n = num_elements(x.shape)
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if n is None:
        part = 1
        for d in (x.shape or ()):
            part *= 1 if d is None else d
        if -1 not in shape and x.shape is not None and part and known % part:
            raise fail("Reshape", f"cannot reshape {x} to {shape}: {known} elements are not "
                                  f"a multiple of the {part} the known dims hold")
        return TensorType(x.dtype, tuple(None if d == -1 else d for d in shape))
    if -1 in shape:
        if known == 0 or n % known:
            raise fail("Reshape", f"cannot reshape {x} ({n} elements) to {shape}: {n} is "
                                  f"not a multiple of {known}",
                       hint=f"the dims other than -1 must divide {n}")
        shape = tuple(n // known if d == -1 else d for d in shape)
    elif known != n:
        raise fail("Reshape", f"cannot reshape {x} ({n} elements) to {shape} ({known} "
                              f"elements)",
                   hint=f"the new shape must hold {n} elements; one dim may be -1 to infer it")
    return TensorType(x.dtype, shape)


register_op("Reshape", ("x",), {"shape": REQUIRED}, infer=_reshape_infer,
            kernel=lambda x, shape: np.reshape(x, shape), exact_dtype=True, family="shape",
            doc="same elements in a new shape; one dim may be -1 (inferred)")


def _reshape_to_infer(ts, attrs):
    x, s = ts
    hint = attrs["shape_hint"]
    if not s.dtype.is_integer or s.shape is None or len(s.shape) != 1 or \
            s.shape[0] != len(hint):
        raise fail("ReshapeTo", f"shape must be a 1-D integer tensor of {len(hint)} dims, got "
                                f"{s}")
    if not all(d is None or isinstance(d, int) and d >= 0 for d in hint):
        raise fail("ReshapeTo", f"shape_hint must hold non-negative ints and None, got {hint}")
    return TensorType(x.dtype, tuple(hint))


def _reshape_to_kernel(x, shape, shape_hint):
    out = np.reshape(x, tuple(int(d) for d in shape))
    if any(h is not None and h != d for h, d in zip(shape_hint, out.shape)):
        raise ValueError(f"cannot reshape an array of shape {np.shape(x)} to "
                         f"{tuple(int(d) for d in shape)}")
    return out


register_op("ReshapeTo", ("x", "shape"), {"shape_hint": REQUIRED}, infer=_reshape_to_infer,
            kernel=_reshape_to_kernel, exact_dtype=True, family="extern",
            doc="x in the shape the 1-D int tensor `shape` holds (one entry may be -1), its "
                "dims known while building in shape_hint (None where known only at run "
                "time): x.reshape(b, -1) with b a dim of unknown size")


# -- Flatten -------------------------------------------------------------------------------
def _flatten_range(shape, start, end):
    r = len(shape)
    if r == 0:
        return 0, 0
    return norm_axis("Flatten", start, r), norm_axis("Flatten", end, r)


def _flatten_infer(ts, attrs):
    (x,) = ts
    if x.shape is None:
        return TensorType(x.dtype, None)
    if not x.shape:
        return TensorType(x.dtype, (1,))
    a, b = _flatten_range(x.shape, attrs["start_dim"], attrs["end_dim"])
    if a > b:
        raise fail("Flatten", f"start_dim {attrs['start_dim']} comes after end_dim "
                              f"{attrs['end_dim']} for {x}")
    n = num_elements(x.shape[a:b + 1])
    return TensorType(x.dtype, x.shape[:a] + (n,) + x.shape[b + 1:])


def _flatten_kernel(x, start_dim, end_dim):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.reshape(1)
    a, b = _flatten_range(x.shape, start_dim, end_dim)
    return x.reshape(x.shape[:a] + (-1,) + x.shape[b + 1:])


register_op("Flatten", ("x",), {"start_dim": 1, "end_dim": -1}, infer=_flatten_infer,
            kernel=_flatten_kernel, exact_dtype=True, family="shape",
            doc="merge dims start_dim..end_dim into one (a scalar becomes shape (1,)); works "
                "with unknown dims, unlike Reshape")


# -- Transpose -----------------------------------------------------------------------------
def _transpose_infer(ts, attrs):
    (x,) = ts
    perm = attrs["perm"]
    if x.shape is None:
        return x
    r = len(x.shape)
    if perm is None:
        perm = tuple(reversed(range(r)))
    perm = tuple(perm)
    if len(perm) != r or not all(isinstance(p, (int, np.integer)) and -r <= p < r
                                 for p in perm) or sorted(p % r for p in perm) != list(range(r)):
        raise fail("Transpose", f"perm {perm} is not a permutation of the {r} dims of {x}")
    return TensorType(x.dtype, tuple(x.shape[p] for p in perm))


register_op("Transpose", ("x",), {"perm": None}, infer=_transpose_infer,
            kernel=lambda x, perm: np.transpose(x, perm), exact_dtype=True, family="shape",
            doc="permute the dims (reverse them if perm is None)")


# -- ExpandDims / Squeeze ------------------------------------------------------------------
def _expand_infer(ts, attrs):
    (x,) = ts
    if x.shape is None:
        return x
    a = norm_axis("ExpandDims", attrs["axis"], len(x.shape), extra=1)
    return TensorType(x.dtype, x.shape[:a] + (1,) + x.shape[a:])


register_op("ExpandDims", ("x",), {"axis": REQUIRED}, infer=_expand_infer,
            kernel=lambda x, axis: np.expand_dims(x, axis), exact_dtype=True, family="shape",
            doc="insert a dim of size 1 at axis")


def _squeeze_axes(shape, axis):
    if axis is None or axis == ():
        if any(d is None for d in shape):
            return None
        return tuple(i for i, d in enumerate(shape) if d == 1)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = norm_axis("Squeeze", a, len(shape))
        if shape[a] is not None and shape[a] != 1:
            raise fail("Squeeze", f"cannot squeeze dim {a} of size {shape[a]} (only size 1)")
        out.append(a)
    return tuple(sorted(set(out)))


def _squeeze_infer(ts, attrs):
    (x,) = ts
    if x.shape is None:
        return x
    axes = _squeeze_axes(x.shape, attrs["axis"])
    if axes is None:
        return TensorType(x.dtype, None)
    return TensorType(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _squeeze_kernel(x, axis):
    if axis is None or axis == ():
        return np.squeeze(x)
    return np.squeeze(x, axis=axis if isinstance(axis, int) else tuple(axis))


register_op("Squeeze", ("x",), {"axis": None}, infer=_squeeze_infer, kernel=_squeeze_kernel,
            exact_dtype=True, family="shape", doc="remove dims of size 1 (all if axis is None)")


# -- Concat / Stack ------------------------------------------------------------------------
def _concat_infer(ts, attrs):
    if not ts:
        raise fail("Concat", "needs at least one tensor")
    dtype = promote_all([t.dtype for t in ts])
    ranks = {t.rank for t in ts if t.rank is not None}
    if len(ranks) > 1:
        raise fail("Concat", "inputs have different ranks: "
                   + ", ".join(str(t) for t in ts))
    if not ranks:
        return TensorType(dtype, None)
    r = ranks.pop()
    if r == 0:
        raise fail("Concat", "cannot concatenate scalars (rank 0); use Stack")
    a = norm_axis("Concat", attrs["axis"], r)
    out = []
    for i in range(r):
        dims = [t.shape[i] for t in ts if t.shape is not None]
        if i == a:
            unknown = len(dims) < len(ts) or any(d is None for d in dims)
            out.append(None if unknown else sum(dims))
            continue
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise fail("Concat", f"dim {i} differs between inputs: "
                       + ", ".join(str(t) for t in ts))
        out.append(known.pop() if known else None)
    return TensorType(dtype, tuple(out))


def _concat_factory(in_types, out_types, attrs):
    axis, odt = attrs["axis"], out_types[0].dtype.np
    return lambda *xs: np.concatenate(xs, axis=axis).astype(odt, copy=False)


register_op("Concat", ("*xs",), {"axis": 0}, infer=_concat_infer,
            kernel=lambda *xs, axis: np.concatenate(xs, axis=axis),
            kernel_factory=_concat_factory, family="shape",
            doc="join tensors along an existing axis")


def _stack_infer(ts, attrs):
    if not ts:
        raise fail("Stack", "needs at least one tensor")
    dtype = promote_all([t.dtype for t in ts])
    shape = unify_shapes("Stack", [t.shape for t in ts])
    if shape is None:
        return TensorType(dtype, None)
    a = norm_axis("Stack", attrs["axis"], len(shape), extra=1)
    return TensorType(dtype, shape[:a] + (len(ts),) + shape[a:])


def _stack_factory(in_types, out_types, attrs):
    axis, odt = attrs["axis"], out_types[0].dtype.np
    shape = out_types[0].shape
    if shape is not None and len(shape) >= 2 and axis in (0, -len(shape)):
        # along the first axis: the inputs' elements one after another, which is what
        # one concatenate gives (the same array as np.stack's, without its Python work
        # per input: a third of its time for 32 rows)
        def stack0(*xs):
            c = np.concatenate(xs)
            return c.reshape((len(xs), c.shape[0] // len(xs)) + c.shape[1:])
        if all(t.dtype.np == odt for t in in_types):
            return stack0
        return lambda *xs: stack0(*xs).astype(odt, copy=False)
    return lambda *xs: np.stack(xs, axis=axis).astype(odt, copy=False)


register_op("Stack", ("*xs",), {"axis": 0}, infer=_stack_infer,
            kernel=lambda *xs, axis: np.stack(xs, axis=axis), kernel_factory=_stack_factory,
            family="shape", doc="join tensors of one shape along a new axis")


# -- Index (basic indexing and slicing) ----------------------------------------------------
def encode_index(key) -> tuple:
    """A Python index (int, slice, None, Ellipsis or a tuple of them) as plain data:
    ints, None, '...' and ('slice', start, stop, step)."""
    items = key if isinstance(key, tuple) else (key,)
    out = []
    for k in items:
        if k is None or k is Ellipsis:
            out.append("..." if k is Ellipsis else None)
        elif isinstance(k, slice):
            parts = []
            for p in (k.start, k.stop, k.step):
                if p is not None and (not isinstance(p, (int, np.integer)) or
                                      isinstance(p, bool)):
                    raise TypeError(f"Slice indices must be integers or bool. (slice "
                                    f"bounds must be ints or None, got {p!r})")
                parts.append(None if p is None else int(p))
            if parts[2] == 0:
                raise ValueError("slice step cannot be zero")
            out.append(("slice", *parts))
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError("indexing with a bool is not supported; use ops.masked_select "
                            "or ops.where")
        elif isinstance(k, (int, np.integer)):
            out.append(int(k))
        else:
            raise TypeError(f"unsupported index {k!r}: use ints, slices, None and ...")
    if out.count("...") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return tuple(out)


def decode_index(items) -> tuple:
    return tuple(slice(*i[1:]) if isinstance(i, tuple) else
                 (Ellipsis if i == "..." else i) for i in items)


def _index_infer(ts, attrs):
    (x,) = ts
    items = attrs["index"]
    consumed = sum(1 for i in items if i is not None and i != "...")
    if x.shape is None:
        return TensorType(x.dtype, None)
    r = len(x.shape)
    if consumed > r:
        raise IndexOutOfRangeError(
            f"Index: too many indices for a tensor of rank {r}: {consumed} were given")
    expanded = []
    for i in items:
        if i == "...":
            expanded.extend([("slice", None, None, None)] * (r - consumed))
        else:
            expanded.append(i)
    if "..." not in items:
        expanded.extend([("slice", None, None, None)] * (r - consumed))
    out, dim = [], 0
    for i in expanded:
        if i is None:
            out.append(1)
            continue
        d = x.shape[dim]
        dim += 1
        if isinstance(i, tuple):
            out.append(None if d is None else len(range(*slice(*i[1:]).indices(d))))
        else:
            if d is not None and not -d <= i < d:
                raise IndexOutOfRangeError(
                    f"Index: index {i} is out of bounds for dim {dim - 1} of size {d}")
    return TensorType(x.dtype, tuple(out))


def _index_factory(in_types, out_types, attrs):
    key = decode_index(attrs["index"])
    return lambda x: np.asarray(x)[key]


register_op("Index", ("x",), {"index": REQUIRED}, infer=_index_infer,
            kernel=lambda x, index: np.asarray(x)[decode_index(index)],
            kernel_factory=_index_factory, exact_dtype=True, family="shape",
            doc="basic indexing: ints, slices, None (new axis) and ...")


# -- Gather --------------------------------------------------------------------------------
def _gather_infer(ts, attrs):
    x, idx = ts
    if not idx.dtype.is_integer:
        raise fail("Gather", f"indices must be integers, got {idx.dtype}")
    if x.shape is None or idx.shape is None:
        return TensorType(x.dtype, None)
    if not x.shape:
        raise fail("Gather", "cannot index a scalar (rank 0)")
    a = norm_axis("Gather", attrs["axis"], len(x.shape))
    return TensorType(x.dtype, x.shape[:a] + idx.shape + x.shape[a + 1:])


def _gather_factory(in_types, out_types, attrs):
    axis = attrs["axis"]

    def gather(x, idx):
        x, i = np.asarray(x), np.asarray(idx)
        n = x.shape[axis]
        if i.ndim == 0:                      # one index: no reductions (2 us)
            if not -n <= int(i) < n:
                raise IndexError(f"index {int(i)} is out of range for a dim of size {n}")
        elif i.size and (i.min() < -n or i.max() >= n):
            raise IndexError(f"index {int(i.max() if i.max() >= n else i.min())} is out of "
                             f"range for a dim of size {n}")
        return x.take(i, axis)       # np.take(x, i, axis=axis) without its Python wrapper
    return gather


def _gather_kernel(x, idx, axis):
    return _gather_factory(None, None, {"axis": axis})(x, idx)


register_op("Gather", ("x", "indices"), {"axis": 0}, infer=_gather_infer,
            kernel=_gather_kernel, kernel_factory=_gather_factory, exact_dtype=True,
            family="extern",
            doc="select slices of x along axis by integer indices (negative ones count "
                "from the end)")


# -- Shape, BroadcastTo, Tile --------------------------------------------------------------
def _shape_infer(ts, attrs):
    return TensorType(dt.int64, (ts[0].rank,))


register_op("Shape", ("x",), infer=_shape_infer,
            kernel=lambda x: np.asarray(np.shape(x), dtype=np.int64), exact_dtype=True,
            family="shape", doc="the dims of x as a 1-D int64 tensor")


def _bcast_target(x_shape, shape):
    """The target shape with each -1 (keep the input's dim) filled in; None if unknown."""
    lead = len(shape) - len(x_shape)
    out = []
    for i, d in enumerate(shape):
        if d == -1:
            if i < lead:
                raise fail("BroadcastTo", f"-1 at dim {i} of {shape} has no input dim to keep")
            d = x_shape[i - lead]
        out.append(d)
    return tuple(out)


def _bcast_infer(ts, attrs):
    (x,) = ts
    shape = tuple(attrs["shape"])
    if any(d < -1 for d in shape):
        raise fail("BroadcastTo", f"shape {shape} may hold only non-negative dims and -1")
    if x.shape is None:
        return TensorType(x.dtype, None if -1 in shape else shape)
    if len(x.shape) > len(shape):
        raise fail("BroadcastTo", f"cannot broadcast {x} to the lower rank {shape}")
    target = _bcast_target(x.shape, shape)
    out = broadcast_shapes("BroadcastTo", x.shape, target)
    lead = len(target) - len(x.shape)
    for i, (d, t) in enumerate(zip(x.shape, target[lead:])):
        if d is not None and t is not None and d not in (1, t):
            raise fail("BroadcastTo", f"cannot broadcast {x} to {format_shape(target)}: "
                                      f"dim {i} is {d}")
    return TensorType(x.dtype, tuple(t if t is not None else o for t, o in zip(target, out)))


def _bcast_kernel(x, shape):
    x = np.asarray(x)
    return np.broadcast_to(x, _bcast_target(x.shape, tuple(shape)))


register_op("BroadcastTo", ("x",), {"shape": REQUIRED}, infer=_bcast_infer,
            kernel=_bcast_kernel, exact_dtype=True, family="shape",
            doc="broadcast x to a shape (-1 keeps the input's dim)")


def _tile_infer(ts, attrs):
    (x,) = ts
    reps = tuple(attrs["multiples"])
    if x.shape is None:
        return x
    shape = (1,) * (len(reps) - len(x.shape)) + x.shape
    reps = (1,) * (len(shape) - len(reps)) + reps
    return TensorType(x.dtype, tuple(None if d is None else d * r for d, r in zip(shape, reps)))


register_op("Tile", ("x",), {"multiples": REQUIRED}, infer=_tile_infer,
            kernel=lambda x, multiples: np.tile(x, multiples), exact_dtype=True,
            family="shape", doc="repeat x along each dim")


# -- IndexUpdate (x[index] = value, as a new value) ----------------------------------------
def _index_update_infer(ts, attrs):
    x, v = ts
    sub = _index_infer((x,), attrs)
    if v.shape is not None and sub.shape is not None:
        broadcast_shapes("IndexUpdate", sub.shape, v.shape)
        if len(v.shape) > len(sub.shape) and any(d not in (1, None) for d in
                                                 v.shape[:len(v.shape) - len(sub.shape)]):
            raise fail("IndexUpdate", f"cannot assign {v} into a slice of shape {sub}")
    return x


def _index_update_factory(in_types, out_types, attrs):
    key = decode_index(attrs["index"])
    odt = out_types[0].dtype.np

    def k(x, v):
        y = np.array(x, dtype=odt, copy=True)
        y[key] = np.asarray(v).astype(odt, copy=False)
        return y
    return k


register_op("IndexUpdate", ("x", "value"), {"index": REQUIRED}, infer=_index_update_infer,
            kernel=lambda x, v, index: _index_update_factory(
                None, (TensorType(dt.from_numpy(np.asarray(x).dtype), None),),
                {"index": index})(x, v),
            kernel_factory=_index_update_factory, exact_dtype=True, family="extern",
            doc="a copy of x with x[index] = value (value cast to x's dtype)")


# -- BooleanMask (the rows of x where mask is true) ---------------------------------------------
def _boolean_mask_infer(ts, attrs):
    x, m = ts
    if not m.dtype.is_bool:
        raise fail("BooleanMask", f"the mask must be bool, got {m}")
    if m.shape is not None and len(m.shape) != 1:
        raise fail("BooleanMask", f"the mask must be 1-D, got {m}")
    if x.shape is None:
        return TensorType(x.dtype, None)
    if not x.shape:
        raise fail("BooleanMask", "cannot mask a scalar (rank 0)")
    if m.shape is not None and None not in (m.shape[0], x.shape[0]) and \
            m.shape[0] != x.shape[0]:
        raise fail("BooleanMask", f"mask {m} does not fit the first dim of {x}")
    return TensorType(x.dtype, (None,) + x.shape[1:])


register_op("BooleanMask", ("x", "mask"), infer=_boolean_mask_infer,
            kernel=lambda x, mask: np.asarray(x)[np.asarray(mask, dtype=bool)],
            exact_dtype=True, family="extern",
            doc="the rows of x (along axis 0) where mask is true: a first dim known only at "
                "run time")
