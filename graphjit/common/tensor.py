"""Tensor (eager values); the operator overloads and methods every tensor-like value
shares are TensorLike's (common.tensor_like).

Graph values built by the front-end (frontend.values.GraphTensor) subclass
SymbolicTensor and overload the same operators and methods, so one expression in
a user's `construct` serves both modes. Whether a graph is being built is asked of
`current_recorder()` (JAX's trace context, beside its `Primitive.bind`): the
front-end's graph context is a Recorder.
"""
from __future__ import annotations

import threading
from typing import List, Optional

import numpy as np

from ..autodiff import tape as _tape
from ..ir import dtypes as dt
from ..ir.dtypes import DType
from ..ir.errors import UnsupportedSyntaxError
from ..ir.types import TensorType, format_shape
from . import eager_fast as _eager_fast
from . import eager_reductions as _eager_reductions
from .tensor_like import TensorLike, _F

__all__ = ["Tensor", "TensorSpec", "SymbolicTensor", "TensorLike", "Recorder",
           "current_recorder"]


_BY_NUMPY = dt.BY_NUMPY


class Tensor(TensorLike):
    """An eager tensor: a numpy array and its dtype.

    `Tensor(data, dtype=None)`: Python ints give int64, Python floats float32, a numpy
    array keeps its dtype; `dtype=` overrides. `Tensor(shape=[None, 4],
    dtype=ms.float32)` is a tensor without data: an input description for
    `Cell.set_inputs` (None or -1 dims are unknown; `shape=None` an unknown rank).
    """

    __slots__ = ("_data", "_dtype", "_spec_shape", "_writes", "_exposed", "__weakref__")

    # the operators that are one binary op, x[i] and the reductions: eager_fast.install,
    # below the class

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False,
                 internal=False):
        if internal:
            self._data = input_data
            self._dtype = dt.from_numpy(input_data.dtype)
            self._spec_shape = None
            return
        if type(input_data) is np.ndarray and dtype is None and init is None:
            arr = np.array(input_data)     # a copy (_to_array's), in a dtype graphjit has
            d = _BY_NUMPY.get(arr.dtype)
            if d is not None:
                self._data, self._dtype, self._spec_shape = arr, d, None
                return
        want = None if dtype is None else dt.as_dtype(dtype)
        if input_data is None and init is not None:
            # Tensor(dtype=, shape=, init=Initializer): MindSpore fills it on init_data();
            # graphjit fills it now (the initializer duck-types as _make(shape, dtype))
            if shape is None or want is None or not hasattr(init, "_make"):
                raise TypeError("Tensor(init=...) needs an Initializer, a shape and a dtype")
            input_data = init._make(tuple(int(d) for d in shape), want)
        if input_data is None:
            if want is None:
                raise TypeError("Tensor() needs data, or a dtype and a shape (a tensor "
                                "without data)")
            self._data = None
            self._dtype = want
            self._spec_shape = _spec_shape(shape)
            return
        arr = _to_array(input_data, want)
        self._data = arr
        self._dtype = dt.from_numpy(arr.dtype)
        self._spec_shape = None

    @classmethod
    def _wrap(cls, arr) -> "Tensor":
        t = object.__new__(cls)
        if type(arr) is not np.ndarray:
            arr = np.asarray(arr)
        t._data = arr
        t._dtype = dt.BY_NUMPY.get(arr.dtype) or dt.from_numpy(arr.dtype)
        t._spec_shape = None
        return t

    @staticmethod
    def from_numpy(array) -> "Tensor":
        """A Tensor over a numpy array, sharing its memory where it is C-contiguous
        (MindSpore's Tensor.from_numpy)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy takes a numpy.ndarray, got "
                            f"{type(array).__name__}")
        t = Tensor._wrap(np.ascontiguousarray(array))
        t._exposed = True           # the caller holds the array: guarded by its data
        return t

    @property
    def has_data(self) -> bool:
        return self._data is not None

    def _need_data(self):
        if self._data is None:
            raise ValueError("this Tensor has no data: it only describes an input "
                             f"(shape {format_shape(self._spec_shape)}, dtype {self._dtype})")
        return self._data

    def asnumpy(self) -> np.ndarray:
        """The tensor's data as a numpy array sharing its memory, as MindSpore's: a write
        into the array is a write into the tensor, and x[i] = v shows in the array. Data
        the tensor shares with something else (a view of another tensor, a graph's
        constant, a read-only array) is copied into the tensor first. A Parameter gives
        a copy: its array is replaced by an update, never written into. (A graph that
        folded this tensor's data checks the data at each call from now on.)"""
        a = self._need_data()
        if not a.flags.writeable or a.base is not None:
            a = self._data = a.copy()
        if not getattr(self, "_exposed", False):
            self._exposed = True
            # graphs built before hold a guard that counts writes: they are built again,
            # with a guard on the data
            self._writes = getattr(self, "_writes", 0) + 1
        return a

    def numpy(self) -> np.ndarray:
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):
        a = self._need_data()
        return a if dtype is None else a.astype(dtype)

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def shape(self):
        if self._data is None:
            s = self._spec_shape
            return None if s is None else tuple(-1 if d is None else d for d in s)
        return tuple(self._data.shape)

    @property
    def type(self) -> TensorType:
        if self._data is None:
            return TensorType(self._dtype, self._spec_shape)
        return TensorType(self._dtype, tuple(self._data.shape))

    @property
    def ndim(self) -> int:
        return self._need_data().ndim

    @property
    def size(self) -> int:
        return int(self._need_data().size)

    def item(self, *index):
        a = self._need_data()
        v = a.item(*index)
        return v

    def tolist(self):
        return self._need_data().tolist()

    def __len__(self):
        a = self._need_data()
        if a.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return a.shape[0]

    def __iter__(self):
        a = self._need_data()
        if a.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor. (iteration over a "
                            "0-d tensor)")
        tape = _tape.current()
        if tape is not None and tape.tracks(self):   # rows are Index ops on the tape
            for i in range(a.shape[0]):
                yield self[i]
            return
        for i in range(a.shape[0]):
            yield Tensor._wrap(a[i])

    def __bool__(self):
        a = self._data
        if a is not None and a.ndim == 0:    # a 0-d array: the truth of its element
            return bool(a)
        a = self._need_data()
        if a.size != 1:
            raise ValueError(f"Only tensor which shape is () or (1,) can be converted to bool, "
                             f"but got tensor shape is {a.shape}: the truth value of a Tensor "
                             f"with {a.size} elements is ambiguous; use .any() or .all()")
        return bool(a.reshape(-1)[0])

    def __int__(self):
        return int(self._one())

    def __float__(self):
        return float(self._one())

    def __index__(self):
        # a bool is an int in Python (and MindSpore indexes a list with a bool tensor)
        if not (self._dtype.is_integer or self._dtype.is_bool):
            raise TypeError(f"only integer tensors can be used as an index, not {self._dtype}")
        return int(self._one())

    def _one(self):
        a = self._need_data()
        if a.size != 1:
            raise ValueError(f"only one-element tensors can be converted to Python scalars "
                             f"(this one has shape {a.shape})")
        return a.reshape(-1)[0]

    def __setitem__(self, key, value):
        a = self._need_data()
        tape = _tape.current()
        if tape is not None and (tape.tracks(self) or tape.tracks(value)):
            # a gradient is being taken: the update is a recorded op, and the values
            # recorded before it stay as they were
            new = _F().index_update(self, key, value)
            self._data = new._data
            tape.rebind(self, new)
            return
        self._write_items(a, key, value)

    def _write_items(self, a, key, value):
        """a[key] = value into this tensor's data, in place (unrecorded)."""
        if isinstance(key, TensorLike):
            key = np.asarray(key)
        if isinstance(key, tuple):
            key = tuple(np.asarray(k) if isinstance(k, TensorLike) else k for k in key)
        if not a.flags.writeable:
            a = self._data = a.copy()
        # counted: a graph that folded this tensor's data is built again (its guard)
        self._writes = getattr(self, "_writes", 0) + 1
        a[key] = np.asarray(value, dtype=a.dtype) if not isinstance(value, TensorLike) \
            else np.asarray(value).astype(a.dtype)

    def copy(self):
        return Tensor._wrap(np.array(self._need_data()))

    def assign_value(self, value):
        """Replace this tensor's data by value's, in place, and return self (MindSpore's
        Tensor.assign_value): as MindSpore, the tensor takes value's dtype and shape too.
        The data is copied, so later writes into either tensor (x[i] = v) leave the
        other as it is. Eager tensors only: in a compiled construct tensors are values
        (use ops.assign on a Parameter).

        Raises:
            TypeError: value is not a Tensor.
            ValueError: value has no data (an input description).
        """
        if current_recorder() is not None:
            raise UnsupportedSyntaxError(
                "Tensor.assign_value() inside a compiled function: it replaces an eager "
                "tensor's data in place, which a graph cannot do at each run",
                hint="rebind the variable (x = value), or update a Parameter with "
                     "ops.assign(param, value)")
        if not isinstance(value, Tensor):
            raise TypeError(f"For 'Tensor.assign_value', the argument 'value' must be a Tensor, "
                            f"but got {type(value).__name__}.")
        arr = value._need_data()
        tape = _tape.current()
        if tape is not None and (tape.tracks(self) or tape.tracks(value)):
            # a gradient is being taken: self now holds a recorded copy of value (the
            # values recorded before stay as they were), as __setitem__ does
            new = _F().identity(value)
            self._data, self._dtype, self._spec_shape = new._data, new._dtype, None
            tape.rebind(self, new)
            return self
        self._data = np.array(arr)
        self._dtype = value._dtype
        self._spec_shape = None
        return self

    def __str__(self) -> str:
        if self._data is None:
            return f"Tensor(shape={format_shape(self._spec_shape)}, dtype={self._dtype})"
        return str(self._data)

    def __repr__(self) -> str:
        if self._data is None:
            return f"Tensor(shape={format_shape(self._spec_shape)}, dtype={self._dtype}, no data)"
        body = np.array2string(self._data, separator=", ", prefix="Tensor(")
        return f"Tensor({body}, dtype={self._dtype})"

    def __format__(self, spec):
        if self._data is not None and self._data.size == 1 and spec:
            return format(self._data.reshape(-1)[0].item(), spec)
        return format(str(self), spec)

    def __reduce__(self):
        return (Tensor, (self.asnumpy(),))


