"""More of MindSpore's primitive classes, each over an operator function of
ops/function/{math,array,misc}_func_more.py and linalg_func.py (segment sums, scatters,
matrix inverse and determinants, cumulative extremes, shrinks, LinSpace, Range, Conv3D,
channel dropouts, ...)."""
from __future__ import annotations

from .. import functional as F
from .._dispatch import to_tensor
from ..primitive import Primitive, _prim
from ..function.layer_func import apply_random
from ...common.parameter import Parameter
from ...ir import dtypes as dt

__all__ = ["UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
           "UnsortedSegmentProd", "LinSpace", "Atan2", "MatrixInverse", "MatrixDeterminant",
           "LogMatrixDeterminant", "MatrixSolve", "ScatterNdAdd", "ScatterNdSub",
           "ScatterNdMul", "ScatterNdDiv", "ScatterNdMax", "ScatterNdMin", "ScatterNdUpdate",
           "ScatterUpdate", "ScatterAdd", "TensorScatterSub", "TensorScatterMax",
           "TensorScatterMin", "TensorScatterMul", "TensorScatterDiv", "TensorScatterElements",
           "Erfc", "Xlogy", "Xdivy", "Hypot", "Heaviside", "Gcd", "Lcm", "Inv", "Lerp",
           "Cummax", "Cummin", "HShrink", "SoftShrink", "Range", "Diag", "DiagPart", "Trace",
           "Cross", "Median", "Renorm", "Bucketize", "SearchSorted", "Conv3D", "Dropout2D",
           "Dropout3D", "Logit", "NanToNum", "IndexAdd", "IndexFill", "Tril", "Triu", "Roll",
           "Addcmul", "Addcdiv", "Kron"]

for _n, _f, _k in (("Atan2", F.atan2, 2), ("Erfc", F.erfc, 1), ("Xlogy", F.xlogy, 2),
                   ("Xdivy", F.xdivy, 2), ("Hypot", F.hypot, 2), ("Heaviside", F.heaviside, 2),
                   ("Gcd", F.gcd, 2), ("Lcm", F.lcm, 2), ("Inv", F.reciprocal, 1),
                   ("Trace", F.trace, 1), ("MatrixDeterminant", F.det, 1),
                   ("LogMatrixDeterminant", F.slogdet, 1), ("Kron", F.kron, 2)):
    _prim(_n, _f, _k, globals())


class _Segment(Primitive):
    _fn = None

    def __call__(self, x, segment_ids, num_segments):
        return type(self)._fn(x, segment_ids, num_segments)


def _segment(name, fn):
    globals()[name] = type(name, (_Segment,), {
        "_fn": staticmethod(fn), "__module__": __name__,
        "__doc__": f"{name}()(x, segment_ids, num_segments); see ops.{fn.__name__}."})


_segment("UnsortedSegmentSum", F.unsorted_segment_sum)
_segment("UnsortedSegmentMax", F.unsorted_segment_max)
_segment("UnsortedSegmentMin", F.unsorted_segment_min)
_segment("UnsortedSegmentProd", F.unsorted_segment_prod)


class LinSpace(Primitive):
    """LinSpace()(start, stop, num); see ops.linspace."""

    def __call__(self, start, stop, num):
        return F.linspace(start, stop, num)


class MatrixInverse(Primitive):
    """MatrixInverse(adjoint=False)(x): the inverse (of the transpose if adjoint)."""

    def __init__(self, adjoint=False):
        super().__init__(adjoint=adjoint)
        self.adjoint = adjoint

    def __call__(self, x):
        inv = F.inverse(x)
        return F.swapaxes(inv, -1, -2) if self.adjoint else inv


class MatrixSolve(Primitive):
    """MatrixSolve(adjoint=False)(matrix, rhs); see ops.matrix_solve."""

    def __init__(self, adjoint=False):
        super().__init__(adjoint=adjoint)
        self.adjoint = adjoint

    def __call__(self, matrix, rhs):
        return F.matrix_solve(matrix, rhs, self.adjoint)


class _Locking(Primitive):
    def __init__(self, use_locking=False):
        super().__init__(use_locking=use_locking)
        self.use_locking = use_locking


