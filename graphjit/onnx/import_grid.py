"""ONNX node -> graphjit nodes: AffineGrid (a constant homogeneous grid times theta),
Col2Im (a matrix product by the constant 0/1 table of which column lands on which
pixel) and MaxUnpool (a scatter at the flat indices), for sizes known while building."""
from __future__ import annotations

import itertools

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import check_elements, op
from .import_scatter import scatter_rows

__all__: list = []    # the translations register themselves in import_ops.OPS


def _base_grid(sizes, align_corners):
    """(prod(sizes), k + 1): each point's (x, y[, z], 1), x the fastest, in [-1, 1]."""
    axes = []
    for n in sizes:
        if align_corners:
            a = np.arange(-1, 1 + 0.0001, 2.0 / (n - 1)) if n > 1 else np.array([-1.0])
        else:
            step = 2.0 / n
            a = np.arange(-1 + step / 2, 1, step)
        axes.append(a[:n])
    mesh = np.meshgrid(*axes, indexing="ij")          # (d0, d1, ...) each
    coords = [m.reshape(-1) for m in reversed(mesh)]   # x first
    return np.stack(coords + [np.ones(int(np.prod(sizes)))], axis=1)


@op("AffineGrid")
def _affine_grid(cx):
    theta = cx.x(0)
    size = cx.ints(1, "size")
    if size is None or len(size) not in (4, 5):
        raise cx.where.damaged("size must be (N, C, H, W) or (N, C, D, H, W)")
    sizes = tuple(size[2:])
    k = len(sizes)
    n = size[0]
    if _static(cx, theta, "theta") != (n, k, k + 1):
        raise cx.where.damaged(f"theta must be ({n}, {k}, {k + 1}), got {theta.type}")
    check_elements(cx, (n,) + sizes + (k,))
    grid = _base_grid(sizes, cx.attrs.int("align_corners", 0))
    y = cx.emit("MatMul", cx.array(grid.astype(theta.dtype.np)),
                cx.emit("Transpose", theta, perm=(0, 2, 1)))          # (N, points, k)
    return [cx.keep(cx.emit("Reshape", y, shape=(n,) + sizes + (k,)), D.float32)]


def scatter_table(image, block, cols, strides, begin, dil, dtype):
    """(prod(block) * prod(cols), prod(image)) 0/1: which kernel offset at which block
    position lands on which pixel (pos * stride - pad + offset * dilation), rows offset
    major, both row-major."""
    k = len(image)
    ll = int(np.prod(cols))
    table = np.zeros((int(np.prod(block)) * ll, int(np.prod(image))), dtype)
    offs = np.indices(block).reshape(k, -1).T          # kernel offsets, row-major
    pos = np.indices(cols).reshape(k, -1).T            # block positions, row-major
    for a, off in enumerate(offs):
        at = pos * np.array(strides) - np.array(begin) + off * np.array(dil)
        ok = np.all((at >= 0) & (at < np.array(image)), axis=1)
        flat = np.ravel_multi_index(tuple(at[ok].T), tuple(image)) if ok.any() else []
        table[a * ll + np.nonzero(ok)[0], flat] += 1
    return table


@op("Col2Im")
def _col2im(cx):
    x = cx.x(0)
    image = cx.ints(1, "image shape")
    block = cx.ints(2, "block shape")
    xs = _static(cx, x)
    k = len(image)
    if len(block) != k or len(xs) != 3:
        raise cx.where.damaged(f"image_shape {list(image)} and block_shape {list(block)} do "
                               f"not fit the input {x.type}")
    dil = cx.attrs.ints("dilations", (1,) * k)
    strides = cx.attrs.ints("strides", (1,) * k)
    pads = cx.attrs.ints("pads", (0,) * (2 * k))
    cols = [(image[i] + pads[i] + pads[i + k] - (dil[i] * (block[i] - 1) + 1)) // strides[i] + 1
            for i in range(k)]
    kk, ll = int(np.prod(block)), int(np.prod(cols))
    if xs[1] % kk or xs[2] != ll:
        raise cx.where.damaged(f"the input {x.type} does not hold {kk} kernel positions of "
                               f"{ll} blocks")
    check_elements(cx, (kk * ll, int(np.prod(image))))
    table = scatter_table(image, block, cols, strides, pads[:k], dil, x.dtype.np)
    c = xs[1] // kk
    y = cx.emit("MatMul", cx.emit("Reshape", x, shape=(xs[0], c, kk * ll)), cx.array(table))
    return [cx.emit("Reshape", y, shape=(xs[0], c) + tuple(image))]


