"""OpNotFoundError and MissingInferenceError: operators the registry cannot provide."""
from graphjit import nn, ops


def register():
    """Register the user operator of these examples: a kernel, but no shape-and-dtype
    inference function. (Not at import: the tests take it out of the registry again.)"""
    global double
    double = ops.register_op("CatalogDoubleNoInfer", ["x"], kernel=lambda x: x * 2,
                             replace=True)
    return ["CatalogDoubleNoInfer"]


double = None


class UnknownOpInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            x = ops.call_op("Sofmax", x)
        return x


class UnknownOpInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            x = x + ops.call_op("Sofmax", row)
        return x


class UnknownOpInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            x = ops.call_op("Sofmax", x)
            n = n - 1
        return x


class NoInferInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            x = double(x)
        return x


class NoInferInFor(nn.Cell):
    def construct(self, x, rows):
        for row in rows:
            x = x + double(row)
        return x


class NoInferInWhile(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            x = double(x)
            n = n - 1
        return x
