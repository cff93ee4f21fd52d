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


class DenseInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        if x.sum() > 0:
            x = self.fc(x)
        return x


class DenseInFor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x, rows):
        for row in rows:
            x = self.fc(row)
        return x


class DenseInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x, n):
        while n > 0:
            x = self.fc(x)
            n = n - 1
        return x
