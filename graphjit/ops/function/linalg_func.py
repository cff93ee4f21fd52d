"""Square-matrix functions of MindSpore 2.x (inverse, det, slogdet, matrix_solve,
matrix_power), composed from registry ops: Gauss-Jordan elimination with partial
pivoting (LAPACK's getrf pivoting rule: the largest magnitude in the column, the first
on ties), unrolled over the matrix size, batched over leading dims. Being a composition,
it runs in both modes and differentiates (det's gradient is det * inv(A)^T, as the
formula gives) with no new IR op.

    A | B  --step k: swap row k with the pivot row, scale it by 1/pivot, clear column k
           in every other row-->  I | inv(A) B
"""
from __future__ import annotations

import numpy as np

from . import array_func as A
from . import math_func as M
from .array_func import cast, concat, expand_dims, getitem, where
from .index_func import argmax
from .._utils import _const, _int, _known_shape, _t

__all__ = ["inverse", "det", "slogdet", "matrix_determinant", "matrix_solve", "matrix_power"]

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

