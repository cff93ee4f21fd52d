"""Matrix functions of MindSpore 2.x: products and pieces (dot, mv, baddbmm, trace, diag,
diagonal, kron, cross, vander) and square-matrix functions (inverse, det, slogdet,
matrix_solve, matrix_power), all composed from registry ops. The square-matrix ones use
Gauss-Jordan elimination with partial pivoting (LAPACK's getrf rule: the largest
magnitude in the column, the first on ties), unrolled over the matrix size, batched over
leading dims; being a composition, it runs in both modes and differentiates (det's
gradient comes out as det * inv(A)^T) with no new IR op.

    A | B  --step k: swap row k with the pivot row, scale it by 1/pivot, clear column k
           in every other row-->  I | inv(A) B
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import array_func as A
from . import math_func as M
from .array_func import cast, concat, expand_dims, getitem, where
from .array_func import reshape
from .index_func import argmax
from .math_func_more import _along, _scalar_like
from .._utils import _axis_of, _const, _int, _known_shape, _pair, _rank, _t

__all__ = ["inverse", "det", "slogdet", "matrix_determinant", "matrix_solve", "matrix_power",
           "dot", "mv", "baddbmm", "trace", "diag", "diagonal", "kron", "cross", "vander"]

_S = slice


def _square(input, what):
    x = _t(input)
    if not x.dtype.is_floating:
        raise TypeError(f"For '{what}', the dtype of input must be float16, float32 or "
                        f"float64, got {x.dtype}")
    shape = _known_shape(x, what)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For '{what}', the input must be a (batch of) square matrix of "
                         f"rank >= 2, got shape {shape}")
    return x, shape[-1]


def _eliminate(a, n, right=None, jordan=True):
    """(a reduced to I (jordan) or upper triangular, right transformed alike, the pivots
    (..., n), the sign of the row permutation (...,))."""
    m = a if right is None else concat((a, right), -1)
    pivots = []
    sign = None
    for k in range(n):
        col = getitem(m, (Ellipsis, _S(k, None), k))                     # (..., n - k)
        p = M.add(argmax(M.abs(col), -1), k)                             # (...,)
        e_p = A.one_hot(p, n, _const(np.ones((), m.dtype.np)),
                        _const(np.zeros((), m.dtype.np)))
        e_k = _const(np.eye(n, dtype=m.dtype.np)[k])
        r_k = getitem(m, (Ellipsis, k, _S(None)))                         # (..., w)
        r_p = M.sum(M.mul(expand_dims(e_p, -1), m), -2)                   # (..., w)
        m = M.add(m, M.mul(expand_dims(M.sub(e_k, e_p), -1),
                           expand_dims(M.sub(r_p, r_k), -2)))
        flip = where(M.equal(p, k), _const(np.ones((), m.dtype.np)),
                     _const(-np.ones((), m.dtype.np)))
        sign = flip if sign is None else M.mul(sign, flip)
        piv = getitem(m, (Ellipsis, k, k))
        pivots.append(piv)
        safe = where(M.equal(piv, 0), _const(np.ones((), m.dtype.np)), piv)
        row = M.div(getitem(m, (Ellipsis, k, _S(None))), expand_dims(safe, -1))
        colk = getitem(m, (Ellipsis, _S(None), k))                        # (..., n)
        if jordan:
            coef = M.sub(colk, e_k)
        else:   # only the rows below k
            coef = M.mul(colk, _const((np.arange(n) > k).astype(m.dtype.np)))
            row = where(_const(np.arange(m.shape[-1]) >= k), row, A.zeros_like(row))
        m = M.sub(m, M.mul(expand_dims(coef, -1), expand_dims(row, -2)))
    rest = m if right is None else getitem(m, (Ellipsis, _S(n, None)))
    return rest, A.stack(pivots, -1), sign


def inverse(input):
    """The inverse of a square matrix (or of each in a batch)."""
    x, n = _square(input, "inverse")
    eye = A.broadcast_to(_const(np.eye(n, dtype=x.dtype.np)), _known_shape(x, "inverse"))
    inv, _, _ = _eliminate(x, n, eye)
    return inv


def det(input):
    """The determinant of a square matrix (or of each in a batch)."""
    x, n = _square(input, "det")
    _, pivots, sign = _eliminate(x, n, jordan=False)
    return M.add(M.mul(M.prod(pivots, -1), sign), 0.0)     # -0.0 (a singular matrix) to 0


matrix_determinant = det


def slogdet(input):
    """(sign, log|det|) of a square matrix (or of each in a batch); a singular matrix
    gives (0, -inf)."""
    x, n = _square(input, "slogdet")
    _, pivots, sign = _eliminate(x, n, jordan=False)
    s = M.add(M.mul(M.prod(M.sign(pivots), -1), sign), 0.0)
    return s, M.sum(M.log(M.abs(pivots)), -1)


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix @ X = rhs (matrix^T @ X = rhs if adjoint), for a (batch of) square
    matrix and rhs (..., N, K)."""
    a, n = _square(matrix, "matrix_solve")
    b = _t(rhs)
    if b.dtype is not a.dtype:
        raise TypeError(f"For 'matrix_solve', matrix and rhs must have one dtype, got "
                        f"{a.dtype} and {b.dtype}")
    bs = _known_shape(b, "matrix_solve")
    if len(bs) != len(a.shape) or bs[-2] != n or tuple(bs[:-2]) != tuple(a.shape[:-2]):
        raise ValueError(f"For 'matrix_solve', rhs must have shape {tuple(a.shape[:-2])} + "
                         f"({n}, K), got {bs}")
    if adjoint:
        a = A.swapaxes(a, -1, -2)
    out, _, _ = _eliminate(a, n, b)
    return out


