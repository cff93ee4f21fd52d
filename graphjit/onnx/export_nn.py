"""The ONNX form of the windowed, normalization and ordering ops (see the table in
exporter.py): Conv2D, MaxPool, AvgPool, BatchNorm, LayerNorm, Sort, TopK, Unique,
GatherD."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from ..ir.types import TensorType
from .export_ops import cast, dt_in, dt_out, inp, op, rank_in, scalar
from .exporter import NoOnnxForm


def _window_attrs(node, kernel_key, stride_key, dilation=True):
    a = node.attrs
    k, s = [int(v) for v in a[kernel_key]], [int(v) for v in a[stride_key]]
    out = {"kernel_shape": k, "strides": s}
    if dilation:
        out["dilations"] = [int(v) for v in a.get("dilation", (1, 1))]
    mode = a["pad_mode"]
    if mode == "same":
        out["auto_pad"] = "SAME_UPPER"
    else:
        t, b, lft, r = (int(v) for v in a["pad"]) if mode == "pad" else (0, 0, 0, 0)
        out["pads"] = [t, lft, b, r]
    return out


def _batched(ex, node, x, fn):
    """Run fn on x as NCHW: a rank-3 (C, H, W) input gets a batch dim and loses it."""
    r = rank_in(node)
    if r == 4:
        return fn(x)
    if r != 3:
        raise NoOnnxForm(f"its input has rank {r}, not 3 or 4")
    y = fn(ex.one("Unsqueeze", [x, ex.i64([0])]))
    return ex.one("Squeeze", [y, ex.i64([0])])


@op("Conv2D")
def _conv(ex, node):
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    if not work.is_floating:
        raise NoOnnxForm(f"ONNX Conv takes float tensors, not {d}")
    a = node.attrs
    x = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    w = cast(ex, inp(ex, node, 1), dt_in(node, 1), work)
    attrs = {"kernel_shape": [int(v) for v in a["kernel_size"]],
             "strides": [int(v) for v in a["stride"]],
             "dilations": [int(v) for v in a["dilation"]], "group": int(a["group"])}
    if a["pad_mode"] == "same":
        attrs["auto_pad"] = "SAME_UPPER"
    else:
        t, b, lft, r = (int(v) for v in a["pad"]) if a["pad_mode"] == "pad" else (0,) * 4
        attrs["pads"] = [t, lft, b, r]
    y = _batched(ex, node, x, lambda v: ex.one("Conv", [v, w], **attrs))
    return [cast(ex, y, work, d)]


@op("MaxPool")
def _max_pool(ex, node):
    if node.attrs["return_indices"]:
        raise NoOnnxForm("ONNX MaxPool's indices count over the whole tensor, graphjit's "
                         "over each H * W plane")
    d = dt_in(node)
    work = {D.int16: D.float64, D.int32: D.float64, D.float16: D.float16}.get(d, d)
    if d is D.int64:
        raise NoOnnxForm("ONNX MaxPool takes no int64 tensors (and float64 is not exact "
                         "for them)")
    x = cast(ex, inp(ex, node), d, work)
    attrs = _window_attrs(node, "kernel_size", "strides")
    attrs["ceil_mode"] = int(bool(node.attrs["ceil_mode"]))
    y = _batched(ex, node, x, lambda v: ex.one("MaxPool", [v], **attrs))
    return [cast(ex, y, work, d)]


@op("AvgPool")
def _avg_pool(ex, node):
    a = node.attrs
    if a["divisor_override"]:
        raise NoOnnxForm("ONNX AveragePool has no divisor_override")
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    x = cast(ex, inp(ex, node), dt_in(node), work)
    attrs = _window_attrs(node, "kernel_size", "strides", dilation=False)
    attrs["ceil_mode"] = int(bool(a["ceil_mode"]))
    attrs["count_include_pad"] = int(bool(a["count_include_pad"]) and a["pad_mode"] == "pad")
    y = _batched(ex, node, x, lambda v: ex.one("AveragePool", [v], **attrs))
    return [cast(ex, y, work, d)]


def _mean(ex, x, axes):
    return ex.one("ReduceMean", [x], axes=axes, keepdims=1)


@op("BatchNorm")
def _batch_norm(ex, node):
    """graphjit's formula: (x - mean) * (scale / sqrt(var + eps)) + bias, per channel
    (axis 1); in training the batch's mean and biased variance."""
    d, sd = dt_out(node, 0), dt_out(node, 1)
    work = D.float32 if d is D.float16 else d
    r = rank_in(node)
    x = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    scale, bias, mean, var = (cast(ex, inp(ex, node, i), dt_in(node, i), work)
                              for i in range(1, 5))
    shape = ex.i64([1, -1] + [1] * (r - 2))
    if node.attrs["is_training"]:
        axes = [0] + list(range(2, r))
        m = _mean(ex, x, axes)
        dev = ex.one("Sub", [x, m])
        v = _mean(ex, ex.one("Mul", [dev, dev]), axes)
        mean = ex.one("Reshape", [m, ex.i64([-1])])
        var = ex.one("Reshape", [v, ex.i64([-1])])
    eps = scalar(ex, node.attrs["epsilon"], work)
    inv = ex.one("Div", [scale, ex.one("Sqrt", [ex.one("Add", [var, eps])])])
    y = ex.one("Add", [ex.one("Mul", [ex.one("Sub", [x, ex.one("Reshape", [mean, shape])]),
                                      ex.one("Reshape", [inv, shape])]),
                       ex.one("Reshape", [bias, shape])])
    return [cast(ex, y, work, d), cast(ex, mean, work, sd), cast(ex, var, work, sd)]