def _scatter_nd(name, fn):
    def __call__(self, input_x, indices, updates):
        return fn(input_x, indices, updates, self.use_locking)
    globals()[name] = type(name, (_Locking,), {
        "__call__": __call__, "__module__": __name__,
        "__doc__": f"{name}(use_locking=False)(input_x, indices, updates): updates the "
                   f"Parameter input_x; see ops.{fn.__name__}."})


for _n, _f in (("ScatterNdAdd", F.scatter_nd_add), ("ScatterNdSub", F.scatter_nd_sub),
               ("ScatterNdMul", F.scatter_nd_mul), ("ScatterNdDiv", F.scatter_nd_div),
               ("ScatterNdMax", F.scatter_nd_max), ("ScatterNdMin", F.scatter_nd_min)):
    _scatter_nd(_n, _f)


def _assign_back(x, value):
    return F.assign(x, value) if isinstance(x, Parameter) else value


class ScatterNdUpdate(_Locking):
    """ScatterNdUpdate(use_locking=True)(input_x, indices, updates): input_x's slices at
    the index tuples replaced (the Parameter updated)."""

    def __call__(self, input_x, indices, updates):
        return _assign_back(input_x, F.tensor_scatter_update(input_x, indices, updates))


class ScatterUpdate(_Locking):
    """ScatterUpdate(use_locking=True)(input_x, indices, updates): input_x[indices] =
    updates along dim 0 (the Parameter updated)."""

    def __call__(self, input_x, indices, updates):
        idx = F.expand_dims(to_tensor(indices), -1)
        return _assign_back(input_x, F.tensor_scatter_update(input_x, idx, updates))


class ScatterAdd(_Locking):
    """ScatterAdd(use_locking=False)(input_x, indices, updates): input_x[indices] +=
    updates along dim 0, repeated indices adding up (the Parameter updated)."""

    def __call__(self, input_x, indices, updates):
        idx = F.expand_dims(to_tensor(indices), -1)
        return _assign_back(input_x, F.tensor_scatter_add(input_x, idx, updates))


def _tensor_scatter(name, fn):
    globals()[name] = type(name, (Primitive,), {
        "__call__": lambda self, x, indices, updates: fn(x, indices, updates),
        "__module__": __name__,
        "__doc__": f"{name}()(input_x, indices, updates); see ops.{fn.__name__}."})


for _n, _f in (("TensorScatterSub", F.tensor_scatter_sub),
               ("TensorScatterMax", F.tensor_scatter_max),
               ("TensorScatterMin", F.tensor_scatter_min),
               ("TensorScatterMul", F.tensor_scatter_mul),
               ("TensorScatterDiv", F.tensor_scatter_div)):
    _tensor_scatter(_n, _f)


class TensorScatterElements(Primitive):
    """TensorScatterElements(axis=0, reduction='none')(data, indices, updates)."""

    def __init__(self, axis=0, reduction="none"):
        super().__init__(axis=axis, reduction=reduction)
        self.axis, self.reduction = axis, reduction

    def __call__(self, data, indices, updates):
        return F.tensor_scatter_elements(data, indices, updates, self.axis, self.reduction)


class Lerp(Primitive):
    """Lerp()(start, end, weight)."""

    def __call__(self, start, end, weight):
        return F.lerp(start, end, weight)


class _Axis(Primitive):
    def __init__(self, axis):
        super().__init__(axis=axis)
        self.axis = axis


class Cummax(_Axis):
    """Cummax(axis)(x) -> (values, int64 indices)."""

    def __call__(self, x):
        return F.cummax(x, self.axis)


class Cummin(_Axis):
    """Cummin(axis)(x) -> (values, int32 indices)."""

    def __call__(self, x):
        return F.cummin(x, self.axis)


class _Lambd(Primitive):
    def __init__(self, lambd=0.5):
        super().__init__(lambd=lambd)
        self.lambd = lambd


class HShrink(_Lambd):
    """HShrink(lambd=0.5)(x); see ops.hardshrink."""

    def __call__(self, x):
        return F.hardshrink(x, self.lambd)


