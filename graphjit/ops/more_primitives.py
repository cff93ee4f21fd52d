"""Primitive classes of the functions in more_ops, MindSpore style:
`ops.GatherNd()(x, indices)`, `ops.ScatterNd()(indices, updates, shape)`,
`ops.TensorScatterUpdate()(x, indices, updates)`, `ops.MaskedSelect()(x, mask)`,
`ops.NonZero()(x)`, `ops.Einsum(equation)((a, b))`, `ops.KLDivLoss(reduction)` and
`ops.ResizeNearestNeighbor(size, align_corners)(x)`."""
from __future__ import annotations

import numpy as np

from ..common.tensor import Tensor
from . import more_ops as X
from .array_ops import gather
from .primitives import Primitive

__all__ = ["GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "MaskedSelect",
           "NonZero", "Einsum", "KLDivLoss", "ResizeNearestNeighbor"]


class GatherNd(Primitive):
    """GatherNd()(input_x, indices); see ops.gather_nd."""

    def __call__(self, input_x, indices):
        return X.gather_nd(input_x, indices)


class ScatterNd(Primitive):
    """ScatterNd()(indices, updates, shape); see ops.scatter_nd."""

    def __call__(self, indices, updates, shape):
        return X.scatter_nd(indices, updates, shape)


class TensorScatterUpdate(Primitive):
    """TensorScatterUpdate()(input_x, indices, updates); see ops.tensor_scatter_update."""

    def __call__(self, input_x, indices, updates):
        return X.tensor_scatter_update(input_x, indices, updates)


class TensorScatterAdd(Primitive):
    """TensorScatterAdd()(input_x, indices, updates); see ops.tensor_scatter_add."""

    def __call__(self, input_x, indices, updates):
        return X.tensor_scatter_add(input_x, indices, updates)


class MaskedSelect(Primitive):
    """MaskedSelect()(x, mask); see ops.masked_select."""

    def __call__(self, x, mask):
        return X.masked_select(x, mask)


class NonZero(Primitive):
    """NonZero()(x): the (z, rank) int64 indices of x's nonzero elements."""

    def __call__(self, x):
        return X.nonzero(x)


class Einsum(Primitive):
    """Einsum(equation)(inputs), inputs a tuple of one or two tensors; see ops.einsum."""

    def __init__(self, equation):
        super().__init__(equation)
        if not isinstance(equation, str):
            raise TypeError(f"Einsum: equation must be a str, got {equation!r}")
        self.equation = equation

    def __call__(self, inputs):
        if not isinstance(inputs, (tuple, list)):
            inputs = (inputs,)
        return X.einsum(self.equation, *inputs)


class KLDivLoss(Primitive):
    """KLDivLoss(reduction='mean')(logits, labels); see ops.kl_div."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'mean', 'sum' or "
                             f"'batchmean', got {reduction!r}")
        self.reduction = reduction

    def __call__(self, logits, labels):
        return X.kl_div(logits, labels, self.reduction)


class ResizeNearestNeighbor(Primitive):
    """ResizeNearestNeighbor(size, align_corners=False)(input_x): (N, C, H, W) resized to
    size (h, w) by nearest neighbour: source index floor(dst * in / out), or with
    align_corners round(dst * (in - 1) / (out - 1))."""

    def __init__(self, size, align_corners=False):
        super().__init__(size, align_corners)
        if not isinstance(size, (tuple, list)) or len(size) != 2 or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
            raise ValueError(f"ResizeNearestNeighbor: size must be two positive ints, got "
                             f"{size!r}")
        self.size, self.align_corners = tuple(size), bool(align_corners)

    def __call__(self, input_x):
        x = X._t(input_x)
        if x.ndim != 4 or not all(isinstance(d, int) for d in x.shape[2:]):
            raise ValueError(f"ResizeNearestNeighbor needs an (N, C, H, W) input whose H and W "
                             f"are known while the graph is built, got {x.shape}")
        if not self.align_corners:
            return X.interpolate(x, size=self.size, mode="nearest")
        out = x
        for k, n_out in enumerate(self.size):
            n_in = x.shape[2 + k]
            scale = np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.float32(0)
            src = np.floor(np.arange(n_out, dtype=np.float32) * scale + np.float32(0.5))
            idx = np.minimum(src.astype(np.int64), n_in - 1)
            out = gather(out, Tensor._wrap(idx), 2 + k)
        return out
