"""ShapeInferenceError: an operator's inputs do not fit it, found while the graph is built."""
from graphjit import nn, ops


class MatMulInIf(nn.Cell):
    def construct(self, x, w):
        if x.sum() > 0:
            x = ops.matmul(x, w)
        return x


class MatMulInFor(nn.Cell):
    def construct(self, x, ws):
        for w in ws:
            x = ops.matmul(x, w)
        return x


class MatMulInWhile(nn.Cell):
    def construct(self, x, w, n):
        while n > 0:
            x = ops.matmul(x, w)
            n = n - 1
        return x


class AmbiguousIf(nn.Cell):
    def construct(self, x):
        if x > 0:
            x = x - 1
        return x


class AmbiguousInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            if row > 0:
                x = x + row
        return x


class AmbiguousWhile(nn.Cell):
    def construct(self, x):
        while x > 0:
            x = x - 1
        return x
