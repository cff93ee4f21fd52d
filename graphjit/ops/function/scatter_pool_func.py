"""MindSpore 2.x functions that write into parts of a tensor (masked_scatter,
slice_scatter, select_scatter, diagonal_scatter) and window functions of higher rank
(unfold/fold as im2col/col2im, avg_pool3d, max_pool3d, affine_grid), plus embedding and
gumbel_softmax, composed from registry ops so both modes and gradients come with them."""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import array_func as A
from . import math_func as M
from .array_func import cast, concat, expand_dims, getitem, reshape, transpose, where
from .layer_func import _dilate, _ints, conv3d, max_pool2d
from .linalg_func import diagonal
from .grad.grad_func import stop_gradient
from .index_func import argmax
from .nn_func import pad, softmax
from .random_func import uniform
from .._dispatch import to_tensor
from .._utils import _const, _int, _known_shape, _rank, _t
from ...ir import dtypes as dt

__all__ = ["masked_scatter", "slice_scatter", "select_scatter", "diagonal_scatter", "unfold",
           "fold", "avg_pool3d", "max_pool3d", "affine_grid", "embedding", "gumbel_softmax",
           "is_complex"]

_S = builtins.slice


def masked_scatter(input, mask, source):
    """input with its elements where mask (broadcast to input) is true replaced, in
    row-major order, by source's first elements."""
    x, m, s = _t(input), _t(mask), _t(source)
    if not m.dtype.is_bool:
        raise TypeError(f"For 'masked_scatter', mask must be bool, got {m.dtype}")
    shape = _known_shape(x, "masked_scatter")
    m = A.broadcast_to(m, shape) if tuple(m.shape) != shape else m
    flat = reshape(m, (-1,))
    pos = M.sub(M.cumsum(cast(flat, dt.int64), 0), 1)
    pos = M.maximum(pos, 0)
    picked = A.gather(reshape(cast(s, x.dtype), (-1,)), pos, 0)
    return reshape(where(flat, picked, reshape(x, (-1,))), shape)


def _dim_slices(x, axis, what):
    r = _rank(x, what)
    a = _int(axis, f"{what}'s axis")
    if not -r <= a < r:
        raise ValueError(f"For '{what}', axis {a} is out of range for rank {r}")
    return a % r, _known_shape(x, what)[a % r]


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """A copy of input with src written into input[..., start:end:step, ...] (along
    axis)."""
    x, s = _t(input), _t(src)
    a, n = _dim_slices(x, axis, "slice_scatter")
    picked = np.arange(n)[_S(start, end, step)]
    want = list(_known_shape(x, "slice_scatter"))
    want[a] = len(picked)
    if tuple(s.shape) != tuple(want):
        raise ValueError(f"For 'slice_scatter', src must have shape {tuple(want)}, got "
                         f"{tuple(s.shape)}")
    where_from = np.full(n, -1, dtype=np.int64)
    where_from[picked] = np.arange(len(picked))
    hit = where_from >= 0
    spread = A.gather(cast(s, x.dtype), _const(np.maximum(where_from, 0)), a)
    mask_shape = [1] * x.ndim
    mask_shape[a] = n
    return where(_const(hit.reshape(mask_shape)), spread, x)


def select_scatter(input, src, axis, index):
    """A copy of input with src written into the slice at index along axis."""
    x = _t(input)
    a, n = _dim_slices(x, axis, "select_scatter")
    i = _int(index, "select_scatter's index")
    i = i + n if i < 0 else i
    return slice_scatter(x, expand_dims(_t(src), a), a, i, i + 1)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of input with src written onto the diagonal over dim1 and dim2 (offset
    above the main one if positive); src has diagonal(input)'s shape."""
    x, s = _t(input), _t(src)
    want = tuple(diagonal(x, offset, dim1, dim2).shape)
    if tuple(s.shape) != want:
        raise ValueError(f"For 'diagonal_scatter', src must have shape {want}, got "
                         f"{tuple(s.shape)}")
    shape = _known_shape(x, "diagonal_scatter")
    r = len(shape)
    d1, d2 = dim1 % r, dim2 % r
    n1, n2 = shape[d1], shape[d2]
    i, j = np.arange(n1)[:, None], np.arange(n2)[None, :]
    on = (j - i) == offset
    k = np.where(on, np.minimum(i, j), 0)           # the position along the diagonal
    rest = tuple(d for d in range(r) if d not in (d1, d2))
    # src (rest..., L) -> (rest..., n1, n2): each diagonal element where it lands
    spread = A.gather(cast(s, x.dtype), _const(k.reshape(-1).astype(np.int64)), -1)
    spread = reshape(spread, tuple(shape[d] for d in rest) + (n1, n2))
    perm = [0] * r
    order = list(rest) + [d1, d2]
    for pos, d in enumerate(order):
        perm[d] = pos
    spread = transpose(spread, tuple(perm))
    mshape = [1] * r
    mshape[d1], mshape[d2] = n1, n2
    return where(_const(on.reshape(mshape)), spread, x)


