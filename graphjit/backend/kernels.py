"""How single nodes run: the kernel of a node, and the numpy expressions that compute
some nodes identically without a call (a Python operator on same-dtype values, views
for Squeeze/ExpandDims, `@` for MatMul, `ufunc.reduce` for max/min/sum)."""
from __future__ import annotations

import math
import operator
from typing import Callable, Optional, Sequence

import numpy as np

from ..ir.fp_errors import FP_IGNORED, FP_STATE, ignore_fp_errors, restore_fp_errors
from ..ir.registry import get_op
from ..ir.types import num_elements
from .gemm import blocked_matmul

__all__ = ["truth", "is_one_element_bool", "node_kernel", "operator_of", "call_text",
           "EXPRESSIONS", "ignore_fp_errors", "restore_fp_errors", "FP_STATE", "FP_IGNORED"]


def truth(c, what: str = "condition") -> bool:
    """The value of a one-element condition.

    Raises:
        ValueError: c does not have exactly one element.
    """
    a = np.asarray(c)
    if a.size != 1:
        raise ValueError(f"the {what} must have exactly one element, got shape {a.shape}")
    return bool(a.reshape(-1)[0])


def is_one_element_bool(t) -> bool:
    """A value of this type can be tested with a plain `if v:` (numpy agrees)."""
    return t.dtype.is_bool and t.shape is not None and num_elements(t.shape) == 1


def node_kernel(node) -> Callable:
    """The kernel of a node (not If or Loop) for its exact input and output types."""
    return get_op(node.op).make_kernel([v.type for v in node.inputs],
                                       [o.type for o in node.outputs], node.attrs)


# numpy ufuncs that a Python operator computes identically when both inputs have one
# dtype of the given kinds (b bool, i/u int, f float); on numpy scalars the operator
# takes numpy's scalar fast path, ~15x quicker than calling the ufunc
_OPERATORS = {
    np.add: ("+", "iuf"), np.subtract: ("-", "iuf"), np.multiply: ("*", "iuf"),
    np.true_divide: ("/", "f"),
    np.less: ("<", "biuf"), np.less_equal: ("<=", "biuf"), np.greater: (">", "biuf"),
    np.greater_equal: (">=", "biuf"), np.equal: ("==", "biuf"),
    np.not_equal: ("!=", "biuf"),
    np.logical_and: ("&", "b"), np.logical_or: ("|", "b"), np.logical_xor: ("^", "b"),
}


def operator_of(kernel, node) -> Optional[str]:
    """The Python operator computing this node's kernel identically, if any."""
    try:
        op, kinds = _OPERATORS[kernel]
    except (KeyError, TypeError):
        return None
    if len(node.inputs) != 2 or len(node.outputs) != 1:
        return None
    a, b = (v.type.dtype for v in node.inputs)
    return op if a is b and a.kind in kinds else None


def call_text(em, node, ins: Sequence[str]) -> str:
    """The expression running a node: its operator, or a call of its kernel."""
    kernel = node_kernel(node)
    op = operator_of(kernel, node)
    if op is not None:
        return f"{ins[0]} {op} {ins[1]}"
    return f"{em.glob(kernel, 'k')}({', '.join(ins)})"


def _index_text(rank: int, picks) -> str:
    """The text of an index over `rank` dims with `picks` {dim: text} (others `:`)."""
    last = max(picks)
    return ", ".join(picks.get(k, ":") for k in range(last + 1))


def _squeeze(node, em, x):
    t, o = node.inputs[0].type, node.outputs[0].type
    axis = node.attrs.get("axis")
    row = em.sliced.get(id(node.inputs[0]))
    if row is not None:                 # a Loop's slice i:i+1 on this axis: x[i] itself
        arr, i, ax = row
        return f"{arr}[{':, ' * ax}{i}]"
    if t.rank is None or o.rank in (None, 0) or axis is None or axis == ():
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = {int(a) % t.rank for a in axes}
    if any(t.shape[a] != 1 for a in axes):
        return None   # np.squeeze checks an unknown dim at run time; x[0] would not
    return f"{x}[{_index_text(t.rank, {a: '0' for a in axes})}]"


