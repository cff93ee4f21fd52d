"""The ONNX form of each graphjit op (see the table in exporter.py).

Each function takes the exporter `ex` and the graphjit node, emits ONNX nodes with
`ex.emit` / `ex.one` / `ex.const`, and returns the ONNX names of the node's outputs
(None for a state token). Raising NoOnnxForm(reason) refuses the node.
"""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from ..ir.text import sketch
from .common import TO_ONNX
from .exporter import NoOnnxForm

OPS = {}

# the dtypes ONNX Runtime's CPU kernels take (probed on onnxruntime 1.32, opset 17)
_ALL = frozenset(TO_ONNX)
_NUM = frozenset({D.int8, D.int16, D.int32, D.int64, D.uint8, D.float16, D.float32,
                  D.float64})
_FLOATS = frozenset({D.float16, D.float32, D.float64})
_MAXMIN = frozenset({D.int8, D.int32, D.int64, D.uint8, D.float16, D.float32, D.float64})
_WIDE = frozenset({D.int32, D.int64, D.float16, D.float32, D.float64})   # Pow, ReduceSum...


def op(*names):
    def deco(fn):
        for n in names:
            OPS[n] = fn
        return fn
    return deco


# -- helpers --------------------------------------------------------------------------------------
def inp(ex, node, i=0):
    return ex.name_of(node.inputs[i])


def dt_in(node, i=0):
    return node.inputs[i].type.dtype


def dt_out(node, i=0):
    return node.outputs[i].type.dtype


def rank_in(node, i=0, what="input"):
    r = node.inputs[i].type.rank
    if r is None:
        raise NoOnnxForm(f"its {what} has an unknown rank")
    return r


def cast(ex, name, src, dst):
    if src is dst:
        return name
    return ex.one("Cast", [name], to=TO_ONNX[dst])


def carrier(d):
    """The dtype ONNX Runtime computes a dtype it lacks a kernel for in (exactly)."""
    return D.float32 if d is D.float16 else D.int32


def scalar(ex, value, d):
    return ex.const(np.asarray(value, dtype=d.np))


def native(ex, onnx_op, names, d, supported, out_dtype=None, **attrs):
    """onnx_op on inputs of dtype d, computed in the carrier dtype where ORT has no
    kernel for d (exact for the ops that use it); the result is cast to out_dtype
    (default d; a bool result, as a comparison's, is never cast)."""
    out_dtype = d if out_dtype is None else out_dtype
    work = d if d in supported else carrier(d)
    r = ex.one(onnx_op, [cast(ex, n, d, work) for n in names], **attrs)
    return r if out_dtype.is_bool else cast(ex, r, work, out_dtype)


def where(ex, c, x, y, d):
    """Where(c, x, y) for values of dtype d (bool through uint8: ORT has no bool Where)."""
    if not d.is_bool:
        return ex.one("Where", [c, x, y])
    r = ex.one("Where", [c, cast(ex, x, d, D.uint8), cast(ex, y, d, D.uint8)])
    return cast(ex, r, D.uint8, d)


