"""The functions behind nn.layer's convolution, pooling and normalization Cells (MindSpore
keeps them in `nn_func`, which re-exports them): conv1d/conv2d/conv_transpose2d,
max/avg/adaptive pooling, batch/layer/group/instance norm, interpolate."""
from __future__ import annotations

import builtins
import math
import numpy as np

from . import math_func as M
from .array_func import (_float, concat, expand_dims, gather, getitem, ones, reshape, squeeze,
                         stack, transpose, zeros, zeros_like)
from .parameter_func import assign
from .._dispatch import apply
from .._utils import _const, _rank, _shape, _t
from .grad.grad_func import stop_gradient
from ...common.tensor import current_recorder, SymbolicTensor, TensorLike

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "layer_norm", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "interpolate", "upsample", "conv1d", "conv_transpose2d",
           "group_norm", "instance_norm", "conv3d"]


def _ints(v, n, what):
    """v as a tuple of n ints: an int repeats, a tuple of n is kept."""
    if isinstance(v, TensorLike):
        raise TypeError(f"{what} must be Python ints known while the graph is built, not a "
                        f"tensor")
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * n
    if isinstance(v, (tuple, list)) and len(v) == n and all(
            isinstance(i, int) and not isinstance(i, bool) for i in v):
        return tuple(v)
    raise TypeError(f"{what} must be an int or a tuple of {n} ints, got {v!r}")


def pair(v, what):
    """An int or a tuple of 1, 2 (or, as MindSpore allows for strides, 4: N, C, H, W)
    ints, as (h, w)."""
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if isinstance(v, (tuple, list)) and len(v) == 4:
        v = tuple(v)[2:]
    return _ints(v, 2, what)


def pads(v, what):
    """Padding as (top, bottom, left, right): an int for all four sides, (h, w) for
    top and bottom, left and right, or the four values."""
    if isinstance(v, (tuple, list)) and len(v) == 2:
        h, w = _ints(tuple(v), 2, what)
        return (h, h, w, w)
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    return _ints(v, 4, what)


def pad_mode(mode, what):
    if not isinstance(mode, str) or mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"{what}: pad_mode must be 'valid', 'same' or 'pad', got {mode!r}")
    return mode.lower()


_pad_mode = pad_mode      # conv3d's parameter of that name hides the function


def check_format(data_format, what):
    if data_format != "NCHW":
        raise ValueError(f"{what}: only data_format='NCHW' is supported, got {data_format!r}")


def _known_weight_shape(x, what):
    shape = x.type.shape
    if shape is None or any(d is None for d in shape):
        raise TypeError(f"{what} needs a weight of known shape, got {x.type}")
    return shape


# -- convolution and pooling -------------------------------------------------------------------
def conv_nchw(input, weight, stride, mode, padding, dilation, groups, what):
    """Conv2D of input with weight; the op's output channels and kernel come from the
    weight's (known) shape."""
    w = _t(weight)
    shape = _known_weight_shape(w, what)
    if len(shape) != 4:
        raise ValueError(f"{what}: the weight must have rank 4 (out, in / groups, kh, kw), "
                         f"got {w.type}")
    return apply("Conv2D", _t(input), w, out_channel=shape[0], kernel_size=tuple(shape[2:]),
                 pad_mode=pad_mode(mode, what), pad=pads(padding, f"{what}'s padding"),
                 stride=pair(stride, f"{what}'s stride"),
                 dilation=pair(dilation, f"{what}'s dilation"), group=groups)


def add_channel_bias(out, bias):
    """out (N, C, ...) + bias (C,) along axis 1."""
    b = _t(bias)
    rank = out.type.rank
    if rank is None:
        raise TypeError("adding a per-channel bias needs an input of known rank")
    return M.add(out, reshape(b, (-1,) + (1,) * (rank - 2)))


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """2-D cross-correlation of input (N, C, H, W) with weight (O, C / groups, kh, kw),
    plus bias (O,) if given. pad_mode 'valid' (no padding), 'same' (output size
    ceil(H / stride)) or 'pad' (`padding`: an int, (h, w) or (top, bottom, left, right))."""
    if pad_mode.lower() != "pad" and padding != 0:
        raise ValueError(f"conv2d: padding {padding!r} needs pad_mode='pad'")
    out = conv_nchw(input, weight, stride, pad_mode, padding, dilation, groups, "conv2d")
    return out if bias is None else add_channel_bias(out, bias)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """The maximum over each kernel_size window (stride defaults to kernel_size);
    `padding` (an int or (h, w)) pads both sides with values that never win. With
    return_indices also the int64 index of each maximum in the flattened H * W input."""
    k = pair(kernel_size, "max_pool2d's kernel_size")
    p = pair(padding, "max_pool2d's padding")
    return apply("MaxPool", _t(x), kernel_size=k,
                 strides=k if stride is None else pair(stride, "max_pool2d's stride"),
                 pad_mode="pad", pad=(p[0], p[0], p[1], p[1]),
                 dilation=pair(dilation, "max_pool2d's dilation"), ceil_mode=bool(ceil_mode),
                 return_indices=bool(return_indices))


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """The mean over each window; `padding` (an int or (top, bottom, left, right)) pads
    with zeros that the mean counts when count_include_pad; divisor_override, if not 0,
    replaces the count."""
    return apply("AvgPool", _t(input_x), kernel_size=pair(kernel_size, "avg_pool2d's "
                                                                       "kernel_size"),
                 strides=pair(stride, "avg_pool2d's stride"), pad_mode="pad",
                 pad=pads(padding, "avg_pool2d's padding"), ceil_mode=bool(ceil_mode),
                 count_include_pad=bool(count_include_pad),
                 divisor_override=int(divisor_override or 0))


