"""More MindSpore 2.x functions that model code calls, composed from registry ops: fused
multiply-adds (addcmul, addcdiv, addmm, addmv, addbmm, addr), tensordot/inner, logspace,
atleast_*d and stacking, flips, sinc, xdivy, logcumsumexp, logdet, shifts, triangle
indices, matrix_band_part, and the nn functions softmin, glu, threshold, tanhshrink,
pixel_shuffle/unshuffle, channel_shuffle, 1-D pooling, dropout1d/3d, pdist, scatter and
the margin losses."""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import array_func as A
from . import math_func as M
from .array_func import cast, concat, expand_dims, reshape, transpose, where
from .array_func_more import linspace, tensor_scatter_elements
from .layer_func import (adaptive_avg_pool2d, adaptive_max_pool2d, apply_random, avg_pool2d,
                         max_pool2d)
from .linalg_func import slogdet
# MindSpore's clip_by_value (bounds cast to x's dtype, tuples of tensors): clip_func's
from .clip_func import clip_by_value  # noqa: F401
from .math_func_more import _float_in, _scalar_like
from .nn_func import _reduce_loss, flip, softmax
from .._dispatch import to_tensor
from .._utils import _const, _int, _int_tuple, _known_shape, _rank, _t
from ...common.tensor import TensorLike
from ...ir import dtypes as dt

__all__ = ["addcmul", "addcdiv", "addmm", "addmv", "addbmm", "addr", "tensordot", "inner",
           "logspace", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "dstack",
           "fliplr", "flipud", "sinc", "xdivy", "logcumsumexp", "logdet", "bitwise_left_shift",
           "bitwise_right_shift", "triu_indices", "tril_indices", "matrix_band_part",
           "is_floating_point", "positive", "clip_by_value", "softmin", "glu", "threshold",
           "tanhshrink", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "avg_pool1d",
           "max_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "dropout1d", "dropout3d",
           "pdist", "scatter", "margin_ranking_loss", "soft_margin_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss"]


