"""Gradient rules run on numpy arrays: the GradBuilder and GradNode of eager mode.

b.apply runs the op's registry kernel, chosen for the exact input types as graph
mode chooses it, so an eager backward step computes what the graph's backward node
computes, bit for bit.
"""
from __future__ import annotations

from typing import Dict, Sequence

import numpy as np

from ..ir.dtypes import from_numpy
from ..ir.grad import GradBuilder, GradNode
from ..ir.registry import get_op
from ..ir.types import TensorType

__all__ = ["EagerBuilder", "EagerNode", "array_type"]


def array_type(a) -> TensorType:
    a = np.asarray(a)
    return TensorType(from_numpy(a.dtype), a.shape)


# (op, input types, attrs) -> (kernel, number of outputs): kernels are chosen once per
# signature, as a compiled graph chooses them once
_KERNELS: Dict[tuple, tuple] = {}
_MAX_KERNELS = 4096


def _key(op, in_types, attrs):
    try:
        key = (op, tuple(in_types), tuple(sorted(attrs.items())))
        hash(key)
        return key
    except TypeError:           # an attribute that is an array: no caching
        return None


class EagerBuilder(GradBuilder):
    """Runs each op at once on numpy arrays."""

    def apply(self, op: str, *inputs, **attrs):
        arrays = [np.asarray(x) for x in inputs]
        in_types = [array_type(a) for a in arrays]
        key = _key(op, in_types, attrs)
        hit = _KERNELS.get(key) if key is not None else None
        if hit is None:
            opdef = get_op(op)
            norm = opdef.normalize_attrs(attrs)
            out_types = opdef.infer_types(in_types, norm,
                                          arrays if opdef.infer_takes_consts else None)
            hit = (opdef.make_kernel(in_types, out_types, norm), len(out_types))
            if key is not None and not opdef.infer_takes_consts:
                if len(_KERNELS) >= _MAX_KERNELS:
                    _KERNELS.clear()
                _KERNELS[key] = hit
        kernel, n_out = hit
        with np.errstate(all="ignore"):
            out = kernel(*arrays)
        if n_out == 1:
            return np.asarray(out)
        return tuple(np.asarray(o) for o in out)

    def const(self, value):
        return np.asarray(value)

    def type(self, v) -> TensorType:
        return array_type(v)

    def known(self, v):
        return np.asarray(v)


class EagerNode(GradNode):
    """A recorded eager op: its saved input and output arrays."""

    def __init__(self, b: EagerBuilder, op: str, attrs, inputs: Sequence, outputs: Sequence,
                 gs: Sequence, needed: Sequence[bool] = None):
        super().__init__(b, op, attrs, [array_type(a) for a in inputs],
                         [array_type(a) for a in outputs], gs, needed)
        self._inputs = inputs
        self._outputs = outputs

    def x(self, i: int):
        return self._inputs[i]

    def y(self, i: int = 0):
        return self._outputs[i]

    def same_input(self, i: int, j: int) -> bool:
        return self._inputs[i] is self._inputs[j]
