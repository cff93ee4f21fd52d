"""MindSpore's `mindspore.ops.operations.array_ops`: the array primitives (Reshape,
Transpose, Concat, Gather, Cast, Argmax, TopK, ScatterNd, ...)."""
from __future__ import annotations

import numpy as np

from .. import functional as _X, functional as F, functional as X
from .._dispatch import apply, to_tensor
from ..function import array_func as S, index_func
from ..functional import dtype
from ..primitive import Primitive, _prim
from ...ir import dtypes as dt
from ..function.array_func import gather, scalar_to_tensor, tuple_to_array
from ...common.tensor import Tensor

__all__ = ["ZerosLike", "OnesLike", "TensorShape", "Shape", "Rank", "Size", "Tile",
           "Reshape", "Transpose", "ExpandDims", "Cast", "Argmax", "Argmin", "ArgMaxWithValue",
           "ArgMinWithValue", "Squeeze", "Concat", "Stack", "Unstack", "Split", "Select", "Zeros",
           "Ones", "Fill", "FillV2", "Gather", "BroadcastTo", "StridedSlice", "Slice", "MaskedFill", "Eye",
           "TopK", "Sort", "Unique", "GatherD", "DType", "ScalarToTensor", "TupleToArray",
           "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "MaskedSelect",
           "NonZero", "ResizeNearestNeighbor", "ReverseV2", "ReverseSequence"]


# Primitives without arguments: class name, the function it applies.
_UNARY = {
    "ZerosLike": F.zeros_like, "OnesLike": F.ones_like, "TensorShape": F.tensor_shape,
    "Shape": F.shape, "Rank": F.rank, "Size": F.size,
}
_BINARY = {
    "Tile": F.tile, "Reshape": F.reshape, "Transpose": F.transpose,
    "ExpandDims": F.expand_dims, "Cast": F.cast,
}
for _n, _f in _UNARY.items():
    _prim(_n, _f, 1, globals())
for _n, _f in _BINARY.items():
    _prim(_n, _f, 2, globals())



class Argmax(Primitive):
    """Argmax(axis=-1, output_type=int32)(x): the index of the maximum along axis."""

    _op = "ArgMax"

    def __init__(self, axis=-1, output_type=dt.int32):
        super().__init__(axis=axis, output_type=output_type)
        self.axis, self.output_type = axis, dt.as_dtype(output_type)

    def __call__(self, x):
        return apply(self._op, to_tensor(x), axis=self.axis, output_type=self.output_type)


class Argmin(Argmax):
    """Argmin(axis=-1, output_type=int32)(x): the index of the minimum along axis."""

    _op = "ArgMin"


class ArgMaxWithValue(Primitive):
    """ArgMaxWithValue(axis=0, keep_dims=False)(x) -> (index, values)."""

    _fn = staticmethod(F.max)

    def __init__(self, axis=0, keep_dims=False):
        super().__init__(axis=axis, keep_dims=keep_dims)
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, x):
        values, index = type(self)._fn(x, self.axis, self.keep_dims)
        return index, values


class ArgMinWithValue(ArgMaxWithValue):
    """ArgMinWithValue(axis=0, keep_dims=False)(x) -> (index, values)."""

    _fn = staticmethod(F.min)


class Squeeze(Primitive):
    """Squeeze(axis=())(x): remove the size-1 dims in axis (all of them if empty)."""

    def __init__(self, axis=()):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, None if self.axis == () else self.axis)


class _AxisPrim(Primitive):
    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis


class Concat(_AxisPrim):
    """Concat(axis=0)(tensors)."""

    def __call__(self, tensors):
        return F.concat(tensors, self.axis)


class Stack(_AxisPrim):
    """Stack(axis=0)(tensors)."""

    def __call__(self, tensors):
        return F.stack(tensors, self.axis)


class Unstack(_AxisPrim):
    """Unstack(axis=0)(x): the slices of x along axis, as a tuple."""

    def __call__(self, x):
        return tuple(F.squeeze(p, self.axis) for p in F.split(x, 1, self.axis))


