"""ONNX node -> graphjit nodes: Resize and Upsample. Interpolation is separable: each
resized axis is one table, made while building from the static shapes and the constant
scales/sizes/roi as the ONNX reference computes it (coordinate transformation, nearest
rounding, linear and cubic kernels with antialias and exclude_outside). A nearest axis
is a Gather (exact in any dtype); a linear or cubic axis a MatMul by the
(out, in) weight matrix (in float64 for integer inputs, rounded and clipped back as
the reference does), then tf_crop_and_resize's extrapolated positions are filled."""
from __future__ import annotations

import math

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
          "asymmetric", "tf_crop_and_resize")


def _x_ori(mode, y, scale, n_in, n_out_float, n_out, roi):
    """The source coordinate of each output index y, and which are extrapolated."""
    extra = None
    if mode == "align_corners":
        x = np.zeros(n_out) if n_out_float == 1 else y * (n_in - 1) / (n_out_float - 1)
    elif mode == "asymmetric":
        x = y / scale
    elif mode == "tf_crop_and_resize":
        if n_out_float == 1:
            x = np.full(n_out, (roi[1] - roi[0]) * (n_in - 1) / 2)
        else:
            x = y * (roi[1] - roi[0]) * (n_in - 1) / (n_out_float - 1)
        x = x + roi[0] * (n_in - 1)
        extra = (x < 0) | (x > n_in - 1)
    elif mode == "pytorch_half_pixel":
        x = np.full(n_out, -0.5) if n_out_float == 1 else (y + 0.5) / scale - 0.5
    elif mode == "half_pixel":
        x = (y + 0.5) / scale - 0.5
    else:   # half_pixel_symmetric
        offset = n_in / 2 * (1 - n_out / n_out_float)
        x = offset + (y + 0.5) / scale - 0.5
    return x, extra


