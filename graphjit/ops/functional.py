"""Operators as functions (`ops.add`, `ops.matmul`, ...), MindSpore's names and
signatures, working on eager Tensors and on graph values alike.

The functions live by kind in math_ops, array_ops and nn_ops; this module gathers
them (it is what `ops.functional` and Tensor methods use) and adds the functional
forms of item assignment, print and assert that the front-end calls.
"""
from __future__ import annotations

import builtins

import numpy as np

from ..autodiff import tape as _tape
from ..ir import dtypes as dt
from ..ir.defs.shape import encode_index
from ..common.tensor import SymbolicTensor, Tensor, TensorLike, current_recorder
from ._dispatch import apply, to_tensor
from . import array_ops, math_ops, nn_ops
from .array_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .math_ops import abs, all, any, cast, max, min, pow, round, sum  # noqa: F401
from .nn_ops import *  # noqa: F401,F403

__all__ = (list(math_ops.__all__) + list(array_ops.__all__) + list(nn_ops.__all__)
           + ["index_update", "runtime_print", "runtime_assert"])
# layer_ops, sort_ops and the misc names join at the end of this module (their imports
# reach primitives, which reads this module's functions)


def _t(x):
    return to_tensor(x)


# -- updates and effects ---------------------------------------------------------------------
def index_update(x, key, value):
    """A copy of x with x[key] = value (the functional form of item assignment)."""
    key = array_ops.eager_slice_bounds(key)
    items = key if isinstance(key, tuple) else (key,)
    tape = _tape.current()
    recorded = tape is not None and (tape.tracks(x) or tape.tracks(value))
    if recorded and builtins.any(isinstance(k, (list, np.ndarray)) or (
            isinstance(k, Tensor) and k.ndim > 0) for k in items):
        return _index_put(x, items, value)      # numpy's advanced indexing, on the tape
    if builtins.any(isinstance(k, TensorLike) for k in items):
        if not builtins.any(isinstance(k, SymbolicTensor) for k in items) and \
                not isinstance(x, SymbolicTensor) and not isinstance(value, SymbolicTensor) \
                and not recorded:
            y = Tensor._wrap(np.array(x._need_data()))
            y[key] = value
            return y
        return _index_update_by_tensor(x, key, value)
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    return apply("IndexUpdate", xt, v, index=encode_index(key))


def _index_put(x, items, value):
    """x[items] = value with array indices, as one op the PYNATIVE tape records."""
    key = []
    for k in items:
        if isinstance(k, Tensor):
            k = k._need_data()
        if isinstance(k, (list, np.ndarray)):
            key.append(np.asarray(k))
        elif isinstance(k, slice):
            key.append(("slice", k.start, k.stop, k.step))
        elif k is Ellipsis:
            key.append("...")
        else:
            key.append(k)
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    return apply("IndexPut", xt, v, key=tuple(key))


