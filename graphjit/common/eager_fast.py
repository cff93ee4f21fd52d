"""The eager Tensor's fast paths: an op whose signature eager mode has already run takes
the kernel cached for it at once, with nothing generic in between.

ops._dispatch.apply works out an op's kernel once per signature (op, input dtypes and
shapes, attributes) and keeps it in its table (installed here as EAGER). The Tensor
operators (+ - * / // % ** < <= > >=), x[i] with an int i, the reductions x.sum(),
x.max(), x.min() and x.mean() (common.eager_reductions), and the functions that call
`cached` below look that kernel up by what they were given and run it (0-d integer
arithmetic and 0-d comparisons may take a shared result from a SMALL table instead:
common.kernel_modes); anything else (a graph value, a
Parameter, a recording gradient tape, a signature not seen yet, an argument of another
kind) takes the general path, which gives the same values, dtypes and errors, and
after which `remember` makes the next call fast. tests/ops/test_eager_fast.py holds
each fast path against the general one (tests/ops/test_eager_small_values.py the
tables of small values and the ufunc entries that serve every shape).
"""
from __future__ import annotations

import numpy as np

from ..autodiff import tape as _tape
from ..ir import dtypes as dt
from ..ir import registry as _registry
from ..ir.dtypes import DType
from ..ir.fp_errors import FP_IGNORED as _FP_IGNORED, FP_STATE as _FP_STATE
from ..ir.fp_errors import RUN_IGNORING as _RUN_IGNORING
from ..ir.fp_errors import ignore_fp_errors as _ignore_fp, restore_fp_errors as _restore_fp
from .kernel_modes import PURE as _PURE, QUIET as _QUIET, UFUNC as _UFUNC, small_table

__all__ = ["install", "keep_general", "run1", "run2", "runn", "guarded", "cached1", "cached2",
           "cached", "remember", "scalar_array", "take_one"]


def _first_binary(op, x, y):
    """Until graphjit.ops is imported (which installs its binary and table here)."""
    from ..ops import _dispatch
    return _dispatch.binary(op, x, y)


# installed by graphjit.ops._dispatch when it is imported: binary(op, x, y) with
# MindSpore's promotion rules, and apply's table of eager kernels by signature
BINARY = _first_binary
EAGER: dict = {}
Tensor = None                 # common.tensor.Tensor (install)

_NUMBERS = (float, int, bool)
# DType -> kernel_modes.small_table of it (None: not an integer or bool dtype), for x[i]
_ELEMENTS: dict = {}
_BY_NUMPY = dt.BY_NUMPY
_from_numpy = dt.from_numpy
_new = object.__new__
_PLAIN_ATTRS = (int, bool, str, type(None))   # apply's signature keeps these as they are

# (op, dtypes, shapes, the call's own arguments) -> an EAGER entry, for the paths below
# whose arguments are not apply's attributes one for one; cleared when full and when an
# op is redefined (as EAGER is)
_FAST: dict = {}
_FAST_LIMIT = 4096
_registry.ON_REPLACE.append(lambda name: _FAST.clear())


def _weak_dtype(ty, strong: DType) -> DType:
    """The dtype a Python float, int or bool takes beside a tensor of dtype `strong`
    (ops._dispatch.weak_dtype)."""
    if ty is float:
        return strong if strong.is_floating else dt.float32
    if ty is int:
        return dt.int64 if strong.is_bool else strong
    return strong


# (Python number type, tensor dtype) -> the number's dtype, for every dtype
_WEAK = {(ty, d): _weak_dtype(ty, d) for ty in _NUMBERS for d in dt.BY_NUMPY.values()}
# (number, its type, dtype) -> a read-only 0-d array of it (not the float 0.0 or NaN:
# -0.0 == 0.0 and NaN != NaN as keys; the int 0 is kept); cleared when full
_SCALARS: dict = {}


def scalar_array(o, d: DType) -> np.ndarray:
    """np.asarray(o, d.np), from a small cache of read-only arrays."""
    key = (o, type(o), d)
    a = _SCALARS.get(key)
    if a is None:
        a = guarded(np.asarray, o, d.np)     # past a float dtype's range: inf, silently
        if type(o) is not float or (o and o == o):
            if len(_SCALARS) > 512:
                _SCALARS.clear()
            a.flags.writeable = False
            _SCALARS[key] = a
    return a


