"""Errors found when the graph runs (GraphRuntimeError) or when it is checked against eager
mode (EquivalenceError)."""
import numpy as np

from graphjit import nn, ops


class PickInIf(nn.Cell):
    def construct(self, x, i):
        if x.sum() > 0:
            x = [x, x * 2][i]
        return x


class PickInFor(nn.Cell):
    def construct(self, x, idx):
        for i in idx:
            x = [x, x * 2][i]
        return x


class PickInWhile(nn.Cell):
    def construct(self, x, i):
        while i > 0:
            x = [x, x * 2][i]
            i = i - 1
        return x


def register():
    """Register a user kernel that is not a function of its inputs: every run gives new
    numbers. (Not at import: the tests take it out of the registry again.)"""
    global noise
    noise = ops.register_op(
        "CatalogNoise", ["x"], infer=lambda types, attrs: types[0],
        kernel=lambda x: x + np.random.default_rng().random(x.shape, dtype=np.float32),
        replace=True)
    return ["CatalogNoise"]


noise = None


class Noisy(nn.Cell):
    def construct(self, x):
        return noise(x) * 2
