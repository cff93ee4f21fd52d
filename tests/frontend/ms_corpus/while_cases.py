"""while on tensor conditions and Python counters; break/continue/return nesting."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class IfInWhileConst(nn.Cell):
    """Tutorial: while on a Python counter."""
    def construct(self, x, y):
        i = 0
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + 1
            i = i + 1
        return out


class IfInWhileVar(nn.Cell):
    """Tutorial: while on a tensor counter."""
    def construct(self, x, y, i):
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + 1
            i = i + 1
        return out


class WhileBreak(nn.Cell):
    def construct(self, x, n):
        while x.sum() < n:
            x = x * 2
            if x.max() > 20:
                break
            x = x + 1
        return x


class WhileContinue(nn.Cell):
    def construct(self, i, x):
        acc = ops.zeros_like(x)
        while i < 6:
            i = i + 1
            if i % 2 == 0:
                continue
            acc = acc + x * i
        return acc, i


class ReturnInWhileInIf(nn.Cell):
    def construct(self, x, y):
        if x.sum() > 0:
            while x.sum() < 100:
                x = x * 3
                if x.max() > y:
                    return x - y
            x = x + 1
        return x


class WhileInWhile(nn.Cell):
    def construct(self, a, b):
        out = a * 0
        while a < 3:
            j = b
            while j < 3:
                out = out + a * j
                j = j + 1
            a = a + 1
        return out


class WhileTrueBreak(nn.Cell):
    def construct(self, x):
        while True:
            x = x - 1.5
            if x.min() < 0:
                break
        return x


class WhileWithScalarCounter(nn.Cell):
    """A Python counter carried by a tensor-conditioned while (MindSpore would
    refuse; graphjit may run it or refuse with a documented error)."""
    def construct(self, x):
        n = 0
        while x.sum() < 50:
            x = x + x
            n = n + 1
        return x, n


class WhileMatMulParam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([[1.0, 0.5], [0.0, 1.0]], np.float32)), name="w")
        self.matmul = P.MatMul()

    def construct(self, x, steps):
        i = 0
        while i < steps:
            x = self.matmul(x, self.w)
            i += 1
        return x


class WhileTensorStepsParam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.5], np.float32)), name="w")

    def construct(self, x, steps):
        i = Tensor(0, ms.int32)
        while i < steps:
            x = x * self.w
            i += 1
        return x


class WhileAllCond(nn.Cell):
    def construct(self, x):
        while (x < 10).all():
            x = x + x
        return x


class WhileAnyCond(nn.Cell):
    def construct(self, x):
        while (x > 1).any():
            x = x / 2
        return x


class WhileElifChain(nn.Cell):
    """MindSpore's while-with-elif test pattern on an int tensor."""
    def construct(self, x, y):
        while x < y:
            if x * 2 > y:
                x = x + 3
            elif x > 2:
                x = x + 2
            else:
                x = x + 1
        return x


class WhileWithItemAssign(nn.Cell):
    def construct(self, x):
        while x[2] < 4:
            x[2] -= 1
            if x[0] > 2:
                return x
            elif x[1] > 2:
                x[2] += 1
            elif x[2] > 2:
                x[1] += 1
            else:
                x = x * x
        return x


class WhileBreakInNestedFor(nn.Cell):
    def construct(self, x):
        out = x
        while out.sum() < 30:
            for i in range(3):
                if out[i] > 8:
                    break
                out[i] = out[i] + 2
            out = out + 1
        return out


class WhileFloat16(nn.Cell):
    def construct(self, x, lim):
        while x.sum() < lim:
            x = x * 1.5 + 1
        return x


class WhileReturnTuple(nn.Cell):
    def construct(self, x, y):
        while x < y:
            x = x + 2
            if x == 5:
                return x, y, x * y
        return x, y, x + y


class ForInWhile(nn.Cell):
    def construct(self, x, t):
        while t > 0:
            for k in (1, 2):
                x = x * k
            t = t - 1
        return x


class WhileInFor(nn.Cell):
    def construct(self, x):
        for k in range(3):
            while x.sum() < 10 * (k + 1):
                x = x + 1
            x = x - k
        return x


class WhileNoIterations(nn.Cell):
    def construct(self, x, y):
        while x > y:
            x = x - 1
            y = y * 2
        return x + y


class WhileConstPythonBreak(nn.Cell):
    def construct(self, x):
        i = 0
        while i < 10:
            i += 1
            if i > 3:
                break
            x = x + i
        return x, i


CASES = [
    ("if_in_while_const_tutorial", IfInWhileConst, lambda: (T(0, ms.int32), T(1, ms.int32))),
    ("if_in_while_var_tutorial", IfInWhileVar, lambda: (T(0, ms.int32), T(1, ms.int32), T(0, ms.int32))),
    ("while_break", WhileBreak, lambda: (T([1.0, 3.0], ms.float32), T(100.0, ms.float32))),
    ("while_continue", WhileContinue, lambda: (T(0, ms.int32), T([1.0, 2.0], ms.float32))),
    ("return_in_while_in_if", ReturnInWhileInIf, lambda: (T([1.0, 2.0], ms.float32), T(10.0, ms.float32))),
    ("return_in_while_in_if_neg", ReturnInWhileInIf, lambda: (T([-1.0, 0.0], ms.float32), T(10.0, ms.float32))),
    ("return_in_while_in_if_exhaust", ReturnInWhileInIf, lambda: (T([1.0, 2.0], ms.float32), T(1000.0, ms.float32))),
    ("while_in_while", WhileInWhile, lambda: (T(0, ms.int32), T(1, ms.int32))),
    ("while_true_break", WhileTrueBreak, lambda: (T([4.0, 2.0], ms.float32),)),
    ("while_scalar_counter", WhileWithScalarCounter, lambda: (T([1.0, 2.0], ms.float32),)),
    ("while_matmul_param_python_steps", WhileMatMulParam, lambda: (T([[1.0, 2.0]], ms.float32), 3)),
    ("while_tensor_steps_param", WhileTensorStepsParam, lambda: (T([2.0], ms.float32), T(3, ms.int32))),
    ("while_all_cond", WhileAllCond, lambda: (T([1, 3], ms.int32),)),
    ("while_any_cond", WhileAnyCond, lambda: (T([1.0, 7.0], ms.float32),)),
    ("while_elif_chain", WhileElifChain, lambda: (T(0, ms.int32), T(11, ms.int32))),
    ("while_item_assign_ms_test", WhileWithItemAssign, lambda: (T([1, 2, 3], ms.int32),)),
    ("while_item_assign_ms_test_return", WhileWithItemAssign, lambda: (T([3, 2, 3], ms.int32),)),
    ("while_break_in_nested_for", WhileBreakInNestedFor, lambda: (T([1.0, 7.0, 2.0], ms.float32),)),
    ("while_float16", WhileFloat16, lambda: (T([1.0, 2.0], ms.float16), T(40.0, ms.float16))),
    ("while_return_tuple_hit", WhileReturnTuple, lambda: (T(1, ms.int32), T(9, ms.int32))),
    ("while_return_tuple_miss", WhileReturnTuple, lambda: (T(2, ms.int32), T(9, ms.int32))),
    ("for_in_while", ForInWhile, lambda: (T([1.0, 2.0], ms.float32), T(3, ms.int32))),
    ("while_in_for", WhileInFor, lambda: (T([1, 2], ms.int32),)),
    ("while_no_iterations", WhileNoIterations, lambda: (T(1.0, ms.float32), T(2.0, ms.float32))),
    ("while_const_python_break", WhileConstPythonBreak, lambda: (T([1, 1], ms.int32),)),
]
