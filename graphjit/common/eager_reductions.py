"""The eager Tensor's fast reductions: x.sum(), x.max(), x.min() and x.mean() with an
axis None or an int and a bool keepdims run the kernel apply found for their signature
at once (common.eager_fast's paths, for reductions); anything else takes TensorLike's
method. tests/ops/test_eager_fast.py holds each against the general path.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import tape as _tape
from ..ir import dtypes as dt
from ..ir import registry as _registry
from ..ir.fp_errors import RUN_IGNORING as _RUN_IGNORING
from . import eager_fast as _ef
from .eager_fast import cached1, guarded, remember
from .kernel_modes import PURE as _PURE

__all__ = ["install"]

_BY_NUMPY = dt.BY_NUMPY
_from_numpy = dt.from_numpy
_new = object.__new__


def _plain(axis, keep) -> bool:
    """Whether a reduction's arguments are the ones the table serves: axis None or an
    int, keep a bool (then apply's attributes are axis=axis, keep_dims=keep)."""
    return (axis is None or type(axis) is int) and (keep is True or keep is False)


# (op, axis, keepdims, dtype, shape) -> (kernel, whether it is pure, the result's DType
# or None): the reductions x.sum(), x.max() and x.min() an eager Tensor has run (the
# result's dtype as the general path gave it: a kernel's dtype follows its input dtypes)
_REDUCED: dict = {}
_registry.ON_REPLACE.append(lambda name: _REDUCED.clear())


def _remember_reduction(op, x, axis, keepdims, result) -> None:
    """After the general path gave `result` for x's reduction op: the next one is fast."""
    if _tape._recording or type(x) is not _ef.Tensor or x._data is None or \
            type(result) is not _ef.Tensor:
        return
    a = x._data
    known = _ef.EAGER.get((op, x._dtype, a.shape, (("axis", type(axis), axis),
                                                ("keep_dims", bool, keepdims))))
    if known is None or not known[2]:
        return
    if len(_REDUCED) >= _ef._FAST_LIMIT:
        _REDUCED.clear()
    pure = known[3] is _PURE
    _REDUCED[(op, axis, keepdims, x._dtype, a.shape)] = \
        (known[1], pure, result._dtype if pure else None)


def install(cls) -> None:
    """Give Tensor (`cls`) the fast reductions, after eager_fast.install (which keeps
    the general methods they replace, for Parameter)."""
    tl_sum, tl_mean, tl_max, tl_min = cls.sum, cls.mean, cls.max, cls.min

    def run_reduced(hit, a):
        """The Tensor of a reduction's kernel over array a, from its _REDUCED entry (kernel,
        pure, result dtype or None), run as the entry says."""
        kernel, pure, d = hit
        if pure:
            try:
                out = _RUN_IGNORING(kernel, a)
            except RuntimeError:      # the context is taken
                out = guarded(kernel, a)
        else:
            out = guarded(kernel, a)
        r = _new(cls)
        r._data = out if type(out) is np.ndarray else (out := np.asarray(out))
        r._dtype = d or _BY_NUMPY.get(out.dtype) or _from_numpy(out.dtype)
        r._spec_shape = None
        return r

    def sum(self, axis=None, dtype=None, keepdims=False, initial=None, out=None):
        if dtype is None and initial is None and out is None and (
                axis is None or type(axis) is int) and (keepdims is True or keepdims is False):
            # self: a Tensor, as the operators' self
            if not _tape._recording and (a := self._data) is not None:
                hit = _REDUCED.get(("ReduceSum", axis, keepdims, self._dtype, a.shape))
                if hit is not None:
                    return run_reduced(hit, a)
            r = tl_sum(self, axis, None, keepdims)
            _remember_reduction("ReduceSum", self, axis, keepdims, r)
            return r
        return tl_sum(self, axis, dtype, keepdims, initial, out)

    def mean(self, axis=None, keep_dims=False, dtype=None, out=None, keepdims=None):
        keep = keep_dims if keepdims is None else keepdims
        if dtype is None and out is None and _plain(axis, keep):
            r = cached1("ReduceMean", self, (axis, keep))
            if r is None:
                r = tl_mean(self, axis, keep)
                remember("ReduceMean", (self,), (axis, keep), {"axis": axis, "keep_dims": keep})
            return r
        return tl_mean(self, axis, keep_dims, dtype, out, keepdims)

    def extreme(op, general):
        def method(self, axis=None, keepdims=False, *, initial=None, where=None,
                   return_indices=False, out=None):
            if initial is None and where is None and not return_indices and out is None \
                    and (axis is None or type(axis) is int) and \
                    (keepdims is True or keepdims is False):
                if not _tape._recording and (a := self._data) is not None:    # as sum's
                    hit = _REDUCED.get((op, axis, keepdims, self._dtype, a.shape))
                    if hit is not None:
                        return run_reduced(hit, a)
                r = general(self, axis, keepdims)
                _remember_reduction(op, self, axis, keepdims, r)
                return r
            return general(self, axis, keepdims, initial=initial, where=where,
                           return_indices=return_indices, out=out)
        return method

    for fn, base in ((sum, tl_sum), (mean, tl_mean), (extreme("ReduceMax", tl_max), tl_max),
                     (extreme("ReduceMin", tl_min), tl_min)):
        fn.__doc__ = base.__doc__
        fn.__name__ = base.__name__
        setattr(cls, base.__name__, fn)
