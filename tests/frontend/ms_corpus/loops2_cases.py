"""Tuple inputs to jit functions, keyword calls of sub-Cells, float16 with
int32, returns three loops deep, concat growing in an unrolled for, zip of rows."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=ms.float32):
    return Tensor(np.asarray(x), dtype=dtype)


def jit_tuple_in(xs, flag):
    a, b = xs
    if flag:
        return a + b
    while a.sum() < b.sum():
        a = a * 2
    return a

class KwCall(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
    def construct(self, x):
        return self.sub(x, scale=3.0), self.sub(x)

class Sub(nn.Cell):
    def construct(self, x, scale=1.0):
        if x.sum() * scale > 5:
            return x * scale
        return x

class F16I32(nn.Cell):
    def construct(self, a, b):
        c = a + b
        i = 0
        while c.sum() < 30:
            c = c * b
            i = i + 1
        return c, i

class IfInsideFor_ReturnInWhileNested3(nn.Cell):
    def construct(self, x):
        for i in range(2):
            while x.sum() < 50:
                for j in range(2):
                    if x[j] > 10:
                        return x, i, j
                    x[j] = x[j] * 3
        return x, -1, -1

class ConcatGrowFor(nn.Cell):
    def construct(self, x):
        out = x
        for _ in range(3):
            if x.sum() > 0:
                out = ops.concat((out, x))
            else:
                out = ops.concat((out, -x))
        return out

class SquareSoftplus(nn.Cell):
    def construct(self, x):
        y = ops.softmax(x, axis=0)
        n = Tensor(0, ms.int32)
        while y.max() - y.min() > 0.05:
            y = ops.softmax(ops.sqrt(y), axis=0)
            n += 1
        return y, n

class UnpackRowsZip(nn.Cell):
    def construct(self, x, y):
        total = 0
        for a, b in zip(x, y):
            if (a > b).all():
                total = total + (a - b).sum()
            else:
                total = total + 1
        return total

CASES = [
 ("jit_tuple_in_flag", lambda: jit_tuple_in, lambda: ((T([1.0]), T([5.0])), True)),
 ("jit_tuple_in_loop", lambda: jit_tuple_in, lambda: ((T([1.0]), T([5.0])), False)),
 ("kw_call_subcell", KwCall, lambda: (T([1.0, 2.0]),)),
 ("f16_i32", F16I32, lambda: (T([1.0, 2.0], ms.float16), T([2, 3], ms.int32))),
 ("return_nested3", IfInsideFor_ReturnInWhileNested3, lambda: (T([1.0, 2.0]),)),
 ("concat_grow_for", ConcatGrowFor, lambda: (T([1.0, 2.0]),)),
 ("softmax_sqrt_loop", SquareSoftplus, lambda: (T([1.0, 2.0, 3.0]),)),
 ("unpack_rows_zip", UnpackRowsZip, lambda: (T([[3.0, 4.0], [0.0, 1.0]]), T([[1.0, 1.0], [2.0, 0.0]]))),
]