class SoftShrink(_Lambd):
    """SoftShrink(lambd=0.5)(x); see ops.softshrink."""

    def __call__(self, x):
        return F.softshrink(x, self.lambd)


class Range(Primitive):
    """Range(maxlen=1000000)(start, limit, delta); see ops.range."""

    def __init__(self, maxlen=1000000):
        super().__init__(maxlen=maxlen)
        self.maxlen = maxlen

    def __call__(self, start, limit, delta):
        return F.range(start, limit, delta)


class Diag(Primitive):
    """Diag()(x): the rank-2k tensor with x on its diagonal; see ops.diag."""

    def __call__(self, x):
        return F.diag(x)


class DiagPart(Primitive):
    """DiagPart()(x): the diagonal of a rank-2k x of shape (D1..Dk, D1..Dk), shape
    (D1..Dk) (the inverse of Diag)."""

    def __call__(self, x):
        t = to_tensor(x)
        shape = tuple(t.shape)
        k = len(shape) // 2
        if len(shape) % 2 or shape[:k] != shape[k:] or not k:
            raise ValueError(f"For 'DiagPart', the input shape must be (D1..Dk, D1..Dk), got "
                             f"{shape}")
        n = 1
        for d in shape[:k]:
            n *= d
        return F.reshape(F.diagonal(F.reshape(t, (n, n))), shape[:k])


class Cross(Primitive):
    """Cross(dim=-65530)(x1, x2): the cross product along dim (the first of size 3 by
    default)."""

    def __init__(self, dim=-65530):
        super().__init__(dim=dim)
        self.dim = dim

    def __call__(self, x1, x2):
        return F.cross(x1, x2, None if self.dim == -65530 else self.dim)


class Median(Primitive):
    """Median(global_median=False, axis=0, keep_dims=False)(x) -> (values, indices)."""

    def __init__(self, global_median=False, axis=0, keep_dims=False):
        super().__init__(global_median=global_median, axis=axis, keep_dims=keep_dims)
        self.global_median, self.axis, self.keep_dims = global_median, axis, keep_dims

    def __call__(self, x):
        if self.global_median:
            return F.median(F.reshape(to_tensor(x), (-1,)), 0, False)
        return F.median(x, self.axis, self.keep_dims)


class Renorm(Primitive):
    """Renorm(p, dim, maxnorm)(x); see ops.renorm."""

    def __init__(self, p, dim, maxnorm):
        super().__init__(p=p, dim=dim, maxnorm=maxnorm)
        self.p, self.dim, self.maxnorm = p, dim, maxnorm

    def __call__(self, x):
        return F.renorm(x, self.p, self.dim, self.maxnorm)


class Bucketize(Primitive):
    """Bucketize(boundaries)(input): the number of boundaries <= each element (int32)."""

    def __init__(self, boundaries):
        super().__init__(boundaries=boundaries)
        self.boundaries = list(boundaries)

    def __call__(self, input):
        return F.bucketize(input, self.boundaries, right=True)


class SearchSorted(Primitive):
    """SearchSorted(dtype=int64, right=False)(sorted_sequence, values)."""

    def __init__(self, dtype=dt.int64, right=False):
        super().__init__(dtype=dtype, right=right)
        self.dtype, self.right = dtype, right

    def __call__(self, sorted_sequence, values, sorter=None):
        out = F.searchsorted(sorted_sequence, values, right=self.right, sorter=sorter)
        return out if self.dtype is dt.int64 else F.cast(out, self.dtype)