@op("LayerNorm")
def _layer_norm(ex, node):
    """graphjit's formula: (x - mean) / sqrt(var + eps) * gamma + beta over the axes
    from begin_norm_axis; outputs y, mean and var (kept dims)."""
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    r = rank_in(node)
    axes = list(range(int(node.attrs["begin_norm_axis"]) % r, r))
    x = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    gamma, beta = (cast(ex, inp(ex, node, i), dt_in(node, i), work) for i in (1, 2))
    mean = _mean(ex, x, axes)
    dev = ex.one("Sub", [x, mean])
    var = _mean(ex, ex.one("Mul", [dev, dev]), axes)
    eps = scalar(ex, node.attrs["epsilon"], work)
    y = ex.one("Add", [ex.one("Mul", [ex.one("Div", [dev, ex.one("Sqrt", [ex.one(
        "Add", [var, eps])])]), gamma]), beta])
    return [cast(ex, v, work, d) for v in (y, mean, var)]


_TOPK = frozenset({D.float32, D.float64, D.int32, D.int64, D.float16})


def _topk_input(ex, node):
    d = dt_in(node)
    work = d if d in _TOPK else (D.float32 if d is D.float16 else D.int32)
    return cast(ex, inp(ex, node), d, work), work


@op("TopK")
def _topk(ex, node):
    """ONNX TopK: equal values keep input order (the lower index first), as graphjit."""
    a = node.attrs
    x, work = _topk_input(ex, node)
    vals, idx = ex.emit("TopK", [x, ex.i64([int(a["k"])])], n_out=2, axis=int(a["axis"]),
                        largest=int(bool(a["largest"])), sorted=1)
    return [cast(ex, vals, work, dt_out(node, 0)), cast(ex, idx, D.int64, dt_out(node, 1))]


@op("Sort")
def _sort(ex, node):
    """TopK of the whole axis (equal values in input order, as graphjit's stable sort)."""
    axis = int(node.attrs["axis"])
    x, work = _topk_input(ex, node)
    k = ex.one("Gather", [ex.one("Shape", [x]), ex.i64([axis])], axis=0)
    vals, idx = ex.emit("TopK", [x, k], n_out=2, axis=axis,
                        largest=int(bool(node.attrs["descending"])), sorted=1)
    return [cast(ex, vals, work, dt_out(node, 0)), cast(ex, idx, D.int64, dt_out(node, 1))]


_UNIQUE = frozenset({D.float32, D.int64, D.int8, D.float64})


