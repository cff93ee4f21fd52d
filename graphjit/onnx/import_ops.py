"""ONNX node -> graphjit nodes: the translation context and the elementwise, reduction
and matrix ops (shape and network ops are in import_nn.py, control flow in
import_control.py, the activations and the other ops composed of graphjit's in the
import_*.py modules registered at the end). Each translation keeps ONNX's output
dtype: where graphjit's op promotes (ReduceSum of int32 gives int64), a Cast brings
the dtype back."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

import numpy as np

from ..ir import dtypes as D
from ..ir.errors import GraphJitError
from ..ir.graph import Value
from ..ir.registry import get_op
from ..ir.types import num_elements
from .import_read import (DEFAULT_DOMAINS, MAX_ELEMENTS, Attrs, NeedsConstantError,
                          elem_dtype, tensor_array)

__all__ = ["NodeCx", "translate", "OPS", "op"]

OPS: Dict[str, Callable[["NodeCx"], list]] = {}
_FOLD_LIMIT = 1 << 16


def op(*names):
    def deco(fn):
        for n in names:
            OPS[n] = fn
        return fn
    return deco


def translate(cx: "NodeCx") -> list:
    from .import_control import CONTROL
    n = cx.node
    if n.domain not in DEFAULT_DOMAINS:     # an op of another domain: OPS["domain.Op"]
        return list(OPS[f"{n.domain}.{n.op_type}"](cx))
    fn = CONTROL.get(n.op_type) or OPS[n.op_type]
    return list(fn(cx))


class NodeCx:
    """One ONNX node being translated: its inputs, attributes, and a way to add nodes."""

    def __init__(self, tr, scope, node, where):
        self.tr = tr
        self.scope = scope
        self.g = scope.graph
        self.node = node
        self.where = where
        self.opset = tr.opset
        self.attrs = Attrs(node, where, tr.base_dir)
        self.names = list(node.input)

    # -- inputs ---------------------------------------------------------------------------------
    def has(self, i: int) -> bool:
        return i < len(self.names) and self.names[i] != ""

    def x(self, i: int) -> Value:
        """Input i as a Value (a missing required input is a damaged node)."""
        if not self.has(i):
            raise self.where.damaged(f"the required input {i} is missing")
        return self.scope.value(self.names[i], self.where)

    def opt(self, i: int) -> Optional[Value]:
        return self.x(i) if self.has(i) else None

    def xs(self) -> List[Value]:
        return [self.x(i) for i in range(len(self.names)) if self.names[i]]

    def const(self, i: int, what: str, default=None) -> Optional[np.ndarray]:
        """The value of input i, which graphjit needs while building (an axis list, a
        shape): a constant, or computed from constants only."""
        if not self.has(i):
            return default
        b = self.scope.names.get(self.names[i])
        if isinstance(b, np.ndarray):
            return b
        v = self.x(i)
        c = evaluate(v)
        if c is None:
            prefix = f"{self.where}: " if self.where.parts else ""
            name, source = self.names[i], _graph_input_source(self.g, v)
            via = ""
            if source is not None and source != name:
                via = f", computed from the graph input '{source}'"
                name = source
            raise NeedsConstantError(
                f"cannot import the ONNX model '{self.where.label}': {prefix}input {i} "
                f"('{self.names[i]}', the {what}{via}) must be a constant: graphjit needs it "
                f"while it builds the graph", name,
                hint="make it an initializer or a Constant node (onnx-simplifier can fold it)")
        return c

    def ints(self, i: int, what: str, default=None):
        c = self.const(i, what)
        if c is None:
            return default
        if c.dtype.kind not in "iu":
            raise self.where.damaged(f"the {what} must be integers, got {c.dtype}")
        return tuple(int(v) for v in c.reshape(-1))

    # -- building -------------------------------------------------------------------------------
    def emit(self, op_name: str, *inputs: Value, **attrs):
        return self.g.apply(op_name, *inputs, **attrs)

    def array(self, value, dtype=None) -> Value:
        arr = np.asarray(value, dtype=None if dtype is None else D.as_dtype(dtype).np)
        return self.g.apply("Const", value=arr)

    def scalar(self, value, like: Value) -> Value:
        return self.array(np.asarray(value, dtype=like.dtype.np))

    def keep(self, v: Value, dtype) -> Value:
        """v in dtype (a Cast when graphjit's op gave another)."""
        return v if v.dtype is dtype else self.emit("Cast", v, dtype=dtype)

    def refuse(self, msg: str, hint: str = "") -> GraphJitError:
        return self.where.cannot(msg, hint)

    def inline(self, attr: str, inputs: List[Value]) -> List[Value]:
        """The outputs of the graph attribute `attr` (a function body such as
        FlexAttention's score_mod) translated into this graph with its inputs bound to
        `inputs`; it may read the names visible here."""
        from .importer import Scope
        gp = self.attrs.graph(attr)
        where = self.where / f"attribute '{attr}'"
        return self.inline_graph(gp, inputs, where)

    def inline_graph(self, gp, inputs: List[Value], where) -> List[Value]:
        """inline's work for a GraphProto (an If branch chosen while building)."""
        from .importer import Scope
        if len(gp.input) != len(inputs):
            raise where.damaged(f"the graph takes {len(gp.input)} inputs, given {len(inputs)}")
        names = dict(self.scope.names)
        for vi, v in zip(gp.input, inputs):
            names[vi.name] = v
        for t in gp.initializer:
            names[t.name] = tensor_array(t, where / f"initializer '{t.name}'", self.tr.base_dir)
        scope = Scope(self.g, where, names)
        self.tr.nodes(scope, gp, where)
        return [scope.value(o.name, where / f"output '{o.name}'") for o in gp.output]

    def dtype_attr(self, name: str, default=None) -> D.DType:
        code = self.attrs.int(name, default)
        return elem_dtype(code, self.where / f"attribute '{name}'")


def _graph_input_source(graph, v: Value) -> Optional[str]:
    """The name of the one parameter of `graph` that v is computed from through pure
    ops and constants (a pads input computed from a `shape` input), else None."""
    params = {id(p): p for p in graph.params}
    found, seen, todo = [], set(), [v]
    while todo:
        u = todo.pop()
        if id(u) in seen:
            continue
        seen.add(id(u))
        if id(u) in params:
            found.append(params[id(u)])
            continue
        if u.producer is not None and u.producer.op == "Shape" and evaluate(u) is not None:
            continue                  # a static shape: known whatever the values
        p = u.producer
        if p is None:
            return None
        opdef = get_op(p.op)
        if opdef.family == "control" or opdef.effects is not None or p.subgraphs() or \
                len(seen) > 4096:
            return None
        todo.extend(p.inputs)
    names = {q.name for q in found}
    return names.pop() if len(names) == 1 and None not in names else None


def evaluate(v: Value, env: Optional[Dict[int, np.ndarray]] = None) -> Optional[np.ndarray]:
    """v's value if it follows from constants and static shapes alone (and the values
    `env` gives, by id of the Value), else None."""
    if env is not None and id(v) in env:
        return env[id(v)]
    p = v.producer
    if p is None:
        return None
    if p.op == "Const":
        return p.attrs["value"]
    if p.op == "Shape":
        s = p.inputs[0].shape
        if s is not None and all(d is not None for d in s):
            return np.array(s, dtype=np.int64)
        return None
    opdef = get_op(p.op)
    if opdef.family == "control" or opdef.effects is not None or p.subgraphs():
        return None
    n = num_elements(v.shape)
    if env is None and (n is None or n > _FOLD_LIMIT):
        return None
    if env is not None and opdef.family != "elementwise" and p.op != "Const":
        return None
    args = []
    for x in p.inputs:
        a = evaluate(x, env)
        if a is None:
            return None
        args.append(a)
    try:
        kernel = opdef.make_kernel([x.type for x in p.inputs], [o.type for o in p.outputs],
                                   p.attrs)
        with np.errstate(all="ignore"):
            out = kernel(*args)
    except Exception:    # it fails when the graph runs, as it would
        return None
    out = out[v.index] if isinstance(out, tuple) else out
    return np.asarray(out).astype(v.dtype.np, copy=False)


# -- elementwise ----------------------------------------------------------------------------------
_BINARY = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "BitwiseAnd": "BitwiseAnd",
           "BitwiseOr": "BitwiseOr", "BitwiseXor": "BitwiseXor"}
