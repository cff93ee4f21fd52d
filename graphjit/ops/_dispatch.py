"""Applying an operator to values of either mode, with MindSpore's promotion rules.

`apply(op, *inputs, **attrs)` runs the op's kernel on eager Tensors, or records a
node when any input is a graph value. `binary(op, x, y)` first turns Python
scalars (weak types) into tensors of the right dtype:
- an int or bool scalar takes the tensor's dtype (a bool tensor with an int: int64);
- a float scalar takes a floating tensor's dtype, else float32.
Graph values that stand for Python scalars carried through a loop are weak too.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import tape as _tape
from ..ir import dtypes as dt
from ..ir.dtypes import DType
from ..ir.fp_errors import FP_IGNORED, FP_STATE, RUN_IGNORING, ignore_fp_errors, restore_fp_errors
from ..ir import registry as _registry
from ..ir.registry import get_op
from ..ir.types import STATE, ref_type
from ..common.kernel_modes import GENERAL as _GENERAL, PURE as _PURE, QUIET as _QUIET
from ..common.kernel_modes import PURE_OPS, UFUNC as _UFUNC
from ..common.kernel_modes import kernel_mode, small_results
from ..common.parameter import Parameter
from ..common import eager_fast as _eager_fast
from ..common.eager_fast import guarded, run1, run2
from ..common.tensor import SymbolicTensor, Tensor, TensorLike, current_recorder

__all__ = ["apply", "apply_unary", "apply_pair", "unary_function", "pair_function",
           "apply_update", "binary", "to_tensor",
           "is_weak", "weak_kind", "weak_dtype", "PY_SCALARS"]

PY_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)
_KIND_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2}
_DEFAULT_OF_KIND = {"b": dt.bool_, "i": dt.int64, "u": dt.int64, "f": dt.float32}


# Eager ops: what an op needs besides its inputs' data (normalized attributes, output
# types, the kernel) depends only on the op, its attributes and its inputs' dtypes and
# shapes, so it is worked out once per such signature and kept here. Ops whose
# inference reads input values, and ops with effects (random draws, state, printing),
# are worked out at every call. The table is cleared when it grows past _EAGER_LIMIT
# (programs whose shapes change at every step) and when an op is redefined.
# An entry is (normalized attrs, kernel, one output?, how the kernel is called: a mode
# of common.kernel_modes, the result's DType for the modes that know it, its SMALL table
# or None: kernel_modes.small_results, which the Tensor's operators take).
_EAGER: dict = {}
_EAGER_LIMIT = 4096
_registry.ON_REPLACE.append(lambda name: _EAGER.clear())
# the built-in definitions of kernel_modes.PURE_OPS (a redefined op is another OpDef)
_PURE_DEFS = frozenset(get_op(name) for name in PURE_OPS)


def _entry(op, arrays, attrs):
    """The _EAGER entry of op over these arrays and attributes, and whether it may be
    kept (not for ops whose inference reads values, nor for ops with effects)."""
    opdef = get_op(op)
    nattrs = opdef.normalize_attrs(attrs)
    in_types = [Tensor._wrap(a).type for a in arrays]
    out_types = opdef.infer_types(in_types, nattrs,
                                  arrays if opdef.infer_takes_consts else None)
    kernel = opdef.make_kernel(in_types, out_types, nattrs)
    one = len(out_types) == 1
    mode, out_dtype = kernel_mode(kernel, [t.dtype for t in in_types], _DTYPE_OF) if one \
        else (_GENERAL, None)
    if mode is _GENERAL and one and RUN_IGNORING is not None and opdef in _PURE_DEFS:
        mode = _PURE
    known = (nattrs, kernel, one, mode, out_dtype,
             small_results(kernel, in_types, out_dtype) if mode is not _GENERAL else None)
    return known, not opdef.infer_takes_consts and opdef.effects is None


def apply(op: str, *inputs, **attrs):
    """Run or record op on tensor inputs (Tensor or graph values)."""
    arrays = []
    sig = [op]
    for x in inputs:
        if isinstance(x, Tensor):
            if isinstance(x, Parameter):
                rec = current_recorder()
                if rec is not None:   # a Parameter in a graph being built: state, read when it runs
                    return rec.apply(op, inputs, attrs)
            a = x._data
            if a is None:
                return _apply_slow(op, inputs, attrs)
            sig.append(x._dtype)
        elif isinstance(x, SymbolicTensor):
            return type(x)._apply(op, inputs, attrs)
        else:
            a = np.asarray(x)
            sig.append(a.dtype)
        sig.append(a.shape)
        arrays.append(a)
    if attrs:
        items = []
        for k, v in attrs.items():
            tv = type(v)
            # (name, type, value) for the plain kinds, where == tells them apart
            items.append((k, tv, v) if tv in _PLAIN_ATTRS else (k, _attr_key(v)))
        sig.append(tuple(items))
    sig = tuple(sig)
    try:
        known = _EAGER.get(sig)
    except TypeError:           # an attribute that does not hash (a list, an array)
        return _apply_slow(op, inputs, attrs)
    if known is None:
        known, cacheable = _entry(op, arrays, attrs)
        if cacheable:
            if len(_EAGER) >= _EAGER_LIMIT:
                _EAGER.clear()
            _EAGER[sig] = known
    # _run_eager(op, *known, inputs, arrays), inline: this is every eager op's path
    mode = known[3]
    if mode is _QUIET:
        out = known[1](*arrays, out=...)
    elif mode is _UFUNC:
        try:
            out = RUN_IGNORING(known[1], *arrays, out=...)
        except RuntimeError:                  # the context is taken: set the state
            out = guarded(known[1], *arrays, out=...)
    elif mode is _PURE:
        try:
            out = RUN_IGNORING(known[1], *arrays)
        except RuntimeError:
            out = guarded(known[1], *arrays)
    else:
        token = FP_STATE.set(FP_IGNORED) if FP_STATE is not None else ignore_fp_errors()
        try:
            out = known[1](*arrays)
        finally:
            FP_STATE.reset(token) if FP_STATE is not None else restore_fp_errors(token)
    if known[2]:
        result = _new_tensor(Tensor)          # Tensor._wrap, inline
        if known[4] is None:
            result._data = a = out if type(out) is np.ndarray else np.asarray(out)
            result._dtype = _DTYPE_OF.get(a.dtype) or _from_numpy(a.dtype)
        else:
            result._data = out
            result._dtype = known[4]
        result._spec_shape = None
        if _tape._recording:
            _record(op, known[0], inputs, arrays, (result,))
        return result
    outs = tuple(Tensor._wrap(o) for o in out)
    if _tape._recording:
        _record(op, known[0], inputs, arrays, outs)
    return outs


def _record(op, attrs, inputs, arrays, outs):
    tape = _tape.current()
    if tape is not None:    # a gradient is being taken (PYNATIVE): record the op
        tape.record(op, attrs, inputs, arrays, outs)


_PLAIN_ATTRS = frozenset({int, bool, str, type(None)})


def _attr_key(v):
    """An attribute's value as a key that tells apart what == does not: 1, 1.0 and
    True, and 0.0 and -0.0 (Fill(value=-0.0) is not Fill(value=0.0))."""
    if type(v) is float:
        return v.hex()
    if type(v) is tuple:
        return tuple(_attr_key(e) for e in v)
    return (type(v), v)


def _run_eager(op, attrs, kernel, one, inputs, arrays):
    """Run an eager op's kernel (one: it has one output, else a tuple of them)."""
    token = ignore_fp_errors()
    try:
        out = kernel(*arrays)
    finally:
        restore_fp_errors(token)
    outs = (Tensor._wrap(out),) if one else tuple(Tensor._wrap(o) for o in out)
    if _tape._recording:
        _record(op, attrs, inputs, arrays, outs)
    return outs[0] if one else outs


