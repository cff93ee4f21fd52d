"""State ops: reading and updating Parameters when the graph runs, in program order.

A Parameter enters a graph as a ref (`ref<f32[3,4]>`), a graph input bound when the
graph runs to a *variable*: any object with `_data`, the current numpy array, and
`_lock`, a threading.Lock (graphjit's Parameter is one; Variable below holds the
weights of an imported model). Updates replace `_data` with a new read-only array
and never write into the old one, so a value read before an update keeps what it
read.

Every state op takes the state token (`state`) and gives the next one, so the
order of reads and updates is data flow that no transformation can change:

    graph construct(%x: f32[2], %w: ref<f32[2]>, %state: state) {
      %0: f32[2], %state_1: state = Load(%w, %state)
      %1: f32[2] = Add(%0, %x)
      %state_2: state = Assign(%w, %1, %state_1)
      %2: f32[2], %state_3: state = Load(%w, %state_2)      # sees the update
      return %2, %state_3
    }

A graph threads one token from its state parameter to one result (the verifier's
check_state); If and Loop take the token as an operand and give it back as an
output, so updates inside their bodies keep their place too. The optimizer ops
(optimizers.py) follow the same rules.
"""
from __future__ import annotations

import threading
from contextlib import ExitStack, nullcontext
from typing import Sequence

import numpy as np

from ..registry import register_op
from ..types import STATE, TensorType
from .common import broadcast_shapes, fail, unify_shapes

__all__ = ["Variable", "STATE_OPS", "read", "write", "holding", "check_var", "check_like",
           "check_scalar", "state_op"]


class Variable:
    """A variable a ref is bound to when no Parameter is (the weights of an imported
    model): the current array and the lock of use_locking updates."""

    __slots__ = ("_data", "_lock", "name")

    def __init__(self, data, name=None):
        arr = np.array(data)
        arr.flags.writeable = False
        self._data = arr
        self._lock = threading.Lock()
        self.name = name

    def __repr__(self):
        return f"Variable({self.name!r}, {self._data.dtype}{list(self._data.shape)})"


def read(var) -> np.ndarray:
    """The variable's current array, read-only (an update replaces it, so what was
    read stays as it was)."""
    a = var._data
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def write(var, arr, dtype, copy: bool = False) -> np.ndarray:
    """Give the variable a new array (read-only; copied first if the caller does not
    own it); returns it."""
    if copy:
        a = np.array(arr, dtype=dtype)
    elif type(arr) is np.ndarray and arr.dtype == dtype:
        a = arr                         # (an optimizer's new array: no asarray call)
    else:
        a = np.asarray(arr, dtype=dtype)
    a.setflags(write=False)
    var._data = a
    return a


_NO_LOCK = nullcontext()     # reusable: what an update without use_locking holds


def holding(use_locking: bool, *variables):
    """A context holding the locks of these variables (each once, in one global
    order, so two updates never wait for each other) when use_locking is set."""
    if not use_locking:
        return _NO_LOCK
    if len(variables) == 1:
        return variables[0]._lock
    stack = ExitStack()
    seen = {}
    for v in variables:
        seen.setdefault(id(v), v)
    for _, v in sorted(seen.items()):
        stack.enter_context(v._lock)
    return stack


def ordered_locks(*variables) -> tuple:
    """The locks of these variables in holding's order, one per variable (a variable
    given twice: a lock that holds nothing the second time), for `with l0, l1, l2:`
    (the locks' own C context managers: a microsecond where holding's stack takes
    five)."""
    order = sorted(variables, key=id)
    out = [order[0]._lock]
    for prev, v in zip(order, order[1:]):
        out.append(_NO_LOCK if v is prev else v._lock)
    return tuple(out)


# -- inference helpers (shared with optimizers.py) ----------------------------------------------
def check_var(op: str, t: TensorType, name: str, floating: bool = True) -> TensorType:
    """A ref input: its value type (floating if the op computes with it)."""
    v = t.value_type()
    if floating and not v.dtype.is_floating:
        raise fail(op, f"{name} must be a floating Parameter, got {t}",
                   hint="give the Parameter a float dtype (float32, say)")
    return v


def check_like(op: str, var: TensorType, t: TensorType, name: str, var_name: str = "var"):
    """An input that must have the dtype and shape of `var` (unknown dims agree with
    anything)."""
    tv = t.value_type()
    if tv.dtype is not var.dtype:
        raise fail(op, f"{name} must have the dtype of {var_name} ({var.dtype}), got {t}",
                   hint=f"cast it: ops.cast({name}, ms.{var.dtype})")
    try:
        unify_shapes(op, [var.shape, tv.shape], f"{var_name} and {name}")
    except Exception:
        raise fail(op, f"{name} must have the shape of {var_name}: {var_name} is "
                       f"{var.value_type()}, {name} is {t}") from None


