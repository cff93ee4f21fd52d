"""More MindSpore 2.x functions model code calls, written over the registry's ops (so
both modes, gradients, ONNX export and batch rules come from those ops): einsum,
interpolate, masked_select, nonzero, gather_nd, tensor_scatter_add/update, scatter_nd,
kl_div, cosine_similarity, cdist, conv1d, conv_transpose2d, group_norm and
instance_norm.

Shapes, sizes and equations are Python values known while the graph is built, as in
array_ops; results whose length is known only when the program runs (masked_select,
nonzero) come from BooleanMask, whose first dim is unknown.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from ..ir import dtypes as dt
from ..common.tensor import Tensor, TensorLike
from ._dispatch import apply, to_tensor
from . import math_ops as M
from .array_ops import (broadcast_to, expand_dims, gather, getitem, ones_like, reshape,
                        squeeze, stack, transpose, zeros, zeros_like)
from .extra_ops import pad as _pad
from .layer_ops import conv2d
from .misc_ops import assign, stop_gradient
from .nn_ops import matmul, one_hot

__all__ = ["einsum", "interpolate", "upsample", "masked_select", "nonzero", "gather_nd",
           "tensor_scatter_add", "tensor_scatter_update", "scatter_nd", "kl_div",
           "cosine_similarity", "cdist", "conv1d", "conv_transpose2d", "group_norm",
           "instance_norm"]


def _t(x):
    return to_tensor(x)


def _const(a):
    return Tensor._wrap(np.asarray(a))


def _shape(x, what):
    s = x.shape
    if not isinstance(s, tuple) or not builtins.all(isinstance(d, int) for d in s):
        raise TypeError(f"{what} needs a tensor whose shape is known while the graph is "
                        f"built, got shape {s}")
    return s


def _rank(x, what):
    r = x.ndim
    if not isinstance(r, int):
        raise TypeError(f"{what} needs a tensor of known rank")
    return r


def _float(x):
    return x if x.dtype.is_floating else M.cast(x, dt.float32)


# -- einsum --------------------------------------------------------------------------------
def _parse_einsum(equation, operands):
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {equation!r}")
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"einsum: equation {equation!r} names {len(specs)} operands, got "
                         f"{len(operands)}")
    ranks = [_rank(x, "einsum") for x in operands]
    n_ell = 0
    for s, r in zip(specs, ranks):
        if "..." in s:
            n_ell = builtins.max(n_ell, r - (len(s) - 3))
    ell = [chr(0x100 + i) for i in range(n_ell)]
    labels = []
    for s, r in zip(specs, ranks):
        if "..." in s:
            a, _, b = s.partition("...")
            k = r - len(a) - len(b)
            if k < 0:
                raise ValueError(f"einsum: operand spec {s!r} has more labels than its rank {r}")
            s = list(a) + ell[n_ell - k:] + list(b)
        else:
            s = list(s)
        for c in s:
            if len(c) == 1 and ord(c) < 0x100 and not c.isalpha():
                raise ValueError(f"einsum: bad label {c!r} in {equation!r}")
        if len(s) != r:
            raise ValueError(f"einsum: operand spec {''.join(s)!r} has {len(s)} labels for a "
                             f"tensor of rank {r}")
        labels.append(s)
    if arrow:
        if "..." in out:
            a, _, b = out.partition("...")
            out = list(a) + ell + list(b)
        else:
            out = list(out)
    else:
        counts = {}
        for s in labels:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
    every = {c for s in labels for c in s}
    for c in out:
        if c not in every or out.count(c) > 1:
            raise ValueError(f"einsum: output label {c!r} of {equation!r} must appear once and "
                             f"in an operand")
    return labels, out


def _take_diagonals(x, labels):
    """x with each repeated label reduced to its diagonal (one dim per label)."""
    labels = list(labels)
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        n = x.shape[i]
        if not isinstance(n, int) or x.shape[j] != n:
            raise ValueError(f"einsum: a repeated label needs equal dims known while the graph "
                             f"is built, got {x.shape[i]} and {x.shape[j]}")
        shape = [1] * len(labels)
        shape[i] = shape[j] = n
        eye = _const(np.eye(n, dtype=x.dtype.np).reshape(shape))
        x = M.sum(M.mul(x, eye), j)
        del labels[j]


def _to_order(x, labels, order):
    """x (dims named by labels) transposed to the labels of order, with size-1 dims for
    the labels x lacks."""
    have = [c for c in order if c in labels]
    perm = tuple(labels.index(c) for c in have)
    if perm != tuple(range(len(perm))):
        x = transpose(x, perm)
    for i, c in enumerate(order):
        if c not in labels:
            x = expand_dims(x, i)
    return x


def einsum(equation, *operands):
    """Einstein summation over one or two operands: matmul and batch matmul
    ('bij,bjk->bik'), outer products, transposes, sums, traces and diagonals ('ii->',
    'ii->i'), with '...' for leading dims; the implicit form (no '->') orders the output
    labels alphabetically, as numpy does."""
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    if len(operands) not in (1, 2):
        raise ValueError(f"einsum supports one or two operands, got {len(operands)}; split "
                         f"the equation into pairs")
    xs = [_t(x) for x in operands]
    labels, out = _parse_einsum(equation, xs)
    parts = []
    for k, (x, ls) in enumerate(zip(xs, labels)):
        x, ls = _take_diagonals(x, ls)
        others = {c for j, o in enumerate(labels) if j != k for c in o}
        gone = [i for i, c in enumerate(ls) if c not in out and c not in others]
        if gone:
            x = M.sum(x, tuple(gone))
            ls = [c for i, c in enumerate(ls) if i not in gone]
        parts.append((x, ls))
    if len(parts) == 1:
        x, ls = parts[0]
        return _to_order(x, ls, out)
    (a, la), (b, lb) = parts
    contract = [c for c in la if c in lb and c not in out]
    fast = _einsum_matmul(a, la, b, lb, out, contract)
    if fast is not None:
        return fast
    order = out + contract
    prod = M.mul(_to_order(a, la, order), _to_order(b, lb, order))
    if contract:
        prod = M.sum(prod, tuple(range(len(out), len(order))))
    return prod


def _einsum_matmul(a, la, b, lb, out, contract):
    """The two-operand contraction as one (batched) matmul, when every dim is known and
    the shared labels have equal sizes; None otherwise."""
    sa, sb = a.shape, b.shape
    if not (isinstance(sa, tuple) and isinstance(sb, tuple) and
            builtins.all(isinstance(d, int) for d in sa + sb)):
        return None
    size = {}
    for s, ls in ((sa, la), (sb, lb)):
        for d, c in zip(s, ls):
            if size.setdefault(c, d) != d:
                return None
    batch = [c for c in out if c in la and c in lb]
    left = [c for c in out if c in la and c not in lb]
    right = [c for c in out if c in lb and c not in la]
    bs = tuple(size[c] for c in batch)
    n_l = math.prod(size[c] for c in left)
    n_r = math.prod(size[c] for c in right)
    n_k = math.prod(size[c] for c in contract)
    am = reshape(_to_order(a, la, batch + left + contract), bs + (n_l, n_k))
    bm = reshape(_to_order(b, lb, batch + contract + right), bs + (n_k, n_r))
    res = reshape(matmul(am, bm), bs + tuple(size[c] for c in left + right))
    return _to_order(res, batch + left + right, out)


# -- resizing ------------------------------------------------------------------------------
def _nearest_index(n_in, n_out, ratio):
    src = np.floor(np.arange(n_out, dtype=np.float32) * np.float32(ratio))
    return np.minimum(src.astype(np.int64), n_in - 1)


def _linear_weights(n_in, n_out, ratio, align_corners):
    d = np.arange(n_out, dtype=np.float32)
    if align_corners:
        src = d * np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros_like(d)
    else:
        src = np.maximum((d + np.float32(0.5)) * np.float32(ratio) - np.float32(0.5), 0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    w = (src - i0).astype(np.float32)
    return i0, i1, w


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """input (N, C, L) or (N, C, H, W) resized to size (or the input's dims times
    scale_factor): mode 'nearest' (source index floor(dst * in / out)), 'linear' (3-D)
    or 'bilinear' (4-D), with align_corners for the linear modes, as MindSpore 2.x."""
    x = _t(input)
    r = _rank(x, "interpolate")
    modes = {3: ("nearest", "linear"), 4: ("nearest", "bilinear")}
    if r not in modes:
        raise ValueError(f"interpolate supports 3-D and 4-D inputs, got rank {r}")
    if mode not in modes[r]:
        raise ValueError(f"interpolate: mode {mode!r} is not supported for a {r}-D input (use "
                         f"{' or '.join(repr(m) for m in modes[r])})")
    if mode == "nearest" and align_corners:
        raise ValueError("interpolate: align_corners is only for the linear modes, not "
                         "'nearest'")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    nsp = r - 2
    spatial = tuple(x.shape[2:])
    if not builtins.all(isinstance(d, int) for d in spatial):
        raise TypeError("interpolate needs spatial dims known while the graph is built")
    if size is not None:
        size = (size,) * nsp if isinstance(size, int) else tuple(size)
        if len(size) != nsp or not builtins.all(isinstance(s, int) and s > 0 for s in size):
            raise ValueError(f"interpolate: size must be {nsp} positive ints, got {size!r}")
        ratios = [i / o for i, o in zip(spatial, size)]
    else:
        sf = (scale_factor,) * nsp if isinstance(scale_factor, (int, float)) \
            else tuple(scale_factor)
        if len(sf) != nsp or not builtins.all(isinstance(s, (int, float)) and s > 0
                                              for s in sf):
            raise ValueError(f"interpolate: scale_factor must be {nsp} positive numbers, got "
                             f"{scale_factor!r}")
        size = tuple(int(math.floor(i * s)) for i, s in zip(spatial, sf))
        ratios = [i / o for i, o in zip(spatial, size)] if recompute_scale_factor \
            else [1.0 / s for s in sf]
    out = x
    for k in range(nsp):
        axis = 2 + k
        n_in, n_out = spatial[k], size[k]
        if mode == "nearest":
            out = gather(out, _const(_nearest_index(n_in, n_out, ratios[k])), axis)
            continue
        i0, i1, w = _linear_weights(n_in, n_out, ratios[k], bool(align_corners))
        shape = [1] * r
        shape[axis] = n_out
        wt = _const(w.reshape(shape).astype(out.dtype.np))
        lo, hi = gather(out, _const(i0), axis), gather(out, _const(i1), axis)
        out = M.add(lo, M.mul(M.sub(hi, lo), wt))
    return out


upsample = interpolate


# -- run-time length selections ------------------------------------------------------------
def masked_select(input, mask):
    """The elements of input where mask (broadcast against it) is true, as a 1-D tensor
    whose length is known only when the program runs."""
    x, m = _t(input), _t(mask)
    if not m.dtype.is_bool:
        raise TypeError(f"masked_select: mask must be bool, got {m.dtype}")
    if x.type.shape != m.type.shape:   # static shapes (None: known only at run time)
        target = np.broadcast_shapes(_shape(x, "masked_select"), _shape(m, "masked_select"))
        x, m = broadcast_to(x, target), broadcast_to(m, target)
    return apply("BooleanMask", reshape(x, (-1,)), reshape(m, (-1,)))


def nonzero(input, *, as_tuple=False):
    """The indices (int64) of input's nonzero elements, one row (z, ndim) per element in
    row-major order; as_tuple gives one 1-D tensor per dim instead."""
    x = _t(input)
    r = _rank(x, "nonzero")
    if not r:
        raise ValueError("nonzero: the input must have rank 1 or more")
    shape = tuple(x.shape)
    flags = M.not_equal(x, 0) if not x.dtype.is_bool else x
    if builtins.all(isinstance(d, int) for d in shape):
        coords = _const(np.indices(shape, dtype=np.int64).reshape(r, -1).T.copy())
    else:   # dims known only at run time: each coordinate is a running count along its axis
        one = ones_like(flags, dtype=dt.int64)
        coords = reshape(stack([M.sub(M.cumsum(one, k), 1) for k in range(r)], -1), (-1, r))
    rows = apply("BooleanMask", coords, reshape(flags, (-1,)))
    if as_tuple:
        return tuple(getitem(rows, (builtins.slice(None), k)) for k in range(len(shape)))
    return rows


# -- gathering and scattering by index tuples -----------------------------------------------
def _linear_index(x, indices, what, dynamic_first=False):
    """(flat index of each index tuple, x's first K dims flattened, the rest of x's
    dims). indices may have dims known only at run time but its last one (K)."""
    idx = _t(indices)
    if not idx.dtype.is_integer:
        raise TypeError(f"{what}: indices must be integers, got {idx.dtype}")
    ishape = idx.shape
    if not isinstance(ishape, tuple) or not ishape or not isinstance(ishape[-1], int):
        raise TypeError(f"{what}: indices must have rank 1 or more and a last dim known "
                        f"while the graph is built, got shape {ishape}")
    xshape = tuple(x.shape) if isinstance(x.shape, tuple) else None
    if xshape is None or not builtins.all(isinstance(d, int) for d in xshape[1:]) or \
            not (dynamic_first or isinstance(xshape[0], int)):
        raise TypeError(f"{what} needs an input whose shape is known while the graph is "
                        f"built{' (but for its first dim)' if dynamic_first else ''}, got "
                        f"shape {x.shape}")
    k = ishape[-1]
    if not 1 <= k <= len(xshape):
        raise ValueError(f"{what}: index tuples of length {k} for an input of rank "
                         f"{len(xshape)}")
    strides = np.array([math.prod(xshape[i + 1:k]) for i in range(k)], dtype=np.int64)
    if isinstance(xshape[0], int):
        bounds = _const(np.array(xshape[:k], dtype=np.int64))
    else:   # the first dim is a run-time value
        bounds = stack([M.cast(_t(d), dt.int64) for d in xshape[:k]])
    idx = M.cast(idx, dt.int64)
    idx = M.where(M.less(idx, 0), M.add(idx, bounds), idx)   # negative: from the end
    lin = M.sum(M.mul(idx, _const(strides)), -1)
    n = math.prod(xshape[:k]) if isinstance(xshape[0], int) else -1
    return lin, n, xshape[k:]


def gather_nd(input_x, indices):
    """out[i...] = input_x[indices[i..., 0], ..., indices[i..., K-1]] (the rest of
    input_x's dims kept): shape indices.shape[:-1] + input_x.shape[K:]."""
    x = _t(input_x)
    lin, n, rest = _linear_index(x, indices, "gather_nd", dynamic_first=True)
    return gather(reshape(x, (n,) + rest), lin, 0)


def _scatter_parts(x, indices, updates, what):
    lin, n, rest = _linear_index(x, indices, what)
    u = _t(updates)
    want = tuple(lin.shape) + tuple(rest)
    got = tuple(u.shape) if isinstance(u.shape, tuple) else None
    if got is None or len(got) != len(want) or builtins.any(
            isinstance(a, int) and isinstance(b, int) and a != b for a, b in zip(got, want)):
        raise ValueError(f"{what}: updates must have shape indices.shape[:-1] + "
                         f"input_x.shape[K:] ({want}), got {u.shape}")
    r = math.prod(rest)
    return reshape(lin, (-1,)), n, rest, reshape(M.cast(u, x.dtype), (-1, r)), r


def tensor_scatter_add(input_x, indices, updates):
    """A copy of input_x with each updates slice added at its index tuple (an index
    given twice gets both)."""
    x = _t(input_x)
    lin, n, rest, u, r = _scatter_parts(x, indices, updates, "tensor_scatter_add")
    hot = one_hot(lin, n, Tensor._wrap(np.ones((), x.dtype.np)),
                  Tensor._wrap(np.zeros((), x.dtype.np)))            # (m, n)
    added = matmul(transpose(hot, (1, 0)), u)                           # (n, r)
    return M.add(x, reshape(added, tuple(x.shape)))


def tensor_scatter_update(input_x, indices, updates):
    """A copy of input_x with the updates slice at each index tuple (of an index given
    twice, the last update)."""
    x = _t(input_x)
    lin, n, rest, u, r = _scatter_parts(x, indices, updates, "tensor_scatter_update")
    m = lin.shape[0]
    if not isinstance(m, int):
        raise TypeError("tensor_scatter_update needs indices whose shape is known while the "
                        "graph is built")
    hot = one_hot(lin, n, Tensor._wrap(np.ones((), np.int64)),
                  Tensor._wrap(np.zeros((), np.int64)))              # (m, n)
    order = _const(np.arange(1, m + 1, dtype=np.int64).reshape(m, 1))
    last = M.sub(M.amax(M.mul(hot, order), 0), 1)                       # (n,): -1 if none
    picked = gather(u, M.maximum(last, 0), 0)                           # (n, r)
    flat = reshape(x, (n, r))
    out = M.where(expand_dims(M.greater_equal(last, 0), 1), picked, flat)
    return reshape(out, tuple(x.shape))


def scatter_nd(indices, updates, shape):
    """Zeros of shape with the updates slices added at their index tuples."""
    u = _t(updates)
    if isinstance(shape, TensorLike):
        raise TypeError("scatter_nd's shape must be Python ints known while the graph is "
                        "built")
    return tensor_scatter_add(zeros(tuple(shape), u.dtype), indices, u)


# -- distances and divergences -------------------------------------------------------------
def kl_div(logits, labels, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence of labels from logits (log-probabilities):
    labels * (log(labels) - logits) (0 where labels is 0), or exp(labels) * (labels -
    logits) with log_target; reduction 'none', 'sum', 'mean' or 'batchmean' (the sum over
    the first dim's size)."""
    if reduction not in ("none", "sum", "mean", "batchmean"):
        raise ValueError(f"kl_div: reduction must be 'none', 'sum', 'mean' or 'batchmean', got "
                         f"{reduction!r}")
    x, y = _float(_t(logits)), _float(_t(labels))
    if log_target:
        loss = M.mul(M.exp(y), M.sub(y, x))
    else:
        pos = M.greater(y, 0)
        safe = M.where(pos, y, M.add(zeros_like(y), 1))
        loss = M.where(pos, M.mul(y, M.sub(M.log(safe), x)), zeros_like(M.mul(y, x)))
    if reduction == "none":
        return loss
    if reduction == "mean":
        return M.mean(loss)
    total = M.sum(loss)
    if reduction == "sum":
        return total
    n = x.shape[0] if x.ndim else 1
    if not isinstance(n, int):
        raise TypeError("kl_div's 'batchmean' needs a first dim known while the graph is built")
    return M.div(total, n)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / sqrt(max(sum(x1 * x1) * sum(x2 * x2), eps ** 2)) along dim."""
    a, b = _float(_t(x1)), _float(_t(x2))
    w12 = M.sum(M.mul(a, b), dim)
    w1 = M.sum(M.mul(a, a), dim)
    w2 = M.sum(M.mul(b, b), dim)
    n12 = M.sqrt(M.clamp(M.mul(w1, w2), eps * eps))
    return M.div(w12, n12)


def cdist(x1, x2, p=2.0):
    """The p-norm distance between each row of x1 (B, P, M) and each row of x2 (B, R, M):
    (B, P, R) (2-D inputs give (P, R))."""
    a, b = _float(_t(x1)), _float(_t(x2))
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise ValueError(f"cdist: inputs must both have rank 2 or 3, got {a.shape} and "
                         f"{b.shape}")
    if isinstance(p, TensorLike) or not isinstance(p, (int, float)) or p < 0:
        raise ValueError(f"cdist: p must be a non-negative Python number, got {p!r}")
    d = M.sub(expand_dims(a, -2), expand_dims(b, -3))
    if p == 0:
        return M.sum(M.cast(M.not_equal(d, 0), d.dtype), -1)
    if p == math.inf:
        return M.amax(M.abs(d), -1)
    if p == 1:
        return M.sum(M.abs(d), -1)
    if p == 2:
        return M.sqrt(M.sum(M.mul(d, d), -1))
    return M.pow(M.sum(M.pow(M.abs(d), float(p)), -1), 1.0 / p)


# -- convolution and normalization ---------------------------------------------------------
def _one(v, what):
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{what} must be an int, got {v!r}")
    return v


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """1-D cross-correlation of input (N, C, L) with weight (O, C / groups, k), plus bias
    (O,): conv2d over (N, C, 1, L). padding is an int or (left, right) (pad_mode 'pad')."""
    x, w = _t(input), _t(weight)
    if x.ndim != 3 or w.ndim != 3:
        raise ValueError(f"conv1d: input and weight must have rank 3, got {x.shape} and "
                         f"{w.shape}")
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        pads = (0, 0) + tuple(padding)
    else:
        p = _one(padding, "conv1d's padding")
        pads = (0, 0, p, p)
    out = conv2d(expand_dims(x, 2), expand_dims(w, 2), bias, (1, _one(stride, "conv1d's stride")),
                 pad_mode, pads if builtins.any(pads) else 0,
                 (1, _one(dilation, "conv1d's dilation")), groups)
    return squeeze(out, 2)


def _dilate(x, axis, s):
    """x with s - 1 zeros between neighbours along axis."""
    if s == 1:
        return x
    shape = tuple(x.shape)
    if not builtins.all(isinstance(d, int) for d in shape[1:]):
        raise TypeError(f"conv_transpose2d needs an input whose dims after the first are "
                        f"known while the graph is built, got shape {shape}")
    z = zeros_like(x)
    st = stack([x] + [z] * (s - 1), axis + 1)
    n = shape[axis]
    full = reshape(st, (-1,) + shape[1:axis] + (n * s,) + shape[axis + 1:])
    key = (builtins.slice(None),) * axis + (builtins.slice(0, (n - 1) * s + 1),)
    return getitem(full, key)


def transpose_conv_nchw(x, weight, stride, crop, extra, dilation, groups, what):
    """The transposed 2-D convolution of x (N, Cin, H, W) with weight (Cin, Cout /
    groups, kh, kw): zeros inserted between the input's elements (stride), a stride-1
    convolution with the flipped, transposed kernel, then crop = (top, bottom, left,
    right) removed and extra = (rows, cols) more outputs at the bottom and right."""
    w = _t(weight)
    ws = _shape(w, what)
    if len(ws) != 4:
        raise ValueError(f"{what}: weight must have rank 4 (in, out / groups, kh, kw), got "
                         f"{ws}")
    cin, cog, kh, kw = ws
    if cin % groups:
        raise ValueError(f"{what}: in channels {cin} are not divisible by groups {groups}")
    g = groups
    wk = reshape(w, (g, cin // g, cog, kh, kw))
    wk = reshape(transpose(wk, (0, 2, 1, 3, 4)), (g * cog, cin // g, kh, kw))
    wk = getitem(wk, (builtins.slice(None), builtins.slice(None),
                      builtins.slice(None, None, -1), builtins.slice(None, None, -1)))
    (sh, sw), (dh, dw) = stride, dilation
    xd = _dilate(_dilate(x, 2, sh), 3, sw)
    ph, pw = dh * (kh - 1), dw * (kw - 1)
    top, bottom, left, right = crop
    pads = (ph - top, ph - bottom + extra[0], pw - left, pw - right + extra[1])
    pos = tuple(builtins.max(p, 0) for p in pads)
    out = conv2d(xd, wk, None, 1, "pad", pos, (dh, dw), g) if builtins.any(pos) \
        else conv2d(xd, wk, None, 1, "valid", 0, (dh, dw), g)
    neg = tuple(builtins.max(-p, 0) for p in pads)
    if builtins.any(neg):
        oh, ow = out.shape[2], out.shape[3]
        out = getitem(out, (builtins.slice(None), builtins.slice(None),
                            builtins.slice(neg[0], oh - neg[1]),
                            builtins.slice(neg[2], ow - neg[3])))
    return out


def _pair(v, what):
    if isinstance(v, (tuple, list)) and len(v) == 2:
        return (_one(v[0], what), _one(v[1], what))
    v = _one(v, what)
    return (v, v)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """The transposed 2-D convolution (the gradient of conv2d with respect to its input)
    of input (N, Cin, H, W) with weight (Cin, Cout / groups, kh, kw), plus bias (Cout,):
    output (H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1."""
    x = _t(input)
    if x.ndim != 4:
        raise ValueError(f"conv_transpose2d: input must have rank 4, got {x.shape}")
    s, p = _pair(stride, "conv_transpose2d's stride"), _pair(padding, "conv_transpose2d's padding")
    op = _pair(output_padding, "conv_transpose2d's output_padding")
    d = _pair(dilation, "conv_transpose2d's dilation")
    out = transpose_conv_nchw(x, weight, s, (p[0], p[0], p[1], p[1]), op, d, groups,
                              "conv_transpose2d")
    if bias is not None:
        out = M.add(out, reshape(_t(bias), (-1, 1, 1)))
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """input (N, C, *) normalized per sample over each group of C / num_groups channels
    (mean and biased variance), then * weight + bias (both (C,)) if given."""
    x = _float(_t(input))
    shape = x.shape
    if not isinstance(shape, tuple) or len(shape) < 2 or not builtins.all(
            isinstance(d, int) for d in shape[1:]):
        raise TypeError(f"group_norm needs an input (N, C, *) whose dims after the first are "
                        f"known while the graph is built, got {shape}")
    c = shape[1]
    if not isinstance(num_groups, int) or num_groups <= 0 or c % num_groups:
        raise ValueError(f"group_norm: the {c} channels must be divisible by num_groups "
                         f"{num_groups!r}")
    g = reshape(x, (-1, num_groups, (c // num_groups) * math.prod(shape[2:])))
    mu = M.mean(g, -1, True)
    dev = M.sub(g, mu)
    var = M.mean(M.mul(dev, dev), -1, True)
    y = reshape(M.div(dev, M.sqrt(M.add(var, eps))), (-1,) + tuple(shape[1:]))
    tail = (1,) * (len(shape) - 2)
    if weight is not None:
        y = M.mul(y, reshape(_t(weight), (c,) + tail))
    if bias is not None:
        y = M.add(y, reshape(_t(bias), (c,) + tail))
    return y


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """input (N, C, *) normalized per sample and channel (mean and biased variance over
    the spatial dims), then * weight + bias (both (C,)). With running statistics and
    use_input_stats, they are updated: running = (1 - momentum) * running + momentum *
    the batch's mean of the instance statistics (unbiased variances); with
    use_input_stats False the running statistics normalize instead."""
    x = _float(_t(input))
    r = _rank(x, "instance_norm")
    if r < 3:
        raise ValueError(f"instance_norm: the input must be (N, C, *), got rank {r}")
    axes = tuple(range(2, r))
    tail = (1,) * (r - 2)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and "
                             "running_var")
        mu = reshape(_t(running_mean), (-1,) + tail)
        var = reshape(_t(running_var), (-1,) + tail)
        dev = M.sub(x, mu)
    else:
        mu = M.mean(x, axes, True)
        dev = M.sub(x, mu)
        var = M.mean(M.mul(dev, dev), axes, True)
        if running_mean is not None and running_var is not None:
            _update_running(x, mu, var, running_mean, running_var, momentum, axes)
    y = M.div(dev, M.sqrt(M.add(var, eps)))
    if weight is not None:
        y = M.mul(y, reshape(_t(weight), (-1,) + tail))
    if bias is not None:
        y = M.add(y, reshape(_t(bias), (-1,) + tail))
    return y


def _update_running(x, mu, var, running_mean, running_var, momentum, axes):
    n = math.prod(x.shape[a] for a in axes)
    if not isinstance(n, int):
        raise TypeError("instance_norm's running statistics need spatial dims known while the "
                        "graph is built")
    unbiased = M.mul(var, n / builtins.max(n - 1, 1))
    c = x.shape[1]
    bm = M.mean(reshape(mu, (-1, c)), 0)
    bv = M.mean(reshape(unbiased, (-1, c)), 0)
    mom = float(momentum)
    assign(running_mean, M.add(M.mul(running_mean, 1.0 - mom), M.mul(stop_gradient(bm), mom)))
    assign(running_var, M.add(M.mul(running_var, 1.0 - mom), M.mul(stop_gradient(bv), mom)))