_COMPARE = {"Equal": "Equal", "Less": "Less", "LessOrEqual": "LessEqual",
            "Greater": "Greater", "GreaterOrEqual": "GreaterEqual", "And": "LogicalAnd",
            "Or": "LogicalOr", "Xor": "LogicalXor"}
_UNARY = {"Abs": "Abs", "Neg": "Neg", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt",
          "Reciprocal": "Reciprocal", "Sin": "Sin", "Cos": "Cos", "Tanh": "Tanh",
          "Sigmoid": "Sigmoid", "Erf": "Erf", "Relu": "ReLU", "Floor": "Floor",
          "Ceil": "Ceil", "Round": "Round", "Sign": "Sign", "BitwiseNot": "Invert",
          "Identity": "Identity", "Tan": "Tan", "Asin": "Asin", "Acos": "Acos", "Atan": "Atan",
          "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh", "Acosh": "Acosh", "Atanh": "Atanh"}
_PREDICATES = {"IsNaN": "IsNan", "Not": "LogicalNot"}


def _same_dtypes(cx: NodeCx, *vs: Value) -> None:
    if len({v.dtype for v in vs}) > 1:
        raise cx.where.damaged(f"the inputs have different dtypes "
                               f"({', '.join(str(v.type) for v in vs)})")