_new_tensor = object.__new__
_from_numpy = dt.from_numpy
_DTYPE_OF = dt.BY_NUMPY


def _apply_slow(op: str, inputs, attrs):
    """apply() without the table: every step at every call (it raises the errors a
    Tensor without data or a wrong attribute gives)."""
    for x in inputs:
        if isinstance(x, SymbolicTensor):
            return type(x)._apply(op, inputs, attrs)
        if isinstance(x, Parameter):
            rec = current_recorder()
            if rec is not None:
                return rec.apply(op, inputs, attrs)
    opdef = get_op(op)
    attrs = opdef.normalize_attrs(attrs)
    arrays = [x._need_data() if isinstance(x, Tensor) else np.asarray(x) for x in inputs]
    in_types = [x.type if isinstance(x, Tensor) else Tensor._wrap(a).type
                for x, a in zip(inputs, arrays)]
    out_types = opdef.infer_types(in_types, attrs, arrays if opdef.infer_takes_consts else None)
    kernel = opdef.make_kernel(in_types, out_types, attrs)
    return _run_eager(op, attrs, kernel, len(out_types) == 1, inputs, arrays)


def apply_update(op: str, *inputs, **attrs):
    """Run or record state op `op` (graphjit.ir.defs.state, optimizers): Parameters at
    its ref inputs, tensors elsewhere. Eagerly, the op's kernel updates the Parameters
    in place now; in a graph being built, the update is recorded in program order.
    Returns the op's outputs but the state token (a Tensor, a tuple, or None).

    Raises:
        TypeError: a ref input is not a Parameter.
    """
    rec = current_recorder()
    if rec is not None or any(isinstance(x, SymbolicTensor) for x in inputs):
        if rec is None:
            raise TypeError(f"{op}: a graph value was used outside the function being built")
        outs = rec.update(op, inputs, attrs)
    else:
        opdef = get_op(op)
        attrs = opdef.normalize_attrs(attrs)
        args, types = [], []
        for i, x in enumerate(inputs):
            if opdef.kind_of_input(i) == "ref":
                if not isinstance(x, Parameter):
                    name = opdef.inputs[min(i, len(opdef.inputs) - 1)]
                    raise TypeError(f"{op}: {name} must be a Parameter (the state it "
                                    f"updates), got {type(x).__name__}")
                args.append(x)
                types.append(ref_type(x.type))
            else:
                a = x._need_data() if isinstance(x, Tensor) else np.asarray(x)
                args.append(a)
                types.append(Tensor._wrap(a).type)
        types.append(STATE)
        out_types = opdef.infer_types(types, attrs)
        kernel = opdef.make_kernel(types, out_types, attrs)
        with np.errstate(all="ignore"):
            outs = kernel(*args, np.True_)
        if len(out_types) == 1:
            outs = (outs,)
        outs = tuple(Tensor._wrap(np.asarray(o)) for o in outs[:-1])
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