def _expand_dims(node, em, x):
    t = node.inputs[0].type
    if t.rank is None:
        return None
    a = int(node.attrs["axis"]) % (t.rank + 1)
    return f"{x}[{_index_text(t.rank + 1, {a: 'None'})}]"


# np.dot without its __array_function__ dispatcher (the C function it wraps; the same
# computation, 0.1 us less per call)
_DOT = getattr(np.dot, "__wrapped__", np.dot)


def _matmul(node, em, x, y):
    """`x @ y`, or for two float matrices `np.dot(x, y)` (transposes as `.T` views), as
    the kernel computes them (ir.defs.nn); by a constant matrix, row blocks where they
    give the same bits faster (backend.gemm)."""
    (a, b), o = (v.type for v in node.inputs), node.outputs[0].type
    if a.dtype is not o.dtype or b.dtype is not o.dtype or not a.rank or not b.rank:
        return None
    ta, tb = node.attrs.get("transpose_a"), node.attrs.get("transpose_b")
    if a.rank == 2 and b.rank == 2 and o.dtype.np in (np.float32, np.float64):
        w = em.consts.get(id(node.inputs[1]))
        if w is not None and not ta and a.shape is not None:
            blocked = blocked_matmul(node_kernel(node), a.shape, w, bool(tb))
            if blocked is not None:         # a constant matrix: row blocks (backend.gemm)
                return f"{em.glob(blocked, '_blocked')}({x})"
        into = em.into.get(id(node.outputs[0]))       # a buffer a Loop's plan gave it
        return (f"{em.ref(_DOT, 'dot')}({x}{'.T' if ta else ''}, "
                f"{y}{'.T' if tb else ''}{', ' + into if into else ''})")
    if ta or tb or o.dtype.np.kind == "V":      # bfloat16: the kernel rounds back
        return None
    return f"{x} @ {y}"


def _index_item(i) -> str:
    if isinstance(i, tuple):               # ("slice", start, stop, step)
        return ":".join("" if p is None else str(p) for p in i[1:])
    return "..." if i == "..." else "None" if i is None else str(int(i))


def _index(node, em, x):
    """Basic indexing (ints, slices, None, ...) written as Python indexing."""
    if node.inputs[0].type.rank in (None, 0):
        return None
    items = node.attrs["index"]
    return f"{x}[{', '.join(_index_item(i) for i in items)}]"


def _gather(node, em, x, i):
    """Gather of one integer (rank 0) index: Python indexing (a view, as Index gives);
    an index out of range goes to the kernel, which raises eager mode's error."""
    xt, it = (v.type for v in node.inputs)
    if xt.rank in (None, 0) or it.shape != () or not it.dtype.is_integer:
        return None
    axis = int(node.attrs["axis"]) % xt.rank
    n = f"{x}.shape[{axis}]"
    # the index as a Python int first: comparing 0-d arrays costs a microsecond each
    j = em.fresh("j")
    return (f"{x}[{':, ' * axis}{j}] if -{n} <= ({j} := {em.ref(operator.index, '_as_index')}"
            f"({i})) < {n} else {em.glob(node_kernel(node), 'k')}({x}, {i})")


def _reduce_with(ufunc):
    """ReduceMax/Min/Sum as `ufunc.reduce`, which np.max/min/sum call (without their
    Python wrapper); a float16 sum accumulates in float32 as the kernel does."""
    reduce = ufunc.reduce          # one bound method, so one global names it

    def expr(node, em, x):
        o = node.outputs[0].type.dtype.np
        i = node.inputs[0].type.dtype.np
        acc = None
        if ufunc is np.add:
            acc = np.dtype(np.float32) if o == np.float16 else o
        elif i != o:
            return None
        axis = node.attrs["axis"]
        axis = None if axis is None or axis == () else (
            axis if isinstance(axis, int) else tuple(axis))
        kd = bool(node.attrs["keep_dims"])
        if acc is None and not kd:     # the defaults left out: 30 ns less a call
            return f"{em.ref(reduce, ufunc.__name__ + '_reduce')}({x}, {axis!r})"
        text = (f"{em.ref(reduce, ufunc.__name__ + '_reduce')}({x}, {axis!r}, "
                f"{em.glob(acc, '_dtype') if acc is not None else 'None'}, None, {kd})")
        if acc is not None and acc != o:
            text = f"np.asarray({text}, {em.glob(o, '_dtype')})"
        return text
    return expr