class Conv3D(Primitive):
    """Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCDHW')(x, weight); see ops.conv3d."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCDHW"):
        super().__init__(out_channel=out_channel, kernel_size=kernel_size, mode=mode,
                         pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                         group=group, data_format=data_format)
        if data_format != "NCDHW":
            raise ValueError(f"For 'Conv3D', data_format must be 'NCDHW', got {data_format!r}")
        self.pad_mode, self.pad, self.stride = pad_mode, pad, stride
        self.dilation, self.group = dilation, group

    def __call__(self, x, weight, bias=None):
        return F.conv3d(x, weight, bias, self.stride, self.pad_mode, self.pad, self.dilation,
                        self.group)


class _ChannelDropout(Primitive):
    _rank = 4

    def __init__(self, keep_prob=0.5):
        super().__init__(keep_prob=keep_prob)
        if not 0 <= keep_prob <= 1:
            raise ValueError(f"For '{self.name}', keep_prob must be in [0, 1], got "
                             f"{keep_prob}")
        self.keep_prob = keep_prob

    def __call__(self, x):
        t = to_tensor(x)
        if t.ndim != self._rank:
            raise ValueError(f"For '{self.name}', the input must have rank {self._rank}, got "
                             f"{t.ndim}")
        s = tuple(t.shape)
        ones = F.ones(s[:2] + (1,) * (len(s) - 2), t.dtype)
        if self.keep_prob == 0:
            mask = F.zeros(s, dt.bool_)
            return F.zeros_like(t), mask
        scale, mask = apply_random("Dropout", ones, keep_prob=float(self.keep_prob), seed=None)
        full = F.broadcast_to(F.cast(mask, dt.bool_), s)
        return F.mul(t, scale), full


class Dropout2D(_ChannelDropout):
    """Dropout2D(keep_prob=0.5)(x) -> (output, mask): whole channels of (N, C, H, W)
    zeroed with probability 1 - keep_prob, the rest scaled by 1 / keep_prob."""
    _rank = 4


class Dropout3D(_ChannelDropout):
    """Dropout3D(keep_prob=0.5)(x) -> (output, mask), for (N, C, D, H, W)."""
    _rank = 5


class Logit(Primitive):
    """Logit(eps=-1.0)(x): log(x / (1 - x)), x clamped to [eps, 1 - eps] if eps >= 0."""

    def __init__(self, eps=-1.0):
        super().__init__(eps=eps)
        self.eps = eps

    def __call__(self, x):
        return F.logit(x, None if self.eps < 0 else self.eps)


class NanToNum(Primitive):
    """NanToNum(nan=0.0, posinf=None, neginf=None)(x)."""

    def __init__(self, nan=0.0, posinf=None, neginf=None):
        super().__init__(nan=nan, posinf=posinf, neginf=neginf)
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def __call__(self, x):
        return F.nan_to_num(x, self.nan, self.posinf, self.neginf)


class IndexAdd(Primitive):
    """IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, y)."""

    def __init__(self, axis, use_lock=True, check_index_bound=True):
        super().__init__(axis=axis, use_lock=use_lock, check_index_bound=check_index_bound)
        self.axis = axis

    def __call__(self, input_x, indices, y):
        return F.index_add(input_x, indices, y, self.axis)


class IndexFill(Primitive):
    """IndexFill()(x, dim, index, value); see ops.index_fill."""

    def __call__(self, x, dim, index, value):
        return F.index_fill(x, dim, index, value)


class _Diagonal(Primitive):
    def __init__(self, diagonal=0):
        super().__init__(diagonal=diagonal)
        self.diagonal = diagonal


class Tril(_Diagonal):
    """Tril(diagonal=0)(x)."""

    def __call__(self, x):
        return F.tril(x, self.diagonal)


class Triu(_Diagonal):
    """Triu(diagonal=0)(x)."""

    def __call__(self, x):
        return F.triu(x, self.diagonal)


class Roll(Primitive):
    """Roll(shift, axis)(x)."""

    def __init__(self, shift, axis):
        super().__init__(shift=shift, axis=axis)
        self.shift, self.axis = shift, axis

    def __call__(self, x):
        return F.roll(x, self.shift, self.axis)


class Addcmul(Primitive):
    """Addcmul()(input_data, x1, x2, value): input_data + value * x1 * x2."""

    def __call__(self, input_data, x1, x2, value):
        return F.addcmul(input_data, x1, x2, value)


class Addcdiv(Primitive):
    """Addcdiv()(input_data, x1, x2, value): input_data + value * x1 / x2."""

    def __call__(self, input_data, x1, x2, value):
        return F.addcdiv(input_data, x1, x2, value)
