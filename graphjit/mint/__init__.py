"""MindSpore's `mindspore.mint`: the PyTorch-spelled functions (`dim`, `keepdim`,
`start_dim`) over the same operators as graphjit.ops, and `mint.nn` (layers whose
Parameters are PyTorch-named: weight, bias, running_mean, running_var) with
`mint.nn.functional`. Published models (mindcv's googlenet, its DropPath) import these.

Each function here runs on graph values as on eager tensors (it is graphjit's own code,
run as Python while a graph is built), so both modes give the same answer.
"""
from __future__ import annotations

from .. import ops
from ..ir.dtypes import int64 as _int64
from ..ops import functional as F

__all__ = ["cat", "concat", "stack", "split", "chunk", "add", "sub", "mul", "div", "matmul",
           "bmm", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
           "flatten", "reshape", "permute", "transpose", "squeeze", "unsqueeze", "where",
           "clamp", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "sigmoid", "tanh", "erf",
           "floor", "ceil", "round", "square", "pow", "maximum", "minimum", "eq", "ne", "gt",
           "lt", "ge", "le", "equal", "logical_not", "logical_and", "logical_or", "isnan",
           "isfinite", "zeros", "ones", "zeros_like", "ones_like", "full", "arange", "cumsum",
           "gather", "narrow", "tile", "broadcast_to", "topk", "sort", "all", "any",
           "index_select", "repeat_interleave", "einsum", "tril", "triu", "outer",
           "logsumexp", "softmax", "var", "std", "nn", "cos", "sin", "reciprocal", "clone"]


def _dim(dim):
    return tuple(dim) if isinstance(dim, list) else dim


def cat(tensors, dim=0):
    """Join tensors along dim."""
    return ops.concat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    return ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return ops.chunk(input, chunks, dim)


def add(input, other, *, alpha=1):
    """input + alpha * other."""
    return ops.add(input, other if alpha == 1 else ops.mul(other, alpha))


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    return ops.sub(input, other if alpha == 1 else ops.mul(other, alpha))


def mul(input, other):
    return ops.mul(input, other)


def div(input, other, *, rounding_mode=None):
    return ops.div(input, other, rounding_mode=rounding_mode)


def matmul(input, other):
    return ops.matmul(input, other)


