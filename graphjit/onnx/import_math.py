"""ONNX node -> graphjit nodes: math ops composed of graphjit's (the activations LeakyRelu
to Gelu, Swish, Hardmax, BitShift, CumProd, Trilu, EyeLike, NonZero, Einsum). Values
graphjit needs while building (Trilu's k, the shapes a mask is made for) must be
constants in the file or static shapes."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from ..ir.graph import Value
from .import_nn import _norm, _rank
from .import_ops import NodeCx, _same_dtypes, check_elements, cumulative, op

__all__: list = []    # the translations register themselves in import_ops.OPS


def _static(cx: NodeCx, v, what="input"):
    """v's shape, every dim known while building."""
    if v.shape is None or any(d is None for d in v.shape):
        raise cx.refuse(f"{cx.node.op_type} needs the {what}'s shape known while building "
                        f"({v.type})")
    return tuple(v.shape)


# -- activations ----------------------------------------------------------------------------------
def _float_input(cx) -> Value:
    x = cx.x(0)
    if not x.dtype.is_floating:
        raise cx.where.damaged(f"{cx.node.op_type} takes floating inputs, got {x.type}")
    return x


def _where_negative(cx, x, neg, pos=None, strict=True):
    cond = cx.emit("Less" if strict else "LessEqual", x, cx.scalar(0, x))
    return cx.emit("Select", cond, neg, x if pos is None else pos)


@op("LeakyRelu")
def _leaky(cx):
    x = _float_input(cx)
    return [_where_negative(cx, x, cx.emit("Mul", x, cx.scalar(cx.attrs.float("alpha", 0.01),
                                                                 x)))]


@op("PRelu")
def _prelu(cx):
    x, slope = cx.x(0), cx.x(1)
    _same_dtypes(cx, x, slope)
    cond = cx.emit("Less", x, cx.scalar(0, x))
    return [cx.emit("Select", cond, cx.emit("Mul", x, slope), x)]


@op("Elu")
def _elu(cx):
    x = _float_input(cx)
    alpha = cx.attrs.float("alpha", 1.0)
    return [_where_negative(cx, x, cx.emit("Mul", cx.emit("Expm1", x), cx.scalar(alpha, x)))]


@op("Selu")
def _selu(cx):
    x = _float_input(cx)
    alpha = cx.attrs.float("alpha", 1.67326319217681884765625)
    gamma = cx.attrs.float("gamma", 1.05070102214813232421875)
    neg = cx.emit("Mul", cx.emit("Expm1", x), cx.scalar(alpha, x))
    return [cx.emit("Mul", _where_negative(cx, x, neg, strict=False), cx.scalar(gamma, x))]


@op("Celu")
def _celu(cx):
    x = _float_input(cx)
    a = cx.scalar(cx.attrs.float("alpha", 1.0), x)
    neg = cx.emit("Mul", cx.emit("Expm1", cx.emit("RealDiv", x, a)), a)
    zero = cx.scalar(0, x)
    return [cx.emit("Add", cx.emit("Maximum", x, zero), cx.emit("Minimum", neg, zero))]


def _hard_sigmoid(cx, x, alpha, beta):
    y = cx.emit("Add", cx.emit("Mul", x, cx.scalar(alpha, x)), cx.scalar(beta, x))
    return cx.emit("Maximum", cx.emit("Minimum", y, cx.scalar(1, x)), cx.scalar(0, x))


@op("HardSigmoid")
def _hsig(cx):
    x = _float_input(cx)
    return [_hard_sigmoid(cx, x, cx.attrs.float("alpha", 0.2), cx.attrs.float("beta", 0.5))]


@op("HardSwish")
def _hswish(cx):
    x = _float_input(cx)
    return [cx.emit("Mul", x, _hard_sigmoid(cx, x, 1 / 6, 0.5))]


@op("Softsign")
def _softsign(cx):
    x = _float_input(cx)
    return [cx.emit("RealDiv", x, cx.emit("Add", cx.emit("Abs", x), cx.scalar(1, x)))]


