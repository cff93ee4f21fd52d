"""ONNX node -> graphjit nodes: the recurrent layers RNN, GRU and LSTM, unrolled over
the sequence (its length must be known while building): directions forward, reverse
and bidirectional, layout 0 and 1, the activation functions and their alpha/beta,
clip, GRU's linear_before_reset, LSTM's peepholes and input_forget. The input's
projection by W is one MatMul over the whole sequence; each step multiplies by R.
sequence_lens must be absent or a constant equal to the sequence length everywhere
(padded batches are refused)."""
from __future__ import annotations

import numpy as np

from .import_math import _static
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_PARAMS = {"Affine": (None, 0.0), "LeakyRelu": (0.01,), "ThresholdedRelu": (1.0,),
           "ScaledTanh": (1.0, 1.0), "HardSigmoid": (0.2, 0.5), "Elu": (1.0,)}
_PLAIN = ("Relu", "Tanh", "Sigmoid", "Softsign", "Softplus")


class _Acts:
    """The activation functions of the node, alpha and beta consumed in order by
    those that take them."""

    def __init__(self, cx: NodeCx, defaults, n_dirs):
        names = cx.attrs.strings("activations", None) if cx.attrs.has("activations") else None
        names = list(defaults) * n_dirs if names is None else list(names)
        if len(names) != len(defaults) * n_dirs:
            raise cx.where.damaged(f"activations {names} needs {len(defaults) * n_dirs} "
                                   f"entries")
        alphas = list(cx.attrs.floats("activation_alpha", ()))
        betas = list(cx.attrs.floats("activation_beta", ()))
        self.fns = []
        for name in names:
            key = next((k for k in list(_PARAMS) + list(_PLAIN) if k.lower() == name.lower()),
                       None)
            if key is None:
                raise cx.refuse(f"activation {name!r} is not supported")
            params = ()
            if key in _PARAMS:
                d = _PARAMS[key]
                a = alphas.pop(0) if alphas else d[0]
                b = (betas.pop(0) if betas else d[1]) if len(d) > 1 else None
                if a is None:
                    raise cx.where.damaged(f"activation {name} needs an alpha")
                params = (a, b)
            self.fns.append((key, params))
        self.cx = cx

    def apply(self, k, x):
        cx = self.cx
        key, params = self.fns[k]
        s = lambda v: cx.scalar(v, x)     # noqa: E731
        if key == "Tanh":
            return cx.emit("Tanh", x)
        if key == "Sigmoid":
            return cx.emit("Sigmoid", x)
        if key == "Relu":
            return cx.emit("ReLU", x)
        if key == "Softsign":
            return cx.emit("RealDiv", x, cx.emit("Add", cx.emit("Abs", x), s(1)))
        if key == "Softplus":
            return cx.emit("Log", cx.emit("Add", cx.emit("Exp", x), s(1)))
        a, b = params
        if key == "Affine":
            return cx.emit("Add", cx.emit("Mul", x, s(a)), s(b))
        if key == "LeakyRelu":
            return cx.emit("Select", cx.emit("Less", x, s(0)), cx.emit("Mul", x, s(a)), x)
        if key == "ThresholdedRelu":
            return cx.emit("Select", cx.emit("Greater", x, s(a)), x, s(0))
        if key == "ScaledTanh":
            return cx.emit("Mul", cx.emit("Tanh", cx.emit("Mul", x, s(b))), s(a))
        if key == "HardSigmoid":
            y = cx.emit("Add", cx.emit("Mul", x, s(a)), s(b))
            return cx.emit("Maximum", cx.emit("Minimum", y, s(1)), s(0))
        # Elu
        return cx.emit("Select", cx.emit("Less", x, s(0)),
                       cx.emit("Mul", cx.emit("Expm1", x), s(a)), x)


def _rows(cx, v, start, stop):
    """v[..., start:stop] along the last axis."""
    r = len(v.shape)
    return cx.emit("Index", v, index=tuple(("slice", None, None, None) for _ in range(r - 1)) +
                   (("slice", start, stop, None),))


def _at(cx, v, i):
    """v[i] along axis 0, the axis dropped."""
    return cx.emit("Index", v, index=(i,))


