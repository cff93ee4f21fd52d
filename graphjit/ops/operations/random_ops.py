"""MindSpore's `mindspore.ops.operations.random_ops`: StandardNormal and UniformReal."""
from __future__ import annotations

from .. import functional as F
from ..primitive import Primitive

__all__ = ["StandardNormal", "UniformReal"]


class StandardNormal(Primitive):
    """StandardNormal(seed=0, seed2=0)(shape): draws from N(0, 1)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = seed

    def __call__(self, shape):
        return F.standard_normal(shape, self.seed)


class UniformReal(Primitive):
    """UniformReal(seed=0, seed2=0)(shape): draws from U[0, 1)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = seed

    def __call__(self, shape):
        return F.rand(shape, seed=self.seed)
