"""MindSpore's `mindspore.common.parameter`: Parameter (a named Tensor held by a Cell: state
a compiled graph reads and updates when it runs), ParameterTuple and mutable (MindSpore
compatibility)."""
from __future__ import annotations

import threading

import numpy as np

from ..ir.dtypes import (bool_, float16, float32, float64, int8, int16, int32, int64,
                         uint8)
from ..ir.errors import UnsupportedSyntaxError
from .eager_fast import keep_general
from .tensor import Tensor, _F, current_recorder
from ..autodiff import tape as _tape

__all__ = ["Parameter", "ParameterTuple", "mutable"]

# MindSpore's mstype.implicit_conversion_seq: set_data casts data of a lower rank to the
# Parameter's dtype and refuses a higher one; mstype.int_type refuses a Python float
_CONVERSION_RANK = {d: i for i, d in enumerate(
    (bool_, int8, uint8, int16, int32, int64, float16, float32, float64))}
_INT_TYPES = (int8, int16, int32, int64)


def _frozen(arr) -> np.ndarray:
    if arr.flags.writeable:
        arr.flags.writeable = False
    return arr


class Parameter(Tensor):
    """A Tensor owned by a Cell, with a name: state. A compiled graph does not hold a
    Parameter's value: it reads the Parameter when it runs (and `ops.assign`, `self.p =
    v` in construct and the optimizer ops update it there, in program order), so new
    data never recompiles. Its array is replaced by an update, never written into, so
    a value read before an update keeps what it read; `_lock` serializes updates made
    with use_locking=True."""

    # "__dict__": MindSpore's Parameter takes any attribute (model zoos set their own)
    __slots__ = ("name", "requires_grad", "_lock", "__dict__")

    # MindSpore's parallel and storage settings, with its defaults: kept, and read by
    # nothing that computes (a graphjit network runs in one process)
    comm_fusion = 1
    parallel_optimizer_comm_recompute = False
    requires_aggr = True
    is_init = False
    sliced = False
    cache_enable = False
    cache_shape = ()
    unique = False
    is_param_ps = False
    key = -1
    inited_param = None

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        data = default_input
        if isinstance(data, Tensor):
            data = data.asnumpy()
        elif not isinstance(data, np.ndarray):
            data = Tensor(data).asnumpy()
        Tensor.__init__(self, np.array(data))
        _frozen(self._data)
        self.name = name
        self.requires_grad = requires_grad
        self._lock = threading.Lock()
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer

    def set_data(self, data, slice_shape=False):
        """Give the Parameter new data, as MindSpore's Parameter.set_data: data is a
        Tensor, int or float (a numpy array is refused); its shape must be the
        Parameter's unless slice_shape; a dtype ranked lower (bool < int8 < uint8 <
        int16 < int32 < int64 < float16 < float32 < float64) is cast to the Parameter's,
        a higher one is refused. A compiled graph reads the new data at its next run.

        Raises:
            TypeError: data is not a Tensor, int or float; a float for an integer
                Parameter; data's dtype cannot be converted implicitly.
            ValueError: data's shape is not the Parameter's (and not slice_shape).
            UnsupportedSyntaxError: called inside a compiled function (MindSpore's
                set_data is jit-forbidden too).
        """
        if current_recorder() is not None:
            raise UnsupportedSyntaxError(
                f"Parameter.set_data() of Parameter '{self.name}' inside a compiled function: "
                f"it replaces the Parameter's data outside the graph (MindSpore does not "
                f"support set_data in construct or a @jit function either)",
                hint="use ops.assign(param, value) (or `self.param = value`) in construct, "
                     "or call set_data outside")
        if not isinstance(data, (Tensor, int, float)):
            raise TypeError(f"Parameter data must be [`Tensor`, `int`, `float`] or a kind of "
                            f"`Tensor` (like `Tensor`). But with type {type(data)}.")
        if isinstance(data, (int, float)):
            if self.dtype in _INT_TYPES and isinstance(data, float):
                self._raise_type_error(float32)
            data = Tensor(data, self.dtype)
        arr = data.asnumpy()
        if tuple(self.shape) != tuple(arr.shape) and not slice_shape:
            raise ValueError(f"Can not change the shape of Parameter which has been initialized."
                             f" Current shape is {tuple(self.shape)}, and incoming is "
                             f"{tuple(arr.shape)}.")
        if self.dtype != data.dtype:
            mine, theirs = _CONVERSION_RANK.get(self.dtype), _CONVERSION_RANK.get(data.dtype)
            # MindSpore ranks only these dtypes (mstype.implicit_conversion_seq); graphjit
            # refuses a conversion between dtypes it does not rank (uint16/32/64)
            if mine is None or theirs is None or mine < theirs:
                self._raise_type_error(data.dtype)
        self._set_data_unchecked(arr)
        return self

    def asnumpy(self) -> np.ndarray:
        """A copy of the Parameter's data (its array is replaced by updates, never
        written into; MindSpore's shares the memory)."""
        return np.array(self._need_data())

    def _set_data_unchecked(self, arr):
        """graphjit's own updates (checkpoint loading, parameter broadcast): a copy of
        arr (a numpy array or Tensor) in the Parameter's dtype, any shape."""
        arr = arr.asnumpy() if isinstance(arr, Tensor) else np.asarray(arr)
        self._data = _frozen(np.array(arr, dtype=self._data.dtype))
        return self

    def _raise_type_error(self, incoming):
        raise TypeError(f"Incoming Parameter dtype can not be converted to current dtype "
                        f"implicitly. Current dtype is {self.dtype}, and incoming is {incoming}. "
                        f"Use .set_dtype(xxx) to change the dtype.")

    def assign_value(self, value):
        """Replace the Parameter's data by value's and return self: as MindSpore's
        (Tensor.assign_value), the Parameter takes value's dtype and shape too (a compiled
        graph that reads it compiles again at its next run; set_data keeps the dtype).

        Raises:
            TypeError: value is not a Tensor.
        """
        if current_recorder() is not None:
            raise UnsupportedSyntaxError(
                f"Parameter.assign_value() of Parameter '{self.name}' inside a compiled "
                f"function: it replaces the Parameter's data (and dtype) outside the graph",
                hint="use ops.assign(param, value) (or `self.param = value`) in construct, "
                     "or call assign_value outside")
        if not isinstance(value, Tensor):
            raise TypeError(f"For 'Parameter.assign_value', the argument 'value' must be a "
                            f"Tensor, but got {type(value).__name__}.")
        arr = value._need_data() if type(value) is not Parameter else value._data
        self._data = _frozen(np.array(arr))
        self._dtype = value.dtype
        return self

    def value(self):
        """The Parameter's current value as a Tensor (in a graph: read when it runs)."""
        return _F().identity(self)

    def init_data(self, layout=None, set_sliced=False):
        """MindSpore initializes Parameters lazily; graphjit's already hold data: self."""
        return self

    def _need_data(self):
        if current_recorder() is not None:
            raise UnsupportedSyntaxError(
                f"the value of Parameter '{self.name}' was needed while the graph is built, "
                f"but a Parameter is state: its value is known only when the graph runs",
                hint="use it in tensor operations (they read it when the graph runs), "
                     "not as a Python value")
        return self._data

    # static facts: known while a graph is built
    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return int(self._data.size)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __setitem__(self, key, value):
        tape = _tape.current()
        if tape is not None and tape.tracks(self):
            # a state update, as ops.assign: not differentiated, and later reads of the
            # Parameter are reads of it (the rule GRAPH_MODE's gradients follow)
            self._write_items(self._data, key, value)
        else:
            Tensor.__setitem__(self, key, value)
        _frozen(self._data)

    def clone(self, init="same"):
        """A new Parameter of the same name, shape and dtype: a copy of the data
        (init='same'), or an initializer's values ('zeros', 'ones', a number...)."""
        if init == "same":
            data = np.array(self._data)
        else:
            from .initializer import initializer
            data = initializer(init, self._data.shape, self.dtype).asnumpy()
        return Parameter(data, name=self.name, requires_grad=self.requires_grad)

    @property
    def data(self):
        return self

    def __repr__(self):
        return f"Parameter(name={self.name}, shape={self.shape}, dtype={self.dtype})"

    def __reduce__(self):
        return (Parameter, (np.array(self._data), self.name, self.requires_grad))


# a Parameter in a graph being built is state read when the graph runs: its operators
# take the general path (ops' binary and apply), never the eager Tensor's fast ones
keep_general(Parameter)


def mutable(input_data, dynamic_len=False):
    """MindSpore's mark for values that should not be constants in graph mode. graphjit
    already keeps tensors variable; Python numbers stay Python numbers (they become
    part of the compile signature)."""
    return input_data


class ParameterTuple(tuple):
    """A tuple of Parameters."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, got {type(p).__name__}")
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        """A new ParameterTuple of new Parameters named `prefix.name`, of the same shapes
        and dtypes: copies of the data (init='same') or an initializer's values
        ('zeros', 'ones', a number...), as an optimizer's state."""
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            q.requires_grad = False
            out.append(q)
        return ParameterTuple(out)