# -- normalization -----------------------------------------------------------------------------
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (axis 1). In training, the
    batch's mean and biased variance normalize, and running_mean and running_var are
    updated in place: new = (1 - momentum) * running + momentum * batch, with the
    batch's unbiased variance (n / (n - 1), n values per channel), as MindSpore."""
    x = _t(input_x)
    y, mean, var = apply("BatchNorm", x, _t(weight), _t(bias), _t(running_mean),
                         _t(running_var), is_training=bool(training), epsilon=float(eps))
    if training:
        update_running(running_mean, mean, 1.0 - momentum)
        update_running(running_var, unbiased_variance(x, var), 1.0 - momentum)
    return y


def unbiased_variance(x, var):
    """The biased variance `var` of x's channels (axis 1) made unbiased: var * n / (n - 1)
    with n values per channel (a tensor when a dim is known only at run time); one
    value per channel leaves it as it is (0), where n / (n - 1) would divide by zero."""
    n = x.size
    c = x.shape[1]
    if isinstance(n, int) and isinstance(c, int):
        n = n // c if c else 0
        return var if n <= 1 else M.mul(var, n / (n - 1))
    n = M.cast(M.floor_div(n, c), var.dtype)
    return M.div(M.mul(var, n), M.maximum(M.sub(n, 1), 1))


def update_running(stat, batch, keep):
    """stat = stat * keep + batch * (1 - keep), in place (a Parameter update)."""
    assign(stat, M.add(M.mul(stat, keep), M.mul(batch, 1.0 - keep)))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing dims `normalized_shape` (mean and biased variance),
    then * weight + bias (ones and zeros if not given)."""
    if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
        normalized_shape = (normalized_shape,)
    if not isinstance(normalized_shape, (tuple, list)) or not normalized_shape:
        raise TypeError(f"layer_norm: normalized_shape must be an int or a non-empty tuple of "
                        f"ints, got {normalized_shape!r}")
    shape = _ints(tuple(normalized_shape), len(normalized_shape), "layer_norm's "
                                                                   "normalized_shape")
    x = _t(input)
    w = ones(shape, x.dtype) if weight is None else _t(weight)
    b = zeros(shape, x.dtype) if bias is None else _t(bias)
    y, _, _ = apply("LayerNorm", x, w, b, begin_norm_axis=-len(shape),
                    begin_params_axis=-len(shape), epsilon=float(eps))
    return y


# -- adaptive pooling -------------------------------------------------------------------------
def _out_size(output_size, h, w, what):
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size, output_size)
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 2:
        raise ValueError(f"{what}: output_size must be an int or a pair, got "
                         f"{output_size!r}")
    out = []
    for o, n in zip(output_size, (h, w)):
        if o is None:
            o = n
        if isinstance(o, TensorLike) or not isinstance(o, int) or o <= 0:
            raise ValueError(f"{what}: output sizes must be positive ints or None, got "
                             f"{output_size!r}")
        out.append(o)
    return out


def _adaptive(input, output_size, reduce, what):
    x = _t(input)
    shape = x.shape
    if not isinstance(shape, tuple) or len(shape) not in (3, 4) or not builtins.all(
            isinstance(d, int) for d in shape[-2:]):
        raise ValueError(f"{what} takes a (N, C, H, W) or (C, H, W) input whose H and W are "
                         f"known while the graph is built, got {x.type}")
    h, w = shape[-2:]
    oh, ow = _out_size(output_size, h, w, what)
    lead = (slice(None),) * (len(shape) - 2)
    rows = []
    for i in range(oh):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        cols = []
        for j in range(ow):
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            cols.append(reduce(x[lead + (slice(r0, r1), slice(c0, c1))], (-2, -1), True))
        rows.append(concat(cols, -1))
    return concat(rows, -2)


def adaptive_avg_pool2d(input, output_size):
    """The mean over adaptive windows: window i of H covers floor(i * H / out) up to
    ceil((i + 1) * H / out), likewise for W."""
    return _adaptive(input, output_size, M.mean, "adaptive_avg_pool2d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over the windows of adaptive_avg_pool2d."""
    if return_indices:
        raise ValueError("adaptive_max_pool2d: return_indices=True is not supported")
    return _adaptive(input, output_size, M.amax, "adaptive_max_pool2d")


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