def bmm(input, mat2):
    return ops.bmm(input, mat2)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return ops.sum(input, _dim(dim), keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    out = ops.mean(input, _dim(dim), keepdim)
    return out if dtype is None else ops.cast(out, dtype)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return ops.prod(input, dim, keepdim, dtype)


def max(input, dim=None, keepdim=False):
    """The largest element, or with dim the (values, indices) pair along it."""
    if dim is None:
        return ops.amax(input)
    return ops.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """The smallest element, or with dim the (values, indices) pair along it."""
    if dim is None:
        return ops.amin(input)
    return ops.min(input, dim, keepdim)


def amax(input, dim=(), keepdim=False):
    return ops.amax(input, None if dim == () else _dim(dim), keepdim)


def amin(input, dim=(), keepdim=False):
    return ops.amin(input, None if dim == () else _dim(dim), keepdim)


def argmax(input, dim=None, keepdim=False):
    return ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return ops.argmin(input, dim, keepdim)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim (PyTorch's defaults: every dim)."""
    return ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def reshape(input, shape):
    return ops.reshape(input, shape)


def permute(input, dims):
    return ops.permute(input, tuple(dims))


def transpose(input, dim0, dim1):
    """Swap two dims."""
    return ops.swapaxes(input, dim0, dim1)


def squeeze(input, dim=None):
    return ops.squeeze(input, _dim(dim))


def unsqueeze(input, dim):
    return ops.unsqueeze(input, dim)


def where(condition, input, other):
    return ops.where(condition, input, other)


def clamp(input, min=None, max=None):
    return ops.clamp(input, min, max)


def exp(input):
    return ops.exp(input)


def log(input):
    return ops.log(input)


def sqrt(input):
    return ops.sqrt(input)


def rsqrt(input):
    return ops.rsqrt(input)


def abs(input):
    return ops.abs(input)


def neg(input):
    return ops.neg(input)


def sigmoid(input):
    return ops.sigmoid(input)


def tanh(input):
    return ops.tanh(input)


def erf(input):
    return ops.erf(input)


def floor(input):
    return ops.floor(input)


def ceil(input):
    return ops.ceil(input)


def round(input, *, decimals=0):
    return ops.round(input, decimals=decimals)


def square(input):
    return ops.square(input)


def pow(input, exponent):
    return ops.pow(input, exponent)


def cos(input):
    return ops.cos(input)


def sin(input):
    return ops.sin(input)


def reciprocal(input):
    return ops.reciprocal(input)


def clone(input):
    return F.identity(input)


def maximum(input, other):
    return ops.maximum(input, other)


def minimum(input, other):
    return ops.minimum(input, other)


def eq(input, other):
    return ops.eq(input, other)


def ne(input, other):
    return ops.ne(input, other)


def gt(input, other):
    return ops.gt(input, other)


def lt(input, other):
    return ops.lt(input, other)


def ge(input, other):
    return ops.ge(input, other)


def le(input, other):
    return ops.le(input, other)


def equal(input, other):
    """Elementwise ==, as mint.equal (a bool tensor)."""
    return ops.equal(input, other)


def logical_not(input):
    return ops.logical_not(input)


def logical_and(input, other):
    return ops.logical_and(input, other)


def logical_or(input, other):
    return ops.logical_or(input, other)


def isnan(input):
    return ops.isnan(input)


def isfinite(input):
    return ops.isfinite(input)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def zeros(*size, dtype=None):
    return ops.zeros(_size(size), dtype)


def ones(*size, dtype=None):
    return ops.ones(_size(size), dtype)


def zeros_like(input, *, dtype=None):
    return ops.zeros_like(input, dtype=dtype)


def ones_like(input, *, dtype=None):
    return ops.ones_like(input, dtype=dtype)


def full(size, fill_value, *, dtype=None):
    return ops.full(size, fill_value, dtype=dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    return ops.arange(start, end, step, dtype=dtype)


def cumsum(input, dim, dtype=None):
    return ops.cumsum(input, dim, dtype)


def gather(input, dim, index):
    """PyTorch's gather: out[i][j] = input[index[i][j]][j] along dim (elementwise)."""
    return ops.gather_elements(input, dim, index)


def narrow(input, dim, start, length):
    return ops.narrow(input, dim, start, length)


def tile(input, dims):
    return ops.tile(input, tuple(dims))


def broadcast_to(input, size):
    return ops.broadcast_to(input, tuple(size))


def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, indices): the indices are int64 (ops.topk's are int32)."""
    values, indices = ops.topk(input, k, dim, largest, sorted)
    return values, ops.cast(indices, _int64)


def sort(input, *, dim=-1, descending=False, stable=False):
    """(values, indices): the indices are int64 (ops.sort's are int32)."""
    values, indices = ops.sort(input, dim, descending)
    return values, ops.cast(indices, _int64)


def all(input, dim=None, keepdim=False):
    return ops.all(input, _dim(dim), keepdim)


def any(input, dim=None, keepdim=False):
    return ops.any(input, _dim(dim), keepdim)


def index_select(input, dim, index):
    return ops.index_select(input, dim, index)


def repeat_interleave(input, repeats, dim=None, output_size=None):
    return ops.repeat_interleave(input, repeats, dim)


def einsum(equation, *operands):
    return ops.einsum(equation, *operands)


def tril(input, diagonal=0):
    return ops.tril(input, diagonal)


def triu(input, diagonal=0):
    return ops.triu(input, diagonal)


def outer(input, vec2):
    return ops.outer(input, vec2)


def logsumexp(input, dim, keepdim=False):
    return ops.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    x = input if dtype is None else ops.cast(input, dtype)
    return ops.softmax(x, dim)


def var(input, dim=None, *, correction=1, keepdim=False):
    return ops.var(input, _dim(dim), correction, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    return ops.std(input, _dim(dim), correction, keepdim)



# -- more of mint's functions, over graphjit.ops -------------------------------------------
def mm(input, mat2):
    return ops.mm(input, mat2)


def dot(input, other):
    """The inner product of two 1-D tensors."""
    return ops.sum(ops.mul(input, other))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batched."""
    out = ops.bmm(batch1, batch2)
    if alpha != 1:
        out = ops.mul(out, alpha)
    return ops.add(input if beta == 1 else ops.mul(input, beta), out)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    out = ops.matmul(mat1, mat2)
    if alpha != 1:
        out = ops.mul(out, alpha)
    return ops.add(input if beta == 1 else ops.mul(input, beta), out)


def log1p(input):
    return ops.log1p(input)


def expm1(input):
    return ops.expm1(input)


def sign(input):
    return ops.sign(input)


def trunc(input):
    return ops.trunc(input)


def flip(input, dims):
    return ops.flip(input, tuple(dims) if isinstance(dims, list) else dims)


def roll(input, shifts, dims=None):
    return ops.roll(input, shifts, dims)


def nonzero(input, *, as_tuple=False):
    return ops.nonzero(input, as_tuple=as_tuple)


def masked_select(input, mask):
    return ops.masked_select(input, mask)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return ops.isclose(input, other, rtol, atol, equal_nan)


def logical_xor(input, other):
    return ops.logical_xor(input, other)


def cumprod(input, dim, dtype=None):
    return ops.cumprod(input, dim, dtype)


def remainder(input, other):
    return ops.remainder(input, other)


def fmod(input, other):
    return ops.fmod(input, other)


def floor_divide(input, other):
    return ops.floor_divide(input, other)


def bitwise_and(input, other):
    return ops.bitwise_and(input, other)


def bitwise_or(input, other):
    return ops.bitwise_or(input, other)


def bitwise_xor(input, other):
    return ops.bitwise_xor(input, other)


def clip(input, min=None, max=None):
    return ops.clamp(input, min, max)


__all__ += ["mm", "dot", "baddbmm", "addmm", "log1p", "expm1", "sign", "trunc", "flip", "roll",
            "nonzero", "masked_select", "isclose", "logical_xor", "cumprod", "remainder", "fmod",
            "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor", "clip"]

from . import nn  # noqa: E402