def _softplus_of(cx, x):
    return cx.emit("Log", cx.emit("Add", cx.emit("Exp", x), cx.scalar(1, x)))


@op("Softplus")
def _softplus(cx):
    return [_softplus_of(cx, _float_input(cx))]


@op("Mish")
def _mish(cx):
    x = _float_input(cx)
    return [cx.emit("Mul", x, cx.emit("Tanh", _softplus_of(cx, x)))]


@op("ThresholdedRelu")
def _trelu(cx):
    x = _float_input(cx)
    cond = cx.emit("Greater", x, cx.scalar(cx.attrs.float("alpha", 1.0), x))
    return [cx.emit("Select", cond, x, cx.scalar(0, x))]


@op("Shrink")
def _shrink(cx):
    x = cx.x(0)
    bias, lambd = cx.attrs.float("bias", 0.0), cx.attrs.float("lambd", 0.5)
    low = cx.emit("Less", x, cx.scalar(-lambd, x))
    high = cx.emit("Greater", x, cx.scalar(lambd, x))
    inner = cx.emit("Select", high, cx.emit("Sub", x, cx.scalar(bias, x)), cx.scalar(0, x))
    return [cx.emit("Select", low, cx.emit("Add", x, cx.scalar(bias, x)), inner)]


@op("Gelu")
def _gelu(cx):
    x = _float_input(cx)
    approx = cx.attrs.string("approximate", "none")
    half = cx.emit("Mul", x, cx.scalar(0.5, x))
    if approx == "tanh":
        inner = cx.emit("Mul", cx.emit("Add", x, cx.emit("Mul", cx.emit(
            "Mul", cx.emit("Mul", x, x), x), cx.scalar(0.044715, x))),
            cx.scalar(np.sqrt(2 / np.pi), x))
        t = cx.emit("Tanh", inner)
    elif approx == "none":
        t = cx.emit("Erf", cx.emit("Mul", x, cx.scalar(1 / np.sqrt(2), x)))
    else:
        raise cx.where.damaged(f"approximate must be 'none' or 'tanh', got {approx!r}")
    return [cx.emit("Mul", half, cx.emit("Add", t, cx.scalar(1, x)))]


@op("Swish")
def _swish(cx):
    x = cx.x(0)
    alpha = cx.attrs.float("alpha", 1.0)
    ax = x if alpha == 1.0 else cx.emit("Mul", x, cx.scalar(alpha, x))
    return [cx.emit("Mul", x, cx.emit("Sigmoid", ax))]


@op("Hardmax")
def _hardmax(cx):
    """1 at the first maximum along axis, 0 elsewhere (before opset 13: of the input
    seen as 2-D, [:axis] by [axis:])."""
    x = cx.x(0)
    r = _rank(cx, x)
    if cx.opset >= 13:
        a = _norm(cx, cx.attrs.int("axis", -1), r)
        d = _static(cx, x)[a]
        idx = cx.emit("ArgMax", x, axis=a, keep_dims=False, output_type=D.int64)
        return [cx.emit("OneHot", idx, depth=d, on_value=1, off_value=0, axis=a,
                        dtype=x.dtype)]
    a = cx.attrs.int("axis", 1)
    a = a + r if a < 0 else a
    if not 0 <= a <= r:
        raise cx.where.damaged(f"axis {a} is out of range for rank {r}")
    shape = _static(cx, x)
    lead, rest = int(np.prod(shape[:a], dtype=np.int64)), int(np.prod(shape[a:],
                                                                         dtype=np.int64))
    flat = cx.emit("Reshape", x, shape=(lead, rest))
    idx = cx.emit("ArgMax", flat, axis=1, keep_dims=False, output_type=D.int64)
    y = cx.emit("OneHot", idx, depth=rest, on_value=1, off_value=0, axis=-1, dtype=x.dtype)
    return [cx.emit("Reshape", y, shape=shape)]


