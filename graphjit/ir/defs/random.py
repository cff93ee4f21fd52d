"""Random operators (Dropout, RandomNormal, RandomUniform, RandomInt) and the generators
they draw from.

A random kernel draws from a generator held here when it runs, so eager and graph mode
draw the same numbers in the same order after `ms.set_seed(n)` reseeds them. Drawing
advances the generator: a random node is an effect (effects="random"), never to be
folded, merged with another, moved or dropped.
"""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from .. import dtypes as dt
from ..registry import NOT_DIFFERENTIABLE, REQUIRED, register_op
from ..types import TensorType
from .common import fail

__all__ = ["reseed", "generator", "RANDOM_OPS"]

RANDOM_OPS = frozenset({"Dropout", "RandomNormal", "RandomUniform", "RandomInt"})

_SEED = [0]
_GLOBAL = [np.random.default_rng(0)]
_BY_SEED: Dict[int, np.random.Generator] = {}


def reseed(seed: int) -> None:
    """Start every generator afresh from the global seed `seed`."""
    _SEED[0] = int(seed)
    _GLOBAL[0] = np.random.default_rng(int(seed))
    _BY_SEED.clear()


def generator(seed: Optional[int] = None) -> np.random.Generator:
    """The global generator, or the one of an operator seed (made from the global seed
    and the operator seed on first use, then advancing with every draw, as MindSpore's
    seeded primitives do)."""
    if seed is None:
        return _GLOBAL[0]
    g = _BY_SEED.get(seed)
    if g is None:
        g = _BY_SEED[seed] = np.random.default_rng((_SEED[0], int(seed)))
    return g


def _dropout_infer(ts, attrs):
    (x,) = ts
    if not x.dtype.is_floating:
        raise fail("Dropout", f"needs a floating input, got {x}", hint="cast it to float32")
    keep = attrs["keep_prob"]
    if not isinstance(keep, (int, float)) or isinstance(keep, bool) or not 0 < keep <= 1:
        raise fail("Dropout", f"keep_prob must be a number in (0, 1], got {keep!r}")
    seed = attrs["seed"]
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise fail("Dropout", f"seed must be None or a non-negative int, got {seed!r}")
    return x, TensorType(x.dtype, x.shape)


def _dropout_factory(in_types, out_types, attrs):
    odt = out_types[0].dtype.np
    keep, seed = float(attrs["keep_prob"]), attrs["seed"]
    scale = odt.type(1.0 / keep)

    def k(x):
        x = np.asarray(x, dtype=odt)
        mask = (generator(seed).random(x.shape) < keep).astype(odt)
        return x * mask * scale, mask
    return k


register_op("Dropout", ("x",), {"keep_prob": 0.5, "seed": None}, infer=_dropout_infer,
            kernel_factory=_dropout_factory, exact_dtype=True, family="extern",
            effects="random",
            doc="x * mask / keep_prob with a random 0/1 mask (1 with probability keep_prob); "
                "outputs the result and the mask")


# -- tensors of random numbers (ops.standard_normal, ops.rand, ops.randint, ...) -----------
def _check_seed(op, seed):
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise fail(op, f"seed must be None or a non-negative int, got {seed!r}")


def _shape_of(op, shape):
    if not isinstance(shape, tuple) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
            for d in shape):
        raise fail(op, f"shape must be a tuple of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def _float_infer(op):
    def infer(ts, attrs):
        d = dt.as_dtype(attrs["dtype"])
        if not d.is_floating:
            raise fail(op, f"makes floating tensors, not {d}")
        _check_seed(op, attrs["seed"])
        return TensorType(d, _shape_of(op, attrs["shape"]))
    return infer


def _normal_factory(in_types, out_types, attrs):
    shape, seed, d = attrs["shape"], attrs["seed"], out_types[0].dtype.np
    return lambda: generator(seed).standard_normal(shape).astype(d)


def _uniform_factory(in_types, out_types, attrs):
    shape, seed, d = attrs["shape"], attrs["seed"], out_types[0].dtype.np
    return lambda: generator(seed).random(shape).astype(d)


def _int_infer(ts, attrs):
    d = dt.as_dtype(attrs["dtype"])
    if not d.is_integer:
        raise fail("RandomInt", f"makes integer tensors, not {d}")
    low, high = attrs["low"], attrs["high"]
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
               for v in (low, high)) or not low < high:
        raise fail("RandomInt", f"needs ints low < high, got {low!r} and {high!r}")
    _check_seed("RandomInt", attrs["seed"])
    return TensorType(d, _shape_of("RandomInt", attrs["shape"]))


def _int_factory(in_types, out_types, attrs):
    shape, seed, d = attrs["shape"], attrs["seed"], out_types[0].dtype.np
    low, high = int(attrs["low"]), int(attrs["high"])
    return lambda: generator(seed).integers(low, high, shape).astype(d)


register_op("RandomNormal", (), {"shape": REQUIRED, "dtype": dt.float32, "seed": None},
            infer=_float_infer("RandomNormal"), kernel_factory=_normal_factory,
            exact_dtype=True, family="extern", effects="random", grad=NOT_DIFFERENTIABLE,
            doc="a tensor of draws from N(0, 1)")
register_op("RandomUniform", (), {"shape": REQUIRED, "dtype": dt.float32, "seed": None},
            infer=_float_infer("RandomUniform"), kernel_factory=_uniform_factory,
            exact_dtype=True, family="extern", effects="random", grad=NOT_DIFFERENTIABLE,
            doc="a tensor of draws from U[0, 1)")
register_op("RandomInt", (), {"shape": REQUIRED, "low": REQUIRED, "high": REQUIRED,
                              "dtype": dt.int64, "seed": None},
            infer=_int_infer, kernel_factory=_int_factory, exact_dtype=True,
            family="extern", effects="random", grad=NOT_DIFFERENTIABLE,
            doc="a tensor of integers drawn uniformly from [low, high)")