def _pairs(v, what):
    return _ints(v, 2, what) if not (isinstance(v, (tuple, list)) and len(v) == 1) else \
        _ints(v[0], 2, what)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: the sliding kh x kw blocks of (N, C, H, W) as columns, (N, C * kh * kw, L)
    with L the number of blocks (channel-major, then kernel row, then kernel column)."""
    x = _t(input)
    if _rank(x, "unfold") != 4:
        raise ValueError(f"For 'unfold', the input must be 4-D (N, C, H, W), got rank "
                         f"{x.ndim}")
    kh, kw = _pairs(kernel_size, "unfold's kernel_size")
    dh, dw = _pairs(dilation, "unfold's dilation")
    ph, pw = _pairs(padding, "unfold's padding")
    sh, sw = _pairs(stride, "unfold's stride")
    n, c, h, w = _known_shape(x, "unfold")
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
        h, w = h + 2 * ph, w + 2 * pw
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(f"For 'unfold', the kernel does not fit the (padded) input {h}x{w}")
    blocks = []
    for i in range(kh):
        for j in range(kw):
            blocks.append(getitem(x, (_S(None), _S(None),
                                      _S(i * dh, i * dh + (oh - 1) * sh + 1, sh),
                                      _S(j * dw, j * dw + (ow - 1) * sw + 1, sw))))
    cols = A.stack(blocks, 2)                                   # (N, C, kh*kw, oh, ow)
    return reshape(cols, (n, c * kh * kw, oh * ow))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: the blocks of (N, C * kh * kw, L) summed back into (N, C, H, W) (the
    adjoint of unfold; overlapping blocks add up)."""
    x = _t(input)
    oh_, ow_ = _pairs(output_size, "fold's output_size")
    kh, kw = _pairs(kernel_size, "fold's kernel_size")
    dh, dw = _pairs(dilation, "fold's dilation")
    ph, pw = _pairs(padding, "fold's padding")
    sh, sw = _pairs(stride, "fold's stride")
    n, ckk, L = _known_shape(x, "fold")
    if ckk % (kh * kw):
        raise ValueError(f"For 'fold', dim 1 ({ckk}) must divide by the kernel's {kh * kw}")
    c = ckk // (kh * kw)
    h, w = oh_ + 2 * ph, ow_ + 2 * pw
    bh = (h - dh * (kh - 1) - 1) // sh + 1
    bw = (w - dw * (kw - 1) - 1) // sw + 1
    if bh * bw != L:
        raise ValueError(f"For 'fold', {L} blocks do not match the {bh} x {bw} blocks of "
                         f"output_size {(oh_, ow_)}")
    cols = reshape(x, (n, c, kh, kw, bh, bw))
    out = None
    for i in range(kh):
        for j in range(kw):
            # block (i, j) lands on rows i*dh, i*dh + sh, ... and columns j*dw, ...:
            # spread by the stride (zeros between) and padded into place, then summed
            blk = getitem(cols, (_S(None), _S(None), i, j))          # (N, C, bh, bw)
            blk = _dilate(_dilate(blk, 2, sh), 3, sw)
            top, left = i * dh, j * dw
            bottom = h - top - ((bh - 1) * sh + 1)
            right = w - left - ((bw - 1) * sw + 1)
            blk = pad(blk, (left, right, top, bottom))
            out = blk if out is None else M.add(out, blk)
    return getitem(out, (_S(None), _S(None), _S(ph, ph + oh_), _S(pw, pw + ow_)))