@op("MaxUnpool")
def _max_unpool(cx):
    x, idx = cx.x(0), cx.x(1)
    xs = _static(cx, x)
    k = len(xs) - 2
    kernel = cx.attrs.ints("kernel_shape")
    strides = cx.attrs.ints("strides", (1,) * k)
    pads = cx.attrs.ints("pads", (0,) * (2 * k))
    if len(kernel) != k:
        raise cx.where.damaged(f"kernel_shape {list(kernel)} does not fit {x.type}")
    shape = tuple(xs[:2]) + tuple((xs[i + 2] - 1) * strides[i] - pads[i] - pads[i + k] +
                                  kernel[i] for i in range(k))
    out = cx.ints(2, "output shape")
    check_elements(cx, shape if out is None else out)
    total = int(np.prod(shape))
    zeros = cx.emit("Fill", shape=(total, 1), dtype=x.dtype, value=0)
    y = scatter_rows(cx, zeros, cx.emit("Reshape", cx.keep(idx, D.int64), shape=(-1,)),
                     cx.emit("Reshape", x, shape=(-1, 1)), "none")
    y = cx.emit("Reshape", y, shape=shape)
    if out is not None and tuple(out) != shape:
        if len(out) != len(shape) or any(o < s for o, s in zip(out, shape)):
            raise cx.where.damaged(f"output_shape {list(out)} is smaller than {list(shape)}")
        for a, (o, s) in enumerate(zip(out, shape)):
            if o > s:
                fill = tuple(o - s if i == a else d for i, d in
                             enumerate(_static(cx, y)))
                y = cx.emit("Concat", y, cx.emit("Fill", shape=fill, dtype=x.dtype, value=0),
                            axis=a)
    return [y]


# -- GridSample -----------------------------------------------------------------------------------
def _reflect(cx, v, lo, hi):
    """v reflected by the near border until it lies in [lo, hi] (the ONNX reference's
    _gs_reflect, elementwise)."""
    rng = hi - lo
    s = lambda c: cx.scalar(c, v)      # noqa: E731

    def fold(dx, near, far):
        n = cx.emit("Trunc", cx.emit("RealDiv", dx, s(rng)))
        r = cx.emit("Sub", dx, cx.emit("Mul", n, s(rng)))
        even = cx.emit("Equal", cx.emit("FloorMod", n, s(2)), s(0))
        return cx.emit("Select", even, cx.emit("Add" if near == lo else "Sub", s(near), r),
                       cx.emit("Sub" if near == lo else "Add", s(far), r))
    low = fold(cx.emit("Sub", s(lo), v), lo, hi)
    high = fold(cx.emit("Sub", v, s(hi)), hi, lo)
    return cx.emit("Select", cx.emit("Less", v, s(lo)), low,
                   cx.emit("Select", cx.emit("Greater", v, s(hi)), high, v))


def _cubic(cx, t):
    """Keys' cubic coefficients (A = -0.75) of the 4 taps at offsets -1..2 from floor."""
    a = -0.75
    s = lambda c: cx.scalar(c, t)      # noqa: E731
    out = []
    for d in (cx.emit("Add", t, s(1)), t, cx.emit("Sub", s(1), t), cx.emit("Sub", s(2), t)):
        d2 = cx.emit("Mul", d, d)
        d3 = cx.emit("Mul", d2, d)
        near = cx.emit("Add", cx.emit("Sub", cx.emit("Mul", d3, s(a + 2)),
                                      cx.emit("Mul", d2, s(a + 3))), s(1))
        far = cx.emit("Sub", cx.emit("Add", cx.emit("Sub", cx.emit("Mul", d3, s(a)),
                                                    cx.emit("Mul", d2, s(5 * a))),
                                     cx.emit("Mul", d, s(8 * a))), s(4 * a))
        out.append(cx.emit("Select", cx.emit("LessEqual", d, s(1)), near, far))
    return out