_eager_fast.install(Tensor)
_eager_reductions.install(Tensor)


def _spec_shape(shape):
    if shape is None:
        return None
    out = []
    for d in shape:
        if d is None or d == -1:
            out.append(None)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            out.append(int(d))
        else:
            raise ValueError(f"a shape dim must be a non-negative int, None or -1, got {d!r}")
    return tuple(out)


def _default_dtype_of(x) -> Optional[DType]:
    """graphjit's default dtype for Python data (ints int64, floats float32)."""
    if isinstance(x, bool):
        return dt.bool_
    if isinstance(x, int):
        return dt.int64
    if isinstance(x, float):
        return dt.float32
    return None


def _to_array(data, want: Optional[DType]) -> np.ndarray:
    if isinstance(data, Tensor):
        arr = data._need_data()
    elif isinstance(data, SymbolicTensor):
        raise TypeError("Tensor(...) of a graph value: use the value itself (or ops.cast) "
                        "inside construct")
    elif isinstance(data, np.ndarray) or isinstance(data, np.generic):
        arr = np.array(data)     # a copy, as MindSpore's Tensor: later writes to the array
                                 # do not change the tensor
    else:
        try:
            arr = np.asarray(data)
        except Exception as e:
            raise TypeError(f"cannot make a Tensor from {type(data).__name__}: {e}") from None
        if arr.dtype == object:
            raise TypeError(f"cannot make a Tensor from {data!r}: the elements must be numbers "
                            f"of one nested shape")
        if arr.dtype.kind == "f" and arr.dtype != np.float32:
            arr = arr.astype(np.float32)        # Python floats default to float32
        elif arr.dtype.kind == "U" or arr.dtype.kind == "S":
            raise TypeError(f"cannot make a Tensor from strings: {data!r}")
    if want is not None:
        arr = arr.astype(want.np)
    else:
        dt.from_numpy(arr.dtype)  # rejects unsupported dtypes (complex, strings...)
    return arr