@op("Unique")
def _unique(ex, node):
    """ONNX Unique (sorted=0: first-occurrence order) of the flattened x; the inverse
    indices reshaped to x's shape."""
    d = dt_in(node)
    work = d if d in _UNIQUE else (D.float32 if d is D.float16 else D.int64)
    x = cast(ex, inp(ex, node), d, work)
    y, _, inverse, _ = ex.emit("Unique", [x], n_out=4, sorted=0)
    inv = ex.one("Reshape", [inverse, ex.one("Shape", [x])])
    return [cast(ex, y, work, d), cast(ex, inv, D.int64, dt_out(node, 1))]


@op("GatherD")
def _gather_d(ex, node):
    idx = inp(ex, node, 1)
    di = dt_in(node, 1)
    if di not in (D.int32, D.int64):
        idx = cast(ex, idx, di, D.int64)
    return [ex.one("GatherElements", [inp(ex, node, 0), idx], axis=int(node.attrs["dim"]))]



def _batch_dot_parts(ex, node, d):
    """BatchDot's operands as (batch, free, c) and (batch, c, free) matrices, with what
    the forward and backward Reshapes need."""
    ra, rb = rank_in(node, 0), rank_in(node, 1)
    i, j = (int(v) for v in node.attrs["axes"])
    perm_a = [k for k in range(ra) if k != i] + [i]
    perm_b = [0, j] + [k for k in range(1, rb) if k != j]
    a = ex.one("Transpose", [cast(ex, inp(ex, node, 0), dt_in(node, 0), d)], perm=perm_a)
    b = ex.one("Transpose", [cast(ex, inp(ex, node, 1), dt_in(node, 1), d)], perm=perm_b)
    sa, sb = ex.one("Shape", [a]), ex.one("Shape", [b])

    def part(s, lo, hi, prod=False):
        piece = ex.one("Slice", [s, ex.i64([lo]), ex.i64([hi])])
        return ex.one("ReduceProd", [piece], keepdims=1) if prod else piece
    n, c = part(sa, 0, 1), part(sa, ra - 1, ra)
    fa, fb = part(sa, 1, ra - 1, prod=True), part(sb, 2, rb, prod=True)
    a3 = ex.one("Reshape", [a, ex.one("Concat", [n, fa, c], axis=0)], allowzero=1)
    b3 = ex.one("Reshape", [b, ex.one("Concat", [n, c, fb], axis=0)], allowzero=1)
    return dict(a3=a3, b3=b3, sa=sa, sb=sb, n=n, fa=fa, fb=fb, ra=ra, rb=rb, part=part,
                perm_a=perm_a, perm_b=perm_b)


def _matmul(ex, x, y, d):
    from .export_ops import native
    return native(ex, "MatMul", [x, y], d, {D.int32, D.int64, D.float16, D.float32,
                                           D.float64})


@op("BatchDot")
def _batch_dot(ex, node):
    """graphjit's kernel: move the contracted axes next to the batch, Reshape to
    (batch, free, c) and (batch, c, free), MatMul, Reshape to the free dims."""
    d = dt_out(node)
    p = _batch_dot_parts(ex, node, d)
    out = _matmul(ex, p["a3"], p["b3"], d)
    ra, rb, n = p["ra"], p["rb"], p["n"]
    if ra == 2 and rb == 2:
        shape = ex.one("Concat", [n, ex.i64([1])], axis=0)
    else:
        shape = ex.one("Concat", [n, p["part"](p["sa"], 1, ra - 1),
                                  p["part"](p["sb"], 2, rb)], axis=0)
    return [ex.one("Reshape", [out, shape], allowzero=1)]


@op("BatchDotGrad")
def _batch_dot_grad(ex, node):
    """graphjit's kernel: g as (batch, free_a, free_b), MatMul with each operand's
    matrix transposed, Reshape and Transpose back to the operands' layouts."""
    d = dt_out(node)
    p = _batch_dot_parts(ex, node, d)
    g = cast(ex, inp(ex, node, 2), dt_in(node, 2), d)
    g3 = ex.one("Reshape", [g, ex.one("Concat", [p["n"], p["fa"], p["fb"]], axis=0)],
                allowzero=1)
    swap = [0, 2, 1]
    da = _matmul(ex, g3, ex.one("Transpose", [p["b3"]], perm=swap), d)
    db = _matmul(ex, ex.one("Transpose", [p["a3"]], perm=swap), g3, d)
    da = ex.one("Reshape", [da, p["sa"]], allowzero=1)
    db = ex.one("Reshape", [db, p["sb"]], allowzero=1)
    return [ex.one("Transpose", [da], perm=[int(k) for k in np.argsort(p["perm_a"])]),
            ex.one("Transpose", [db], perm=[int(k) for k in np.argsort(p["perm_b"])])]