def _legacy_broadcast(cx: NodeCx, a: Value, b: Value) -> None:
    """Before opset 7, binary ops broadcast only when asked, and then from `axis`."""
    if cx.opset < 7 and cx.attrs.int("broadcast", 0) and cx.attrs.has("axis"):
        raise cx.refuse("the legacy broadcast with an axis (before opset 7) is not supported",
                        hint="convert the model to opset 7 or newer")


def _binary(gj: str):
    def f(cx: NodeCx):
        a, b = cx.x(0), cx.x(1)
        _same_dtypes(cx, a, b)
        _legacy_broadcast(cx, a, b)
        return [cx.keep(cx.emit(gj, a, b), a.dtype)]
    return f


def _compare(gj: str):
    def f(cx: NodeCx):
        a, b = cx.x(0), cx.x(1)
        _same_dtypes(cx, a, b)
        _legacy_broadcast(cx, a, b)
        return [cx.emit(gj, a, b)]
    return f


def _unary(gj: str):
    def f(cx: NodeCx):
        a = cx.x(0)
        return [cx.keep(cx.emit(gj, a), a.dtype)]
    return f


for _k, _v in _BINARY.items():
    OPS[_k] = _binary(_v)
for _k, _v in _COMPARE.items():
    OPS[_k] = _compare(_v)
for _k, _v in _UNARY.items():
    OPS[_k] = _unary(_v)
for _k, _v in _PREDICATES.items():
    OPS[_k] = (lambda gj: lambda cx: [cx.emit(gj, cx.x(0))])(_v)


@op("Div")
def _div(cx):
    a, b = cx.x(0), cx.x(1)
    _same_dtypes(cx, a, b)
    _legacy_broadcast(cx, a, b)
    return [cx.keep(cx.emit("RealDiv" if a.dtype.is_floating else "TruncateDiv", a, b),
                    a.dtype)]


@op("Mod")
def _mod(cx):
    a, b = cx.x(0), cx.x(1)
    _same_dtypes(cx, a, b)
    fmod = cx.attrs.int("fmod", 0)
    if fmod not in (0, 1):
        raise cx.where.damaged(f"fmod must be 0 or 1, got {fmod}")
    return [cx.emit("Mod" if fmod else "FloorMod", a, b)]


@op("Pow")
def _pow(cx):
    a, b = cx.x(0), cx.x(1)
    return [cx.keep(cx.emit("Pow", a, b), a.dtype)]


@op("Max", "Min", "Sum", "Mean")
def _variadic(cx):
    xs = cx.xs()
    if not xs:
        raise cx.where.damaged("needs at least one input")
    _same_dtypes(cx, *xs)
    gj = {"Max": "Maximum", "Min": "Minimum", "Sum": "Add", "Mean": "Add"}[cx.node.op_type]
    acc = xs[0]
    for x in xs[1:]:
        acc = cx.emit(gj, acc, x)
    if len(xs) == 1:
        acc = cx.emit("Identity", acc)
    if cx.node.op_type == "Mean" and len(xs) > 1:
        acc = cx.emit("RealDiv", acc, cx.scalar(len(xs), acc))
    return [cx.keep(acc, xs[0].dtype)]


@op("IsInf")
def _isinf(cx):
    x = cx.x(0)
    pos, neg = cx.attrs.int("detect_positive", 1), cx.attrs.int("detect_negative", 1)
    inf = cx.emit("IsInf", x)
    if pos and neg:
        return [inf]
    if not pos and not neg:
        return [cx.emit("LogicalAnd", inf, cx.array(False))]
    side = cx.emit("Greater" if pos else "Less", x, cx.scalar(0, x))
    return [cx.emit("LogicalAnd", inf, side)]


