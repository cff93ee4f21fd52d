"""UnsupportedSyntaxError: Python that has no graph form, each inside if, for and while."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops

STEPS = 0


# -- try/except around graph values ------------------------------------------------------
class TryInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            try:
                x = ops.sqrt(x)
            except ValueError:
                x = x * 0
        return x


class TryInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            try:
                x = x + ops.sqrt(row)
            except ValueError:
                x = x * 0
        return x


class TryInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            try:
                x = ops.sqrt(x)
            except ValueError:
                x = x * 0
            n = n - 1
        return x


# -- yield (a generator construct) -----------------------------------------------------------
class YieldInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            yield x
        yield x * 2


class YieldInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            yield x + row


class YieldInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            yield x * n
            n = n - 1


# -- global writes ------------------------------------------------------------------------
class GlobalInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            global STEPS
            STEPS = STEPS + 1
        return x


class GlobalInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            global STEPS
            STEPS = STEPS + 1
            x = x + row
        return x


class GlobalInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            global STEPS
            STEPS = STEPS + 1
            n = n - 1
        return x


# -- with blocks ----------------------------------------------------------------------------
class WithInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            with np.errstate(all="ignore"):
                x = ops.log(x)
        return x


class WithInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            with np.errstate(all="ignore"):
                x = x + ops.log(row)
        return x


class WithInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            with np.errstate(all="ignore"):
                x = ops.log(x)
            n = n - 1
        return x


# -- mutating a Python object under a tensor condition -----------------------------------------
class MutateInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.history = []

    def construct(self, x):
        if x.sum() > 0:
            self.history.append(x)
        return x * len(self.history)


class MutateInFor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.history = []

    def construct(self, x, rows):
        for row in rows:
            self.history.append(row)
        return x * len(self.history)


class MutateInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.history = []

    def construct(self, x, n):
        while n > 0:
            self.history.append(x)
            n = n - 1
        return x * len(self.history)


# -- bool() of a graph value outside a condition -----------------------------------------------
class BoolInIf(nn.Cell):
    def construct(self, x, y):
        if y.sum() > 0:
            positive = bool(x.sum() > 0)
            if positive is True:
                x = x * 2
        return x


class BoolInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            positive = bool(row.sum() > 0)
            if positive is True:
                x = x + row
        return x


class BoolInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            positive = bool(x.sum() > 0)
            if positive is True:
                x = x - 1
            n = n - 1
        return x


# -- numpy functions on graph values -----------------------------------------------------------
class NumpyInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            x = x / np.linalg.norm(x)
        return x


class NumpyInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            x = x + row / np.linalg.norm(row)
        return x


class NumpyInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            x = x / np.linalg.norm(x)
            n = n - 1
        return x


# -- asnumpy() of a graph value ----------------------------------------------------------------
class AsnumpyInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            x = ms.Tensor(x.asnumpy().clip(0, 1))
        return x


class AsnumpyInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            x = x + ms.Tensor(row.asnumpy().clip(0, 1))
        return x


class AsnumpyInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            x = ms.Tensor(x.asnumpy().clip(0, 1))
            n = n - 1
        return x


# -- async -------------------------------------------------------------------------------------
class AsyncConstruct(nn.Cell):
    async def construct(self, x):
        return x * 2


# -- recursion whose depth depends on a tensor -------------------------------------------------
class RecursionDepthFromTensor(nn.Cell):
    def count(self, x):
        if x.sum() > 0:
            return self.count(x - 1) + self.count(x - 2)
        return x

    def construct(self, x):
        return self.count(x)


# -- the value of a Parameter as a Python value ---------------------------------------------------
class ParamValueInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x):
        if x.sum() > 0:
            x = x * self.scale.asnumpy()[0]
        return x


class ParamValueInFor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x, rows):
        for row in rows:
            x = x + row * self.scale.asnumpy()[0]
        return x


class ParamValueInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x, n):
        while n > 0:
            x = x * self.scale.asnumpy()[0]
            n = n - 1
        return x