def axes_list(axis, rank=None):
    if axis is None or axis == ():
        return None
    return [int(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]


# -- constants, identity, casts -------------------------------------------------------------------
@op("Const")
def _const(ex, node):
    v = node.attrs["value"]
    if D.from_numpy(v.dtype) not in TO_ONNX:
        raise NoOnnxForm(f"a constant of dtype {v.dtype}")
    return [ex.const(np.array(v, order="C", copy=True))]


@op("Identity", "StopGradient")
def _identity(ex, node):
    return [ex.one("Identity", [inp(ex, node)])]


@op("WeightRead")
def _weight_read(ex, node):
    """The Parameter's current value (input 1); input 0 only routes its gradient."""
    return [ex.one("Identity", [inp(ex, node, 1)])]


@op("Cast")
def _cast(ex, node):
    return [ex.one("Cast", [inp(ex, node)], to=TO_ONNX[dt_out(node)])]


@op("Load")
def _load(ex, node):
    return [inp(ex, node), None]


# -- reductions -----------------------------------------------------------------------------------
def _reduce(onnx_op):
    def fn(ex, node):
        d, out = dt_in(node), dt_out(node)
        axes = axes_list(node.attrs["axis"])
        kd = int(bool(node.attrs["keep_dims"]))
        if onnx_op in ("ReduceSum", "ReduceProd", "ReduceMean"):
            work = D.float32 if out is D.float16 else out
            supported = _WIDE
        else:
            work = d if d in _MAXMIN else carrier(d)
            supported = _MAXMIN
        if work not in supported:
            work = carrier(work)
        x = cast(ex, inp(ex, node), d, work)
        if onnx_op == "ReduceSum":
            ins = [x] + ([ex.i64(axes)] if axes is not None else [])
            r = ex.one("ReduceSum", ins, keepdims=kd)
        elif axes is None:
            r = ex.one(onnx_op, [x], keepdims=kd)
        else:
            r = ex.one(onnx_op, [x], keepdims=kd, axes=axes)
        return [cast(ex, r, work, out)]
    return fn


for _g in ("ReduceSum", "ReduceProd", "ReduceMean", "ReduceMax", "ReduceMin"):
    OPS[_g] = _reduce(_g)


def _arg(onnx_op):
    def fn(ex, node):
        d = dt_in(node)
        x = inp(ex, node)
        if d not in _MAXMIN:
            x = cast(ex, x, d, carrier(d))
        axis, kd = node.attrs["axis"], bool(node.attrs["keep_dims"])
        if axis is None:
            flat = ex.one("Reshape", [x, ex.i64([-1])])
            r = ex.one(onnx_op, [flat], axis=0, keepdims=0)
            if kd:
                r = ex.one("Reshape", [r, ex.i64([1] * rank_in(node))])
        else:
            r = ex.one(onnx_op, [x], axis=int(axis), keepdims=int(kd))
        return [cast(ex, r, D.int64, dt_out(node))]
    return fn


OPS["ArgMax"] = _arg("ArgMax")
OPS["ArgMin"] = _arg("ArgMin")


@op("CumSum")
def _cumsum(ex, node):
    d, out = dt_in(node), dt_out(node)
    work = out if out in (D.int32, D.int64, D.float32, D.float64) else (
        D.float32 if out is D.float16 else D.int32)
    x = cast(ex, inp(ex, node), d, work)
    r = ex.one("CumSum", [x, ex.i64(int(node.attrs["axis"]))],
               exclusive=int(bool(node.attrs["exclusive"])),
               reverse=int(bool(node.attrs["reverse"])))
    return [cast(ex, r, work, out)]


# -- shapes ---------------------------------------------------------------------------------------
@op("Shape")
def _shape(ex, node):
    return [ex.one("Shape", [inp(ex, node)])]


@op("Reshape")
def _reshape(ex, node):
    shape = [int(s) for s in node.attrs["shape"]]
    return [ex.one("Reshape", [inp(ex, node), ex.i64(shape)], allowzero=int(0 in shape))]


def _dynamic_shape(ex, x, parts):
    """A shape tensor from parts: ('keep', a, b) (dims a..b-1 of x), or an int list."""
    shp = ex.one("Shape", [x])
    pieces = []
    for p in parts:
        if p[0] == "keep":
            if p[2] > p[1]:
                pieces.append(ex.one("Slice", [shp, ex.i64([p[1]]), ex.i64([p[2]])]))
        elif p[0] == "prod":
            pieces.append(ex.one("ReduceProd", [ex.one("Slice", [shp, ex.i64([p[1]]),
                                                                 ex.i64([p[2]])])],
                                 keepdims=1))
        else:
            pieces.append(ex.i64(list(p[1])))
    return pieces[0] if len(pieces) == 1 else ex.one("Concat", pieces, axis=0)


@op("Flatten")
def _flatten(ex, node):
    out = node.outputs[0].type
    x = inp(ex, node)
    t = node.inputs[0].type
    if t.shape is None:
        raise NoOnnxForm("its input has an unknown rank")
    if out.shape is not None and sum(d is None for d in out.shape) <= 1:
        shape = [-1 if d is None else d for d in out.shape]
        return [ex.one("Reshape", [x, ex.i64(shape)], allowzero=int(0 in shape))]
    r = len(t.shape)
    a = node.attrs["start_dim"] % r
    b = node.attrs["end_dim"] % r
    shp = _dynamic_shape(ex, x, [("keep", 0, a), ("prod", a, b + 1), ("keep", b + 1, r)])
    return [ex.one("Reshape", [x, shp], allowzero=1)]


@op("Transpose")
def _transpose(ex, node):
    perm = node.attrs["perm"]
    if perm is None:
        return [ex.one("Transpose", [inp(ex, node)])]
    r = rank_in(node)
    return [ex.one("Transpose", [inp(ex, node)], perm=[int(p) % r for p in perm])]


@op("ExpandDims")
def _expand_dims(ex, node):
    return [ex.one("Unsqueeze", [inp(ex, node), ex.i64([int(node.attrs["axis"])])])]


@op("Squeeze")
def _squeeze(ex, node):
    axis = node.attrs["axis"]
    t = node.inputs[0].type
    if axis is None or axis == ():
        if t.shape is not None and all(d is not None for d in t.shape):
            axes = [i for i, d in enumerate(t.shape) if d == 1]
            if not axes:
                return [ex.one("Identity", [inp(ex, node)])]
            return [ex.one("Squeeze", [inp(ex, node), ex.i64(axes)])]
        return [ex.one("Squeeze", [inp(ex, node)])]
    axes = axes_list(axis)
    return [ex.one("Squeeze", [inp(ex, node), ex.i64(axes)])]


@op("Concat")
def _concat(ex, node):
    d = dt_out(node)
    xs = [cast(ex, ex.name_of(v), v.type.dtype, d) for v in node.inputs]
    return [ex.one("Concat", xs, axis=int(node.attrs["axis"]))]


@op("Stack")
def _stack(ex, node):
    d = dt_out(node)
    axis = int(node.attrs["axis"])
    xs = [ex.one("Unsqueeze", [cast(ex, ex.name_of(v), v.type.dtype, d), ex.i64([axis])])
          for v in node.inputs]
    return [ex.one("Concat", xs, axis=axis)]


@op("Tile")
def _tile(ex, node):
    reps = [int(r) for r in node.attrs["multiples"]]
    r = rank_in(node)
    x = inp(ex, node)
    if len(reps) > r:
        x = ex.one("Unsqueeze", [x, ex.i64(list(range(len(reps) - r)))])
    reps = [1] * (max(r, len(reps)) - len(reps)) + reps
    return [ex.one("Tile", [x, ex.i64(reps)])]


@op("BroadcastTo")
def _broadcast_to(ex, node):
    shape = [1 if int(d) == -1 else int(d) for d in node.attrs["shape"]]
    return [ex.one("Expand", [inp(ex, node), ex.i64(shape)])]


@op("Gather")
def _gather(ex, node):
    idx = inp(ex, node, 1)
    d = dt_in(node, 1)
    if d not in (D.int32, D.int64):
        idx = cast(ex, idx, d, D.int64)
    return [ex.one("Gather", [inp(ex, node, 0), idx], axis=int(node.attrs["axis"]))]


@op("BooleanMask")
def _boolean_mask(ex, node):
    return [ex.one("Compress", [inp(ex, node, 0), inp(ex, node, 1)], axis=0)]


_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def index_pattern(ex, x, items, rank):
    """x[items] (graphjit's encoded basic index) with Slice, Gather and Unsqueeze."""
    consumed = sum(1 for i in items if i is not None and i != "...")
    expanded = []
    for i in items:
        if i == "...":
            expanded.extend([("slice", None, None, None)] * (rank - consumed))
        else:
            expanded.append(i)
    if "..." not in items:
        expanded.extend([("slice", None, None, None)] * (rank - consumed))
    starts, ends, axes, steps, ints, news = [], [], [], [], [], []
    dim, out_pos = 0, 0
    for i in expanded:
        if i is None:
            news.append(out_pos)
            out_pos += 1
            continue
        if isinstance(i, tuple):
            _, a, b, s = i
            s = 1 if s is None else s
            if not (a is None and b is None and s == 1):
                starts.append((0 if s > 0 else _BIG) if a is None else a)
                ends.append((_BIG if s > 0 else _SMALL) if b is None else b)
                axes.append(dim)
                steps.append(s)
            out_pos += 1
        else:
            ints.append((dim, i))
        dim += 1
    if axes:
        x = ex.one("Slice", [x, ex.i64(starts), ex.i64(ends), ex.i64(axes), ex.i64(steps)])
    for d, i in reversed(ints):
        x = ex.one("Gather", [x, ex.i64(i)], axis=d)
    if news:
        x = ex.one("Unsqueeze", [x, ex.i64(news)])
    if not axes and not ints and not news:
        x = ex.one("Identity", [x])
    return x


@op("Index")
def _index(ex, node):
    return [index_pattern(ex, inp(ex, node), node.attrs["index"], rank_in(node))]


@op("IndexUpdate")
def _index_update(ex, node):
    x = inp(ex, node, 0)
    d = dt_out(node)
    r = rank_in(node)
    shp = ex.one("Shape", [x])
    count = ex.one("ReduceProd", [shp], keepdims=0)
    pos = ex.one("Reshape", [ex.one("Range", [ex.i64(0), count, ex.i64(1)]), shp])
    sub = index_pattern(ex, pos, node.attrs["index"], r)
    v = cast(ex, inp(ex, node, 1), dt_in(node, 1), d)
    v = ex.one("Expand", [v, ex.one("Shape", [sub])])
    flat = ex.one("Reshape", [x, ex.i64([-1])])
    upd = ex.one("ScatterElements", [flat, ex.one("Reshape", [sub, ex.i64([-1])]),
                                     ex.one("Reshape", [v, ex.i64([-1])])], axis=0)
    return [ex.one("Reshape", [upd, shp])]


# -- creation -------------------------------------------------------------------------------------
@op("Fill")
def _fill(ex, node):
    t = node.outputs[0].type
    return [ex.const(np.full(t.shape, node.attrs["value"], dtype=t.dtype.np))]


@op("Range")
def _range(ex, node):
    a = node.attrs
    return [ex.const(np.arange(a["start"], a["limit"], a["delta"],
                               dtype=D.as_dtype(a["dtype"]).np))]


def _like(value):
    def fn(ex, node):
        d = dt_out(node)
        from onnx import numpy_helper
        return [ex.one("ConstantOfShape", [ex.one("Shape", [inp(ex, node)])],
                       value=numpy_helper.from_array(np.asarray([value], dtype=d.np)))]
    return fn


@op("FillTo")
def _fill_to(ex, node):
    from onnx import numpy_helper
    d = dt_out(node)
    shape = cast(ex, inp(ex, node), dt_in(node), D.int64)
    return [ex.one("ConstantOfShape", [shape], value=numpy_helper.from_array(
        np.asarray([node.attrs["value"]], dtype=d.np)))]


OPS["ZerosLike"] = _like(0)
OPS["OnesLike"] = _like(1)


# -- nn -------------------------------------------------------------------------------------------
@op("MatMul")
def _matmul(ex, node):
    d = dt_out(node)
    xs = []
    for i, flag in ((0, "transpose_a"), (1, "transpose_b")):
        x = cast(ex, inp(ex, node, i), dt_in(node, i), d)
        if node.attrs[flag]:
            r = rank_in(node, i)
            if r >= 2:
                perm = list(range(r - 2)) + [r - 1, r - 2]
                x = ex.one("Transpose", [x], perm=perm)
        xs.append(x)
    supported = {D.int32, D.int64} | _FLOATS
    return [native(ex, "MatMul", xs, d, supported)]


def _softmax(log):
    def fn(ex, node):
        d = dt_out(node)
        x = cast(ex, inp(ex, node), dt_in(node), d)
        axis = node.attrs["axis"]
        r = node.inputs[0].type.rank
        if isinstance(axis, int) and r:
            return [ex.one("LogSoftmax" if log else "Softmax", [x], axis=int(axis))]
        if r is None:
            raise NoOnnxForm("its input has an unknown rank")
        axes = [] if r == 0 else [int(a) % r for a in
                                  (axis if isinstance(axis, tuple) else (axis,))]
        kw = {"axes": axes} if axes else {}
        m = ex.one("ReduceMax", [x], keepdims=1, **kw)
        shifted = ex.one("Sub", [x, m])
        e = ex.one("Exp", [shifted])
        s = ex.one("ReduceSum", [e] + ([ex.i64(axes)] if axes else []), keepdims=1)
        if log:
            return [ex.one("Sub", [shifted, ex.one("Log", [s])])]
        return [ex.one("Div", [e, s])]
    return fn


OPS["Softmax"] = _softmax(False)
OPS["LogSoftmax"] = _softmax(True)


@op("OneHot")
def _one_hot(ex, node):
    """graphjit's kernel: Equal(Unsqueeze(indices, axis), Range(depth) shaped to
    broadcast along that axis), then Where(on, off); out-of-range rows are all off."""
    a = node.attrs
    d = dt_out(node)
    r = rank_in(node)
    axis = int(a["axis"]) % (r + 1)
    depth = int(a["depth"])
    di = dt_in(node)
    idx = ex.one("Unsqueeze", [inp(ex, node), ex.i64([axis])])
    classes = ex.const(np.arange(depth, dtype=di.np).reshape((depth,) + (1,) * (r - axis)))
    hot = ex.one("Equal", [idx, classes])
    on, off = (ex.const(np.asarray(a[k], dtype=d.np)) for k in ("on_value", "off_value"))
    return [where(ex, hot, on, off, d)]


# -- run-time checks ------------------------------------------------------------------------------
def check_pattern(ex, ok, message):
    """A Gather that fails at run time when the bool tensor ok is not all true."""
    as_int = ex.one("Cast", [ok], to=TO_ONNX[D.int32])
    allok = ex.one("Cast", [ex.one("ReduceMin", [as_int], keepdims=0)], to=TO_ONNX[D.bool_])
    bad = ex.one("Cast", [ex.one("Not", [allok])], to=TO_ONNX[D.int64])
    ex.one("Gather", [ex.i64([0]), bad], axis=0, doc=message)


@op("Check", "CheckBound", "Assert")
def _check(ex, node):
    a = node.attrs
    msg = a.get("message") or (f"UnboundLocalError: '{a['name']}'" if "name" in a else "")
    if "error" in a:
        msg = f"{a['error']}: {msg}"
    check_pattern(ex, inp(ex, node), msg or node.op)
    return []


@op("Raise")
def _raise(ex, node):
    """The check pattern on a false that the graph computes (the node runs only on the
    path that raises; a constant would be folded, and fail, when the model loads)."""
    name, args = node.attrs["exception"]
    text = sketch(args)
    if args[0] == "tuple" and len(args[1]) == 1:
        text = sketch(args[1][0])
    seed = ex.one("Shape", [inp(ex, node)]) if node.inputs else ex.i64([0])
    never = ex.one("Less", [ex.one("ReduceSum", [seed], keepdims=0), ex.i64([-1])])
    check_pattern(ex, never, f"{name}: {text}")
    return []


@op("CheckNonZero")
def _check_nonzero(ex, node):
    d = dt_in(node)
    x = inp(ex, node)
    nz = ex.one("Not", [ex.one("Equal", [x, scalar(ex, 0, d)])]) if not d.is_bool else x
    check_pattern(ex, nz, f"ZeroDivisionError: {node.attrs['message']}")
    return [x]


from . import export_control, export_elementwise, export_grad, export_nn  # noqa: E402,F401,I001


@op("CheckIntOverflow")
def _check_int_overflow(ex, node):
    """result itself; for a scalar result, the Check pattern on "x op y did not wrap":
    Add: not (y > 0 and r < x or y < 0 and r > x); Sub: the same with r > x / r < x
    swapped; Mul: x == 0, or x == -1 and y != INT_MIN, or r / x == y (x never 0 or -1
    in that Div), with Or / And."""
    r_t = node.inputs[0].type
    r = inp(ex, node, 0)
    if r_t.shape is None:
        raise NoOnnxForm("its result has an unknown rank")
    if r_t.shape != ():
        return [r]
    d = r_t.dtype
    x, y = (cast(ex, inp(ex, node, i), dt_in(node, i), d) for i in (1, 2))
    zero = scalar(ex, 0, d)
    binary = node.attrs["binary"]
    if binary in ("Add", "Sub"):
        up, down = ("Less", "Greater") if binary == "Add" else ("Greater", "Less")
        bad = ex.one("Or", [ex.one("And", [ex.one("Greater", [y, zero]), ex.one(up, [r, x])]),
                            ex.one("And", [ex.one("Less", [y, zero]), ex.one(down, [r, x])])])
        ok = ex.one("Not", [bad])
    else:
        minus = scalar(ex, -1, d)
        special = ex.one("Or", [ex.one("Equal", [x, zero]), ex.one("Equal", [x, minus])])
        safe = ex.one("Where", [special, scalar(ex, 1, d), x])
        exact = ex.one("Equal", [ex.one("Div", [r, safe]), y])
        by_minus = ex.one("Not", [ex.one("Equal", [y, scalar(ex, np.iinfo(d.np).min, d)])])
        ok = ex.one("Or", [ex.one("Equal", [x, zero]), ex.one("Or", [
            ex.one("And", [ex.one("Equal", [x, minus]), by_minus]),
            ex.one("And", [ex.one("Not", [special]), exact])])])
    check_pattern(ex, ok, f"OverflowError: a Python int computed in the graph left int64 "
                          f"(binary={binary})")
    return [r]