def check_scalar(op: str, var: TensorType, t: TensorType, name: str):
    """A hyper-parameter (learning rate, momentum, ...): a scalar of var's dtype."""
    if t.shape is not None and t.shape != ():
        raise fail(op, f"{name} must be a scalar (shape ()), got {t}",
                   hint=f"pass a Python number or a 0-d tensor as {name}")
    if t.dtype is not var.dtype:
        raise fail(op, f"{name} must have the dtype of var ({var.dtype}), got {t}",
                   hint=f"cast it: ops.cast({name}, ms.{var.dtype})")


def state_op(name: str, inputs: Sequence[str], attrs, infer, factory, doc: str,
             effects: str = "write"):
    """Register a state op: its last input is the state token and its last output
    the next one (infer returns the other outputs; the token is added here). Its
    `effects` ("write", or "read" for Load) tell the passes to keep it in place; the
    token already makes its order data flow."""
    def infer_all(ts, a):
        out = infer(ts[:-1], a)
        out = (out,) if isinstance(out, TensorType) else tuple(out)
        return out + (STATE,)
    return register_op(name, tuple(inputs) + ("state: state",), attrs, infer=infer_all,
                       kernel_factory=factory, exact_dtype=True, family="extern", doc=doc,
                       effects=effects)


# -- Load and the Assign family ------------------------------------------------------------------
def _load_infer(ts, attrs):
    return ts[0].value_type()


def _load_factory(in_types, out_types, attrs):
    def k(var, tok):
        return read(var), tok
    return k


state_op("Load", ("var: ref",), {}, _load_infer, _load_factory,
         "the Parameter's value when the node runs (after every update before it)",
         effects="read")


def _assign_infer(op):
    """MindSpore's rule (AssignFuncImpl::InferShape): value has the variable's shape, or
    one of them is [1] and the other a scalar; a dim known only at run time is checked
    when the node runs."""
    def infer(ts, attrs):
        var = check_var(op, ts[0], "variable", floating=False)
        value = ts[1]
        if value.dtype is not var.dtype:
            raise fail(op, f"value must have the dtype of the variable ({var.dtype}), got "
                           f"{value}", hint=f"cast it: ops.cast(value, ms.{var.dtype})")
        vs, ws = var.shape, value.shape
        if vs is None or ws is None:
            return ()
        if len(vs) != len(ws):
            if (vs == (1,) and ws == ()) or (vs == () and ws == (1,)):
                return ()
            raise fail(op, f"'value' must have the same rank as 'variable'. But got 'value' "
                           f"rank: {len(ws)}, 'variable' rank: {len(vs)} (value {value}, "
                           f"variable {ts[0]})",
                       hint="reshape the value to the variable's shape")
        if any(a is not None and b is not None and a != b for a, b in zip(vs, ws)):
            raise fail(op, f"'value' must have the same shape as 'variable'. But got 'value' "
                           f"shape: {tuple(ws)}, 'variable' shape: {tuple(vs)}",
                       hint="give the value the variable's shape (ops.broadcast_to for a "
                            "smaller one)")
        return ()
    return infer


def _fit(value, var, op):
    """value in var's shape when the node runs (MindSpore's rule, see _assign_infer)."""
    value = np.asarray(value)
    shape = var._data.shape
    if value.shape == shape:
        return value
    if value.size == 1 and var._data.size == 1 and value.ndim + len(shape) == 1:
        return value.reshape(shape)
    raise ValueError(f"For '{op}', 'value' must have the same shape as 'variable'. But got "
                     f"'value' shape: {value.shape}, 'variable' shape: {shape}")


def _assign_factory(in_types, out_types, attrs):
    dtype = in_types[0].dtype.np

    def k(var, value, tok):
        write(var, _fit(value, var, "Assign"), dtype, copy=True)
        return tok
    return k


def _assign_add_factory(sign):
    def factory(in_types, out_types, attrs):
        dtype = in_types[0].dtype.np

        name = "AssignAdd" if sign > 0 else "AssignSub"

        def k(var, value, tok):
            value = _fit(value, var, name)
            with holding(True, var):    # a read-modify-write: always atomic
                new = var._data + value if sign > 0 else var._data - value
                write(var, new, dtype, copy=True)
            return tok
        return k
    return factory


state_op("Assign", ("variable: ref", "value"), {}, _assign_infer("Assign"), _assign_factory,
         "variable = value (of the variable's shape; [1] and a scalar fit each other)")
state_op("AssignAdd", ("variable: ref", "value"), {}, _assign_infer("AssignAdd"),
         _assign_add_factory(1), "variable += value, atomically")
state_op("AssignSub", ("variable: ref", "value"), {}, _assign_infer("AssignSub"),
         _assign_add_factory(-1), "variable -= value, atomically")

STATE_OPS = frozenset({"Load", "Assign", "AssignAdd", "AssignSub"})
