"""Parameter (a named Tensor held by a Cell) and mutable (MindSpore compatibility)."""
from __future__ import annotations

import numpy as np

from .tensor import Tensor

__all__ = ["Parameter", "mutable"]


class Parameter(Tensor):
    """A Tensor owned by a Cell, with a name. Graph mode reads its current data: a
    compiled graph is rebuilt when the Parameter is given new data (set_data)."""

    __slots__ = ("name", "requires_grad")

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        data = default_input
        if isinstance(data, Tensor):
            data = data.asnumpy()
        elif not isinstance(data, np.ndarray):
            data = Tensor(data).asnumpy()
        Tensor.__init__(self, np.array(data))
        self.name = name
        self.requires_grad = requires_grad

    def set_data(self, data, slice_shape=False):
        arr = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
        self._data = np.array(arr, dtype=self._data.dtype)
        return self

    @property
    def data(self):
        return self

    def __repr__(self):
        return f"Parameter(name={self.name}, shape={self.shape}, dtype={self.dtype})"


def mutable(input_data, dynamic_len=False):
    """MindSpore's mark for values that should not be constants in graph mode. graphjit
    already keeps tensors variable; Python numbers stay Python numbers (they become
    part of the compile signature)."""
    return input_data