def _mean_all(node, em, x):
    """ReduceMean over every element of a float32/float64 input of a static, non-empty
    shape: what np.mean(x, dtype=d) computes (the kernel), `d(sum / intp(n))` (the
    float sum divided in float64 as numpy's scalar division by an intp does, rounded
    to d), without np.mean's Python wrapper (3 microseconds)."""
    t, o = node.inputs[0].type, node.outputs[0].type
    if node.attrs["axis"] not in (None, ()) or node.attrs["keep_dims"] or \
            t.dtype is not o.dtype or t.dtype.np not in (np.float32, np.float64) or \
            not t.shape or any(d is None or d <= 0 for d in t.shape):
        return None
    d = np.dtype(t.dtype.np)
    n = em.glob(np.intp(math.prod(t.shape)), "_count")
    total = (f"{em.ref(np.add.reduce, 'add_reduce')}({x}, None, {em.glob(d, '_dtype')}, "
             f"None, False)")
    return f"{em.glob(d.type, '_as')}({total} / {n})"


def _check_int_overflow(node, em, r, x, y):
    """CheckIntOverflow of `x op c` (or `c op x`) for a constant c: the result as it is
    where x lies within the bounds that keep `x op c` in int64 (one comparison instead
    of a call), else the kernel, which raises if it did wrap."""
    if node.outputs[0].type.shape != () or node.outputs[0].type.dtype.np != np.int64:
        return None
    op = node.attrs["binary"]
    const = em.consts.get(id(node.inputs[2]))
    other = x
    if const is None and op in ("Add", "Mul"):
        const, other = em.consts.get(id(node.inputs[1])), y
    if const is None or np.ndim(const) != 0:
        return None
    c = int(const)
    lo, hi = _INT64_MIN, _INT64_MAX
    if op == "Add":
        lo, hi = max(lo, lo - c), min(hi, hi - c)
    elif op == "Sub":
        lo, hi = max(lo, lo + c), min(hi, hi + c)
    else:
        if c == 0:
            return r
        hi = hi // abs(c)
        lo = -hi
    kernel = em.glob(node_kernel(node), "k")
    # for an int64 operand, the bounds as int64 scalars: comparing an int64 scalar
    # with one is 5x as quick as with a Python int (another dtype's, 3x slower)
    hi_t, lo_t = hi, lo
    ov = node.inputs[1] if other == x else node.inputs[2]
    if ov.type.dtype.np == np.int64 and ov.type.shape == ():
        hi_t, lo_t = em.glob(np.int64(hi), "c"), em.glob(np.int64(lo), "c")
    test = (f"{other} <= {hi_t}" if lo == _INT64_MIN else f"{other} >= {lo_t}"
            if hi == _INT64_MAX else f"{lo_t} <= {other} <= {hi_t}")
    return f"{r} if {test} else {kernel}({r}, {x}, {y})"


_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


# ops that a numpy expression computes identically (a view for the shape ops),
# without a call, as `fn(node, em, *input names) -> text or None`: the frontend's
# sliced and concatenated loop values are Squeeze(slice, 0) and ExpandDims(value, 0)
EXPRESSIONS = {"Squeeze": _squeeze, "ExpandDims": _expand_dims, "MatMul": _matmul,
               "Index": _index, "Gather": _gather,
               "ReduceMax": _reduce_with(np.maximum), "ReduceMin": _reduce_with(np.minimum),
               "ReduceSum": _reduce_with(np.add), "ReduceMean": _mean_all,
               "CheckIntOverflow": _check_int_overflow}