_FLIP = ([-1], [np.iinfo(np.int64).min], [0], [-1])     # Slice starts, ends, axes, steps


def flip0(ex, x):
    """x reversed along axis 0 (a Slice of step -1)."""
    return ex.one("Slice", [x] + [ex.i64(v) for v in _FLIP])


def cumprod0(ex, x, rest_type, exclusive):
    """The running product of x along axis 0 (rest_type: the type of one row): a Loop
    multiplying row by row, in numpy's order; its scan output is the result (the
    product before the row when exclusive). Body nodes: gj.<Op>.<n>/in<k>."""
    from onnx import helper, numpy_helper
    work = rest_type.dtype
    shp = ex.one("Shape", [x])
    n = ex.one("Gather", [shp, ex.i64(0)], axis=0)
    rest = ex.one("Slice", [shp, ex.i64([1]), ex.i64([np.iinfo(np.int64).max])])
    one = ex.one("ConstantOfShape", [rest], value=numpy_helper.from_array(
        np.ones(1, dtype=work.np)))
    op_name, op_n = ex.current
    it, c_in, acc = ex.fresh("iter"), ex.fresh("cond_in"), ex.fresh("acc_in")
    row, new, c_out, scan = ex.fresh("row"), ex.fresh("acc"), ex.fresh("cond"), ex.fresh("scan")
    body_nodes = [
        helper.make_node("Identity", [c_in], [c_out]),
        helper.make_node("Gather", [x, it], [row], axis=0),
        helper.make_node("Mul", [acc, row], [new]),
        helper.make_node("Identity", [acc if exclusive else new], [scan]),
    ]
    for k, nd in enumerate(body_nodes):
        nd.name = f"gj.{op_name}.{op_n}/in{k}"
    body = helper.make_graph(
        body_nodes, ex.fresh(f"cumprod_{op_n}"),
        [ex.value_info(it, TensorType(D.int64, ())), ex.value_info(c_in, TensorType(D.bool_, ())),
         ex.value_info(acc, rest_type)],
        [ex.value_info(c_out, TensorType(D.bool_, ())), ex.value_info(new, rest_type),
         ex.value_info(scan, rest_type)])
    _, y = ex.emit("Loop", [n, ex.const(np.asarray(True)), one], n_out=2, body=body)
    return y


@op("CumProd")
def _cumprod(ex, node):
    """The axis moved to the front (reversed for reverse), cumprod0, moved back."""
    a = node.attrs
    t = node.inputs[0].type
    r = rank_in(node)
    axis = int(a["axis"]) % r
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    x = cast(ex, inp(ex, node), dt_in(node), work)
    perm = [axis] + [k for k in range(r) if k != axis]
    if axis:
        x = ex.one("Transpose", [x], perm=perm)
    if a["reverse"]:
        x = flip0(ex, x)
    rest_type = TensorType(work, tuple(t.shape[k] for k in perm[1:]))
    y = cumprod0(ex, x, rest_type, bool(a["exclusive"]))
    if a["reverse"]:
        y = flip0(ex, y)
    if axis:
        y = ex.one("Transpose", [y], perm=[int(p) for p in np.argsort(perm)])
    return [cast(ex, y, work, d)]