def _setup(cx, gates):
    """(x (T, B, I), W, R, B-or-None, h0 (D, B, H), dirs, hidden, layout, acts-clip)."""
    x, w, r = cx.x(0), cx.x(1), cx.x(2)
    if not x.dtype.is_floating:
        raise cx.where.damaged(f"{cx.node.op_type} takes floats, got {x.type}")
    layout = cx.attrs.int("layout", 0) if cx.opset >= 14 else 0
    shape = _static(cx, x)
    if len(shape) != 3:
        raise cx.where.damaged(f"X must be 3-D, got {x.type}")
    if layout:
        x = cx.emit("Transpose", x, perm=(1, 0, 2))
        shape = (shape[1], shape[0], shape[2])
    t, batch, _ = shape
    direction = cx.attrs.string("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        raise cx.where.damaged(f"unknown direction {direction!r}")
    dirs = 2 if direction == "bidirectional" else 1
    hidden = _static(cx, r, "R")[-1]
    if _static(cx, w, "W")[:2] != (dirs, gates * hidden):
        raise cx.where.damaged(f"W {w.type} does not fit {dirs} direction(s) of {gates} gates "
                               f"of {hidden}")
    lens = cx.const(4, "sequence lengths") if cx.has(4) else None
    if lens is not None and np.any(np.asarray(lens) != t):
        raise cx.refuse("sequence_lens shorter than the sequence (a padded batch) is not "
                        "supported")
    h0 = cx.opt(5)
    if h0 is not None and layout:
        h0 = cx.emit("Transpose", h0, perm=(1, 0, 2))
    return x, w, r, cx.opt(3), h0, direction, dirs, hidden, layout, t, batch


def _clip(cx, v):
    c = cx.attrs.float("clip", None)
    if c is None:
        return v
    return cx.emit("Maximum", cx.emit("Minimum", v, cx.scalar(c, v)), cx.scalar(-c, v))


def _outputs(cx, ys, finals, layout):
    """Y (T, D, B, H) from each direction's steps, and the final states (D, B, H)."""
    y = cx.emit("Stack", *[cx.emit("Stack", *steps, axis=0) for steps in ys], axis=1)
    outs = [y]
    for f in finals:
        outs.append(cx.emit("Stack", *f, axis=0))
    if layout:
        outs[0] = cx.emit("Transpose", outs[0], perm=(2, 0, 1, 3))
        outs[1:] = [cx.emit("Transpose", v, perm=(1, 0, 2)) for v in outs[1:]]
    return outs


def _order(direction, d, t):
    return range(t - 1, -1, -1) if direction == "reverse" or d == 1 else range(t)


def _projections(cx, x, w, b, d, gates, hidden):
    """x @ W[d]^T + Wb[d] over the whole sequence (T, B, G*H), and Rb[d] (or None)."""
    xw = cx.emit("MatMul", x, _at(cx, w, d), transpose_b=True)
    if b is None:
        return xw, None
    bd = _at(cx, b, d)
    return cx.emit("Add", xw, _rows(cx, bd, 0, gates * hidden)), \
        _rows(cx, bd, gates * hidden, 2 * gates * hidden)


def _zeros(cx, x, batch, hidden):
    return cx.emit("Fill", shape=(batch, hidden), dtype=x.dtype, value=0)


@op("RNN")
def _rnn(cx):
    x, w, r, b, h0, direction, dirs, hid, layout, t, batch = _setup(cx, 1)
    acts = _Acts(cx, ("Tanh",), dirs)
    ys, last = [], []
    for d in range(dirs):
        xw, rb = _projections(cx, x, w, b, d, 1, hid)
        rd = _at(cx, r, d)
        h = _zeros(cx, x, batch, hid) if h0 is None else _at(cx, h0, d)
        steps = [None] * t
        for i in _order(direction, d, t):
            pre = cx.emit("Add", _at(cx, xw, i), cx.emit("MatMul", h, rd, transpose_b=True))
            if rb is not None:
                pre = cx.emit("Add", pre, rb)
            h = acts.apply(d, _clip(cx, pre))
            steps[i] = h
        ys.append(steps)
        last.append(h)
    return _outputs(cx, ys, [last], layout)


@op("GRU")
def _gru(cx):
    x, w, r, b, h0, direction, dirs, hid, layout, t, batch = _setup(cx, 3)
    acts = _Acts(cx, ("Sigmoid", "Tanh"), dirs)
    lbr = cx.attrs.int("linear_before_reset", 0)
    ys, last = [], []
    for d in range(dirs):
        xw, rb = _projections(cx, x, w, b, d, 3, hid)
        rd = _at(cx, r, d)
        r_zr, r_h = _rows(cx, cx.emit("Transpose", rd, perm=(1, 0)), 0, 2 * hid), \
            _rows(cx, cx.emit("Transpose", rd, perm=(1, 0)), 2 * hid, 3 * hid)
        h = _zeros(cx, x, batch, hid) if h0 is None else _at(cx, h0, d)
        steps = [None] * t
        for i in _order(direction, d, t):
            xt = _at(cx, xw, i)
            zr = cx.emit("Add", _rows(cx, xt, 0, 2 * hid), cx.emit("MatMul", h, r_zr))
            if rb is not None:
                zr = cx.emit("Add", zr, _rows(cx, rb, 0, 2 * hid))
            zr = acts.apply(2 * d, _clip(cx, zr))
            z, rg = _rows(cx, zr, 0, hid), _rows(cx, zr, hid, 2 * hid)
            rbh = None if rb is None else _rows(cx, rb, 2 * hid, 3 * hid)
            if lbr:
                hr = cx.emit("MatMul", h, r_h)
                if rbh is not None:
                    hr = cx.emit("Add", hr, rbh)
                pre = cx.emit("Add", _rows(cx, xt, 2 * hid, 3 * hid), cx.emit("Mul", rg, hr))
            else:
                pre = cx.emit("Add", _rows(cx, xt, 2 * hid, 3 * hid),
                              cx.emit("MatMul", cx.emit("Mul", rg, h), r_h))
                if rbh is not None:
                    pre = cx.emit("Add", pre, rbh)
            hh = acts.apply(2 * d + 1, _clip(cx, pre))
            one_minus = cx.emit("Sub", cx.scalar(1, z), z)
            h = cx.emit("Add", cx.emit("Mul", one_minus, hh), cx.emit("Mul", z, h))
            steps[i] = h
        ys.append(steps)
        last.append(h)
    return _outputs(cx, ys, [last], layout)


@op("LSTM")
def _lstm(cx):
    x, w, r, b, h0, direction, dirs, hid, layout, t, batch = _setup(cx, 4)
    acts = _Acts(cx, ("Sigmoid", "Tanh", "Tanh"), dirs)
    c0, p = cx.opt(6), cx.opt(7)
    if c0 is not None and layout:
        c0 = cx.emit("Transpose", c0, perm=(1, 0, 2))
    couple = cx.attrs.int("input_forget", 0)
    ys, last_h, last_c = [], [], []
    for d in range(dirs):
        xw, rb = _projections(cx, x, w, b, d, 4, hid)
        rt = cx.emit("Transpose", _at(cx, r, d), perm=(1, 0))
        h = _zeros(cx, x, batch, hid) if h0 is None else _at(cx, h0, d)
        c = _zeros(cx, x, batch, hid) if c0 is None else _at(cx, c0, d)
        pd = None if p is None else _at(cx, p, d)
        peep = [None if pd is None else _rows(cx, pd, k * hid, (k + 1) * hid) for k in range(3)]
        steps = [None] * t
        for i in _order(direction, d, t):
            g = cx.emit("Add", _at(cx, xw, i), cx.emit("MatMul", h, rt))
            if rb is not None:
                g = cx.emit("Add", g, rb)
            gi, go, gf, gc = (_rows(cx, g, k * hid, (k + 1) * hid) for k in range(4))
            if peep[0] is not None:
                gi = cx.emit("Add", gi, cx.emit("Mul", peep[0], c))
                gf = cx.emit("Add", gf, cx.emit("Mul", peep[2], c))
            it = acts.apply(3 * d, _clip(cx, gi))
            ft = cx.emit("Sub", cx.scalar(1, it), it) if couple else \
                acts.apply(3 * d, _clip(cx, gf))
            ct = acts.apply(3 * d + 1, _clip(cx, gc))
            c = cx.emit("Add", cx.emit("Mul", ft, c), cx.emit("Mul", it, ct))
            if peep[1] is not None:
                go = cx.emit("Add", go, cx.emit("Mul", peep[1], c))
            ot = acts.apply(3 * d, _clip(cx, go))
            h = cx.emit("Mul", ot, acts.apply(3 * d + 2, c))
            steps[i] = h
        ys.append(steps)
        last_h.append(h)
        last_c.append(c)
    return _outputs(cx, ys, [last_h, last_c], layout)