@op("GridSample")
def _grid_sample(cx):
    """Each output point reads X at the grid's (un-normalized) coordinates: the taps of
    nearest, linear or cubic interpolation per spatial dim (separable), gathered from
    the flattened spatial dims, zero / border / reflection padding as the ONNX
    reference applies it."""
    x, grid = cx.x(0), cx.x(1)
    xs, gs = _static(cx, x), _static(cx, grid, "grid")
    k = len(xs) - 2
    if len(gs) != k + 2 or gs[0] != xs[0] or gs[-1] != k:
        raise cx.where.damaged(f"the grid {grid.type} does not fit the input {x.type}")
    mode = cx.attrs.string("mode", "linear")
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    pad_mode = cx.attrs.string("padding_mode", "zeros")
    align = cx.attrs.int("align_corners", 0)
    if mode not in ("nearest", "linear", "cubic") or \
            pad_mode not in ("zeros", "border", "reflection"):
        raise cx.where.damaged(f"unknown mode {mode!r} or padding_mode {pad_mode!r}")
    dims = xs[2:]
    n, c = xs[:2]
    out = gs[1:-1]
    q = int(np.prod(out))
    check_elements(cx, (n, c, q, 4 ** k))
    g = cx.emit("Cast", grid, dtype=D.float64)
    taps_per_dim = []
    for i, d in enumerate(dims):
        gi = cx.emit("Index", g, index=(("slice", None, None, None),) * (k + 1) + (k - 1 - i,))
        lo, hi = (0.0, d - 1.0) if align else (-0.5, d - 0.5)
        s = lambda v: cx.scalar(v, gi)      # noqa: E731
        if align:
            xi = cx.emit("Mul", cx.emit("Add", gi, s(1)), s((d - 1) / 2.0))
        else:
            xi = cx.emit("RealDiv", cx.emit("Sub", cx.emit("Mul", cx.emit("Add", gi, s(1)),
                                                            s(d)), s(1)), s(2))
        xi = cx.emit("Cast", cx.emit("Cast", xi, dtype=D.float32), dtype=D.float64)
        if mode == "nearest":
            xi = cx.emit("Round", xi)
        outside = cx.emit("LogicalOr", cx.emit("Less", xi, s(lo)), cx.emit("Greater", xi, s(hi)))
        if pad_mode == "border":
            xi = cx.emit("Select", outside, cx.emit("Minimum", cx.emit("Maximum", xi, s(0)),
                                                    s(d - 1)), xi)
        elif pad_mode == "reflection":
            xi = cx.emit("Select", outside, _reflect(cx, xi, lo, hi), xi)
        if mode == "nearest":
            taps = [(cx.emit("Trunc", xi), None)]
        else:
            x0 = cx.emit("Floor", xi)
            t = cx.emit("Sub", xi, x0)
            if mode == "linear":
                taps = [(x0, cx.emit("Sub", s(1), t)), (cx.emit("Add", x0, s(1)), t)]
            else:
                taps = [(cx.emit("Add", x0, s(o)), w) for o, w in zip((-1, 0, 1, 2),
                                                                      _cubic(cx, t))]
        fixed = []
        for idx, w in taps:
            ok = None
            if pad_mode == "zeros":
                ok = cx.emit("LogicalAnd", cx.emit("GreaterEqual", idx, s(0)),
                             cx.emit("Less", idx, s(d)))
                idx = cx.emit("Select", ok, idx, s(0))
            elif pad_mode == "border":
                idx = cx.emit("Minimum", cx.emit("Maximum", idx, s(0)), s(d - 1))
            else:
                idx = cx.emit("Trunc", _reflect(cx, idx, lo, hi))
            fixed.append((cx.emit("Cast", idx, dtype=D.int64), w, ok))
        taps_per_dim.append(fixed)
    flat = cx.emit("Reshape", x, shape=(n, c, int(np.prod(dims))))
    strides = [int(np.prod(dims[i + 1:])) for i in range(k)]
    total = None
    for combo in itertools.product(*taps_per_dim):
        lin, weight, ok = None, None, None
        for (idx, w, m), st in zip(combo, strides):
            term = cx.emit("Mul", idx, cx.array(np.int64(st)))
            lin = term if lin is None else cx.emit("Add", lin, term)
            if w is not None:
                weight = w if weight is None else cx.emit("Mul", weight, w)
            if m is not None:
                ok = m if ok is None else cx.emit("LogicalAnd", ok, m)
        index = cx.emit("BroadcastTo", cx.emit("Reshape", lin, shape=(n, 1, q)), shape=(n, c, q))
        v = cx.emit("GatherD", flat, index, dim=2)
        if ok is not None:
            v = cx.emit("Select", cx.emit("Reshape", ok, shape=(n, 1, q)), v, cx.scalar(0, v))
        if weight is not None:
            v = cx.emit("Mul", v, cx.keep(cx.emit("Reshape", weight, shape=(n, 1, q)), x.dtype))
        total = v if total is None else cx.emit("Add", total, v)
    return [cx.keep(cx.emit("Reshape", total, shape=(n, c) + tuple(out)), x.dtype)]