@op("ReduceProdGrad")
def _reduce_prod_grad(ex, node):
    """graphjit's kernel: the reduced axes moved last and merged, the product of the
    other elements as the exclusive running products before and after each one
    (cumprod0 forward and on the reversed axis), times g broadcast back."""
    a = node.attrs
    t = node.inputs[0].type
    r = rank_in(node)
    d = dt_in(node, 0)
    if a["axis"] is None or a["axis"] == ():
        axes = list(range(r))
    else:
        axes = sorted({int(v) % r for v in ((a["axis"],) if isinstance(a["axis"], int)
                                            else a["axis"])})
    keep = [k for k in range(r) if k not in axes]
    perm = keep + axes
    x = inp(ex, node, 0)
    xt = ex.one("Transpose", [x], perm=perm) if perm != list(range(r)) else x
    shp = ex.one("Shape", [xt])
    nk = len(keep)
    merged = ex.one("ReduceProd", [ex.one("Slice", [shp, ex.i64([nk]), ex.i64([r])])],
                    keepdims=1)
    flat_shape = merged if nk == 0 else ex.one(
        "Concat", [ex.one("Slice", [shp, ex.i64([0]), ex.i64([nk])]), merged], axis=0)
    flat = ex.one("Reshape", [xt, flat_shape], allowzero=1)
    rows = ex.one("Transpose", [flat], perm=[nk] + list(range(nk))) if nk else flat
    rest_type = TensorType(d, tuple(t.shape[k] for k in keep))
    before = cumprod0(ex, rows, rest_type, exclusive=True)
    after = flip0(ex, cumprod0(ex, flip0(ex, rows), rest_type, exclusive=True))
    others = ex.one("Mul", [before, after])
    if nk:
        others = ex.one("Transpose", [others], perm=list(range(1, nk + 1)) + [0])
    others = ex.one("Reshape", [others, shp], allowzero=1)
    if perm != list(range(r)):
        others = ex.one("Transpose", [others], perm=[int(p) for p in np.argsort(perm)])
    g = cast(ex, inp(ex, node, 1), dt_in(node, 1), d)
    if not a["keep_dims"] and axes:
        g = ex.one("Unsqueeze", [g, ex.i64(axes)])
    g = ex.one("Expand", [g, ex.one("Shape", [x])])
    return [cast(ex, ex.one("Mul", [others, g]), d, dt_out(node))]


def _count(ex, x, axes):
    """The number of elements over these axes of x, as a float tensor of x's dtype."""
    shp = ex.one("Shape", [x])
    dims = ex.one("Gather", [shp, ex.i64(axes)], axis=0)
    return ex.one("ReduceProd", [dims], keepdims=0)


@op("LayerNormGrad")
def _layer_norm_grad(ex, node):
    """graphjit's kernel, node for node: dx = rstd * (dxhat - mean(dxhat) - xhat *
    mean(dxhat * xhat)) + g_mean / m + g_var * 2 * xc / m; d_gamma and d_beta summed
    over the axes before begin_params_axis."""
    a = node.attrs
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    r = rank_in(node, 3)
    axes = list(range(int(a["begin_norm_axis"]) % r, r))
    lead = list(range(int(a["begin_params_axis"]) % r))
    g, g_mean, g_var, x, gamma = (cast(ex, inp(ex, node, i), dt_in(node, i), work)
                                  for i in range(5))
    m = cast(ex, _count(ex, x, axes), D.int64, work)
    mean = _mean(ex, x, axes)
    xc = ex.one("Sub", [x, mean])
    var = _mean(ex, ex.one("Mul", [xc, xc]), axes)
    rstd = ex.one("Div", [scalar(ex, 1, work), ex.one("Sqrt", [ex.one(
        "Add", [var, scalar(ex, a["epsilon"], work)])])])
    xhat = ex.one("Mul", [xc, rstd])
    gx = ex.one("Mul", [g, xhat])
    d_gamma = ex.one("ReduceSum", [gx, ex.i64(lead)], keepdims=0) if lead else gx
    d_beta = ex.one("ReduceSum", [g, ex.i64(lead)], keepdims=0) if lead else g
    dxhat = ex.one("Mul", [g, gamma])
    inner = ex.one("Sub", [ex.one("Sub", [dxhat, _mean(ex, dxhat, axes)]), ex.one(
        "Mul", [xhat, _mean(ex, ex.one("Mul", [dxhat, xhat]), axes)])])
    dx = ex.one("Mul", [rstd, inner])
    dx = ex.one("Add", [ex.one("Add", [dx, ex.one("Div", [g_mean, m])]), ex.one("Div", [
        ex.one("Mul", [ex.one("Mul", [g_var, scalar(ex, 2.0, work)]), xc]), m])])
    return [cast(ex, v, work, dt_out(node, k)) for k, v in enumerate((dx, d_gamma, d_beta))]