@op("Clip")
def _clip(cx):
    x = cx.x(0)
    if cx.opset < 11:
        lo = cx.attrs.float("min", None)
        hi = cx.attrs.float("max", None)
        lo = None if lo is None else cx.scalar(lo, x)
        hi = None if hi is None else cx.scalar(hi, x)
    else:
        lo, hi = cx.opt(1), cx.opt(2)
    for b in (lo, hi):
        if b is not None and (b.dtype is not x.dtype or b.shape not in ((), None, (1,))):
            raise cx.where.damaged(f"min and max must be scalars of the input's dtype, got "
                                   f"{b.type}")
    y = x
    if lo is not None:
        y = cx.emit("Maximum", y, _scalar_shaped(cx, lo))
    if hi is not None:
        y = cx.emit("Minimum", y, _scalar_shaped(cx, hi))
    if y is x:
        y = cx.emit("Identity", x)
    return [y]


def _scalar_shaped(cx, v):
    return v if v.shape == () else cx.emit("Reshape", v, shape=())


@op("Cast")
def _cast(cx):
    return [cx.emit("Cast", cx.x(0), dtype=cx.dtype_attr("to"))]


@op("BitCast")
def _bitcast(cx):
    x, to = cx.x(0), cx.dtype_attr("to")
    if x.dtype.np.itemsize != to.np.itemsize:
        raise cx.where.damaged(f"BitCast from {x.type} to {to}: the widths differ")
    return [cx.emit("BitCast", x, dtype=to)]


@op("CastLike")
def _cast_like(cx):
    return [cx.emit("Cast", cx.x(0), dtype=cx.x(1).dtype)]


@op("Where")
def _where(cx):
    c, a, b = cx.x(0), cx.x(1), cx.x(2)
    return [cx.emit("Select", c, a, b)]


# -- matrices -------------------------------------------------------------------------------------
@op("MatMul")
def _matmul(cx):
    a, b = cx.x(0), cx.x(1)
    _same_dtypes(cx, a, b)
    return [cx.keep(cx.emit("MatMul", a, b), a.dtype)]


@op("Gemm")
def _gemm(cx):
    a, b, c = cx.x(0), cx.x(1), cx.opt(2)
    _same_dtypes(cx, a, b)
    for v in (a, b):
        if v.shape is not None and len(v.shape) != 2:
            raise cx.where.damaged(f"Gemm takes 2-D matrices, got {v.type}")
    alpha, beta = cx.attrs.float("alpha", 1.0), cx.attrs.float("beta", 1.0)
    y = cx.emit("MatMul", a, b, transpose_a=bool(cx.attrs.int("transA", 0)),
                transpose_b=bool(cx.attrs.int("transB", 0)))
    if alpha != 1.0:
        y = cx.emit("Mul", y, cx.scalar(alpha, a))
    if c is not None:
        if beta != 1.0:
            c = cx.emit("Mul", c, cx.scalar(beta, c))
        y = cx.emit("Add", y, c)
    return [cx.keep(y, a.dtype)]


# -- reductions -----------------------------------------------------------------------------------
_REDUCE = {"ReduceSum": ("ReduceSum", None, None, 13),
           "ReduceMean": ("ReduceMean", None, None, 18),
           "ReduceMax": ("ReduceMax", None, None, 18),
           "ReduceMin": ("ReduceMin", None, None, 18),
           "ReduceProd": ("ReduceProd", None, None, 18),
           "ReduceL1": ("ReduceSum", "Abs", None, 18),
           "ReduceL2": ("ReduceSum", "Square", "Sqrt", 18),
           "ReduceSumSquare": ("ReduceSum", "Square", None, 18),
           "ReduceLogSum": ("ReduceSum", None, "Log", 18),
           "ReduceLogSumExp": ("ReduceSum", "Exp", "Log", 18)}


def reduce_axes(cx: NodeCx, since: int):
    """The axes of a reduction (None: all) from the attribute (before opset `since`)
    or the input; None also for noop_with_empty_axes, returned as 'noop'."""
    if cx.opset < since:
        axes = cx.attrs.ints("axes", None)
        noop = 0
    else:
        axes = cx.ints(1, "axes")
        noop = cx.attrs.int("noop_with_empty_axes", 0)
    if not axes:
        return "noop" if noop else None
    return axes[0] if len(axes) == 1 else tuple(axes)