# -- running a cached kernel -------------------------------------------------------------------
def _wrap(out):
    r = _new(Tensor)                       # Tensor._wrap, inline
    r._data = out if type(out) is np.ndarray else (out := np.asarray(out))
    r._dtype = _BY_NUMPY.get(out.dtype) or _from_numpy(out.dtype)
    r._spec_shape = None
    return r


def guarded(kernel, *arrays, **kwargs):
    """kernel(*arrays, **kwargs) under numpy's "ignore" error state."""
    token = _FP_STATE.set(_FP_IGNORED) if _FP_STATE is not None else _ignore_fp()
    try:
        return kernel(*arrays, **kwargs)
    finally:
        _FP_STATE.reset(token) if _FP_STATE is not None else _restore_fp(token)


def run1(known, a):
    """A Tensor of the one-output kernel of EAGER entry `known` over array a, called as
    its mode says (common.kernel_modes)."""
    mode = known[3]
    if mode is _QUIET:
        out = known[1](a, out=...)
    elif mode is _UFUNC:
        try:
            out = _RUN_IGNORING(known[1], a, out=...)
        except RuntimeError:                      # the context is taken: set the state
            out = guarded(known[1], a, out=...)
    elif mode is _PURE:
        try:
            return _wrap(_RUN_IGNORING(known[1], a))
        except RuntimeError:
            return _wrap(guarded(known[1], a))
    else:
        return _wrap(guarded(known[1], a))
    r = _new(Tensor)
    r._data = out
    r._dtype = known[4]
    r._spec_shape = None
    return r


def run2(known, a, b):
    """run1 over two arrays."""
    mode = known[3]
    if mode is _QUIET:
        out = known[1](a, b, out=...)
    elif mode is _UFUNC:
        try:
            out = _RUN_IGNORING(known[1], a, b, out=...)
        except RuntimeError:                      # the context is taken: set the state
            out = guarded(known[1], a, b, out=...)
    elif mode is _PURE:
        try:
            return _wrap(_RUN_IGNORING(known[1], a, b))
        except RuntimeError:
            return _wrap(guarded(known[1], a, b))
    else:
        return _wrap(guarded(known[1], a, b))
    r = _new(Tensor)
    r._data = out
    r._dtype = known[4]
    r._spec_shape = None
    return r


def runn(known, arrays):
    """run1 over any number of arrays (a general or pure kernel)."""
    if known[3] is _PURE:
        try:
            return _wrap(_RUN_IGNORING(known[1], *arrays))
        except RuntimeError:
            pass
    return _wrap(guarded(known[1], *arrays))


# -- fast paths keyed by a call's own arguments ------------------------------------------------
def _arrays_of(inputs):
    """The arrays of eager Tensors (exactly Tensor: no Parameter) with data, else None;
    also None while a gradient tape records."""
    if _tape._recording:
        return None
    arrays = []
    for x in inputs:
        if type(x) is not Tensor or x._data is None:
            return None
        arrays.append(x._data)
    return arrays


def cached1(op, x, extra):
    """The Tensor op gives over eager x, when `remember(op, (x,), extra, ...)` was called
    for its dtype and shape and the same `extra` (the call's other arguments, hashable,
    of types that tell apart what == does not: no bools where ints go); else None."""
    if type(x) is Tensor and not _tape._recording:
        a = x._data
        if a is not None:
            known = _FAST.get((op, extra, x._dtype, a.shape))
            if known is not None:
                return run1(known, a)
    return None


def cached2(op, x, y, extra):
    """cached1 over two eager Tensors."""
    if type(x) is Tensor and type(y) is Tensor and not _tape._recording:
        a, b = x._data, y._data
        if a is not None and b is not None:
            known = _FAST.get((op, extra, x._dtype, a.shape, y._dtype, b.shape))
            if known is not None:
                return run2(known, a, b)
    return None