@op("BatchNormGrad")
def _batch_norm_grad(ex, node):
    """graphjit's kernel, node for node (see norm_grad.py): the adjoints of x, scale,
    bias, mean and variance, in training from the batch's statistics."""
    a = node.attrs
    d = dt_out(node)
    work = D.float32 if d is D.float16 else d
    r = rank_in(node, 3)
    axes = [0] + list(range(2, r))
    shape = ex.i64([1, -1] + [1] * (r - 2))
    g, g_mean, g_var, x, scale, mean, var = (cast(ex, inp(ex, node, i), dt_in(node, i), work)
                                             for i in range(7))
    m = cast(ex, _count(ex, x, axes), D.int64, work)
    if a["is_training"]:
        mk = _mean(ex, x, axes)
        dev = ex.one("Sub", [x, mk])
        mean = ex.one("Reshape", [mk, ex.i64([-1])])
        var = ex.one("Reshape", [_mean(ex, ex.one("Mul", [dev, dev]), axes), ex.i64([-1])])

    def per_channel(v):
        return ex.one("Reshape", [v, shape])

    def total(v):
        return ex.one("ReduceSum", [v, ex.i64(axes)], keepdims=0)
    rstd = ex.one("Div", [scalar(ex, 1, work), ex.one("Sqrt", [ex.one(
        "Add", [var, scalar(ex, a["epsilon"], work)])])])
    xc = ex.one("Sub", [x, per_channel(mean)])
    xhat = ex.one("Mul", [xc, per_channel(rstd)])
    sum_g, sum_gx = total(g), total(ex.one("Mul", [g, xhat]))
    gm, gv = per_channel(g_mean), per_channel(g_var)
    scale_rstd = ex.one("Mul", [scale, rstd])
    if a["is_training"]:
        k = ex.one("Div", [per_channel(scale_rstd), m])
        dx = ex.one("Mul", [k, ex.one("Sub", [ex.one("Sub", [ex.one("Mul", [m, g]), per_channel(
            sum_g)]), ex.one("Mul", [xhat, per_channel(sum_gx)])])])
        dx = ex.one("Add", [ex.one("Add", [dx, ex.one("Div", [gm, m])]), ex.one("Div", [
            ex.one("Mul", [ex.one("Mul", [gv, scalar(ex, 2.0, work)]), xc]), m])])
        zeros = ex.one("Mul", [mean, scalar(ex, 0, work)])
        d_mean = d_var = zeros
    else:
        dx = ex.one("Mul", [g, per_channel(scale_rstd)])
        d_mean = ex.one("Add", [ex.one("Mul", [ex.one("Neg", [sum_g]), scale_rstd]), g_mean])
        cube = ex.one("Mul", [ex.one("Mul", [rstd, rstd]), rstd])
        d_var = ex.one("Add", [ex.one("Mul", [ex.one("Mul", [ex.one("Mul", [
            total(ex.one("Mul", [g, xc])), scale]), scalar(ex, -0.5, work)]), cube]), g_var])
    outs = (dx, sum_gx, sum_g, d_mean, d_var)
    return [cast(ex, v, work, dt_out(node, k)) for k, v in enumerate(outs)]


@op("MaxPoolGrad")
def _max_pool_grad(ex, node):
    """MaxPool's Indices (the flat index of each window's first maximum, as graphjit's
    argmax picks it), then ScatterElements(reduction add) of g at them into zeros of
    x's shape."""
    from onnx import numpy_helper
    d, dg = dt_in(node, 0), dt_out(node)
    work = d if d in (D.float32, D.float64) else (D.float32 if d is D.float16 else D.float64)
    if d is D.int64:
        raise NoOnnxForm("ONNX MaxPool takes no int64 tensors")
    x = cast(ex, inp(ex, node, 0), d, work)
    attrs = _window_attrs(node, "kernel_size", "strides")
    attrs["ceil_mode"] = int(bool(node.attrs["ceil_mode"]))
    r = rank_in(node)
    if r == 3:
        x = ex.one("Unsqueeze", [x, ex.i64([0])])
    elif r != 4:
        raise NoOnnxForm(f"its input has rank {r}, not 3 or 4")
    _, idx = ex.emit("MaxPool", [x], n_out=2, **attrs)
    shp = ex.one("Shape", [inp(ex, node, 0)])
    zeros = ex.one("ConstantOfShape", [ex.one("ReduceProd", [shp], keepdims=1)],
                   value=numpy_helper.from_array(np.zeros(1, dtype=dg.np)))
    g = cast(ex, inp(ex, node, 1), dt_in(node, 1), dg)
    flat = ex.one("ScatterElements", [zeros, ex.one("Reshape", [idx, ex.i64([-1])]),
                                      ex.one("Reshape", [g, ex.i64([-1])])],
                  axis=0, reduction="add")
    return [ex.one("Reshape", [flat, shp])]


