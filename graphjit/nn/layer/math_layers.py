"""MindSpore's norm and encoding layers of `mindspore.nn` that model-zoo training code
uses: ClipByNorm (gradient clipping in BERT's and Transformer's training cells) and Norm."""
from __future__ import annotations

from ... import ops
from ...ir import dtypes as dt
from ..cell import Cell

__all__ = ["ClipByNorm", "Norm"]


def _axis(axis, cls):
    if axis is None:
        return ()
    if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
        raise TypeError(f"For '{cls}', the type of 'axis' must be one of None, int, tuple, "
                        f"but got {type(axis).__name__}")
    return tuple(axis) if isinstance(axis, list) else axis


class ClipByNorm(Cell):
    """x scaled so that its L2-norm (over `axis`, None: all of it) is at most clip_norm:
    `x * clip_norm / max(l2norm(x), clip_norm)`, as float32 (MindSpore's output type).

    Inputs: x (float16 or float32), clip_norm (a scalar tensor, () or (1,), or one that
    broadcasts to x).
    """

    def __init__(self, axis=None):
        super().__init__()
        self.axis = _axis(axis, "ClipByNorm")

    def construct(self, x, clip_norm):
        if x.dtype not in (dt.float16, dt.float32):
            raise TypeError(f"For 'ClipByNorm', the dtype of 'x' must be float16 or float32, "
                            f"but got {x.dtype}")
        xf = ops.cast(x, dt.float32)
        cn = ops.cast(clip_norm, dt.float32)
        l2sum = ops.ReduceSum(keep_dims=True)(ops.square(xf), self.axis)
        positive = ops.greater(l2sum, 0)
        # the square root of a safe value where the sum is 0, so that its gradient is
        # finite there (MindSpore's select)
        safe = ops.select(positive, l2sum, ops.ones_like(l2sum))
        l2norm = ops.select(positive, ops.sqrt(safe), l2sum)
        return ops.reshape(xf * cn / ops.maximum(l2norm, cn), ops.shape(x))


class Norm(Cell):
    """The L2-norm of x over `axis` (() : all of it), keeping the reduced dims if
    keep_dims."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'Norm', the type of 'keep_dims' must be bool, but got "
                            f"{type(keep_dims).__name__}")
        self.axis = _axis(axis, "Norm")
        self.keep_dims = keep_dims

    def construct(self, x):
        return ops.sqrt(ops.ReduceSum(keep_dims=self.keep_dims)(ops.square(x), self.axis))