def _coeffs_fn(mode, nearest_mode, cubic_a, antialias):
    def nearest(r, s):
        if float(r).is_integer():
            return np.array([0.0, 1.0])
        return np.array({"round_prefer_floor": [r <= 0.5, r > 0.5],
                         "round_prefer_ceil": [r < 0.5, r >= 0.5],
                         "floor": [1, 0], "ceil": [0, 1]}[nearest_mode], np.float64)

    def linear(r, s):
        if not antialias:
            return np.array([1 - r, r])
        s = min(s, 1.0)
        start = int(np.floor(-1 / s) + 1)
        args = (np.arange(start, start + 2 - 2 * start) - r) * s
        c = np.clip(1 - np.abs(args), 0, 1)
        return c / c.sum()

    def cubic(r, s):
        a = cubic_a
        if not antialias:
            return np.array([((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                             ((a + 2) * r - (a + 3)) * r * r + 1,
                             ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                             ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) *
                             ((1 - r) + 1) - 4 * a])
        s = min(s, 1.0)

        def k(x):
            x = abs(x)
            if x <= 1:
                return (a + 2) * x ** 3 - (a + 3) * x * x + 1
            return a * x ** 3 - 5 * a * x * x + 8 * a * x - 4 * a if x < 2 else 0.0
        start = int(np.floor(-2 / s) + 1)
        c = np.array([k(s * (i - r)) for i in range(start, 2 - start)])
        return c / c.sum()
    return {"nearest": nearest, "linear": linear, "cubic": cubic}[mode]


def _axis_table(n_in, n_out, scale, get, ctm, roi, exclude_outside):
    """(weights (n_out, n_in) in float64, extrapolated mask or None) of one axis."""
    y = np.arange(n_out, dtype=np.float64)
    x, extra = _x_ori(ctm, y, scale, n_in, scale * n_in, n_out, roi)
    xi = np.floor(x).astype(np.int64)
    ratios = np.where(x == xi, 1.0, x - xi)
    coeffs = np.array([get(float(r), scale) for r in ratios]).reshape(n_out, -1)
    n = coeffs.shape[1]
    pad = int(np.ceil(n / 2))
    xp = x + pad
    p = np.floor(xp).astype(np.int64)
    frac = xp - p
    if n % 2 == 0:
        off = np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        off = np.where(frac <= 0.5, -((n - 1) // 2), -((n - 1) // 2) + 1)
    idx = (p + off)[:, None] + np.arange(n)[None, :] - pad
    if exclude_outside:
        coeffs = np.where((idx < 0) | (idx >= n_in), 0.0, coeffs)
        total = coeffs.sum(axis=-1, keepdims=True)
        coeffs = coeffs / np.where(total == 0, 1.0, total)
    w = np.zeros((n_out, n_in))
    np.add.at(w, (np.repeat(np.arange(n_out), n), np.clip(idx, 0, n_in - 1).reshape(-1)),
              coeffs.reshape(-1))
    return w, extra


def resize(cx: NodeCx, x, scales, sizes, roi, axes, mode, ctm, nearest_mode="round_prefer_floor",
           cubic_a=-0.75, exclude_outside=False, extrapolation=0.0, antialias=False,
           policy="stretch"):
    shape = _static(cx, x)
    r = len(shape)
    if mode not in ("nearest", "linear", "cubic"):
        raise cx.where.damaged(f"unknown Resize mode {mode!r}")
    if ctm not in _MODES:
        raise cx.where.damaged(f"unknown coordinate_transformation_mode {ctm!r}")
    if nearest_mode not in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        raise cx.where.damaged(f"unknown nearest_mode {nearest_mode!r}")
    if mode == "nearest" and antialias:
        raise cx.where.damaged("antialias does not apply to nearest mode")
    axes = list(range(r)) if axes is None else [a % r for a in axes]
    full_roi = None
    if roi is not None and roi.size:
        roi = [float(v) for v in roi.reshape(-1)]
        if len(roi) != 2 * len(axes):
            raise cx.where.damaged(f"roi has {len(roi)} values for {len(axes)} axes")
        full_roi = [0.0] * r + [1.0] * r
        for i, a in enumerate(axes):
            full_roi[a], full_roi[r + a] = roi[i], roi[len(axes) + i]
    if ctm == "tf_crop_and_resize" and full_roi is None:
        raise cx.where.damaged("tf_crop_and_resize needs a roi")
    if (scales is None) == (sizes is None):
        raise cx.where.damaged("exactly one of scales and sizes must be given")
    if sizes is not None:
        if len(sizes) != len(axes):
            raise cx.where.damaged(f"{len(sizes)} sizes for {len(axes)} axes")
        out = list(shape)
        for a, s in zip(axes, sizes):
            out[a] = int(s)
        factors = [out[i] / shape[i] if shape[i] else 1.0 for i in range(r)]
        if policy != "stretch":
            if policy not in ("not_larger", "not_smaller"):
                raise cx.where.damaged(f"unknown keep_aspect_ratio_policy {policy!r}")
            pick = min if policy == "not_larger" else max
            s = pick(factors[a] for a in axes)
            factors = [s if i in axes else 1.0 for i in range(r)]
            out = [int(s * shape[i] + 0.5) if i in axes else shape[i] for i in range(r)]
    else:
        if len(scales) != len(axes):
            raise cx.where.damaged(f"{len(scales)} scales for {len(axes)} axes")
        sc = np.ones(r, dtype=scales.dtype)
        for a, s in zip(axes, scales):
            sc[a] = s
        if np.any(sc <= 0):
            raise cx.where.damaged(f"scales must be positive, got {list(scales)}")
        out = [int(v) for v in (sc * np.array(shape))]
        factors = [float(v) for v in sc]
    get = _coeffs_fn(mode, nearest_mode, cubic_a, antialias)
    y = x
    work = x.dtype if x.dtype.is_floating else D.float64
    for a in axes:
        n_in, n_out, s = shape[a], out[a], factors[a]
        ax_roi = None if full_roi is None else [full_roi[a], full_roi[a + r]]
        if math.isclose(s, 1.0) and n_out == n_in and (
                ax_roi is None or (math.isclose(ax_roi[0], 0.0) and
                                   math.isclose(ax_roi[1], 1.0))):
            continue
        if n_out == 0 or n_in == 0:
            raise cx.refuse("Resize to or from an empty dim is not supported")
        w, extra = _axis_table(n_in, n_out, s, get, ctm, ax_roi, exclude_outside)
        if mode == "nearest":
            y = cx.emit("Gather", y, cx.array(np.argmax(w, axis=1).astype(np.int64)), axis=a)
        else:
            y = _apply_along(cx, cx.keep(y, work), w, a, r)
        if extra is not None and extra.any():
            where = cx.array(extra.reshape(tuple(n_out if i == a else 1 for i in range(r))))
            y = cx.emit("Select", where, cx.scalar(extrapolation, y), y)
    if y is x:
        return cx.emit("Identity", x)
    if y.dtype is not x.dtype:
        info = np.iinfo(x.dtype.np)
        y = cx.emit("Round", y)
        y = cx.emit("Minimum", cx.emit("Maximum", y, cx.scalar(info.min, y)),
                    cx.scalar(info.max, y))
        y = cx.emit("Cast", y, dtype=x.dtype)
    return y


def _apply_along(cx, y, w, a, r):
    """y with axis a replaced by w @ (that axis)."""
    last = r - 1
    if a != last:
        perm = tuple(i for i in range(r) if i != a) + (a,)
        y = cx.emit("Transpose", y, perm=perm)
    y = cx.emit("MatMul", y, cx.array(w.T.astype(y.dtype.np)))
    if a != last:
        y = cx.emit("Transpose", y, perm=tuple(int(i) for i in np.argsort(perm)))
    return y


def _float_list(cx, i, what):
    c = cx.const(i, what)
    if c is None or c.size == 0:
        return None
    return c.reshape(-1)


@op("Resize")
def _resize(cx):
    a = cx.attrs
    x = cx.x(0)
    if cx.opset < 11:
        scales = _float_list(cx, 1, "scales")
        return [resize(cx, x, scales, None, None, None, a.string("mode", "nearest"),
                       "asymmetric", nearest_mode="floor")]
    roi = _float_list(cx, 1, "roi")
    scales = _float_list(cx, 2, "scales")
    sizes = cx.ints(3, "sizes")
    sizes = sizes if sizes else None
    axes = a.ints("axes", None)
    return [resize(cx, x, scales, sizes, roi, axes, a.string("mode", "nearest"),
                   a.string("coordinate_transformation_mode", "half_pixel"),
                   a.string("nearest_mode", "round_prefer_floor"),
                   a.float("cubic_coeff_a", -0.75), bool(a.int("exclude_outside", 0)),
                   a.float("extrapolation_value", 0.0), bool(a.int("antialias", 0)),
                   a.string("keep_aspect_ratio_policy", "stretch"))]


@op("Upsample")
def _upsample(cx):
    x = cx.x(0)
    if cx.opset < 9:
        scales = np.asarray(cx.attrs.floats("scales"), np.float32)
    else:
        scales = _float_list(cx, 1, "scales")
    mode = cx.attrs.string("mode", "nearest")
    if mode == "bilinear":
        mode = "linear"
    return [resize(cx, x, scales, None, None, None, mode, "asymmetric", nearest_mode="floor")]