def _conv_geometry(node, x_index, w_index):
    """(kernel, stride, dilation, (top, left), (H, W), (oh, ow)) of a Conv2D gradient,
    worked out now as the kernels do at run time: it needs x's H and W and the
    weight's kernel size known."""
    from ..ir.defs.conv import window_out, window_pads
    a = node.attrs
    xt, wt = node.inputs[x_index].type, node.inputs[w_index].type
    if xt.shape is None or len(xt.shape) != 4 or None in xt.shape[2:] or \
            wt.shape is None or None in wt.shape[2:]:
        raise NoOnnxForm("it needs the input's H and W and the kernel size known when "
                         "exporting")
    k, s, d = tuple(wt.shape[2:]), tuple(a["stride"]), tuple(a["dilation"])
    p, mode = tuple(a["pad"]) if a["pad_mode"] == "pad" else (0,) * 4, a["pad_mode"]
    h, w = xt.shape[2:]
    t, _, _ = window_pads(h, k[0], s[0], d[0], mode, p[0], p[1])
    lft, _, _ = window_pads(w, k[1], s[1], d[1], mode, p[2], p[3])
    oh = window_out(h, k[0], s[0], d[0], mode, p[0], p[1])
    ow = window_out(w, k[1], s[1], d[1], mode, p[2], p[3])
    return k, s, d, (t, lft), (h, w), (oh, ow)


@op("Conv2DBackpropInput")
def _conv_backprop_input(ex, node):
    """ConvTranspose of g with the weight (no padding: the whole padded frame), Pad
    at the end where the windows did not reach, Slice out the input's H x W."""
    k, s, d, (t, lft), (h, w), (oh, ow) = _conv_geometry(node, 2, 1)
    out = dt_out(node)
    work = D.float32 if out is D.float16 else out
    g = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    wt = cast(ex, inp(ex, node, 1), dt_in(node, 1), work)
    y = ex.one("ConvTranspose", [g, wt], strides=list(s), dilations=list(d),
               group=int(node.attrs["group"]), kernel_shape=list(k))
    full = [s[0] * (oh - 1) + d[0] * (k[0] - 1) + 1, s[1] * (ow - 1) + d[1] * (k[1] - 1) + 1]
    short = [max(t + h - full[0], 0), max(lft + w - full[1], 0)]
    if any(short):
        y = ex.one("Pad", [y, ex.i64([0, 0, 0, 0, 0, 0, short[0], short[1]])])
    y = ex.one("Slice", [y, ex.i64([t, lft]), ex.i64([t + h, lft + w]), ex.i64([2, 3])])
    return [cast(ex, y, work, out)]