def is_weak(x) -> bool:
    return isinstance(x, PY_SCALARS) or getattr(x, "weak", False)


def weak_kind(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, (int, np.integer)):
        return "i"
    if isinstance(x, (float, np.floating)):
        return "f"
    return x.dtype.kind


def weak_dtype(kind: str, strong: DType) -> DType:
    """The dtype a weak scalar of this kind ('b', 'i' or 'f') takes beside a tensor of
    dtype `strong` (the rules of the module docstring)."""
    if kind == "f":
        return strong if strong.is_floating else dt.float32
    if kind == "i":
        return dt.int64 if strong.is_bool else strong
    return strong


def to_tensor(x, dtype: DType = None):
    """A tensor operand: Tensors and graph values as they are (cast if dtype differs),
    Python scalars, lists and numpy arrays as eager Tensors."""
    if isinstance(x, TensorLike):
        if dtype is not None and x.dtype is not dtype:
            return apply("Cast", x, dtype=dtype)
        return x
    if isinstance(x, PY_SCALARS):
        if dtype is None:
            dtype = _DEFAULT_OF_KIND[weak_kind(x)]
        token = ignore_fp_errors()      # a number past a float dtype's range: inf, silently
        try:                            # (as the tables' cached arrays of it give it)
            return Tensor._wrap(np.asarray(x, dtype=dtype.np))
        except OverflowError:   # an int outside the dtype's range wraps around, as C does
            return Tensor._wrap(np.asarray(x).astype(dtype.np))
        finally:
            restore_fp_errors(token)
    if x is None:
        raise TypeError("None is not a tensor; an operator got None where a tensor was "
                        "expected")
    t = Tensor(x)
    if dtype is not None and t.dtype is not dtype:
        t = Tensor._wrap(t._data.astype(dtype.np))
    return t


_PY_DIVISIONS = {
    "RealDiv": ("division by zero", "float division by zero"),
    "FloorDiv": ("integer division or modulo by zero", "float floor division by zero"),
    "FloorMod": ("integer division or modulo by zero", "float modulo"),
}


_PY_INT_EXACT = frozenset({"Add", "Sub", "Mul"})