class SymbolicTensor(TensorLike):
    """Base of graph values; `_apply(op, inputs, attrs)` records a node."""

    __slots__ = ()

    @classmethod
    def _apply(cls, op, inputs, attrs):  # pragma: no cover - overridden
        raise NotImplementedError


class Recorder:
    """A graph being built. Entering it (`with recorder:`) makes it the thread's
    current recorder until exit; ops that meet no graph value but must still be
    recorded (print of constants only) record into it with `emit`."""

    def __enter__(self):
        _recorders().append(self)
        return self

    def __exit__(self, *exc):
        _recorders().pop()

    def emit(self, op: str, inputs, attrs):  # pragma: no cover - overridden
        """Add a node `op` over inputs (graph values, Tensors or arrays); returns it."""
        raise NotImplementedError

    def apply(self, op: str, inputs, attrs):  # pragma: no cover - overridden
        """Record `op` over inputs, graph values or not (a random op on a constant must
        still draw when the graph runs); returns its graph values, as `_apply` does."""
        raise NotImplementedError

    def update(self, op: str, inputs, attrs):  # pragma: no cover - overridden
        """Record state op `op` (ops.assign, an optimizer op): Parameters at its ref
        inputs, in program order; returns its outputs (the token aside)."""
        raise NotImplementedError


_recording = threading.local()


def _recorders() -> List[Recorder]:
    s = getattr(_recording, "stack", None)
    if s is None:
        s = _recording.stack = []
    return s


def current_recorder() -> Optional[Recorder]:
    """The innermost graph being built on this thread, or None in eager code."""
    s = getattr(_recording, "stack", None)
    return s[-1] if s else None


class TensorSpec:
    """An input described by dtype and shape only; None (or -1) dims are unknown and
    `shape=None` is an unknown rank."""

    def __init__(self, shape, dtype=dt.float32):
        self.shape = _spec_shape(shape)
        self.dtype = dt.as_dtype(dtype)

    @property
    def type(self) -> TensorType:
        return TensorType(self.dtype, self.shape)

    def __repr__(self):
        return f"TensorSpec({format_shape(self.shape)}, {self.dtype})"

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self.type == other.type

    def __hash__(self):
        return hash(self.type)
