"""TensorLike: the operators and MindSpore Tensor methods every tensor-like value shares
(the eager Tensor of common.tensor and the front-end's graph values); each goes through
graphjit.ops.functional, imported at first use (ops imports common.tensor)."""
from __future__ import annotations

from ..ir import dtypes as dt

__all__ = ["TensorLike"]


_functional = None


def _F():
    """graphjit.ops.functional (imported at first use: ops imports this module)."""
    global _functional
    if _functional is None:
        from ..ops import functional
        _functional = functional
    return _functional


def _no_out(out):
    if out is not None:
        raise TypeError("tensors are immutable values here: out= is not supported")


_NOT_NUMBERS = (str, bytes, dict, set, frozenset, type)


def _shape_of(other, what):
    """The shape of `other`, a Tensor (x.expand_as(other), x.view_as(other))."""
    if not isinstance(other, TensorLike):
        raise TypeError(f"For 'Tensor.{what}', the argument 'other' must be a Tensor, but "
                        f"got {type(other).__name__}.")
    return other.shape


class TensorLike:
    """Operators and methods shared by Tensor and graph values (all go through ops)."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy defers binary operators to us

    # arithmetic
    def __add__(self, o): return _F().add(self, o)
    def __radd__(self, o): return _F().add(o, self)
    def __sub__(self, o): return _F().sub(self, o)
    def __rsub__(self, o): return _F().sub(o, self)
    def __mul__(self, o): return _F().mul(self, o)
    def __rmul__(self, o): return _F().mul(o, self)
    def __truediv__(self, o): return _F().div(self, o)
    def __rtruediv__(self, o): return _F().div(o, self)
    def __floordiv__(self, o): return _F().floor_divide(self, o)
    def __rfloordiv__(self, o): return _F().floor_divide(o, self)
    def __mod__(self, o): return _F().remainder(self, o)
    def __rmod__(self, o): return _F().remainder(o, self)
    def __pow__(self, o): return _F().pow(self, o)
    def __rpow__(self, o): return _F().pow(o, self)
    def __matmul__(self, o): return _F().matmul(self, o)
    def __rmatmul__(self, o): return _F().matmul(o, self)
    def __neg__(self): return _F().neg(self)
    def __pos__(self): return self
    def __abs__(self): return _F().abs(self)
    def __invert__(self): return _F().invert(self)
    def __and__(self, o): return _F().bitwise_and(self, o)
    def __rand__(self, o): return _F().bitwise_and(o, self)
    def __or__(self, o): return _F().bitwise_or(self, o)
    def __ror__(self, o): return _F().bitwise_or(o, self)
    def __xor__(self, o): return _F().bitwise_xor(self, o)
    def __rxor__(self, o): return _F().bitwise_xor(o, self)

    # comparisons
    def __lt__(self, o): return _F().less(self, o)
    def __le__(self, o): return _F().less_equal(self, o)
    def __gt__(self, o): return _F().greater(self, o)
    def __ge__(self, o): return _F().greater_equal(self, o)

    # a tensor and a value that is no number (None, a string, a dict...) are simply
    # unequal, as Python objects of unrelated types are
    def __eq__(self, o):
        if o is None or isinstance(o, _NOT_NUMBERS):
            return False
        return _F().equal(self, o)

    def __ne__(self, o):
        if o is None or isinstance(o, _NOT_NUMBERS):
            return True
        return _F().not_equal(self, o)

    __hash__ = object.__hash__

    def __getitem__(self, key): return _F().getitem(self, key)

    # methods (MindSpore's Tensor methods: names, parameters and defaults)
    # `out` and numpy's keyword names are accepted so numpy's functions (np.sum(t))
    # work on tensors as they do on arrays
    def sum(self, axis=None, dtype=None, keepdims=False, initial=None, out=None):
        _no_out(out)
        out = _F().sum(self, axis, keepdims, dtype=dtype)
        return out if initial is None else _F().add(out, initial)

    def mean(self, axis=None, keep_dims=False, dtype=None, out=None, keepdims=None):
        _no_out(out)
        r = _F().mean(self, axis, keep_dims if keepdims is None else keepdims)
        return r if dtype is None else _F().cast(r, dtype)

    def max(self, axis=None, keepdims=False, *, initial=None, where=None,
            return_indices=False, out=None):
        """The maximum along axis; with return_indices, (values, indices) as ops.max."""
        _no_out(out)
        if return_indices:
            return _F().max(self, axis, keepdims, initial=initial, where=where)
        return _F().amax(self, axis, keepdims, initial=initial, where=where)

    def min(self, axis=None, keepdims=False, *, initial=None, where=None,
            return_indices=False, out=None):
        """The minimum along axis; with return_indices, (values, indices) as ops.min."""
        _no_out(out)
        if return_indices:
            return _F().min(self, axis, keepdims, initial=initial, where=where)
        return _F().amin(self, axis, keepdims, initial=initial, where=where)

    def prod(self, axis=None, keep_dims=False, dtype=None, out=None, keepdims=None):
        _no_out(out)
        return _F().prod(self, axis, keep_dims if keepdims is None else keepdims, dtype)

    def argmax(self, axis=None, keepdims=False, out=None):
        _no_out(out)
        return _F().argmax(self, axis, keepdims)

    def argmin(self, axis=None, keepdims=False, out=None):
        _no_out(out)
        return _F().argmin(self, axis, keepdims)

    def all(self, axis=None, keep_dims=False, out=None, keepdims=None):
        _no_out(out)
        return _F().all(self, axis, keep_dims if keepdims is None else keepdims)

    def any(self, axis=None, keep_dims=False, out=None, keepdims=None):
        _no_out(out)
        return _F().any(self, axis, keep_dims if keepdims is None else keepdims)

    def cumsum(self, axis=None, dtype=None):
        """Running sum along axis (of the flattened tensor if axis is None)."""
        if axis is None:
            return _F().cumsum(_F().flatten(self, start_dim=0), 0, dtype)
        return _F().cumsum(self, axis, dtype)

    def reshape(self, *shape):
        return _F().reshape(self, shape[0] if len(shape) == 1 else shape)

    def view(self, *shape):
        return self.reshape(*shape)

    def flatten(self, order="C", *, start_dim=0, end_dim=-1):
        return _F().flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return _F().transpose(self, axes if axes else None)

    @property
    def T(self):
        return _F().transpose(self, None)

    def astype(self, dtype, copy=True):
        return _F().cast(self, dtype)

    def copy(self):
        """A new tensor with the same values (in a graph: an Identity node)."""
        return _F().identity(self)

    def init_data(self, slice_index=None, shape=None, opt_shape=None):
        """MindSpore materializes a lazily initialized tensor; graphjit's hold data: self."""
        return self

    def to(self, dtype):
        return _F().cast(self, dtype)

    def float(self):
        return _F().cast(self, dt.float32)

    def half(self):
        return _F().cast(self, dt.float16)

    def double(self):
        return _F().cast(self, dt.float64)

    def int(self):
        return _F().cast(self, dt.int32)

    def long(self):
        return _F().cast(self, dt.int64)

    def bool(self):
        return _F().cast(self, dt.bool_)

    def expand_dims(self, axis):
        return _F().expand_dims(self, axis)

    def unsqueeze(self, dim):
        return _F().expand_dims(self, dim)

    def squeeze(self, axis=None):
        return _F().squeeze(self, axis)

    def abs(self): return _F().abs(self)
    def exp(self): return _F().exp(self)
    def log(self): return _F().log(self)
    def log1p(self): return _F().log1p(self)
    def sqrt(self): return _F().sqrt(self)
    def rsqrt(self): return _F().rsqrt(self)
    def reciprocal(self): return _F().reciprocal(self)
    def sin(self): return _F().sin(self)
    def cos(self): return _F().cos(self)
    def sigmoid(self): return _F().sigmoid(self)
    def tanh(self): return _F().tanh(self)
    def tan(self): return _F().tan(self)
    def asin(self): return _F().asin(self)
    def acos(self): return _F().acos(self)
    def atan(self): return _F().atan(self)
    def sinh(self): return _F().sinh(self)
    def cosh(self): return _F().cosh(self)
    def asinh(self): return _F().asinh(self)
    def acosh(self): return _F().acosh(self)
    def atanh(self): return _F().atanh(self)
    def arcsin(self): return _F().arcsin(self)
    def arccos(self): return _F().arccos(self)
    def arctan(self): return _F().arctan(self)
    def arcsinh(self): return _F().arcsinh(self)
    def arccosh(self): return _F().arccosh(self)
    def arctanh(self): return _F().arctanh(self)
    def relu(self): return _F().relu(self)
    def neg(self): return _F().neg(self)
    def square(self): return _F().square(self)
    def floor(self): return _F().floor(self)
    def ceil(self): return _F().ceil(self)
    def round(self): return _F().round(self)

    def __round__(self, ndigits=None):
        """round(t): halves to even, the tensor's dtype kept (MindSpore's Round);
        round(t, n): to n decimals."""
        return _F().round(self) if ndigits is None else _F().round(self, decimals=ndigits)
    def sign(self): return _F().sign(self)
    def isnan(self): return _F().isnan(self)
    def isinf(self): return _F().isinf(self)
    def logical_not(self): return _F().logical_not(self)
    def clip(self, xmin=None, xmax=None): return _F().clamp(self, xmin, xmax)
    def clamp(self, min=None, max=None): return _F().clamp(self, min, max)
    def softmax(self, axis=-1, dtype=None): return _F().softmax(self, axis, dtype=dtype)
    def add(self, other): return _F().add(self, other)
    def sub(self, other): return _F().sub(self, other)
    def mul(self, other): return _F().mul(self, other)
    def div(self, other, *, rounding_mode=None):
        return _F().div(self, other, rounding_mode=rounding_mode)
    def matmul(self, other): return _F().matmul(self, other)
    def pow(self, exponent): return _F().pow(self, exponent)
    def maximum(self, other): return _F().maximum(self, other)
    def minimum(self, other): return _F().minimum(self, other)
    def equal(self, other): return _F().equal(self, other)
    def logical_and(self, other): return _F().logical_and(self, other)
    def logical_or(self, other): return _F().logical_or(self, other)
    def masked_fill(self, mask, value): return _F().masked_fill(self, mask, value)
    def tile(self, multiples): return _F().tile(self, multiples)
    def broadcast_to(self, shape): return _F().broadcast_to(self, shape)
    def expand_as(self, other): return _F().broadcast_to(self, _shape_of(other, "expand_as"))
    def size_(self): return self.size
    def permute(self, *axis):
        return _F().transpose(self, axis[0] if len(axis) == 1 and isinstance(
            axis[0], (tuple, list)) else axis)
    def swapaxes(self, axis0, axis1): return _F().swapaxes(self, axis0, axis1)
    def view_as(self, other): return _F().reshape(self, _shape_of(other, "view_as"))
    def ravel(self): return _F().reshape(self, (-1,))
    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):
        return _F().norm(self, ord, dim, keepdim, dtype=dtype)
    def var(self, axis=None, ddof=0, keepdims=False):
        return _F().var(self, axis, ddof, keepdims)
    def std(self, axis=None, ddof=0, keepdims=False):
        return _F().std(self, axis, ddof, keepdims)
    def split(self, split_size_or_sections, axis=0):
        return _F().split(self, split_size_or_sections, axis)
    def chunk(self, chunks, axis=0): return _F().chunk(self, chunks, axis)
    def unbind(self, dim=0): return _F().unbind(self, dim)
    def topk(self, k, dim=None, largest=True, sorted=True):
        return _F().topk(self, k, dim, largest, sorted)
    def sort(self, axis=-1, descending=False): return _F().sort(self, axis, descending)
    def gather(self, input_indices, axis, batch_dims=0):
        return _F().gather(self, input_indices, axis, batch_dims)
    def index_select(self, axis, index): return _F().index_select(self, axis, index)
    def narrow(self, axis, start, length): return _F().narrow(self, axis, start, length)
    def log_softmax(self, axis=-1): return _F().log_softmax(self, axis)
    def isfinite(self): return _F().isfinite(self)
    def erf(self): return _F().erf(self)
    def tril(self, diagonal=0): return _F().tril(self, diagonal)
    def triu(self, diagonal=0): return _F().triu(self, diagonal)
    def flip(self, dims): return _F().flip(self, dims)
    def roll(self, shifts, dims=None): return _F().roll(self, shifts, dims)
    def repeat(self, repeats, axis=None): return _F().repeat_elements_of(self, repeats, axis)
    def repeat_interleave(self, repeats, dim=None):
        return _F().repeat_elements_of(self, repeats, dim)
    def ndimension(self): return self.ndim

    def dim(self):
        return self.ndim

    def numel(self):
        return self.size

    # MindSpore 2.x Tensor methods over ops/function/{math,array}_func_more.py and
    # linalg_func.py (same names and parameters as the functions, self first)
    def log2(self): return _F().log2(self)
    def log10(self): return _F().log10(self)
    def exp2(self): return _F().exp2(self)
    def atan2(self, other): return _F().atan2(self, other)
    def arctan2(self, other): return _F().atan2(self, other)
    def hypot(self, other): return _F().hypot(self, other)
    def lerp(self, end, weight): return _F().lerp(self, end, weight)
    def logit(self, eps=None): return _F().logit(self, eps)
    def xlogy(self, y): return _F().xlogy(self, y)
    def erfc(self): return _F().erfc(self)
    def frac(self): return _F().frac(self)
    def deg2rad(self): return _F().deg2rad(self)
    def rad2deg(self): return _F().rad2deg(self)
    def isneginf(self): return _F().isneginf(self)
    def isposinf(self): return _F().isposinf(self)
    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _F().nan_to_num(self, nan, posinf, neginf)
    def fmax(self, other): return _F().fmax(self, other)
    def fmin(self, other): return _F().fmin(self, other)
    def float_power(self, exponent): return _F().float_power(self, exponent)
    def copysign(self, other): return _F().copysign(self, other)
    def signbit(self): return _F().signbit(self)
    def heaviside(self, values): return _F().heaviside(self, values)
    def gcd(self, other): return _F().gcd(self, other)
    def lcm(self, other): return _F().lcm(self, other)
    def logaddexp(self, other): return _F().logaddexp(self, other)
    def logaddexp2(self, other): return _F().logaddexp2(self, other)
    def ldexp(self, other): return _F().ldexp(self, other)
    def nansum(self, axis=None, keepdims=False, dtype=None):
        return _F().nansum(self, axis, keepdims, dtype=dtype)
    def nanmean(self, axis=None, keepdims=False, *, dtype=None):
        return _F().nanmean(self, axis, keepdims, dtype=dtype)
    def median(self, axis=-1, keepdims=False): return _F().median(self, axis, keepdims)
    def quantile(self, q, axis=None, keepdims=False):
        return _F().quantile(self, q, axis, keepdims)
    def diff(self, n=1, axis=-1, prepend=None, append=None):
        return _F().diff(self, n, axis, prepend, append)
    def dot(self, other): return _F().dot(self, other)
    def mv(self, vec): return _F().mv(self, vec)
    def baddbmm(self, batch1, batch2, beta=1, alpha=1):
        return _F().baddbmm(self, batch1, batch2, beta, alpha)
    def trace(self): return _F().trace(self)
    def diag(self): return _F().diag(self)
    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _F().diagonal(self, offset, axis1, axis2)
    def kron(self, other): return _F().kron(self, other)
    def cross(self, other, dim=None): return _F().cross(self, other, dim)
    def renorm(self, p, axis, maxnorm): return _F().renorm(self, p, axis, maxnorm)
    def hardshrink(self, lambd=0.5): return _F().hardshrink(self, lambd)
    def argsort(self, axis=-1, descending=False): return _F().argsort(self, axis, descending)
    def searchsorted(self, v, side="left", sorter=None):
        return _F().searchsorted(self, v, side=side, sorter=sorter)
    def cummax(self, axis): return _F().cummax(self, axis)
    def cummin(self, axis): return _F().cummin(self, axis)
    def moveaxis(self, source, destination): return _F().moveaxis(self, source, destination)
    def movedim(self, source, destination): return _F().movedim(self, source, destination)
    def tensor_split(self, indices_or_sections, axis=0):
        return _F().tensor_split(self, indices_or_sections, axis)
    def hsplit(self, indices_or_sections): return _F().hsplit(self, indices_or_sections)
    def vsplit(self, indices_or_sections): return _F().vsplit(self, indices_or_sections)
    def dsplit(self, indices_or_sections): return _F().dsplit(self, indices_or_sections)
    def rot90(self, k=1, dims=(0, 1)): return _F().rot90(self, k, dims)
    def index_fill(self, axis, index, value): return _F().index_fill(self, axis, index, value)
    def argwhere(self): return _F().argwhere(self)
    def bincount(self, weights=None, minlength=0): return _F().bincount(self, weights, minlength)
    def inverse(self): return _F().inverse(self)
    def det(self): return _F().det(self)
    def slogdet(self): return _F().slogdet(self)
    def matrix_power(self, n): return _F().matrix_power(self, n)
    def gather_elements(self, dim, index): return _F().gather_elements(self, dim, index)
    def addcmul(self, tensor1, tensor2, value=1):
        return _F().addcmul(self, tensor1, tensor2, value)
    def addcdiv(self, tensor1, tensor2, value=1):
        return _F().addcdiv(self, tensor1, tensor2, value)
    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _F().addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return _F().addmv(self, mat, vec, beta=beta, alpha=alpha)
    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _F().addbmm(self, batch1, batch2, beta=beta, alpha=alpha)
    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return _F().addr(self, vec1, vec2, beta=beta, alpha=alpha)
    def inner(self, other): return _F().inner(self, other)
    def fliplr(self): return _F().fliplr(self)
    def flipud(self): return _F().flipud(self)
    def sinc(self): return _F().sinc(self)
    def xdivy(self, y): return _F().xdivy(self, y)
    def logcumsumexp(self, axis): return _F().logcumsumexp(self, axis)
    def logdet(self): return _F().logdet(self)
    def bitwise_left_shift(self, other): return _F().bitwise_left_shift(self, other)
    def bitwise_right_shift(self, other): return _F().bitwise_right_shift(self, other)
    def is_floating_point(self): return _F().is_floating_point(self)
    def positive(self): return _F().positive(self)
    def std_mean(self, axis=None, ddof=0, keepdims=False):
        return _F().std_mean(self, axis, ddof, keepdims)
    def var_mean(self, axis=None, ddof=0, keepdims=False):
        return _F().var_mean(self, axis, ddof, keepdims)
