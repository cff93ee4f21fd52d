"""TypeJoinError: one variable would have two dtypes, or a tensor and a non-tensor."""
import graphjit as ms
from graphjit import nn, ops


class DtypeInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = x
        else:
            out = ops.cast(x, ms.int32)
        return out


class DtypeInFor(nn.Cell):
    def construct(self, rows):
        total = ops.zeros((3,), ms.int32)
        for row in rows:
            total = total + row
        return total


class DtypeInWhile(nn.Cell):
    def construct(self, x, n):
        total = ops.zeros((3,), ms.int32)
        while n > 0:
            total = total + x
            n = n - 1
        return total


class NoneInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            best = x
        else:
            best = None
        return best


class NoneInFor(nn.Cell):
    def construct(self, rows):
        best = None
        for row in rows:
            best = row * 2
        return best


class NoneInWhile(nn.Cell):
    def construct(self, x, n):
        best = None
        while n > 0:
            best = x * n
            n = n - 1
        return best
