"""ShapeJoinError: one variable would have two shapes that ShapeJoin cannot unite."""
from graphjit import nn, ops


class ShapeInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = x
        else:
            out = ops.concat((x, x))
        return out * 2


class ShapeInFor(nn.Cell):
    def construct(self, x, rows):
        out = x
        for row in rows:
            out = ops.concat((out, row))
        return out


class ShapeInWhile(nn.Cell):
    def construct(self, x, n):
        out = x
        while n > 0:
            out = ops.expand_dims(out, 0)
            n = n - 1
        return out
