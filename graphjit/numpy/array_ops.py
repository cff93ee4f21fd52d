"""mindspore.numpy's shape and joining functions: reshape, transpose, expand_dims,
squeeze, concatenate, stack, split, tile, repeat, flip, where and their relatives, on
graphjit.ops so that they run eagerly and in graphs alike."""
from __future__ import annotations

import numpy as np

from .. import ops
from ..ir.dtypes import bool_
from ..common.tensor import TensorLike
from ._utils import normalize_axis, to_tensor

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "expand_dims",
           "squeeze", "concatenate", "stack", "hstack", "vstack", "split", "array_split",
           "tile", "repeat", "flip", "fliplr", "flipud", "where", "broadcast_to", "size",
           "shape", "ndim", "atleast_1d", "atleast_2d", "take", "roll", "rot90"]


def reshape(x, new_shape):
    """x's elements in new_shape (one entry may be -1)."""
    if isinstance(new_shape, int):
        new_shape = (new_shape,)
    return ops.reshape(to_tensor(x), tuple(new_shape))


def ravel(x):
    """x flattened to 1-D."""
    return ops.reshape(to_tensor(x), (-1,))


def transpose(a, axes=None):
    """a with its axes permuted (reversed when axes is None)."""
    a = to_tensor(a)
    if axes is None:
        axes = tuple(range(a.ndim - 1, -1, -1))
    return ops.transpose(a, tuple(normalize_axis(i, a.ndim, "transpose axis") for i in axes))


def swapaxes(x, axis1, axis2):
    """x with axis1 and axis2 swapped."""
    x = to_tensor(x)
    perm = list(range(x.ndim))
    a, b = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return ops.transpose(x, tuple(perm))


def moveaxis(a, source, destination):
    """a with the axes in source moved to the positions in destination."""
    a = to_tensor(a)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError("mindspore.numpy.moveaxis: source and destination must have the "
                         "same number of elements")
    src = [normalize_axis(s, a.ndim, "source") for s in src]
    dst = [normalize_axis(d, a.ndim, "destination") for d in dst]
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return ops.transpose(a, tuple(order))


