"""Loops with early returns through CellLists and nested helpers, loop variables
read after the loop, recursion on Python numbers, builtins."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def T(x, dtype=ms.float32):
    return Tensor(np.asarray(x), dtype=dtype)


class ReturnDtypes(nn.Cell):
    def construct(self, x):
        while x.sum() < 10:
            x = x + 1
            if x.max() > 6:
                return x.astype(ms.int32)
        return x

class AppendInTensorWhile(nn.Cell):
    def construct(self, x):
        outs = []
        while x.sum() < 10:
            x = x + 1
            outs.append(x)
        return len(outs)

class TupleGrowWhile(nn.Cell):
    def construct(self, x):
        acc = ()
        while x.sum() < 10:
            x = x + 1
            acc = acc + (x,)
        return x

class LoopVarAfter(nn.Cell):
    def construct(self, x):
        for i in range(3):
            if x.sum() > 100:
                break
            x = x + i
        return x * i

class CellListEarlyReturn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cells = nn.CellList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
    def construct(self, x):
        for c in self.cells:
            x = c(x)
            if x.sum() < 1:
                return x, True
        return x, False

class NestedFnWhile(nn.Cell):
    def construct(self, x, y):
        def grow(v):
            while v.sum() < y.sum():
                v = v * 2
            return v
        return grow(x) + grow(y * 0.5)

class WhileReturnInElse(nn.Cell):
    def construct(self, x, n):
        while n < 5:
            if x.sum() > 3:
                x = x - 1
            else:
                return x * 100
            n = n + 1
        return x

class RecursiveHelper(nn.Cell):
    def fact(self, n):
        if n <= 1:
            return 1
        return n * self.fact(n - 1)
    def construct(self, x):
        return x * self.fact(4)

class MinMaxBuiltins(nn.Cell):
    def construct(self, x, y):
        m = max(x.sum(), y.sum())
        k = min(2, 3)
        if m.sum() > 0:
            return m * k
        return abs(m)

class AugAssignScalarTensor(nn.Cell):
    def construct(self, x):
        s = 0
        for i in range(3):
            s += x[i]
            if s > 3:
                s -= 1
        return s


CASES = [
    ("append_in_tensor_while_len", AppendInTensorWhile, lambda: (T([1.0, 2.0]),)),
    ("loop_var_after_loop", LoopVarAfter, lambda: (T([1.0, 2.0]),)),
    ("celllist_early_return", CellListEarlyReturn, lambda: (T([1.0, -2.0]),)),
    ("celllist_early_return_none", CellListEarlyReturn, lambda: (T([1.0, 2.0]),)),
    ("nested_fn_while_closure", NestedFnWhile, lambda: (T([1.0, 2.0]), T([3.0, 4.0]))),
    ("while_return_in_else", WhileReturnInElse, lambda: (T([1.0, 4.0]), T(0, ms.int32))),
    ("while_return_in_else_exhaust", WhileReturnInElse, lambda: (T([10.0, 40.0]), T(0, ms.int32))),
    ("recursive_helper_python", RecursiveHelper, lambda: (T([1.0, 2.0]),)),
    ("minmax_builtins", MinMaxBuiltins, lambda: (T([1.0, -2.0]), T([0.0, 3.0]))),
    ("aug_assign_scalar_tensor", AugAssignScalarTensor, lambda: (T([1.0, 2.0, 3.0]),)),
]

ERROR_CASES = [
    ("err_return_dtypes_in_while", ReturnDtypes, lambda: (T([1.0, 2.0]),),
     ms.TypeJoinError, TypeError, "return x.astype(ms.int32)"),
    ("err_tuple_grows_in_tensor_while", TupleGrowWhile, lambda: (T([1.0, 2.0]),),
     ms.TypeJoinError, TypeError, "acc = acc + (x,)"),
]
