"""MindSpore's `mindspore.ops.function.clip_func`: clamp (clip), clip_by_norm and
clip_by_global_norm."""
from __future__ import annotations

import math
import numpy as np

from .array_func import _float, cast
from .math_func import abs, amax, isfinite, maximum, minimum, pow, sqrt, sum
from .._dispatch import apply, to_tensor
from .._utils import _t
from ...common.tensor import SymbolicTensor, TensorLike

__all__ = ["clamp", "clip", "clip_by_value", "clip_by_norm", "clip_by_global_norm"]


def clamp(input, min=None, max=None):
    """Clip to [min, max]; either bound may be None (not both); bounds may be tensors."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    out = _t(input)
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


clip = clamp


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """x (a tensor, or a tuple or list of them) clipped to [clip_value_min,
    clip_value_max], as MindSpore's: each bound (a number or a tensor; either may be None,
    not both) is cast to the dtype of the tensor it clips, so the result keeps x's dtype.

    Raises:
        ValueError: both bounds are None.
        TypeError: x is not a tensor, tuple or list; a bound is not None, a tensor, float
            or int.
    """
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("At least one of 'clip_value_min' or 'clip_value_max' must not be "
                         "None")
    if not isinstance(x, (TensorLike, tuple, list)):
        raise TypeError("The input of 'clip_by_value' must be tensor or tuple[Tensor] or "
                        f"list[Tensor], but got {type(x).__name__}")
    for name, v in (("clip_value_min", clip_value_min), ("clip_value_max", clip_value_max)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (TensorLike, float, int))):
            raise TypeError(f"For 'clip_by_value', the type of '{name}' must be one of None, "
                            f"Tensor, float, int, but got {type(v).__name__}")

    def one(t):
        if not isinstance(t, TensorLike):
            raise TypeError(f"For 'clip_by_value', each item of 'x' must be a Tensor, but got "
                            f"{type(t).__name__}")
        out = t
        if clip_value_min is not None:
            out = maximum(out, _bound(clip_value_min, t.dtype))
        if clip_value_max is not None:
            out = minimum(out, _bound(clip_value_max, t.dtype))
        return out

    if isinstance(x, TensorLike):
        return one(x)
    return type(x)(one(t) for t in x)


def _bound(v, dtype):
    if isinstance(v, TensorLike):
        return v if v.dtype is dtype else cast(v, dtype)
    return to_tensor(v, dtype)


# -- clipping (gradient clipping in training steps) -------------------------------------
def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """The tensors of x scaled by clip_norm / max(global_norm, clip_norm), where
    global_norm is the 2-norm of all their elements: a tuple like x."""
    ts = [_t(t) for t in x]
    if use_norm is None:
        total = None
        for t in ts:
            s = sum(_float(t) * _float(t))
            total = s if total is None else total + s
        global_norm = sqrt(total)
    else:
        global_norm = _t(use_norm)
    scale = clip_norm / maximum(global_norm, to_tensor(float(clip_norm), global_norm.dtype))
    return tuple(t * cast(scale, t.dtype) for t in ts)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """x (a tensor, or a list or tuple of them) scaled so that the norm_type-norm of all
    their elements is at most max_norm: by min(1, max_norm / (total_norm + 1e-6))."""
    single = isinstance(x, TensorLike)
    ts = [_t(x)] if single else [_t(t) for t in x]
    if norm_type == math.inf:
        total = None
        for t in ts:
            m = amax(abs(_float(t)))
            total = m if total is None else maximum(total, m)
    else:
        p = float(norm_type)
        acc = None
        for t in ts:
            s = sum(pow(abs(_float(t)), p))
            acc = s if acc is None else acc + s
        total = pow(acc, 1.0 / p)
    if error_if_nonfinite:
        message = "clip_by_norm: the total norm of the inputs is nan or inf"
        ok = isfinite(total)
        if isinstance(ok, SymbolicTensor):
            apply("Check", ok, error="RuntimeError", message=message)
        elif not bool(np.all(ok._need_data())):
            raise RuntimeError(message)
    coef = minimum(max_norm / (total + 1e-6), to_tensor(1.0, total.dtype))
    out = [t * cast(coef, t.dtype) for t in ts]
    if single:
        return out[0]
    return type(x)(out) if isinstance(x, (list, tuple)) else tuple(out)
