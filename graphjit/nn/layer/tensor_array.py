"""MindSpore's nn.TensorArray: a list of tensors of one dtype and element shape,
written and read by position, stacked into one tensor."""
from __future__ import annotations

import numpy as np

from ... import ops
from ...common.tensor import Tensor, TensorLike
from ...ir import dtypes as dt

__all__ = ["TensorArray"]


class TensorArray:
    """A growing array of tensors (MindSpore's nn.TensorArray).

    Args:
        dtype: the element dtype; written values are cast to it.
        element_shape: the shape of every element.
        dynamic_size: whether writing past the end grows the array.
        size: the initial size (elements not written read as zeros).
        name: its name.

    Writes replace the list it holds (they never change it in place), so a graph
    being built sees each path's writes as a value of that path.
    """

    def __init__(self, dtype, element_shape, dynamic_size=True, size=0, name="TA"):
        self.dtype = dt.as_dtype(dtype)
        self.element_shape = tuple(int(d) for d in element_shape)
        self.dynamic_size = bool(dynamic_size)
        if not isinstance(size, int) or size < 0:
            raise ValueError(f"TensorArray size must be a non-negative int, got {size!r}")
        self.name = name
        self._size0 = size
        self.items = [None] * size

    def _index(self, index, writing):
        if isinstance(index, TensorLike):
            if getattr(index, "has_data", False):
                index = int(index)
            else:
                raise TypeError("TensorArray: the index must be known while the graph is "
                                "built (a Python int)")
        if not isinstance(index, (int, np.integer)) or index < 0:
            raise IndexError(f"TensorArray '{self.name}': index {index!r} must be a "
                             f"non-negative int")
        if index >= len(self.items) and not (writing and self.dynamic_size):
            raise IndexError(f"TensorArray '{self.name}': index {index} out of range for "
                             f"size {len(self.items)}")
        return int(index)

    def write(self, index, value):
        """Put value (cast to the dtype) at index; returns True."""
        i = self._index(index, True)
        v = ops.cast(value if isinstance(value, TensorLike) else Tensor(value), self.dtype)
        if tuple(v.shape) != self.element_shape:
            raise ValueError(f"TensorArray '{self.name}': the element shape is "
                             f"{self.element_shape}, got {tuple(v.shape)}")
        items = list(self.items) + [None] * (i + 1 - len(self.items))
        items[i] = v
        self.items = items
        return True

    def read(self, index):
        """The element at index (zeros where nothing was written)."""
        i = self._index(index, False)
        v = self.items[i]
        return v if v is not None else Tensor(np.zeros(self.element_shape, self.dtype.np))

    def size(self):
        return Tensor(np.asarray(len(self.items), np.int64))

    def stack(self):
        """The elements stacked along a new first axis."""
        if not self.items:
            return Tensor(np.zeros((0,) + self.element_shape, self.dtype.np))
        return ops.stack([self.read(i) for i in range(len(self.items))], 0)

    def clear(self):
        self.items = [None] * self._size0
        return True

    def close(self):
        self.items = []
        return True