class Split(Primitive):
    """Split(axis=0, output_num=1)(x): output_num equal pieces along axis."""

    def __init__(self, axis=0, output_num=1):
        super().__init__(axis=axis, output_num=output_num)
        self.axis, self.output_num = axis, output_num

    def __call__(self, x):
        x = to_tensor(x)
        n = x.shape[self.axis]
        if not isinstance(n, int) or n % self.output_num:
            raise ValueError(f"Split: axis {self.axis} of size {n} does not split into "
                             f"{self.output_num} equal pieces")
        return F.split(x, n // self.output_num, self.axis)


class Select(Primitive):
    """Select()(cond, x, y)."""

    def __call__(self, cond, x, y):
        return F.where(cond, x, y)


class Zeros(Primitive):
    """Zeros()(size, type)."""

    def __call__(self, size, type=None):
        return F.zeros(size, type)


class Ones(Primitive):
    """Ones()(size, type)."""

    def __call__(self, size, type=None):
        return F.ones(size, type)


class Fill(Primitive):
    """Fill()(type, shape, value)."""

    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class FillV2(Primitive):
    """FillV2()(shape, value): a tensor of `shape` (a tuple of ints, or a 1-D int Tensor
    whose values are known while the graph is built) filled with the 0-d or one-element
    tensor `value`, in value's dtype."""

    def __call__(self, shape, value):
        if isinstance(shape, Tensor):
            if shape.dtype.is_floating or shape.dtype.is_bool or shape.ndim > 1:
                raise TypeError(f"For 'FillV2', the shape must be a 1-D int Tensor or a tuple "
                                f"of ints, but got {shape.dtype} of rank {shape.ndim}")
            shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
        elif not isinstance(shape, (tuple, list)):
            raise TypeError("For 'FillV2', the shape must be known while the graph is built "
                            "(a tuple of ints, or a Tensor of constant values); got "
                            f"{type(shape).__name__}")
        value = to_tensor(value)
        if value.size != 1:
            raise ValueError(f"For 'FillV2', the value must hold one element, but got shape "
                             f"{tuple(value.shape)}")
        return F.broadcast_to(F.reshape(value, ()), tuple(shape))


class Gather(Primitive):
    """Gather()(params, indices, axis)."""

    def __call__(self, params, indices, axis=0):
        return F.gather(params, indices, axis)


class BroadcastTo(Primitive):
    """BroadcastTo(shape)(x)."""

    def __init__(self, shape):
        super().__init__(shape=shape)
        self.shape = shape

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


class StridedSlice(Primitive):
    """StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(x, begin, end, strides)."""

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                         shrink_axis_mask=shrink_axis_mask)
        self.masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)

    def __call__(self, x, begin, end, strides):
        return _X.strided_slice(x, begin, end, strides, *self.masks)


class Slice(Primitive):
    """Slice()(x, begin, size)."""

    def __call__(self, x, begin, size):
        return index_func.slice(x, begin, size)


class MaskedFill(Primitive):
    """MaskedFill()(input, mask, value)."""

    def __call__(self, input, mask, value):
        return F.masked_fill(input, mask, value)


class Eye(Primitive):
    """Eye()(n, m, t): the n x m identity matrix of dtype t."""

    def __call__(self, n, m, t):
        return _X.eye(n, m, t)


class TopK(Primitive):
    """TopK(sorted=True)(input_x, k) -> (values, indices) along the last axis."""

    def __init__(self, sorted=True):
        super().__init__(sorted=sorted)
        self.sorted = sorted

    def __call__(self, input_x, k):
        return S.topk(input_x, k, None, True, self.sorted)


class Sort(Primitive):
    """Sort(axis=-1, descending=False)(x) -> (values, indices)."""

    def __init__(self, axis=-1, descending=False):
        super().__init__(axis=axis, descending=descending)
        self.axis, self.descending = axis, descending

    def __call__(self, x):
        return S.sort(x, self.axis, self.descending)


class Unique(Primitive):
    """Unique()(input_x) -> (y, idx); see ops.unique."""

    def __call__(self, input_x):
        return S.unique(input_x)


class GatherD(Primitive):
    """GatherD()(x, dim, index); see ops.gather_elements."""

    def __call__(self, x, dim, index):
        return S.gather_elements(x, dim, index)


class DType(Primitive):
    def __call__(self, x):
        return dtype(x)


class ScalarToTensor(Primitive):
    def __call__(self, input_x, dtype=dt.float32):
        return scalar_to_tensor(input_x, dtype)


class TupleToArray(Primitive):
    def __call__(self, input_x):
        return tuple_to_array(input_x)


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


# -- reversing (published models: the model zoo's GRU) ---------------------------------
def _rev_axes(axis, rank, what):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not isinstance(a, int) or not -rank <= a < rank:
            raise ValueError(f"{what}: axis {a!r} is out of range for a tensor of rank {rank}")
        out.append(a % rank)
    return tuple(out)


class ReverseV2(Primitive):
    """ReverseV2(axis)(x): x with the order of elements reversed along each axis."""

    def __init__(self, axis):
        super().__init__(axis)
        self.axis = axis

    def __call__(self, x):
        x = to_tensor(x)
        return F.flip(x, _rev_axes(self.axis, x.ndim, "ReverseV2"))


class ReverseSequence(Primitive):
    """ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths): for each batch entry b, the
    first seq_lengths[b] elements along seq_dim reversed, the rest as they are."""

    def __init__(self, seq_dim, batch_dim=0):
        super().__init__(seq_dim, batch_dim)
        self.seq_dim, self.batch_dim = seq_dim, batch_dim

    def __call__(self, x, seq_lengths):
        x = to_tensor(x)
        r = x.ndim
        s, b = _rev_axes(self.seq_dim, r, "ReverseSequence")[0], \
            _rev_axes(self.batch_dim, r, "ReverseSequence")[0]
        if s == b:
            raise ValueError("ReverseSequence: seq_dim and batch_dim must differ")
        n = x.shape[s]
        lens = F.cast(to_tensor(seq_lengths), dt.int64)
        t = F.arange(n, dtype=dt.int64)
        shape_t, shape_b = [1] * r, [1] * r
        shape_t[s], shape_b[b] = n, -1
        t = F.reshape(t, tuple(shape_t))
        lens = F.reshape(lens, tuple(shape_b))
        index = F.where(F.less(t, lens), lens - 1 - t, t)         # per (t, b)
        return F.gather_elements(x, s, F.broadcast_to(index, x.shape))