def _index_update_by_tensor(x, key, value):
    """x[mask] = v (a bool tensor of x's shape) or x[i] = v (an int scalar tensor on the
    first axis), as Select over a mask: the shapes stay known."""
    from ..ir.errors import UnsupportedSyntaxError
    from .array_ops import reshape
    xt = _t(x)
    v = value if isinstance(value, TensorLike) else to_tensor(value, xt.dtype)
    if v.dtype is not xt.dtype:
        v = cast(v, xt.dtype)
    k = key
    if isinstance(k, TensorLike) and k.dtype.is_bool:
        if k.type.shape != xt.type.shape:
            raise UnsupportedSyntaxError(
                f"item assignment with a bool mask of shape {k.type} into a tensor of type "
                f"{xt.type}", hint="use a mask of the tensor's shape, or ops.where")
        return where(k, v, xt)
    shape = xt.type.shape
    if isinstance(k, TensorLike) and k.dtype.is_integer and k.type.shape in ((), (1,)) and \
            shape and shape[0] is not None:
        n = shape[0]
        i = reshape(k, ())
        i = where(i < 0, i + n, i)
        rows = Tensor._wrap(np.arange(n, dtype=k.dtype.np))
        mask = reshape(equal(rows, i), (n,) + (1,) * (len(shape) - 1))
        return where(mask, v, xt)
    if isinstance(k, tuple) and k and isinstance(k[0], TensorLike) and \
            k[0].dtype.is_integer and k[0].type.shape in ((), (1,)) and shape and \
            shape[0] is not None and not builtins.any(isinstance(r, TensorLike)
                                                      for r in k[1:]):
        # x[i, rest] = v: update every row at `rest`, keep only row i
        n = shape[0]
        every_row = index_update(xt, (slice(None),) + tuple(k[1:]), v)
        i = reshape(k[0], ())
        i = where(i < 0, i + n, i)
        rows = Tensor._wrap(np.arange(n, dtype=k[0].dtype.np))
        mask = reshape(equal(rows, i), (n,) + (1,) * (len(shape) - 1))
        return where(mask, every_row, xt)
    pos = [j for j, r in enumerate(k)] if isinstance(k, tuple) else []
    pos = [j for j in pos if isinstance(k[j], TensorLike)]
    if len(pos) == 1 and shape and pos[0] < len(shape) and shape[pos[0]] is not None:
        p = pos[0]
        t = k[p]
        if t.dtype.is_integer and t.type.shape in ((), (1,)) and builtins.all(
                isinstance(r, slice) and r == slice(None) for r in k[:p]) and builtins.all(
                isinstance(r, (int, np.integer, slice)) and not isinstance(r, bool)
                for r in k[p + 1:]):
            # x[:, ..., i, rest] = v (buf[:, t] = token in a decoding loop): update axis p
            # everywhere at `rest`, keep only position i
            n = shape[p]
            target = getitem(xt, tuple(k[:p]) + (0,) + tuple(k[p + 1:]))
            vb = add(v, zeros_like(target))            # v in the shape x[key] has
            every = index_update(xt, tuple(k[:p]) + (slice(None),) + tuple(k[p + 1:]),
                                 expand_dims(vb, p))
            i = reshape(t, ())
            i = where(i < 0, i + n, i)
            rows = Tensor._wrap(np.arange(n, dtype=t.dtype.np))
            mask = reshape(equal(rows, i), (1,) * p + (n,) + (1,) * (len(shape) - p - 1))
            return where(mask, every, xt)
    raise UnsupportedSyntaxError(
        "item assignment with this tensor index (a bool mask of the tensor's shape, or one "
        "integer tensor on an axis after full slices (x[i], x[:, i]), possibly followed by "
        "ints and slices, keep the shapes known)", hint="use ops.where(mask, value, x)")


def runtime_print(args, sep=" ", end="\n"):
    """print(*args) when the graph runs (eagerly: now)."""
    tensors, template = [], []
    for a in args:
        if isinstance(a, SymbolicTensor):
            template.append(len(tensors))
            tensors.append(a)
        else:
            template.append(str(a))
    if not tensors:
        recorder = current_recorder()
        if recorder is not None:   # building: print each time the graph runs, as eager mode
            recorder.emit("Print", (), {"template": tuple(template), "sep": sep, "end": end})
        else:
            print(*args, sep=sep, end=end)
        return None
    apply("Print", *tensors, template=tuple(template), sep=sep, end=end)
    return None


def runtime_assert(cond, message=""):
    """Raise AssertionError(message) when the graph runs and cond is false."""
    c = _t(cond)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    if isinstance(c, SymbolicTensor):
        apply("Assert", c, message=message)
        return None
    if not bool(np.all(c._need_data())):
        raise AssertionError(message)
    return None


def runtime_check(ok, error=ValueError, message=""):
    """Raise error(message) where ok is false: now for eager values, when the graph runs
    for graph values."""
    c = _t(ok)
    if not c.dtype.is_bool:
        c = cast(c, dt.bool_)
    if isinstance(c, SymbolicTensor):
        apply("Check", c, error=error.__name__, message=message)
        return None
    if not bool(np.all(c._need_data())):
        raise error(message)
    return None


# -- layers, sorting, and MindSpore's functional names (F.depend, F.make_tuple, ...) -----------
from . import extra_ops, layer_ops, loss_ops, more_ops, random_ops, sort_ops  # noqa: E402
from .extra_ops import *  # noqa: F401,F403,E402
from .loss_ops import *  # noqa: F401,F403,E402
from .random_ops import *  # noqa: F401,F403,E402
from .layer_ops import *  # noqa: F401,F403,E402
from .sort_ops import *  # noqa: F401,F403,E402
from .more_ops import *  # noqa: F401,F403,E402
from .misc_ops import (depend, dtype, identity, make_tuple,  # noqa: E402
                       scalar_to_tensor, stop_gradient, tuple_getitem, tuple_to_array)
from .state_ops import assign, assign_add, assign_sub  # noqa: E402

__all__ += list(extra_ops.__all__) + list(loss_ops.__all__) + list(random_ops.__all__) + \
    list(layer_ops.__all__) + list(sort_ops.__all__) + list(more_ops.__all__) + [
    "assign", "assign_add", "assign_sub", "depend", "dtype", "identity", "make_tuple", "scalar_to_tensor",
    "stop_gradient", "tuple_getitem", "tuple_to_array"]