def take_one(x, idx, axis):
    """The Gather op of eager Tensors for one integer index in range (a 0-d tensor):
    x.take(index, axis), a copy, as Gather's kernel gives it (a row along axis 0:
    x[index].copy(), the same array); None in any other case (an index array, out of
    range, a bool index, a scalar x, an axis out of range), which the op then takes or
    refuses. (axis: an int.)"""
    if type(x) is Tensor and type(idx) is Tensor and not _tape._recording:
        a, i = x._data, idx._data
        if a is not None and i is not None and not i.ndim and idx._dtype.kind in "iu":
            nd = a.ndim
            if -nd <= axis < nd:
                n = len(a) if axis == 0 else a.shape[axis]
                k = i.item()
                if -n <= k < n:
                    out = a[k].copy() if axis == 0 and nd > 1 else a.take(k, axis)
                    r = _new(Tensor)
                    r._data = out if type(out) is np.ndarray else np.asarray(out)
                    r._dtype = x._dtype
                    r._spec_shape = None
                    return r
    return None


def cached(op, inputs, extra):
    """cached1 over one or more eager Tensors of one dtype and shape (a general kernel)."""
    if _tape._recording or not inputs:
        return None
    try:
        first = inputs[0]
        d, shape = first._dtype, first._data.shape
        arrays = []
        for x in inputs:        # exactly Tensor: a Parameter (or a graph value) never matches
            if type(x) is not Tensor or x._dtype is not d:
                return None
            a = x._data
            if a.shape != shape:
                return None
            arrays.append(a)
    except AttributeError:                     # not a Tensor, or a Tensor without data
        return None
    known = _FAST.get((op, extra, len(arrays), d, shape))
    return None if known is None else runn(known, arrays)


def remember(op, inputs, extra, attrs, many=False) -> None:
    """After apply(op, *inputs, **attrs) ran: the entry it kept serves `cached1(op,
    *inputs, extra)` or `cached2` from now on (`cached`, over any number of inputs, if
    many). `extra` must determine `attrs` (the caller's normalization of its arguments
    into attributes is a function of them)."""
    arrays = _arrays_of(inputs)
    if arrays is None or not all(type(v) in _PLAIN_ATTRS for v in attrs.values()):
        return
    sig = [op]
    for x, a in zip(inputs, arrays):
        sig += (x._dtype, a.shape)
    if attrs:        # as apply builds it: (name, type, value) for the plain kinds
        sig.append(tuple((k, type(v), v) for k, v in attrs.items()))
    known = EAGER.get(tuple(sig))
    if known is None or not known[2]:
        return
    if len(_FAST) >= _FAST_LIMIT:
        _FAST.clear()
    if many:                               # cached's key: one dtype and shape
        kinds, shapes = {x._dtype for x in inputs}, {a.shape for a in arrays}
        if len(kinds) == 1 and len(shapes) == 1:
            _FAST[(op, extra, len(arrays), *kinds, *shapes)] = known
    elif len(inputs) == 1:                 # cached1's key
        _FAST[(op, extra, inputs[0]._dtype, arrays[0].shape)] = known
    elif len(inputs) == 2:                 # cached2's
        _FAST[(op, extra, inputs[0]._dtype, arrays[0].shape, inputs[1]._dtype,
               arrays[1].shape)] = known
    else:
        raise ValueError("remember: more than two inputs need many=True (cached's key)")


# -- the Tensor's methods ----------------------------------------------------------------------
# (op, number, its type, the tensor's dtype and shape[, True if the number comes first])
# -> (EAGER entry, the number as an array): one look-up for `x * 0.5`; numbers that
# scalar_array does not keep (the float zeros, NaN) are not kept here either
_WITH_NUMBER: dict = {}
_registry.ON_REPLACE.append(lambda name: _WITH_NUMBER.clear())
# (op, dtype, dtype) -> the EAGER entry of a binary op whose kernel is a ufunc (modes
# UFUNC and QUIET: the same kernel, mode and result dtype whatever the shapes), for two
# Tensors that are not both 0-d (those take their SMALL tables): numpy broadcasts as the
# op's inference does (ir.defs.common.broadcast_shapes), and shapes that do not
# broadcast take the general path, which says so. _WITH_NUMBER likewise keys such an
# entry over a tensor that is not 0-d with the shape None.
_ANY_SHAPE: dict = {}
_registry.ON_REPLACE.append(lambda name: _ANY_SHAPE.clear())


