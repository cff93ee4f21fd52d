"""ONNX node -> graphjit nodes: shape ops (Reshape, Slice, Split, Pad, Compress...) and
constants (the network ops are in import_net.py). Values graphjit takes as attributes
(axes, shapes, pads) must be constants in the file; opset differences (attribute in
old opsets, input in new ones) are handled per op."""
from __future__ import annotations

import math

import numpy as np

from ..ir import dtypes as D
from .import_ops import NodeCx, check_elements, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_ALL = ("slice", None, None, None)


def _rank(cx: NodeCx, v, what="input") -> int:
    if v.shape is None:
        raise cx.refuse(f"the {what}'s rank must be known while building ({v.type})")
    return len(v.shape)


def _norm(cx, axis, rank, what="axis"):
    if not -rank <= axis < max(rank, 1):
        raise cx.where.damaged(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def _slice_along(cx, x, axis, start, stop, step=None):
    r = _rank(cx, x)
    return cx.emit("Index", x, index=tuple(("slice", start, stop, step) if i == axis else _ALL
                                             for i in range(r)))


# -- constants ------------------------------------------------------------------------------------
@op("Constant")
def _constant(cx):
    a = cx.attrs
    given = [k for k in a.items]
    if len(given) != 1:
        raise cx.where.damaged(f"a Constant needs exactly one value attribute, got "
                               f"{given or 'none'}")
    k = given[0]
    if k == "value":
        return [a.tensor("value")]
    if k == "value_float":
        return [np.array(a.float(k), np.float32)]
    if k == "value_floats":
        return [np.array(a.floats(k), np.float32)]
    if k == "value_int":
        return [np.array(a.int(k), np.int64)]
    if k == "value_ints":
        return [np.array(a.ints(k), np.int64)]
    if k in ("value_string", "value_strings"):
        raise cx.refuse("string constants have no graphjit dtype")
    if k == "sparse_value":
        raise cx.refuse("sparse constants are not supported")
    raise cx.where.damaged(f"unknown Constant attribute '{k}'")


@op("ConstantOfShape")
def _constant_of_shape(cx):
    shape = cx.ints(0, "shape")
    if any(d < 0 for d in shape):
        raise cx.where.damaged(f"negative dim in shape {list(shape)}")
    check_elements(cx, shape)
    value = cx.attrs.tensor("value", np.zeros(1, np.float32))
    if value.size != 1:
        raise cx.where.damaged(f"value must hold one element, got {value.size}")
    dtype = D.from_numpy(value.dtype)
    return [cx.emit("Fill", shape=tuple(shape), dtype=dtype, value=value.reshape(-1)[0].item())]


@op("Range")
def _range(cx):
    vals = [cx.const(i, w) for i, w in enumerate(("start", "limit", "delta"))]
    for v in vals:
        if v is None or v.size != 1:
            raise cx.where.damaged("start, limit and delta must be scalars")
    start, limit, delta = (v.reshape(-1)[0].item() for v in vals)
    if delta == 0:
        raise cx.where.damaged("delta must not be 0")
    n = max(0, math.ceil((limit - start) / delta))
    check_elements(cx, (n,))
    dtype = D.from_numpy(vals[0].dtype)
    if dtype.is_floating:   # ONNX adds delta n times; arange multiplies: the same in f64
        out = (start + np.arange(n, dtype=np.float64) * delta).astype(dtype.np)
        return [cx.array(out)]
    return [cx.emit("Range", start=start, limit=limit, delta=delta, dtype=dtype)]


# -- shapes ---------------------------------------------------------------------------------------
@op("Shape")
def _shape(cx):
    x = cx.x(0)
    s = cx.emit("Shape", x)
    start, end = cx.attrs.int("start", 0), cx.attrs.int("end", None)
    if start == 0 and end is None:
        return [s]
    return [cx.emit("Index", s, index=(("slice", start, end, None),))]


@op("Size")
def _size(cx):
    return [cx.emit("ReduceProd", cx.emit("Shape", cx.x(0)), axis=None, keep_dims=False)]


@op("Reshape")
def _reshape(cx):
    x = cx.x(0)
    if cx.opset < 5:
        shape = cx.attrs.ints("shape")
    else:
        shape = None
        b = cx.scope.names.get(cx.names[1]) if cx.has(1) else None
        s_val = cx.x(1)
        from .import_ops import evaluate
        c = b if isinstance(b, np.ndarray) else evaluate(s_val)
        if c is not None:
            shape = tuple(int(d) for d in c.reshape(-1))
    allowzero = cx.attrs.int("allowzero", 0)
    if shape is not None:
        out = []
        for i, d in enumerate(shape):
            if d == 0 and not allowzero:
                if x.shape is None or i >= len(x.shape):
                    raise cx.where.damaged(f"shape {list(shape)} copies dim {i}, which the "
                                           f"input {x.type} lacks")
                d = x.shape[i]
                if d is None:
                    break
            out.append(d)
        else:
            return [cx.emit("Reshape", x, shape=tuple(out))]
    # the shape is known only when the graph runs
    s = cx.x(1)
    if s.shape is None or len(s.shape) != 1:
        raise cx.refuse(f"the shape must be a 1-D tensor, got {s.type}")
    hint = None
    if s.shape[0] is not None:
        hint = tuple(None if shape is None or shape[i] in (0, -1) else shape[i]
                     for i in range(s.shape[0]))
    if not allowzero:
        if s.shape[0] is None or x.shape is None:
            raise cx.refuse("a run-time Reshape shape needs its length and the input's rank "
                            "known while building (a 0 copies an input dim)")
        k = s.shape[0]
        dims = cx.emit("Shape", x)
        if k > len(x.shape):
            pad = cx.array(np.ones(k - len(x.shape), np.int64))
            dims = cx.emit("Concat", dims, pad, axis=0)
        elif k < len(x.shape):
            dims = cx.emit("Index", dims, index=(("slice", 0, k, None),))
        s = cx.emit("Select", cx.emit("Equal", s, cx.scalar(0, s)), cx.keep(dims, s.dtype), s)
    return [cx.emit("ReshapeDynamic", x, cx.keep(s, D.int64), shape_hint=hint)]


@op("Flatten")
def _flatten(cx):
    x = cx.x(0)
    r = _rank(cx, x)
    a = cx.attrs.int("axis", 1)
    a = a + r if a < 0 else a
    if not 0 <= a <= r:
        raise cx.where.damaged(f"axis {cx.attrs.int('axis', 1)} is out of range for rank {r}")
    if all(d is not None for d in x.shape):
        lead = math.prod(x.shape[:a])
        return [cx.emit("Reshape", x, shape=(lead, math.prod(x.shape[a:])))]
    y = x if a < r else cx.emit("ExpandDims", x, axis=-1)
    y = cx.emit("Flatten", y, start_dim=a, end_dim=-1)
    if a == 0:
        return [cx.emit("ExpandDims", y, axis=0)]
    return [cx.emit("Flatten", y, start_dim=0, end_dim=a - 1) if a > 1 else y]


@op("Transpose")
def _transpose(cx):
    perm = cx.attrs.ints("perm", None)
    return [cx.emit("Transpose", cx.x(0), perm=perm)]


def _axes(cx, since):
    if cx.opset < since:
        return cx.attrs.ints("axes", None)
    return cx.ints(1, "axes")


@op("Squeeze")
def _squeeze(cx):
    axes = _axes(cx, 13)
    axis = None if not axes else axes[0] if len(axes) == 1 else tuple(axes)
    return [cx.emit("Squeeze", cx.x(0), axis=axis)]


@op("Unsqueeze")
def _unsqueeze(cx):
    x = cx.x(0)
    axes = _axes(cx, 13)
    if not axes:
        raise cx.where.damaged("Unsqueeze needs axes")
    r = _rank(cx, x) + len(axes)
    norm = sorted({_norm(cx, a, r) for a in axes})
    if len(norm) != len(axes):
        raise cx.where.damaged(f"axes {list(axes)} name a dim twice")
    for a in norm:
        x = cx.emit("ExpandDims", x, axis=a)
    return [x]


@op("Concat")
def _concat(cx):
    xs = cx.xs()
    if len({v.dtype for v in xs}) > 1:
        raise cx.where.damaged("the inputs have different dtypes")
    return [cx.emit("Concat", *xs, axis=cx.attrs.int("axis"))]


@op("Gather")
def _gather(cx):
    return [cx.emit("Gather", cx.x(0), cx.x(1), axis=cx.attrs.int("axis", 0))]


@op("GatherElements")
def _gather_elements(cx):
    return [cx.emit("GatherD", cx.x(0), cx.x(1), dim=cx.attrs.int("axis", 0))]


@op("Expand")
def _expand(cx):
    x = cx.x(0)
    shape = cx.ints(1, "shape")
    check_elements(cx, shape)
    xs = x.shape
    if xs is None:
        raise cx.refuse("Expand needs the input's rank while building")
    r = max(len(xs), len(shape))
    xs_full = (1,) * (r - len(xs)) + tuple(xs)
    sh_full = (1,) * (r - len(shape)) + tuple(shape)
    target = []
    for i, (a, b) in enumerate(zip(xs_full, sh_full)):
        if b == 1:
            target.append(-1 if i >= r - len(xs) else 1)
        elif a in (1, None) or a == b:
            target.append(b)
        else:
            raise cx.where.damaged(f"cannot expand {x.type} to {list(shape)}")
    return [cx.emit("BroadcastTo", x, shape=tuple(target))]


@op("Tile")
def _tile(cx):
    reps = cx.ints(1, "repeats")
    x = cx.x(0)
    if x.shape is not None and len(reps) != len(x.shape):
        raise cx.where.damaged(f"repeats {list(reps)} must have one entry per dim of {x.type}")
    if any(r < 0 for r in reps):
        raise cx.where.damaged(f"negative repeats {list(reps)}")
    if x.shape is not None and all(d is not None for d in x.shape):
        check_elements(cx, [d * r for d, r in zip(x.shape, reps)])
    return [cx.emit("Tile", x, multiples=tuple(reps))]


@op("Slice")
def _slice(cx):
    x = cx.x(0)
    r = _rank(cx, x)
    if cx.opset < 10:
        starts, ends = cx.attrs.ints("starts"), cx.attrs.ints("ends")
        axes, steps = cx.attrs.ints("axes", None), None
    else:
        from .import_ops import evaluate
        if any(evaluate(cx.x(i)) is None for i in (1, 2)) and _one_bound(cx):
            return [_dynamic_slice(cx, x, r)]
        starts, ends = cx.ints(1, "starts"), cx.ints(2, "ends")
        axes, steps = cx.ints(3, "axes"), cx.ints(4, "steps")
    axes = tuple(range(len(starts))) if axes is None else axes
    steps = (1,) * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise cx.where.damaged("starts, ends, axes and steps must have one length")
    index = [_ALL] * r
    seen = set()
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = _norm(cx, a, r)
        if a in seen:
            raise cx.where.damaged(f"axis {a} is sliced twice")
        seen.add(a)
        if st == 0:
            raise cx.where.damaged("a slice step cannot be 0")
        index[a] = ("slice", s, e, st)
    return [cx.emit("Index", x, index=tuple(index))]


def _one_bound(cx) -> bool:
    """Whether a Slice's bounds hold one integer each (one axis sliced)."""
    from ..ir.types import num_elements
    return all(num_elements(cx.x(i).shape) == 1 and cx.x(i).dtype.is_integer for i in (1, 2))


def _dynamic_slice(cx, x, r):
    """A Slice of one axis, step 1, whose bounds are known only at run time: SliceRows
    (the axis moved first and back when it is not axis 0)."""
    axes, steps = cx.ints(3, "axes"), cx.ints(4, "steps")
    start, stop = cx.x(1), cx.x(2)
    if steps not in (None, (1,)):
        raise cx.refuse("a Slice with run-time bounds must have step 1")
    axis = _norm(cx, 0 if axes is None else axes[0], r) if axes is None or len(axes) == 1 \
        else None
    if axis is None:
        raise cx.refuse("a Slice with run-time bounds must slice one axis")
    start, stop = (cx.emit("Reshape", v, shape=()) if v.shape else v for v in (start, stop))
    if x.shape is None:
        raise cx.refuse("a Slice with run-time bounds needs the input's rank")
    perm = None
    if axis:
        perm = (axis,) + tuple(i for i in range(r) if i != axis)
        x = cx.emit("Transpose", x, perm=perm)
    y = cx.emit("SliceRows", x, start, stop)
    if perm is not None:
        y = cx.emit("Transpose", y, perm=tuple(int(i) for i in np.argsort(perm)))
    return y


@op("Split")
def _split(cx):
    x = cx.x(0)
    r = _rank(cx, x)
    axis = _norm(cx, cx.attrs.int("axis", 0), r)
    n_out = len(cx.node.output)
    sizes = cx.attrs.ints("split", None) if cx.opset < 13 else cx.ints(1, "split")
    d = x.shape[axis]
    if sizes is None:
        if d is None:
            raise cx.refuse("an even Split needs the split dim known while building")
        parts = cx.attrs.int("num_outputs", n_out) if cx.opset >= 18 else n_out
        if parts < 1:
            raise cx.where.damaged(f"num_outputs must be positive, got {parts}")
        if cx.opset >= 18 and cx.attrs.has("num_outputs"):
            size = -(-d // parts)
            sizes = tuple(min(size, max(d - i * size, 0)) for i in range(parts))
        else:
            if d % parts:
                raise cx.where.damaged(f"dim {d} does not split evenly in {parts}")
            sizes = (d // parts,) * parts
    if any(s < 0 for s in sizes) or (d is not None and sum(sizes) != d):
        raise cx.where.damaged(f"split sizes {list(sizes)} do not add up to dim {d}")
    if len(sizes) != n_out:
        raise cx.where.damaged(f"{len(sizes)} split sizes for {n_out} outputs")
    outs, at = [], 0
    for s in sizes:
        outs.append(_slice_along(cx, x, axis, at, at + s))
        at += s
    return outs


@op("Pad")
def _pad(cx):
    x = cx.x(0)
    r = _rank(cx, x)
    mode = cx.attrs.string("mode", "constant")
    if cx.opset < 11:
        pads = cx.attrs.ints("pads" if cx.opset >= 2 else "paddings")
        value = np.asarray(cx.attrs.float("value", 0.0), x.dtype.np)
        axes = None
    else:
        pads = cx.ints(1, "pads")
        c = cx.const(2, "constant value")
        value = np.zeros((), x.dtype.np) if c is None else np.asarray(c).reshape(-1)
        if value.size > 1:
            raise cx.where.damaged("the constant value must be a scalar")
        value = value.reshape(()) if value.size else np.zeros((), x.dtype.np)
        axes = cx.ints(3, "axes")
    axes = tuple(range(r)) if axes is None else tuple(_norm(cx, a, r) for a in axes)
    if len(pads) != 2 * len(axes):
        raise cx.where.damaged(f"pads {list(pads)} must have two entries per padded axis")
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise cx.where.damaged(f"unknown Pad mode '{mode}'")
    y = x
    k = len(axes)
    for j, a in enumerate(axes):
        before, after = pads[j], pads[j + k]
        y = _pad_axis(cx, y, a, before, after, mode, value)
    return [y if y is not x else cx.emit("Identity", x)]


def _pad_axis(cx, y, a, before, after, mode, value):
    d = y.shape[a]
    if before < 0 or after < 0:
        y = _slice_along(cx, y, a, max(-before, 0), None if after >= 0 else after)
        before, after = max(before, 0), max(after, 0)
        d = y.shape[a]
    if not before and not after:
        return y
    if any(s is None for s in y.shape):
        raise cx.refuse("Pad needs a static input shape")
    pieces = []
    for n, side in ((before, 0), (after, 1)):
        if not n:
            pieces.append(None)
            continue
        if mode == "constant":
            shape = tuple(n if i == a else s for i, s in enumerate(y.shape))
            check_elements(cx, shape)
            pieces.append(cx.emit("Fill", shape=shape, dtype=y.dtype, value=value.item()))
        elif mode == "edge":
            if d == 0:
                raise cx.where.damaged("edge padding of an empty dim")
            edge = _slice_along(cx, y, a, 0, 1) if side == 0 else _slice_along(cx, y, a, d - 1,
                                                                                 d)
            pieces.append(cx.emit("Tile", edge, multiples=tuple(n if i == a else 1
                                                                for i in range(len(y.shape)))))
        elif mode == "wrap":
            if n > d:
                raise cx.refuse(f"wrap padding {n} larger than the dim {d}")
            pieces.append(_slice_along(cx, y, a, d - n, d) if side == 0 else
                          _slice_along(cx, y, a, 0, n))
        else:
            if n >= d:
                raise cx.where.damaged(f"reflect padding {n} needs a dim larger than {d}")
            piece = _slice_along(cx, y, a, n, 0, -1) if side == 0 else \
                _slice_along(cx, y, a, d - 2, d - 2 - n, -1)
            pieces.append(piece)
    parts = [p for p in (pieces[0], y, pieces[1]) if p is not None]
    return cx.emit("Concat", *parts, axis=a)


@op("OneHot")
def _one_hot(cx):
    idx = cx.x(0)
    depth = cx.const(1, "depth")
    values = cx.const(2, "values")
    if depth is None or depth.size != 1 or values is None or values.size != 2:
        raise cx.where.damaged("depth must be a scalar and values two elements")
    depth = int(depth.reshape(-1)[0])
    if depth < 0:
        raise cx.where.damaged(f"depth must be non-negative, got {depth}")
    if idx.dtype.is_floating:
        idx = cx.emit("Cast", idx, dtype=D.int64)
    wrapped = cx.emit("Select", cx.emit("Less", idx, cx.scalar(0, idx)),
                      cx.emit("Add", idx, cx.scalar(depth, idx)), idx)
    if idx.shape is not None:
        check_elements(cx, [d or 1 for d in idx.shape] + [depth])
    off, on = values.reshape(-1)
    return [cx.emit("OneHot", wrapped, depth=depth, on_value=on.item(), off_value=off.item(),
                    axis=cx.attrs.int("axis", -1), dtype=D.from_numpy(values.dtype))]


@op("TopK")
def _topk(cx):
    x = cx.x(0)
    if cx.opset < 10:
        k = cx.attrs.int("k")
    else:
        kk = cx.ints(1, "k")
        if kk is None or len(kk) != 1:
            raise cx.where.damaged("k must be one integer")
        k = kk[0]
    vals, idx = cx.emit("TopK", x, k=k, axis=cx.attrs.int("axis", -1),
                        largest=bool(cx.attrs.int("largest", 1)),
                        sorted=bool(cx.attrs.int("sorted", 1)))
    return [vals, cx.keep(idx, D.int64)]


@op("Dropout")
def _dropout(cx):
    x = cx.x(0)
    train = cx.const(2, "training mode")
    ratio = cx.const(1, "ratio") if cx.opset >= 12 else None
    zero = ratio is not None and ratio.size == 1 and float(ratio.reshape(-1)[0]) == 0.0
    if ((train is not None and bool(np.asarray(train).reshape(-1)[0])) or
            cx.attrs.int("is_test", 1) == 0 and cx.opset < 7) and not zero:
        raise cx.refuse("Dropout in training mode (random) is not supported")
    outs = [cx.emit("Identity", x)]
    if len(cx.node.output) > 1 and cx.node.output[1]:
        outs.append(cx.emit("OnesLike", x, dtype=D.bool_))
    return outs




@op("Compress")
def _compress(cx):
    """BooleanMask along axis 0 (the axis moved first and back); ONNX lets the
    condition be shorter than the dim (the rest is dropped): x is cut to its length
    first unless both lengths are known equal."""
    x, cond = cx.x(0), cx.x(1)
    if not cond.dtype.is_bool or (cond.shape is not None and len(cond.shape) != 1):
        raise cx.where.damaged(f"the condition must be a 1-D bool tensor, got {cond.type}")
    if not cx.attrs.has("axis"):
        x = cx.emit("Flatten", x, start_dim=0, end_dim=-1) if x.shape != () else \
            cx.emit("Reshape", x, shape=(1,))
        axis = 0
    else:
        axis = _norm(cx, cx.attrs.int("axis"), _rank(cx, x))
    perm = None
    if axis:
        perm = (axis,) + tuple(i for i in range(len(x.shape)) if i != axis)
        x = cx.emit("Transpose", x, perm=perm)
    n, m = x.shape[0] if x.shape else None, cond.shape[0] if cond.shape else None
    if n is None or m is None or n != m:
        if n is not None and m is not None and m > n:
            raise cx.where.damaged(f"the condition has {m} entries for a dim of {n}")
        length = cx.emit("Gather", cx.emit("Shape", cond), cx.array(0, D.int64), axis=0)
        x = cx.emit("SliceRows", x, cx.array(0, D.int64), length)
    y = cx.emit("BooleanMask", x, cond)
    if perm is not None:
        y = cx.emit("Transpose", y, perm=tuple(int(i) for i in np.argsort(perm)))
    return [y]
