"""A raise whose message is made from tensor values, on a path taken whatever the values
are (RaiseError: MindSpore refuses it too)."""
from graphjit import nn


class RaiseInIf(nn.Cell):
    def construct(self, x):
        if x.shape[0] == 3:
            raise ValueError(f"unexpected input {x}")
        return x


class RaiseInFor(nn.Cell):
    def construct(self, x, rows):
        for i in range(len(rows)):
            if i == 1:
                raise ValueError("bad row %s" % rows[i])
        return x


class RaiseInWhile(nn.Cell):
    def construct(self, x, n):
        k = 0
        while k < 5:
            k += 1
            if k == 3:
                raise ValueError("stopped at {}".format(x))
        return x