def _with_number(op, dtype, shape, o, to, reflected):
    """The EAGER entry of `tensor op number` (`number op tensor` if reflected) and the
    number as an array of its dtype by MindSpore's rules; (None, None) if apply has not
    seen the signature or the number does not fit the dtype (binary() says how it
    wraps around)."""
    d = _WEAK[to, dtype]
    known = EAGER.get((op, d, (), dtype, shape) if reflected else (op, dtype, shape, d, ()))
    if known is None:
        return None, None
    try:
        b = scalar_array(o, d)
    except OverflowError:
        return None, None
    if to is not float or (o and o == o):
        if len(_WITH_NUMBER) >= _FAST_LIMIT:
            _WITH_NUMBER.clear()
        if shape and (known[3] is _UFUNC or known[3] is _QUIET):
            shape = None            # a ufunc over a tensor that is not 0-d: any such shape
        _WITH_NUMBER[(op, o, to, dtype, shape, True) if reflected else
                     (op, o, to, dtype, shape)] = (known, b)
    return known, b


def _binary_method(op: str):
    """The operator method of an eager Tensor for binary op `op`: when no gradient
    tape records and apply has seen the signature (two Tensors with data, or a Tensor
    and a Python number), the kernel apply found for it runs at once (or its SMALL
    table gives the result: common.kernel_modes); otherwise ops' binary() (promotion,
    graph values, the tape)."""
    def method(self, o):             # self: a Tensor (Parameter keeps TensorLike's method)
        if not _tape._recording:
            to = type(o)
            if to is Tensor:
                a, b = self._data, o._data
                if a is None or b is None:        # a Tensor without data
                    return BINARY(op, self, o)
                if not (a.ndim or b.ndim):        # two 0-d tensors
                    known = EAGER.get((op, self._dtype, (), o._dtype, ()))
                else:
                    known = _ANY_SHAPE.get((op, self._dtype, o._dtype))
                    if known is not None:         # a ufunc: numpy broadcasts as inference
                        try:
                            try:
                                out = known[1](a, b, out=...) if known[3] is _QUIET else \
                                    _RUN_IGNORING(known[1], a, b, out=...)
                            except RuntimeError:  # the context is taken: set the state
                                out = guarded(known[1], a, b, out=...)
                        except ValueError:        # shapes that do not broadcast: the
                            return BINARY(op, self, o)      # general path says so
                        r = _new(Tensor)
                        r._data = out
                        r._dtype = known[4]
                        r._spec_shape = None
                        return r
                    known = EAGER.get((op, self._dtype, a.shape, o._dtype, b.shape))
                    if known is not None and (known[3] is _UFUNC or known[3] is _QUIET):
                        if len(_ANY_SHAPE) >= _FAST_LIMIT:
                            _ANY_SHAPE.clear()
                        _ANY_SHAPE[(op, self._dtype, o._dtype)] = known
            elif to in _NUMBERS and (a := self._data) is not None:
                if a.ndim:
                    hit = _WITH_NUMBER.get((op, o, to, self._dtype, None)) or \
                        _WITH_NUMBER.get((op, o, to, self._dtype, a.shape)) or \
                        _with_number(op, self._dtype, a.shape, o, to, False)
                else:
                    hit = _WITH_NUMBER.get((op, o, to, self._dtype, ())) or \
                        _with_number(op, self._dtype, (), o, to, False)
                known, b = hit
            else:
                return BINARY(op, self, o)
            if known is not None:
                small = known[5]
                if small is not None:             # 0-d inputs: their Python values
                    pyop, results, lo, hi = small
                    out = pyop(a.item(), b.item())
                    if lo <= out < hi:
                        r = _new(Tensor)
                        r._data = results[out - lo]
                        r._dtype = known[4]
                        r._spec_shape = None
                        return r
                mode = known[3]                   # run2(known, a, b), inline
                if mode is _QUIET:
                    out = known[1](a, b, out=...)
                elif mode is _UFUNC:
                    try:
                        out = _RUN_IGNORING(known[1], a, b, out=...)
                    except RuntimeError:          # the context is taken: set the state
                        out = guarded(known[1], a, b, out=...)
                elif known[2]:
                    return run2(known, a, b)
                else:
                    return BINARY(op, self, o)
                r = _new(Tensor)
                r._data = out
                r._dtype = known[4]
                r._spec_shape = None
                return r
        return BINARY(op, self, o)
    method.__name__ = f"__{op.lower()}__"
    return method


