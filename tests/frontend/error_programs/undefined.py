"""UndefinedVariableError: a name read where some path never assigned it."""
from graphjit import nn, ops


class UndefinedInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            scaled = x * 2
        return scaled


class UndefinedInFor(nn.Cell):
    def construct(self, x, n):
        for i in range(n):
            last = x + i
        return last


class UndefinedInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            last = x * n
            n = n - 1
        return last


class Typo(nn.Cell):
    def construct(self, x):
        hidden = ops.relu(x)
        return hiden + 1


class EarlierIteration(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            if n < 2:
                x = x + prev
            prev = x * n
            n = n - 1
        return x
