"""ONNX node -> graphjit nodes: AffineGrid (a constant homogeneous grid times theta),
Col2Im (a matrix product by the constant 0/1 table of which column lands on which
pixel) and MaxUnpool (a scatter at the flat indices), for sizes known while building."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import NodeCx, check_elements, op
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
    pixels = int(np.prod(image))
    check_elements(cx, (kk * ll, pixels))
    table = np.zeros((kk * ll, pixels), x.dtype.np)
    offs = np.indices(block).reshape(k, -1).T          # kernel offsets, row-major
    pos = np.indices(cols).reshape(k, -1).T            # block positions, row-major
    for a, off in enumerate(offs):
        at = pos * np.array(strides) - np.array(pads[:k]) + off * np.array(dil)
        ok = np.all((at >= 0) & (at < np.array(image)), axis=1)
        flat = np.ravel_multi_index(tuple(at[ok].T), image) if ok.any() else []
        table[a * ll + np.nonzero(ok)[0], flat] += 1
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