def _reflected_method(op: str):
    """_binary_method for `number op tensor` (__radd__ and the like)."""
    def method(self, o):
        to = type(o)
        if to in _NUMBERS and not _tape._recording:       # self: a Tensor, as above
            b = self._data
            if b is not None:
                if b.ndim:
                    hit = _WITH_NUMBER.get((op, o, to, self._dtype, None, True)) or \
                        _WITH_NUMBER.get((op, o, to, self._dtype, b.shape, True)) or \
                        _with_number(op, self._dtype, b.shape, o, to, True)
                else:
                    hit = _WITH_NUMBER.get((op, o, to, self._dtype, (), True)) or \
                        _with_number(op, self._dtype, (), o, to, True)
                known, a = hit
                if known is not None and known[2]:
                    small = known[5]
                    if small is not None:         # 0-d inputs: their Python values
                        pyop, results, lo, hi = small
                        out = pyop(a.item(), b.item())
                        if lo <= out < hi:
                            r = _new(Tensor)
                            r._data = results[out - lo]
                            r._dtype = known[4]
                            r._spec_shape = None
                            return r
                    if known[3] is _UFUNC:        # run2(known, a, b), inline
                        try:
                            out = _RUN_IGNORING(known[1], a, b, out=...)
                        except RuntimeError:      # the context is taken: set the state
                            out = guarded(known[1], a, b, out=...)
                        r = _new(Tensor)
                        r._data = out
                        r._dtype = known[4]
                        r._spec_shape = None
                        return r
                    return run2(known, a, b)
        return BINARY(op, o, self)
    method.__name__ = f"__r{op.lower()}__"
    return method


_OPERATORS = {"add": "Add", "sub": "Sub", "mul": "Mul", "truediv": "RealDiv",
              "floordiv": "FloorDiv", "mod": "FloorMod", "pow": "Pow"}
_COMPARISONS = {"lt": "Less", "le": "LessEqual", "gt": "Greater", "ge": "GreaterEqual"}


# the methods install() replaced: name -> TensorLike's method
_GENERAL_METHODS: dict = {}


def install(cls) -> None:
    """Give Tensor (`cls`) the operator methods above and the fast x[i] and reductions,
    each falling back on the general method it replaces (TensorLike's)."""
    global Tensor
    Tensor = cls
    names = [f"__{n}__" for n in _OPERATORS] + [f"__r{n}__" for n in _OPERATORS] + \
        [f"__{n}__" for n in _COMPARISONS] + ["__getitem__", "sum", "mean", "max", "min"]
    _GENERAL_METHODS.update({n: getattr(cls, n) for n in names})
    for name, op in _OPERATORS.items():
        setattr(cls, f"__{name}__", _binary_method(op))
        setattr(cls, f"__r{name}__", _reflected_method(op))
    for name, op in _COMPARISONS.items():
        setattr(cls, f"__{name}__", _binary_method(op))
    general_getitem = cls.__getitem__

    def __getitem__(self, key):
        """x[i] for an int i in range: a[i], as the Index op's kernel (an element of a
        small integer or bool value: the shared array of kernel_modes.small_table);
        else x[key]."""
        if type(key) is int and type(self) is Tensor and not _tape._recording and \
                (a := self._data) is not None and (nd := a.ndim) and -len(a) <= key < len(a):
            if nd == 1:                           # an element
                small = _ELEMENTS.get(self._dtype, False)
                if small is not None:
                    if small is False:
                        small = _ELEMENTS[self._dtype] = small_table(a.dtype)
                    if small is not None:
                        results, lo, hi = small
                        v = a.item(key)
                        if lo <= v < hi:
                            r = _new(Tensor)
                            r._data = results[v - lo]
                            r._dtype = self._dtype
                            r._spec_shape = None
                            return r
            out = a[key]                          # a row (a view), or an element
            r = _new(Tensor)
            r._data = out if type(out) is np.ndarray else np.asarray(out)
            r._dtype = self._dtype
            r._spec_shape = None
            return r
        return general_getitem(self, key)
    cls.__getitem__ = __getitem__


def keep_general(cls) -> None:
    """Give a subclass of Tensor (Parameter: state read where a graph is being built)
    back the general methods install() replaced."""
    for name, method in _GENERAL_METHODS.items():
        setattr(cls, name, method)