def _triple(v, what):
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    return _ints(v, 3, what)


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """The mean over each kd x kh x kw window of (N, C, D, H, W) (zero padding counted;
    ceil_mode and divisor_override are not supported)."""
    x = _t(input_x)
    if ceil_mode or divisor_override or not count_include_pad:
        raise ValueError("avg_pool3d: ceil_mode, divisor_override and "
                         "count_include_pad=False are not supported")
    k = _triple(kernel_size, "avg_pool3d's kernel_size")
    s = _triple(stride, "avg_pool3d's stride")
    p = _triple(padding, "avg_pool3d's padding")
    n, c = _known_shape(x, "avg_pool3d")[:2]
    w = _const(np.full((c, 1) + k, 1.0 / math.prod(k), dtype=x.dtype.np))
    pads = tuple(v for q in p for v in (q, q))
    if any(p):
        return conv3d(x, w, None, s, "pad", pads, 1, c)
    return conv3d(x, w, None, s, "valid", 0, 1, c)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each kd x kh x kw window of (N, C, D, H, W): max_pool2d per
    depth slice, then the maximum over the depth window (no indices, no ceil_mode)."""
    t = _t(x)
    if ceil_mode or return_indices:
        raise ValueError("max_pool3d: ceil_mode and return_indices are not supported")
    k = _triple(kernel_size, "max_pool3d's kernel_size")
    s = k if stride is None else _triple(stride, "max_pool3d's stride")
    p = _triple(padding, "max_pool3d's padding")
    d = _triple(dilation, "max_pool3d's dilation")
    n, c, depth, h, w = _known_shape(t, "max_pool3d")
    flat = reshape(transpose(t, (0, 2, 1, 3, 4)), (n * depth, c, h, w))
    pooled = max_pool2d(flat, k[1:], s[1:], p[1:], d[1:])
    ph, pw = pooled.shape[2:]
    pooled = transpose(reshape(pooled, (n, depth, c, ph, pw)), (0, 2, 1, 3, 4))
    if p[0]:
        lowest = to_tensor(-math.inf if t.dtype.is_floating else int(np.iinfo(t.dtype.np).min),
                           t.dtype)
        edge = A.broadcast_to(lowest, (n, c, p[0], ph, pw))
        pooled = concat([edge, pooled, edge], 2)
    total = pooled.shape[2]
    od = (total - d[0] * (k[0] - 1) - 1) // s[0] + 1
    out = None
    for i in range(k[0]):
        lo = i * d[0]
        sl = getitem(pooled, (_S(None), _S(None), _S(lo, lo + (od - 1) * s[0] + 1, s[0])))
        out = sl if out is None else M.maximum(out, sl)
    return out


def affine_grid(theta, size, align_corners=False):
    """The sampling grid (N, H, W, 2) of the 2-D affine maps theta (N, 2, 3) for an
    output of size (N, C, H, W), coordinates in [-1, 1]."""
    th = _t(theta)
    size = tuple(_int(v, "affine_grid's size") for v in size)
    if len(size) != 4:
        raise ValueError("affine_grid: only 2-D grids (size of length 4) are supported")
    n, _, h, w = size

    def lin(m):
        if align_corners:
            return np.linspace(-1, 1, m)
        return (np.arange(m) * 2 + 1) / m - 1
    xs, ys = lin(w), lin(h)
    base = np.stack([np.broadcast_to(xs[None, :], (h, w)), np.broadcast_to(ys[:, None], (h, w)),
                     np.ones((h, w))], -1).reshape(1, h * w, 3).astype(th.dtype.np)
    grid = M.matmul(A.broadcast_to(_const(base), (n, h * w, 3)), transpose(th, (0, 2, 1)))
    return reshape(grid, (n, h, w, 2))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    """weight's rows at the indices of input (input's shape + (embedding_dim,)); the rows
    are first renormalized to norm at most max_norm if given."""
    w = _t(weight)
    if max_norm is not None:
        nrm = M.norm(w, float(norm_type), 1, True)
        scale = where(M.greater(nrm, float(max_norm)),
                      M.div(to_tensor(float(max_norm), w.dtype),
                            M.add(nrm, to_tensor(1e-7, w.dtype))), A.ones_like(nrm))
        w = M.mul(w, scale)
    return A.gather(w, _t(input), 0)


def gumbel_softmax(logits, tau=1, hard=False, dim=-1):
    """softmax((logits + Gumbel noise) / tau) along dim; hard gives the one-hot of its
    maximum (with the soft values' gradient)."""
    x = _t(logits)
    if not x.dtype.is_floating:
        raise TypeError(f"For 'gumbel_softmax', logits must be floats, got {x.dtype}")
    u = uniform(_known_shape(x, "gumbel_softmax"), 1e-10, 1.0, dtype=x.dtype)
    g = M.neg(M.log(M.neg(M.log(u))))
    y = softmax(M.div(M.add(x, g), float(tau)), dim)
    if not hard:
        return y
    idx = argmax(y, dim, True)
    hot = cast(M.equal(A.broadcast_to(idx, _known_shape(y, "gumbel_softmax")),
                       _arange_along(y, dim)), y.dtype)
    return M.add(M.sub(hot, stop_gradient(y)), y)


def _arange_along(y, dim):
    shape = _known_shape(y, "gumbel_softmax")
    d = dim % len(shape)
    r = [1] * len(shape)
    r[d] = shape[d]
    return _const(np.arange(shape[d], dtype=np.int64).reshape(r))


def is_complex(input):
    """Whether input is complex (graphjit has no complex dtypes: False)."""
    _t(input)
    return False