@op(*_REDUCE)
def _reduce(cx):
    gj, pre, post, since = _REDUCE[cx.node.op_type]
    x = cx.x(0)
    keep = bool(cx.attrs.int("keepdims", 1))
    axes = reduce_axes(cx, since)
    if axes == "noop":
        return [cx.emit("Identity", x)]
    if gj in ("ReduceMax", "ReduceMin") and x.shape is not None and \
            all(d is not None for d in x.shape):
        empty = _empty_extremum(cx, x, axes, keep, gj == "ReduceMax")
        if empty is not None:
            return [empty]
    y = x if pre is None else cx.emit(pre, x)
    y = cx.emit(gj, y, axis=axes, keep_dims=keep)
    if post is not None:
        y = cx.emit(post, y)
    return [cx.keep(y, x.dtype)]


def _empty_extremum(cx, x, axes, keep, is_max):
    """ONNX's max (min) over an empty reduced dim: the dtype's lowest (highest) value,
    -inf (+inf) for floats; None when no reduced dim is empty."""
    r = len(x.shape)
    red = tuple(range(r)) if axes is None else tuple(
        a % r for a in (axes if isinstance(axes, tuple) else (axes,)))
    if not any(x.shape[a] == 0 for a in red):
        return None
    shape = tuple(1 if i in red else d for i, d in enumerate(x.shape) if keep or i not in red)
    if x.dtype.is_bool:
        value = not is_max
    elif x.dtype.is_floating:
        value = -np.inf if is_max else np.inf
    else:
        info = np.iinfo(x.dtype.np)
        value = int(info.min if is_max else info.max)
    return cx.emit("Fill", shape=shape, dtype=x.dtype, value=value)


@op("ArgMax", "ArgMin")
def _arg(cx):
    x = cx.x(0)
    axis = cx.attrs.int("axis", 0)
    keep = bool(cx.attrs.int("keepdims", 1))
    gj = cx.node.op_type
    if not cx.attrs.int("select_last_index", 0):
        return [cx.emit(gj, x, axis=axis, keep_dims=keep, output_type=D.int64)]
    if x.shape is None or x.shape[axis] is None:
        raise cx.refuse("select_last_index=1 needs the reduced dim known while building")
    r = len(x.shape)
    a = axis % r
    flipped = cx.emit("Index", x, index=tuple(("slice", None, None, -1) if i == a else
                                                ("slice", None, None, None) for i in range(r)))
    idx = cx.emit(gj, flipped, axis=axis, keep_dims=keep, output_type=D.int64)
    return [cx.emit("Sub", cx.array(x.shape[a] - 1, D.int64), idx)]


def cumulative(cx, name):
    """ONNX's CumSum or CumProd (`name`): one axis input, exclusive and reverse."""
    x = cx.x(0)
    axis = cx.ints(1, "axis")
    if axis is None or len(axis) != 1:
        raise cx.where.damaged("the axis must be one integer")
    y = cx.emit(name, x, axis=axis[0], exclusive=bool(cx.attrs.int("exclusive", 0)),
                reverse=bool(cx.attrs.int("reverse", 0)))
    return [cx.keep(y, x.dtype)]


@op("CumSum")
def _cumsum(cx):
    return cumulative(cx, "CumSum")


# -- softmax --------------------------------------------------------------------------------------
@op("Softmax", "LogSoftmax")
def _softmax(cx):
    x = cx.x(0)
    name = cx.node.op_type
    if cx.opset >= 13:
        return [cx.emit(name, x, axis=cx.attrs.int("axis", -1))]
    axis = cx.attrs.int("axis", 1)
    if x.shape is None:
        raise cx.refuse(f"{name} before opset 13 needs the input's rank")
    r = len(x.shape)
    a = axis % r if r else 0
    if a == r - 1 or r == 0:
        return [cx.emit(name, x, axis=-1)]
    if any(d is None for d in x.shape):
        raise cx.refuse(f"{name} before opset 13 with axis {axis} needs a static shape")
    lead = int(np.prod(x.shape[:a], dtype=np.int64))
    flat = cx.emit("Reshape", x, shape=(lead, -1))
    return [cx.emit("Reshape", cx.emit(name, flat, axis=-1), shape=tuple(x.shape))]


def check_elements(cx: NodeCx, shape) -> None:
    n = int(np.prod(np.asarray(shape, dtype=np.float64)))
    if n > MAX_ELEMENTS:
        raise cx.where.damaged(f"asks for a tensor of shape {list(shape)}: more than "
                               f"{MAX_ELEMENTS} elements")


# register the translations of the other modules
from . import (import_attn, import_detect, import_dft, import_grid,  # noqa: E402,F401
               import_loss, import_math, import_net, import_nn, import_norm, import_quant,
               import_resize, import_rnn, import_scatter, import_text, import_train,
               import_window)