# -- RoiAlign -------------------------------------------------------------------------------------
def _roi_axis(cx, start, size, pooled, grid, extent):
    """Per roi, the sample coordinates along one spatial axis (pooled bins of grid
    samples each), as the ONNX reference clamps them: ((low, weight), (high, weight))
    and the in-range mask, each (R, pooled * grid)."""
    s = lambda v: cx.scalar(v, start)     # noqa: E731
    frac = (np.arange(pooled)[:, None] + (np.arange(grid)[None, :] + 0.5) / grid).reshape(1, -1)
    b = cx.emit("RealDiv", size, s(pooled))
    c = cx.emit("Add", start, cx.emit("Mul", b, cx.array(frac.astype(start.dtype.np))))
    valid = cx.emit("LogicalAnd", cx.emit("GreaterEqual", c, s(-1.0)),
                    cx.emit("LessEqual", c, s(float(extent))))
    c = cx.emit("Maximum", c, s(0))
    low = cx.emit("Floor", c)
    top = cx.emit("GreaterEqual", low, s(extent - 1))
    low = cx.emit("Select", top, s(extent - 1), low)
    c = cx.emit("Select", top, low, c)
    high = cx.emit("Select", top, low, cx.emit("Add", low, s(1)))
    lw = cx.emit("Sub", c, low)
    hw = cx.emit("Sub", s(1), lw)
    return ((cx.emit("Cast", low, dtype=D.int64), hw),
            (cx.emit("Cast", high, dtype=D.int64), lw)), valid


@op("RoiAlign")
def _roi_align(cx):
    """Bilinear samples on a grid of sampling_ratio^2 per output bin of each roi
    (gathered from the roi's image), averaged or maxed; a sampling_ratio of 0 (a grid
    sized by each roi at run time) is refused."""
    x, rois, bidx = cx.x(0), cx.x(1), cx.x(2)
    n, c, h, w = _static(cx, x)
    r = _static(cx, rois, "rois")[0]
    ph, pw = cx.attrs.int("output_height", 1), cx.attrs.int("output_width", 1)
    g = cx.attrs.int("sampling_ratio", 0)
    if g <= 0:
        raise cx.refuse("RoiAlign with sampling_ratio 0 (a sample grid sized by each roi at "
                        "run time) is not supported")
    mode = cx.attrs.string("mode", "avg")
    half = cx.attrs.string("coordinate_transformation_mode", "half_pixel") == "half_pixel"
    scale = cx.attrs.float("spatial_scale", 1.0)
    if mode not in ("avg", "max"):
        raise cx.where.damaged(f"unknown mode {mode!r}")
    col = lambda i: cx.emit("Index", rois, index=(("slice", None, None, None),  # noqa: E731
                                                  ("slice", i, i + 1, None)))
    box = [cx.emit("Sub", cx.emit("Mul", col(i), cx.scalar(scale, rois)),
                   cx.scalar(0.5 if half else 0.0, rois)) for i in range(4)]
    sizes = [cx.emit("Sub", box[2], box[0]), cx.emit("Sub", box[3], box[1])]
    if not half:
        sizes = [cx.emit("Maximum", v, cx.scalar(1.0, v)) for v in sizes]
    ys, vy = _roi_axis(cx, box[1], sizes[1], ph, g, h)
    xs, vx = _roi_axis(cx, box[0], sizes[0], pw, g, w)
    valid = cx.emit("LogicalAnd", cx.emit("ExpandDims", vy, axis=2),
                    cx.emit("ExpandDims", vx, axis=1))               # (R, PH*G, PW*G)
    images = cx.emit("Gather", cx.emit("Reshape", x, shape=(n, c, h * w)),
                     cx.keep(bidx, D.int64), axis=0)                 # (R, C, H*W)
    q = ph * g * pw * g
    terms = []
    for yi, wy in ys:
        for xi, wx in xs:
            lin = cx.emit("Add", cx.emit("Mul", cx.emit("ExpandDims", yi, axis=2),
                                         cx.array(np.int64(w))), cx.emit("ExpandDims", xi, axis=1))
            index = cx.emit("BroadcastTo", cx.emit("Reshape", lin, shape=(r, 1, q)),
                            shape=(r, c, q))
            wt = cx.emit("Mul", cx.emit("ExpandDims", wy, axis=2),
                         cx.emit("ExpandDims", wx, axis=1))
            wt = cx.emit("Select", valid, wt, cx.scalar(0, wt))
            terms.append(cx.emit("Mul", cx.emit("GatherD", images, index, dim=2),
                                 cx.keep(cx.emit("Reshape", wt, shape=(r, 1, q)), x.dtype)))
    if mode == "avg":
        v = terms[0]
        for t in terms[1:]:
            v = cx.emit("Add", v, t)
    else:
        v = terms[0]
        for t in terms[1:]:
            v = cx.emit("Maximum", v, t)
    v = cx.emit("Reshape", v, shape=(r, c, ph, g, pw, g))
    gj = "ReduceMean" if mode == "avg" else "ReduceMax"
    return [cx.keep(cx.emit(gj, v, axis=(3, 5), keep_dims=False), x.dtype)]