def expand_dims(a, axis):
    """a with new axes of size 1 at the positions in axis (an int or a tuple)."""
    a = to_tensor(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = a.ndim + len(axes)
    for ax in sorted(normalize_axis(x, nd) for x in axes):
        a = ops.expand_dims(a, ax)
    return a


def squeeze(a, axis=None):
    """a without the axes of size 1 (only those in axis when given)."""
    a = to_tensor(a)
    if axis is None:
        return ops.squeeze(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(normalize_axis(x, a.ndim) for x in axes)
    for x in axes:
        if a.shape[x] is not None and a.shape[x] != 1:
            raise ValueError(f"mindspore.numpy.squeeze: axis {x} has size {a.shape[x]}, "
                             f"not 1")
    return ops.squeeze(a, axes)


def _tensors(arrays, what):
    if isinstance(arrays, TensorLike):
        if arrays.ndim == 0:
            raise ValueError(f"mindspore.numpy.{what}: zero-dimensional arrays cannot be "
                             f"joined")
        return [arrays[i] for i in range(arrays.shape[0])]
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise TypeError(f"mindspore.numpy.{what}: expects a non-empty tuple or list of "
                        f"tensors")
    return [to_tensor(a) for a in arrays]


def concatenate(arrays, axis=0):
    """The tensors joined along an existing axis (flattened first when axis is None)."""
    xs = _tensors(arrays, "concatenate")
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    return ops.concat(tuple(xs), normalize_axis(axis, xs[0].ndim))


def stack(arrays, axis=0):
    """The tensors joined along a new axis."""
    xs = _tensors(arrays, "stack")
    return ops.stack(tuple(xs), normalize_axis(axis, xs[0].ndim + 1))


def hstack(tup):
    """Tensors joined along axis 1 (axis 0 for 1-D ones)."""
    xs = _tensors(tup, "hstack")
    return ops.concat(tuple(xs), 0 if xs[0].ndim == 1 else 1)


def vstack(tup):
    """Tensors joined along axis 0 (1-D ones as rows)."""
    xs = [atleast_2d(x) for x in _tensors(tup, "vstack")]
    return ops.concat(tuple(xs), 0)


def _split_at(x, bounds, axis):
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key = [slice(None)] * x.ndim
        key[axis] = slice(lo, hi)
        out.append(x[tuple(key)])
    return tuple(out)


def split(x, indices_or_sections, axis=0):
    """x split along axis: into N equal pieces (an int N that divides the size), or at
    the indices in a list. Returns a tuple of tensors."""
    return _split(x, indices_or_sections, axis, "split", equal=True)


def array_split(x, indices_or_sections, axis=0):
    """split that allows pieces of unequal size for an int N."""
    return _split(x, indices_or_sections, axis, "array_split", equal=False)


def _split(x, sections, axis, what, equal):
    x = to_tensor(x)
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if n is None:
        raise ValueError(f"mindspore.numpy.{what}: axis {axis} has a size known only when "
                         f"the graph runs")
    if isinstance(sections, int) and not isinstance(sections, bool):
        if sections <= 0:
            raise ValueError(f"mindspore.numpy.{what}: number of sections must be positive")
        if equal and n % sections:
            raise ValueError(f"mindspore.numpy.{what}: array split does not result in an "
                             f"equal division ({n} into {sections})")
        q, r = divmod(n, sections)
        sizes = [q + 1] * r + [q] * (sections - r)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    elif isinstance(sections, (list, tuple)):
        bounds = [0] + [min(max(int(i) if i >= 0 else n + int(i), 0), n)
                        for i in sections] + [n]
    else:
        raise TypeError(f"mindspore.numpy.{what}: indices_or_sections must be an int or a "
                        f"list of ints, got {sections!r}")
    return _split_at(x, bounds, axis)


def tile(a, reps):
    """a repeated reps times along each axis (numpy's tile: reps may be longer or shorter
    than a's rank)."""
    a = to_tensor(a)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    if len(reps) > a.ndim:
        a = ops.reshape(a, (1,) * (len(reps) - a.ndim) + tuple(a.shape))
    reps = (1,) * (a.ndim - len(reps)) + reps
    return ops.tile(a, reps)


def repeat(a, repeats, axis=None):
    """Each element of a repeated `repeats` times along axis (the flattened a when axis is
    None); repeats may be an int or one count per element."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, a.ndim)
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, int):
        return ops.repeat_elements_of(a, repeats, axis)
    if not isinstance(repeats, (list, tuple)) or len(repeats) != a.shape[axis]:
        raise ValueError(f"mindspore.numpy.repeat: repeats must be an int or one int per "
                         f"element along axis {axis}, got {repeats!r}")
    pieces = []
    for i, r in enumerate(repeats):
        if r:
            key = [slice(None)] * a.ndim
            key[axis] = slice(i, i + 1)
            pieces.extend([a[tuple(key)]] * r)
    return ops.concat(tuple(pieces), axis)


def flip(m, axis=None):
    """m with the order of elements reversed along axis (every axis when None)."""
    m = to_tensor(m)
    axes = tuple(range(m.ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    return ops.flip(m, tuple(normalize_axis(x, m.ndim) for x in axes))


def fliplr(m):
    """flip along axis 1."""
    return flip(m, 1)


def flipud(m):
    """flip along axis 0."""
    return flip(m, 0)


def where(condition, x=None, y=None):
    """x where condition holds, y elsewhere (broadcast together). With only condition,
    the indices of its non-zero elements, one tensor per axis."""
    if x is None and y is None:
        cond = to_tensor(condition)
        idx = ops.nonzero(cond)
        return tuple(idx[:, i] for i in range(cond.ndim))
    if x is None or y is None:
        raise ValueError("mindspore.numpy.where: either both or neither of x and y should "
                         "be given")
    cond = to_tensor(condition)
    if not cond.dtype.is_bool:
        cond = ops.cast(cond, bool_)
    x, y = to_tensor(x), to_tensor(y)
    return ops.where(cond, x, y)


def broadcast_to(array, shape):
    """array broadcast to shape."""
    return ops.broadcast_to(to_tensor(array), tuple(shape) if not isinstance(shape, int)
                            else (shape,))


def size(a, axis=None):
    """The number of elements (along axis when given)."""
    a = to_tensor(a)
    if axis is None:
        return int(np.prod(a.shape))
    return a.shape[normalize_axis(axis, a.ndim)]


def shape(a):
    """a's shape as a tuple."""
    return tuple(to_tensor(a).shape)


def ndim(a):
    """a's number of dimensions."""
    return to_tensor(a).ndim


def atleast_1d(*arys):
    """Each input with at least one dimension."""
    res = [to_tensor(a) for a in arys]
    res = [ops.reshape(a, (1,)) if a.ndim == 0 else a for a in res]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    """Each input with at least two dimensions."""
    res = [to_tensor(a) for a in arys]
    res = [ops.reshape(a, (1,) * (2 - a.ndim) + tuple(a.shape)) if a.ndim < 2 else a
           for a in res]
    return res[0] if len(res) == 1 else res


def take(a, indices, axis=None, mode="clip"):
    """Elements of a at indices along axis (of the flattened a when axis is None)."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    return ops.gather(a, to_tensor(indices), normalize_axis(axis, a.ndim))


def roll(a, shift, axis=None):
    """a's elements shifted along axis, wrapping round (the flattened a when None)."""
    a = to_tensor(a)
    if axis is None:
        return ops.reshape(ops.roll(ravel(a), shift, 0), tuple(a.shape))
    return ops.roll(a, shift, axis)


def rot90(a, k=1, axes=(0, 1)):
    """a rotated by 90 degrees k times in the plane of axes."""
    a = to_tensor(a)
    k %= 4
    a0, a1 = (normalize_axis(x, a.ndim) for x in axes)
    if k == 0:
        return a
    if k == 2:
        return flip(a, (a0, a1))
    if k == 1:
        return swapaxes(flip(a, a1), a0, a1)
    return flip(swapaxes(a, a0, a1), a1)