@op("BitShift")
def _bitshift(cx):
    """x << y as x * 2 ** y (wrapping in x's dtype) and x >> y as floor(x / 2 ** y) (an
    arithmetic shift for signed x); a shift amount out of [0, width) gives the full-width
    result as numpy does: 0, or -1 for a right shift of a negative x."""
    x, y = cx.x(0), cx.x(1)
    if x.dtype is not y.dtype or not x.dtype.is_integer:
        raise cx.where.damaged(f"BitShift takes two integer tensors of one dtype, got "
                               f"{x.type} and {y.type}")
    direction = cx.attrs.string("direction")
    if direction not in ("LEFT", "RIGHT"):
        raise cx.where.damaged(f"direction must be 'LEFT' or 'RIGHT', got {direction!r}")
    bits = np.dtype(x.dtype.np).itemsize * 8
    signed = np.dtype(x.dtype.np).kind == "i"
    # a signed right shift by width - 1 is the sign alone: 2 ** (width - 1) wraps negative
    top = bits - 1 if signed and direction == "RIGHT" else bits
    wide = cx.emit("GreaterEqual", y, cx.scalar(top, y))
    if signed:
        wide = cx.emit("LogicalOr", wide, cx.emit("Less", y, cx.scalar(0, y)))
    safe = cx.emit("Select", wide, cx.scalar(0, y), y)
    p = cx.emit("Pow", cx.scalar(2, x), safe)
    if direction == "LEFT":
        z, full = cx.emit("Mul", x, p), cx.scalar(0, x)
    else:
        z = cx.emit("FloorDiv", x, p)
        full = cx.scalar(0, x) if not signed else cx.emit(
            "Select", cx.emit("Less", x, cx.scalar(0, x)), cx.scalar(-1, x), cx.scalar(0, x))
    return [cx.keep(cx.emit("Select", wide, full, z), x.dtype)]


@op("CumProd")
def _cumprod(cx):
    return cumulative(cx, "CumProd")


@op("Trilu")
def _trilu(cx):
    x = cx.x(0)
    shape = _static(cx, x)
    if len(shape) < 2:
        raise cx.where.damaged(f"Trilu takes a tensor of rank 2 or more, got {x.type}")
    k = cx.ints(1, "k", (0,))
    if len(k) != 1:
        raise cx.where.damaged("k must be one integer")
    n, m = shape[-2:]
    ones = np.ones((n, m), bool)
    keep = np.triu(ones, k[0]) if cx.attrs.int("upper", 1) else np.tril(ones, k[0])
    return [cx.emit("Select", cx.array(keep), x, cx.scalar(0, x))]


@op("EyeLike")
def _eye_like(cx):
    x = cx.x(0)
    shape = _static(cx, x)
    if len(shape) != 2:
        raise cx.where.damaged(f"EyeLike takes a 2-D tensor, got {x.type}")
    dtype = cx.dtype_attr("dtype") if cx.attrs.has("dtype") else x.dtype
    check_elements(cx, shape)
    eye = np.eye(shape[0], shape[1], k=cx.attrs.int("k", 0), dtype=dtype.np)
    return [cx.emit("Identity", cx.array(eye))]


@op("NonZero")
def _nonzero(cx):
    """The coordinates of the non-zero elements (rank, count), row-major: a table of
    every coordinate, masked (its length known only at run time)."""
    x = cx.x(0)
    shape = _static(cx, x)
    if not shape:
        raise cx.refuse("NonZero of a scalar is not supported")
    check_elements(cx, (len(shape),) + shape)
    coords = np.indices(shape, dtype=np.int64).reshape(len(shape), -1).T.copy()
    nz = x if x.dtype.is_bool else cx.emit("NotEqual", x, cx.scalar(0, x))
    mask = cx.emit("Reshape", nz, shape=(coords.shape[0],))
    rows = cx.emit("BooleanMask", cx.array(coords), mask)
    return [cx.emit("Transpose", rows, perm=(1, 0))]