def matrix_power(input, n):
    """input multiplied by itself n times (the identity for 0, powers of the inverse for
    a negative n), by repeated squaring."""
    x = _t(input)
    n = _int(n, "matrix_power's n")
    shape = _known_shape(x, "matrix_power")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'matrix_power', the input must be a (batch of) square matrix, "
                         f"got shape {shape}")
    if n < 0:
        x, n = inverse(x), -n
    if n == 0:
        return A.broadcast_to(cast(_const(np.eye(shape[-1])), x.dtype), shape)
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else M.matmul(result, base)
        n >>= 1
        if n:
            base = M.matmul(base, base)
    return result if result.dtype is x.dtype else cast(result, x.dtype)


# -- products and matrices -------------------------------------------------------------------
def dot(input, other):
    """numpy's dot: the sum product over input's last axis and other's second-to-last
    (its only one if 1-D); shape input.shape[:-1] + other.shape[:-2] + other.shape[-1:]."""
    a, b = _t(input), _t(other)
    if a.dtype is not b.dtype:
        raise TypeError(f"For 'dot', the inputs must have one dtype, got {a.dtype} and "
                        f"{b.dtype}")
    sa, sb = _known_shape(a, "dot"), _known_shape(b, "dot")
    if not sa or not sb:
        return M.mul(a, b)
    k = sa[-1]
    kb = sb[-2] if len(sb) >= 2 else sb[0]
    if k != kb:
        raise ValueError(f"For 'dot', input's last dim {k} must equal other's "
                         f"second-to-last dim {kb} (shapes {sa} and {sb})")
    if len(sb) == 1:
        return M.matmul(a, b)
    bm = A.transpose(b, (len(sb) - 2,) + tuple(i for i in range(len(sb)) if i != len(sb) - 2))
    bm = reshape(bm, (k, -1))
    out = M.matmul(reshape(a, (-1, k)), bm)
    return reshape(out, sa[:-1] + sb[:-2] + sb[-1:])


def mv(mat, vec):
    """The matrix-vector product of mat (N, M) and vec (M)."""
    m, v = _t(mat), _t(vec)
    if m.ndim != 2 or v.ndim != 1:
        raise ValueError(f"For 'mv', mat must be 2-D and vec 1-D, got ranks {m.ndim} and "
                         f"{v.ndim}")
    return M.matmul(m, v)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batched."""
    prod = M.bmm(batch1, batch2)
    if alpha != 1:
        prod = M.mul(prod, alpha)
    x = _t(input)
    if beta == 0:
        return A.broadcast_to(prod, tuple(np.broadcast_shapes(_known_shape(x, "baddbmm"),
                                            _known_shape(prod, "baddbmm"))))
    return M.add(M.mul(x, beta) if beta != 1 else x, prod)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of input over dims dim1 and dim2 (offset above the main one if
    positive), as a last dim."""
    x = _t(input)
    r = _rank(x, "diagonal")
    if r < 2:
        raise ValueError(f"For 'diagonal', the input must have rank 2 or more, got {r}")
    d1, d2 = _axis_of(dim1, r, "diagonal's dim1"), _axis_of(dim2, r, "diagonal's dim2")
    if d1 == d2:
        raise ValueError(f"For 'diagonal', dim1 and dim2 must differ, got {dim1} and {dim2}")
    offset = _int(offset, "diagonal's offset")
    rest = tuple(i for i in range(r) if i not in (d1, d2))
    t = A.transpose(x, rest + (d1, d2))
    shape = _known_shape(t, "diagonal")
    n, m = shape[-2:]
    if offset >= 0:
        L = builtins.max(0, builtins.min(n, m - offset))
        t = getitem(t, (Ellipsis, _S(0, L), _S(offset, offset + L)))
    else:
        L = builtins.max(0, builtins.min(n + offset, m))
        t = getitem(t, (Ellipsis, _S(-offset, -offset + L), _S(0, L)))
    t = reshape(t, shape[:-2] + (L * L,))
    return getitem(t, (Ellipsis, _S(None, None, L + 1)))