def binary(op: str, x, y):
    """Apply a binary op with the weak-scalar promotion rules of the module docstring."""
    if type(x) is Tensor and type(y) is Tensor:     # two eager tensors: nothing to promote
        return apply(op, x, y)
    if x is None or y is None:      # MindSpore's sentence, then ours
        raise TypeError(f"For '{op}', the {1 if x is None else 2}th input var can not be "
                        f"implicitly converted: None is not a tensor; an operator got None "
                        f"where a tensor was expected")
    wx, wy = is_weak(x), is_weak(y)
    if wx and wy:
        k = max(weak_kind(x), weak_kind(y), key=_KIND_ORDER.__getitem__)
        symbolic = isinstance(x, SymbolicTensor) or isinstance(y, SymbolicTensor)
        d = _DEFAULT_OF_KIND[k]
        if symbolic and (k == "f" or op == "RealDiv"):
            d = dt.float64  # graph values standing for Python numbers keep Python's precision
        y = to_tensor(y, d)
        if symbolic and op in _PY_DIVISIONS:
            # graph values standing for Python numbers divide like Python numbers
            y = apply("CheckNonZero", y, message=_PY_DIVISIONS[op][k == "f"])
        x = to_tensor(x, d)
        out = apply(op, x, y)
        if isinstance(out, SymbolicTensor):
            if d is dt.int64 and op in _PY_INT_EXACT:
                # graph values standing for Python ints are int64s: where one would
                # wrap, a Python int grows; say so at run time rather than wrap
                out = apply("CheckIntOverflow", out, x, y, binary=op)
            out.weak = True
        return out
    if wx:
        y = to_tensor(y)
        return apply(op, to_tensor(x, weak_dtype(weak_kind(x), y.dtype)), y)
    if wy:
        x = to_tensor(x)
        return apply(op, x, to_tensor(y, weak_dtype(weak_kind(y), x.dtype)))
    return apply(op, to_tensor(x), to_tensor(y))


def unary_function(op: str):
    """The function input -> apply(op, input) of an op without attributes (ops.tanh and
    the like): an eager Tensor whose signature apply has seen runs the kernel apply
    found for it at once (no tape recording), anything else takes apply()."""
    def fn(input):
        if type(input) is Tensor and not _tape._recording:
            a = input._data
            if a is not None:
                known = _EAGER.get((op, input._dtype, a.shape))
                if known is not None and known[2]:
                    mode = known[3]               # run1(known, a), inline
                    if mode is _UFUNC:
                        try:
                            out = RUN_IGNORING(known[1], a, out=...)
                        except RuntimeError:      # the context is taken
                            return run1(known, a)
                    elif mode is _QUIET:
                        out = known[1](a, out=...)
                    else:
                        return run1(known, a)
                    r = _new_tensor(Tensor)
                    r._data = out
                    r._dtype = known[4]
                    r._spec_shape = None
                    return r
        return apply(op, to_tensor(input))
    return fn


def pair_function(op: str):
    """The function (input, other) -> apply(op, input, other) of an op without
    attributes and two eager Tensors (no promotion of Python numbers: ops.matmul), as
    unary_function."""
    def fn(input, other):
        if type(input) is Tensor and type(other) is Tensor and not _tape._recording:
            a, b = input._data, other._data
            if a is not None and b is not None:
                known = _EAGER.get((op, input._dtype, a.shape, other._dtype, b.shape))
                if known is not None and known[2]:
                    mode = known[3]               # run2(known, a, b), inline
                    if mode is _UFUNC:
                        try:
                            out = RUN_IGNORING(known[1], a, b, out=...)
                        except RuntimeError:      # the context is taken
                            return run2(known, a, b)
                        r = _new_tensor(Tensor)
                        r._data = out
                        r._dtype = known[4]
                        r._spec_shape = None
                        return r
                    if mode is _PURE:
                        try:
                            out = RUN_IGNORING(known[1], a, b)
                        except RuntimeError:      # the context is taken
                            return run2(known, a, b)
                        r = _new_tensor(Tensor)   # Tensor._wrap, inline
                        r._data = out if type(out) is np.ndarray else (out := np.asarray(out))
                        r._dtype = _DTYPE_OF.get(out.dtype) or _from_numpy(out.dtype)
                        r._spec_shape = None
                        return r
                    return run2(known, a, b)
        return apply(op, to_tensor(input), to_tensor(other))
    return fn


_UNARY_FUNCTIONS: dict = {}
_PAIR_FUNCTIONS: dict = {}


def apply_unary(op: str, x):
    """unary_function(op)(x)."""
    fn = _UNARY_FUNCTIONS.get(op)
    if fn is None:
        fn = _UNARY_FUNCTIONS[op] = unary_function(op)
    return fn(x)


def apply_pair(op: str, x, y):
    """pair_function(op)(x, y)."""
    fn = _PAIR_FUNCTIONS.get(op)
    if fn is None:
        fn = _PAIR_FUNCTIONS[op] = pair_function(op)
    return fn(x, y)


# -- the eager Tensor's fast paths take binary() and this table (common.eager_fast) -----
_eager_fast.BINARY = binary
_eager_fast.EAGER = _EAGER