# -- Einsum ---------------------------------------------------------------------------------------
def _einsum_terms(cx, equation: str, ranks):
    """The letters of each operand and of the output, an ellipsis replaced by letters
    of its own (right-aligned across operands, as numpy broadcasts them)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise cx.where.damaged(f"equation {equation!r} has {len(terms)} operands, the node "
                               f"{len(ranks)}")
    used = set(c for c in eq if c.isalpha())
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    ell = 0
    for t, r in zip(terms, ranks):
        if "..." in t:
            ell = max(ell, r - (len(t) - 3))
    if ell > len(spare):
        raise cx.refuse(f"equation {equation!r}: too many broadcast dims")
    ell_letters = "".join(spare[:ell])
    out_terms = []
    for t, r in zip(terms, ranks):
        if "..." in t:
            k = r - (len(t) - 3)
            t = t.replace("...", ell_letters[ell - k:] if k else "")
        if len(t) != r or not all(c.isalpha() for c in t):
            raise cx.where.damaged(f"equation {equation!r}: term {t!r} does not fit an "
                                   f"operand of rank {r}")
        out_terms.append(t)
    if arrow:
        out = rhs.replace("...", ell_letters)
    else:
        counts = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell_letters + "".join(sorted(c for c, n in counts.items()
                                           if n == 1 and c not in ell_letters))
    if not all(c.isalpha() for c in out) or len(set(out)) != len(out) or \
            not set(out) <= set("".join(out_terms)):
        raise cx.where.damaged(f"equation {equation!r}: bad output term {out!r}")
    return out_terms, out


def _diagonal(cx, x, term):
    """x with each repeated letter of its term taken once (the diagonal)."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        i = term.index(c)
        j = term.index(c, i + 1)
        shape = _static(cx, x)
        if shape[i] != shape[j]:
            raise cx.where.damaged(f"letter {c!r} names dims of sizes {shape[i]} and "
                                   f"{shape[j]}")
        eye = np.eye(shape[i], dtype=bool).reshape(
            tuple(shape[i] if a == i else shape[j] if a == j else 1 for a in range(len(shape))))
        x = cx.emit("Select", cx.array(eye), x, cx.scalar(0, x))
        x = cx.emit("ReduceSum", x, axis=j, keep_dims=False)
        term = term[:j] + term[j + 1:]
    return x, term


@op("Einsum")
def _einsum(cx):
    """numpy's einsum: each operand's diagonals taken, its own letters summed, the
    operands laid out over one letter order (output letters first) and multiplied
    with broadcasting, the other letters summed."""
    xs = cx.xs()
    if not xs:
        raise cx.where.damaged("Einsum needs at least one input")
    dtype = xs[0].dtype
    if any(v.dtype is not dtype for v in xs):
        raise cx.where.damaged("the inputs have different dtypes")
    terms, out = _einsum_terms(cx, cx.attrs.string("equation"), [_rank(cx, v) for v in xs])
    ops = []
    for k, (v, t) in enumerate(zip(xs, terms)):
        v, t = _diagonal(cx, v, t)
        others = set(out).union(*(set(u) for j, u in enumerate(terms) if j != k))
        own = [i for i, c in enumerate(t) if c not in others]
        if own:
            v = cx.keep(cx.emit("ReduceSum", v, axis=tuple(own), keep_dims=False), dtype)
            t = "".join(c for c in t if c in others)
        ops.append((v, t))
    order = out + "".join(sorted(set("".join(t for _, t in ops)) - set(out)))
    acc = None
    for v, t in ops:
        present = sorted(t, key=order.index)
        if list(t) != present:
            v = cx.emit("Transpose", v, perm=tuple(t.index(c) for c in present))
        for a, c in enumerate(order):
            if c not in t:
                v = cx.emit("ExpandDims", v, axis=a)
        acc = v if acc is None else cx.keep(cx.emit("Mul", acc, v), dtype)
    summed = tuple(range(len(out), len(order)))
    if summed:
        acc = cx.keep(cx.emit("ReduceSum", acc, axis=summed, keep_dims=False), dtype)
    elif acc is xs[0]:
        acc = cx.emit("Identity", acc)
    return [acc]