def _scaled(x, v):
    return x if v == 1 else M.mul(x, v)


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return M.add(input, M.mul(M.mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    return M.add(input, M.mul(M.div(tensor1, tensor2), value))


def _addprod(input, prod, beta, alpha):
    prod = _scaled(prod, alpha)
    if beta == 0:
        return prod
    return M.add(_scaled(_t(input), beta), prod)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    return _addprod(input, M.matmul(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    return _addprod(input, M.matmul(mat, vec), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i]."""
    return _addprod(input, M.sum(M.bmm(batch1, batch2), 0), beta, alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * the outer product of vec1 and vec2."""
    return _addprod(x, M.outer(vec1, vec2), beta, alpha)


def tensordot(x1, x2, axes):
    """The sum product over the last `axes` dims of x1 and the first of x2, or over the
    pairs of dims in axes ((x1's dims), (x2's dims))."""
    a, b = _t(x1), _t(x2)
    sa, sb = _known_shape(a, "tensordot"), _known_shape(b, "tensordot")
    if isinstance(axes, int) and not isinstance(axes, bool):
        ax_a = list(range(len(sa) - axes, len(sa)))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = (list(_int_tuple(v, "tensordot's axes")) for v in axes)
    ax_a = [d % len(sa) for d in ax_a]
    ax_b = [d % len(sb) for d in ax_b]
    if len(ax_a) != len(ax_b) or builtins.any(sa[i] != sb[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError(f"For 'tensordot', the summed dims {ax_a} of {sa} and {ax_b} of "
                         f"{sb} must match")
    free_a = [i for i in range(len(sa)) if i not in ax_a]
    free_b = [j for j in range(len(sb)) if j not in ax_b]
    k = math.prod(sa[i] for i in ax_a)
    am = reshape(transpose(a, tuple(free_a + ax_a)), (-1, k))
    bm = reshape(transpose(b, tuple(ax_b + free_b)), (k, -1))
    return reshape(M.matmul(am, bm), tuple(sa[i] for i in free_a) + tuple(sb[j] for j in free_b))


def inner(input, other):
    """The sum product over the last dims (a scalar side multiplies)."""
    a, b = _t(input), _t(other)
    if a.ndim == 0 or b.ndim == 0:
        return M.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def logspace(start, end, steps, base=10, *, dtype=dt.float32):
    """steps values base ** linspace(start, end, steps)."""
    if isinstance(base, bool) or not isinstance(base, int) or base <= 0:
        raise TypeError(f"For 'logspace', base must be a positive int, got {base!r}")
    exps = linspace(start, end, steps)
    return cast(M.pow(_scalar_like(float(base), exps), exps), dtype)


def _at_least(input, n):
    x = _t(input)
    if x.ndim >= n:
        return x
    if n == 3 and x.ndim == 2:
        return expand_dims(x, -1)
    shape = {0: (1,) * n, 1: (1, -1, 1)[:n] if n == 3 else (1, -1)}[x.ndim]
    return reshape(x, shape)


def atleast_1d(inputs):
    """Each tensor with at least 1 dim (a tensor, or a list of them)."""
    if isinstance(inputs, (list, tuple)):
        return [_at_least(t, 1) for t in inputs]
    return _at_least(inputs, 1)


def atleast_2d(inputs):
    """Each tensor with at least 2 dims (a 1-D one as a row)."""
    if isinstance(inputs, (list, tuple)):
        return [_at_least(t, 2) for t in inputs]
    return _at_least(inputs, 2)


def atleast_3d(inputs):
    """Each tensor with at least 3 dims ((N,) -> (1, N, 1), (M, N) -> (M, N, 1))."""
    if isinstance(inputs, (list, tuple)):
        return [_at_least(t, 3) for t in inputs]
    return _at_least(inputs, 3)


def column_stack(tensors):
    """1-D tensors as columns (others as they are) joined along dim 1."""
    ts = [_t(t) for t in tensors]
    return concat([reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in ts], 1)


def dstack(inputs):
    """The tensors (made at least 3-D) joined along dim 2."""
    return concat([_at_least(t, 3) for t in inputs], 2)


def fliplr(input):
    """input reversed along dim 1."""
    return flip(input, (1,))


def flipud(input):
    """input reversed along dim 0."""
    return flip(input, (0,))


def sinc(input):
    """sin(pi x) / (pi x), and 1 at 0; integers give float32."""
    x = _float_in(input, "sinc")
    px = M.mul(x, _scalar_like(math.pi, x))
    zero = M.equal(x, 0)
    safe = where(zero, _scalar_like(1.0, x), px)
    return where(zero, _scalar_like(1.0, x), M.div(M.sin(safe), safe))


def xdivy(x, y):
    """x / y, and 0 where x is 0."""
    q = M.div(x, y)
    return where(M.equal(_t(x), 0), A.zeros_like(q), q)


def logcumsumexp(input, axis):
    """log(cumsum(exp(input))) along axis, computed stably (shifted by the maximum)."""
    x = _float_in(input, "logcumsumexp")
    m = M.amax(x, axis, True)
    m = where(M.isinf(m), A.zeros_like(m), m)
    return M.add(M.log(M.cumsum(M.exp(M.sub(x, m)), axis)), m)


def logdet(input):
    """log(det(input)) (NaN for a negative determinant)."""
    sign, logabs = slogdet(input)
    return where(M.less(sign, 0), _scalar_like(math.nan, logabs), logabs)


def _shift_check(x, what):
    t = _t(x)
    if not t.dtype.is_integer:
        raise TypeError(f"For '{what}', the input must be integers, got {t.dtype}")
    return t


def bitwise_left_shift(input, other):
    """input << other (integers; the bits shifted out are lost)."""
    x = _shift_check(input, "bitwise_left_shift")
    s = cast(_t(other), x.dtype) if isinstance(other, TensorLike) else to_tensor(other, x.dtype)
    return M.mul(x, M.pow(_scalar_like(2, x), s))


def bitwise_right_shift(input, other):
    """input >> other (integers, an arithmetic shift: floors negative values)."""
    x = _shift_check(input, "bitwise_right_shift")
    s = cast(_t(other), x.dtype) if isinstance(other, TensorLike) else to_tensor(other, x.dtype)
    return M.floor_divide(x, M.pow(_scalar_like(2, x), s))


def _tri_indices(fn, row, col, offset, dtype):
    row, col, offset = _int(row, "row"), _int(col, "col"), _int(offset, "offset")
    return cast(_const(np.stack(fn(row, offset, col)).astype(np.int64)), dtype)


def triu_indices(row, col, offset=0, *, dtype=dt.int64):
    """(2, N): the coordinates of the upper triangle of a row x col matrix."""
    return _tri_indices(np.triu_indices, row, col, offset, dtype)


def tril_indices(row, col, offset=0, *, dtype=dt.int64):
    """(2, N): the coordinates of the lower triangle of a row x col matrix."""
    return _tri_indices(np.tril_indices, row, col, offset, dtype)


def matrix_band_part(x, lower, upper):
    """x with everything outside the band of `lower` subdiagonals and `upper`
    superdiagonals zeroed (negative: keep the whole triangle)."""
    t = _t(x)
    n, m = _known_shape(t, "matrix_band_part")[-2:]
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]
    lo, up = _int(lower, "lower"), _int(upper, "upper")
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    return where(_const(keep), t, A.zeros_like(t))


def is_floating_point(input):
    """Whether input's dtype is a floating type."""
    return _t(input).dtype.is_floating


def positive(input):
    """input itself (not for bool)."""
    x = _t(input)
    if x.dtype.is_bool:
        raise TypeError("For 'positive', the input must not be bool")
    return x


# -- nn ------------------------------------------------------------------------------------------
def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along axis."""
    t = _t(x)
    if dtype is not None:
        t = cast(t, dtype)
    return softmax(M.neg(t), axis)


def glu(x, axis=-1):
    """a * sigmoid(b), a and b the two halves of x along axis."""
    a, b = A.split(x, _known_shape(_t(x), "glu")[axis] // 2, axis)
    return M.mul(a, M.sigmoid(b))


def threshold(input, thr, value):
    """input where input > thr, else value."""
    x = _t(input)
    return where(M.greater(x, thr), x, _scalar_like(value, x))


def tanhshrink(input):
    """input - tanh(input)."""
    x = _float_in(input, "tanhshrink")
    return M.sub(x, M.tanh(x))


def pixel_shuffle(input, upscale_factor):
    """(..., C * r * r, H, W) -> (..., C, H * r, W * r)."""
    x = _t(input)
    r = _int(upscale_factor, "upscale_factor")
    s = _known_shape(x, "pixel_shuffle")
    c, h, w = s[-3:]
    if c % (r * r):
        raise ValueError(f"For 'pixel_shuffle', the channels {c} must divide by {r * r}")
    lead = s[:-3]
    y = reshape(x, lead + (c // (r * r), r, r, h, w))
    k = len(lead)
    y = transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return reshape(y, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(..., C, H * r, W * r) -> (..., C * r * r, H, W)."""
    x = _t(input)
    r = _int(downscale_factor, "downscale_factor")
    s = _known_shape(x, "pixel_unshuffle")
    c, h, w = s[-3:]
    if h % r or w % r:
        raise ValueError(f"For 'pixel_unshuffle', H {h} and W {w} must divide by {r}")
    lead = s[:-3]
    k = len(lead)
    y = reshape(x, lead + (c, h // r, r, w // r, r))
    y = transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return reshape(y, lead + (c * r * r, h // r, w // r))


def channel_shuffle(x, groups):
    """(N, g * k, ...) -> the channels regrouped as (N, k * g, ...)."""
    t = _t(x)
    s = _known_shape(t, "channel_shuffle")
    g = _int(groups, "groups")
    if s[1] % g:
        raise ValueError(f"For 'channel_shuffle', the channels {s[1]} must divide by {g}")
    y = reshape(t, (s[0], g, s[1] // g) + s[2:])
    return reshape(A.swapaxes(y, 1, 2), s)


def _one(v, what):
    return _int(v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v, what)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """The mean over each window of the last dim of (N, C, L)."""
    x = expand_dims(_t(input_x), 2)
    p = _one(padding, "padding")
    out = avg_pool2d(x, (1, _one(kernel_size, "kernel_size")), (1, _one(stride, "stride")),
                     (0, 0, p, p), ceil_mode, count_include_pad)
    return A.squeeze(out, 2)


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """The maximum over each window of the last dim of (N, C, L)."""
    t = expand_dims(_t(x), 2)
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None else _one(stride, "stride")
    out = max_pool2d(t, (1, k), (1, s), (0, _one(padding, "padding")),
                     (1, _one(dilation, "dilation")), return_indices, ceil_mode)
    if return_indices:
        return A.squeeze(out[0], 2), A.squeeze(out[1], 2)
    return A.squeeze(out, 2)


def adaptive_avg_pool1d(input, output_size):
    """The mean over adaptive windows of the last dim of (N, C, L)."""
    out = adaptive_avg_pool2d(expand_dims(_t(input), 2), (1, _int(output_size, "output_size")))
    return A.squeeze(out, 2)


def adaptive_max_pool1d(input, output_size):
    """The maximum over adaptive windows of the last dim of (N, C, L)."""
    out = adaptive_max_pool2d(expand_dims(_t(input), 2), (1, _int(output_size, "output_size")))
    return A.squeeze(out, 2)


def _channel_dropout(input, p, training, rank, what):
    x = _t(input)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"For '{what}', p must be a float in [0, 1], got {p!r}")
    if _rank(x, what) not in rank:
        raise ValueError(f"For '{what}', the input must have rank {' or '.join(map(str, rank))},"
                         f" got {x.ndim}")
    if not training or p == 0:
        return x
    if p == 1:
        return A.zeros_like(x)
    s = _known_shape(x, what)
    keep = s[:2] + (1,) * (len(s) - 2) if len(s) == max(rank) else s[:1] + (1,) * (len(s) - 1)
    ones = _const(np.ones(keep, dtype=x.dtype.np))
    scale, _ = apply_random("Dropout", ones, keep_prob=1.0 - float(p), seed=None)
    return M.mul(x, scale)


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, L) (or (C, L)) with probability p in training."""
    return _channel_dropout(input, p, training, (2, 3), "dropout1d")


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, D, H, W) (or (C, D, H, W)) with probability p."""
    return _channel_dropout(input, p, training, (4, 5), "dropout3d")


def pdist(input, p=2.0):
    """The p-norm distances between the rows of input (N, M) (or per batch), the upper
    triangle in row order: N * (N - 1) / 2 values."""
    x = _float_in(input, "pdist")
    s = _known_shape(x, "pdist")
    n = s[-2]
    i, j = np.triu_indices(n, 1)
    a = A.gather(x, _const(i.astype(np.int64)), -2)
    b = A.gather(x, _const(j.astype(np.int64)), -2)
    d = M.abs(M.sub(a, b))
    if p == 0:
        return M.sum(cast(M.not_equal(d, 0), d.dtype), -1)
    if p == math.inf:
        return M.amax(d, -1)
    if p == 1:
        return M.sum(d, -1)
    if p == 2:
        return M.sqrt(M.sum(M.mul(d, d), -1))
    return M.pow(M.sum(M.pow(d, float(p)), -1), 1.0 / p)


def scatter(input, axis, index, src):
    """A copy of input with src[i][j] written at [index[i][j]][j] for axis 0 (likewise
    other axes): tensor_scatter_elements."""
    return tensor_scatter_elements(input, index, src, axis)


# -- margin losses ---------------------------------------------------------------------------------
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), reduced."""
    d = M.add(M.mul(M.neg(_t(target)), M.sub(input1, input2)), margin)
    return _reduce_loss(M.maximum(d, 0.0), reduction, "margin_ranking_loss")


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input)), reduced."""
    z = M.mul(M.neg(_t(target)), _t(input))
    return _reduce_loss(M.log1p(M.exp(z)), reduction, "soft_margin_loss")


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """inputs where targets is 1, max(0, margin - inputs) where it is -1, reduced."""
    x, y = _t(inputs), _t(targets)
    neg = M.maximum(M.sub(_scalar_like(float(margin), x), x), 0.0)
    loss = where(M.equal(y, 1), x, A.zeros_like(x))
    loss = M.add(loss, where(M.equal(y, -1), neg, A.zeros_like(x)))
    return _reduce_loss(loss, reduction, "hinge_embedding_loss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1
    (cosine over dim 1), reduced."""
    a, b = _float_in(input1, "cosine_embedding_loss"), _float_in(input2, "cosine_embedding_loss")
    eps = _scalar_like(1e-12, a)
    dot = M.sum(M.mul(a, b), -1)
    norm = M.sqrt(M.mul(M.add(M.sum(M.mul(a, a), -1), eps), M.add(M.sum(M.mul(b, b), -1), eps)))
    cos = M.div(dot, norm)
    y = _t(target)
    pos = M.sub(_scalar_like(1.0, cos), cos)
    neg = M.maximum(M.sub(cos, float(margin)), 0.0)
    loss = where(M.equal(y, 1), pos, where(M.equal(y, -1), neg, A.zeros_like(cos)))
    return _reduce_loss(loss, reduction, "cosine_embedding_loss")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm distance over the last dim
    (+ eps), d(a, n) the smaller of it and d(p, n) if swap; reduced."""
    a, pos, neg = (_float_in(t, "triplet_margin_loss") for t in (anchor, positive, negative))

    def dist(u, v):
        d = M.add(M.abs(M.sub(u, v)), _scalar_like(eps, u))
        return M.pow(M.sum(M.pow(d, float(p)), -1), 1.0 / p)
    d_ap, d_an = dist(a, pos), dist(a, neg)
    if swap:
        d_an = M.minimum(d_an, dist(pos, neg))
    loss = M.maximum(M.add(M.sub(d_ap, d_an), float(margin)), 0.0)
    return _reduce_loss(loss, reduction, "triplet_margin_loss")