def _triple(v, what):
    """An int or a tuple of 3 (or 5: N, C, D, H, W) ints, as (d, h, w)."""
    if isinstance(v, (tuple, list)) and len(v) == 5:
        v = tuple(v)[2:]
    return _ints(v, 3, what)


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """3-D cross-correlation of input (N, C, D, H, W) with weight (O, C / groups, kd, kh,
    kw), plus bias (O,). pad_mode 'valid', 'same' (extra padding at the end) or 'pad'
    (`padding`: an int, 3 ints or (head, tail, top, bottom, left, right)). Composed of
    one conv2d per kernel depth over the depth-strided slices, summed."""
    x, w = _t(input), _t(weight)
    if x.ndim != 5 or w.ndim != 5:
        raise ValueError(f"conv3d: input and weight must have rank 5, got {x.shape} and "
                         f"{w.shape}")
    mode = _pad_mode(pad_mode, "conv3d")
    st, dl = _triple(stride, "conv3d's stride"), _triple(dilation, "conv3d's dilation")
    ks = _known_weight_shape(w, "conv3d")[2:]
    if mode != "pad" and padding != 0:
        raise ValueError(f"conv3d: padding {padding!r} needs pad_mode='pad'")
    size = x.shape[2:]
    if mode == "valid":
        pd = (0,) * 6
    elif mode == "same":
        if not all(isinstance(d, int) for d in size):
            raise TypeError("conv3d: pad_mode='same' needs the input's D, H and W while the "
                            "graph is built")
        pd = ()
        for n, k, s_, d in zip(size, ks, st, dl):
            total = max((-(-n // s_) - 1) * s_ + (k - 1) * d + 1 - n, 0)
            pd += (total // 2, total - total // 2)
    elif isinstance(padding, (tuple, list)) and len(padding) == 6:
        pd = _ints(tuple(padding), 6, "conv3d's padding")
    else:
        pd = tuple(v for p in _triple(padding, "conv3d's padding") for v in (p, p))
    if pd[0] or pd[1]:
        zero = zeros_like(getitem(x, (slice(None), slice(None), slice(0, 1))))
        x = concat([zero] * pd[0] + [x] + [zero] * pd[1], 2)
    depth = x.shape[2]
    if not isinstance(depth, int):
        raise TypeError("conv3d needs the input's depth while the graph is built")
    out_d = (depth - dl[0] * (ks[0] - 1) - 1) // st[0] + 1
    if out_d <= 0:
        raise ValueError(f"conv3d: the kernel depth {ks[0]} (dilation {dl[0]}) exceeds the "
                         f"padded input depth {depth}")
    c, h, wd = x.shape[1], x.shape[3], x.shape[4]
    total = None
    for kd in range(ks[0]):
        lo = kd * dl[0]
        xs = getitem(x, (slice(None), slice(None), slice(lo, lo + (out_d - 1) * st[0] + 1,
                                                         st[0])))
        xs = reshape(transpose(xs, (0, 2, 1, 3, 4)), (-1, c, h, wd))
        wk = getitem(w, (slice(None), slice(None), kd))
        if builtins.any(pd[2:]):
            o = conv2d(xs, wk, None, st[1:], "pad", pd[2:], dl[1:], groups)
        else:
            o = conv2d(xs, wk, None, st[1:], "valid", 0, dl[1:], groups)
        total = o if total is None else M.add(total, o)
    o_shape = total.shape
    out = transpose(reshape(total, (-1, out_d) + tuple(o_shape[1:])), (0, 2, 1, 3, 4))
    return out if bias is None else add_channel_bias(out, bias)


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


def _int_pair(v, what):
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
    s, p = _int_pair(stride, "conv_transpose2d's stride"), _int_pair(padding,
                                                                     "conv_transpose2d's padding")
    op = _int_pair(output_padding, "conv_transpose2d's output_padding")
    d = _int_pair(dilation, "conv_transpose2d's dilation")
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


def apply_random(op, x, **attrs):
    """Run or record a random op. While a graph is being built it is recorded even on a
    constant input: drawing at build time would freeze one draw into the graph."""
    recorder = current_recorder()
    if recorder is not None and not isinstance(x, SymbolicTensor):
        return recorder.apply(op, (x,), attrs)
    return apply(op, x, **attrs)
