"""Random operators (Dropout) and the generators they draw from.

A random kernel draws from a generator held here when it runs, so eager and graph mode
draw the same numbers in the same order after `ms.set_seed(n)` reseeds them. Drawing
advances the generator: a random node is an effect (effects="random"), never to be
folded, merged with another, moved or dropped.
"""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from ..registry import register_op
from ..types import TensorType
from .common import fail

__all__ = ["reseed", "generator", "RANDOM_OPS"]

RANDOM_OPS = frozenset({"Dropout"})

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