def trace(input):
    """The sum of the main diagonal of a 2-D tensor, in its dtype."""
    x = _t(input)
    if x.ndim != 2:
        raise ValueError(f"For 'trace', the input must be 2-D, got rank {x.ndim}")
    s = M.sum(diagonal(x), -1)
    return s if s.dtype is x.dtype else cast(s, x.dtype)


def diag(input):
    """The tensor of rank 2k with input's values on its diagonal: out[i..., i...] =
    input[i...] (a vector gives a diagonal matrix)."""
    x = _t(input)
    shape = _known_shape(x, "diag")
    if not shape:
        raise ValueError("For 'diag', the input must have rank 1 or more")
    n = math.prod(shape)
    flat = reshape(x, (n, 1))
    eye = _const(np.eye(n, dtype=bool))
    out = where(eye, flat, A.zeros_like(flat) if x.dtype.is_bool else _scalar_like(0, x))
    return reshape(out, shape + shape)


def kron(input, other):
    """The Kronecker product (ranks padded with leading 1s to the larger)."""
    a, b = _t(input), _t(other)
    sa, sb = _known_shape(a, "kron"), _known_shape(b, "kron")
    r = builtins.max(len(sa), len(sb))
    sa, sb = (1,) * (r - len(sa)) + sa, (1,) * (r - len(sb)) + sb
    ai = reshape(a, tuple(v for d in sa for v in (d, 1)))
    bi = reshape(b, tuple(v for d in sb for v in (1, d)))
    return reshape(M.mul(ai, bi), tuple(p * q for p, q in zip(sa, sb)))


def cross(input, other, dim=None):
    """The cross product of 3-vectors along dim (the first dim of size 3 if None)."""
    a, b = _pair(input, other)
    sa = np.broadcast_shapes(_known_shape(a, "cross"), _known_shape(b, "cross"))
    if dim is None:
        dim = next((i for i, d in enumerate(sa) if d == 3), None)
        if dim is None:
            raise ValueError(f"For 'cross', no dim of size 3 in shape {sa}")
    d = _axis_of(dim, len(sa), "cross's dim")
    if sa[d] != 3:
        raise ValueError(f"For 'cross', dim {dim} must have size 3, got {sa[d]}")
    a, b = A.broadcast_to(a, tuple(sa)), A.broadcast_to(b, tuple(sa))
    c = [_along(a, d, i, i + 1) for i in range(3)]
    e = [_along(b, d, i, i + 1) for i in range(3)]
    return concat([M.sub(M.mul(c[1], e[2]), M.mul(c[2], e[1])),
                   M.sub(M.mul(c[2], e[0]), M.mul(c[0], e[2])),
                   M.sub(M.mul(c[0], e[1]), M.mul(c[1], e[0]))], d)


def vander(x, N=None):
    """The Vandermonde matrix of a 1-D x: column j is x ** (N - 1 - j) (N = len(x) if
    None)."""
    t = _t(x)
    if t.ndim != 1:
        raise ValueError(f"For 'vander', x must be 1-D, got rank {t.ndim}")
    n = _known_shape(t, "vander")[0] if N is None else _int(N, "vander's N")
    if n < 0:
        raise ValueError(f"For 'vander', N must be non-negative, got {n}")
    cols = [A.ones_like(t)] if n else []
    for _ in range(n - 1):
        cols.insert(0, M.mul(cols[0], t))
    if not cols:
        return getitem(expand_dims(t, 1), (Ellipsis, _S(0, 0)))
    return A.stack(cols, 1)