@op("Conv2DBackpropFilter")
def _conv_backprop_filter(ex, node):
    """Per group: Pad x as the forward did, then Conv of x (channels as the batch)
    with g (output channels as filters), strides and dilations swapped; Slice to the
    kernel size, Transpose to (O, C / group, kh, kw); Concat the groups."""
    k, s, d, (t, lft), (h, w), (oh, ow) = _conv_geometry(node, 1, 2)
    out = dt_out(node)
    work = D.float32 if out is D.float16 else out
    g = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    x = cast(ex, inp(ex, node, 1), dt_in(node, 1), work)
    need = [s[0] * (oh - 1) + d[0] * (k[0] - 1) + 1, s[1] * (ow - 1) + d[1] * (k[1] - 1) + 1]
    end = [max(need[0] - t - h, 0), max(need[1] - lft - w, 0)]
    if t or lft or any(end):
        x = ex.one("Pad", [x, ex.i64([0, 0, t, lft, 0, 0, end[0], end[1]])])
    group = int(node.attrs["group"])
    c, o = node.inputs[1].type.shape[1], node.inputs[2].type.shape[0]
    if group > 1 and (c is None or o is None):
        raise NoOnnxForm("grouped: it needs the channel counts known when exporting")
    parts = []
    for gi in range(group):
        xs, gs = x, g
        if group > 1:
            cg, og = c // group, o // group
            xs = ex.one("Slice", [x, ex.i64([gi * cg]), ex.i64([(gi + 1) * cg]), ex.i64([1])])
            gs = ex.one("Slice", [g, ex.i64([gi * og]), ex.i64([(gi + 1) * og]), ex.i64([1])])
        xt = ex.one("Transpose", [xs], perm=[1, 0, 2, 3])
        gt = ex.one("Transpose", [gs], perm=[1, 0, 2, 3])
        y = ex.one("Conv", [xt, gt], strides=list(d), dilations=list(s))
        y = ex.one("Slice", [y, ex.i64([0, 0]), ex.i64(list(k)), ex.i64([2, 3])])
        parts.append(ex.one("Transpose", [y], perm=[1, 0, 2, 3]))
    y = parts[0] if len(parts) == 1 else ex.one("Concat", parts, axis=0)
    return [cast(ex, y, work, out)]


@op("AvgPoolGrad")
def _avg_pool_grad(ex, node):
    """graphjit's kernel: g divided by each window's count (worked out now: x's C, H
    and W must be known), spread over its window by a ConvTranspose with a kernel of
    ones per channel, then the input's H x W sliced out of the padded frame."""
    from ..ir.defs.conv import window_out, window_pads
    from ..ir.defs.conv_grad import _avg_count
    a = node.attrs
    xt = node.inputs[1].type
    r = rank_in(node, 1)
    if r not in (3, 4) or None in xt.shape[-3:]:
        raise NoOnnxForm("it needs the input's C, H and W known when exporting")
    k, s = tuple(a["kernel_size"]), tuple(a["strides"])
    mode, ceil = a["pad_mode"], bool(a["ceil_mode"])
    p = tuple(a["pad"]) if mode == "pad" else (0,) * 4
    c, h, w = xt.shape[-3:]
    t, b, ob = window_pads(h, k[0], s[0], 1, mode, p[0], p[1], ceil)
    lft, rr, orr = window_pads(w, k[1], s[1], 1, mode, p[2], p[3], ceil)
    oh = window_out(h, k[0], s[0], 1, mode, p[0], p[1], ceil)
    ow = window_out(w, k[1], s[1], 1, mode, p[2], p[3], ceil)
    out = dt_out(node)
    work = D.float32 if out is D.float16 else out
    count = _avg_count(xt.shape, k, s, mode, p, ceil, a, (t, b, ob, lft, rr, orr), (oh, ow),
                       work.np)
    g = cast(ex, inp(ex, node, 0), dt_in(node, 0), work)
    if r == 3:
        g = ex.one("Unsqueeze", [g, ex.i64([0])])
    share = ex.one("Div", [g, ex.const(np.asarray(count, dtype=work.np))])
    ones = ex.const(np.ones((c, 1) + k, dtype=work.np))
    y = ex.one("ConvTranspose", [share, ones], strides=list(s), group=int(c),
               kernel_shape=list(k))
    full = [s[0] * (oh - 1) + k[0], s[1] * (ow - 1) + k[1]]
    short = [max(t + h - full[0], 0), max(lft + w - full[1], 0)]
    if any(short):
        y = ex.one("Pad", [y, ex.i64([0, 0, 0, 0, 0, 0, short[0], short[1]])])
    y = ex.one("Slice", [y, ex.i64([t, lft]), ex.i64([t + h, lft + w]), ex.i64([2, 3])])
    if r == 3:
        y = ex.one("Squeeze", [y, ex.i64([0])])
    return [cast(ex, y, work, out)]
