"""Round 2: Python scalars set under tensor conditions and then used as range bounds,
list indices, Python conditions, print arguments and results; (h, c) swaps in a tensor
while; a dict indexed by such a scalar; lists of different lengths across branches."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class RangeBoundFromTensorCond(nn.Cell):
    def construct(self, x):
        k = 1
        if x.sum() > 0:
            k = 3
        for _ in range(k):
            x = x * 2
        return x, k


class FloatAccInWhileIf(nn.Cell):
    def construct(self, x):
        acc = 0.0
        while x.sum() < 10:
            if x[0] > 1:
                acc += 0.5
            x = x + 1
        return x * acc, acc


class ListIndexFromTensorCond(nn.Cell):
    def construct(self, x):
        ws = [x, x * 2, x * 3]
        i = 0
        if x.sum() > 0:
            i = 2
        return ws[i], ws[i - 1]


class PythonIfOnTensorFlag(nn.Cell):
    def construct(self, x):
        big = False
        if x.sum() > 0:
            big = True
        if big:
            return x + 100, big
        return x, big


class PrintCounter(nn.Cell):
    def construct(self, x):
        n = 0
        for i in range(3):
            if x[i] > 0:
                n += 1
        print("n =", n, "of", len(x))
        return x, n


class SwapCarry(nn.Cell):
    def construct(self, h, c):
        while h.sum() < 10:
            h, c = c + 1, h * 2
        return h, c


class DictKeyFromTensorCond(nn.Cell):
    def construct(self, x):
        d = {0: x, 1: -x}
        k = 0
        if x.sum() < 0:
            k = 1
        return d[k]


class BoolOrInt(nn.Cell):
    def construct(self, x):
        k = True
        if x.sum() > 100:
            k = 3
        return k


class IntOrFloat(nn.Cell):
    def construct(self, x):
        k = 1
        if x.sum() > 100:
            k = 2.5
        return k


class IntBecomesFloatInLoop(nn.Cell):
    def construct(self, x):
        s = 0
        while x.sum() < 10:
            s = s + 0.5
            x = x + 1
        return x, s


class BoolAndCounterInLoop(nn.Cell):
    def construct(self, x):
        seen = False
        n = 0
        while x.sum() < 10:
            seen = True
            n += 1
            x = x + 2
        return seen, n


class ListLenDiffers(nn.Cell):
    def construct(self, x):
        out = [x]
        if x.sum() > 0:
            out.append(x * 2)
        return out


CASES = [
    # an append on one path only: a list whose length is known when the graph runs
    ("r2_list_len_differs_in_branches", ListLenDiffers, lambda: (arr([1, 2]),)),
    ("r2_list_len_differs_in_branches_neg", ListLenDiffers, lambda: (arr([-1, -2]),)),
    ("r2_range_bound_from_tensor_cond", RangeBoundFromTensorCond, lambda: (arr([1, 2]),)),
    ("r2_range_bound_from_tensor_cond_neg", RangeBoundFromTensorCond, lambda: (arr([-1, -2]),)),
    ("r2_float_acc_in_while_if", FloatAccInWhileIf, lambda: (arr([0.5, 2]),)),
    ("r2_list_index_from_tensor_cond", ListIndexFromTensorCond, lambda: (arr([1, 2]),)),
    ("r2_list_index_from_tensor_cond_neg", ListIndexFromTensorCond, lambda: (arr([-1, -2]),)),
    ("r2_python_if_on_tensor_flag", PythonIfOnTensorFlag, lambda: (arr([1, 2]),)),
    ("r2_python_if_on_tensor_flag_neg", PythonIfOnTensorFlag, lambda: (arr([-1, -2]),)),
    ("r2_swap_carry", SwapCarry, lambda: (arr([1, 2]), arr([0, 1]))),
    ("r2_dict_key_from_tensor_cond", DictKeyFromTensorCond, lambda: (arr([-1, -2]),)),
    ("r2_int_becomes_float_in_loop", IntBecomesFloatInLoop, lambda: (arr([1, 2]),)),
    ("r2_int_becomes_float_zero_iter", IntBecomesFloatInLoop, lambda: (arr([10, 2]),)),
    ("r2_bool_and_counter_in_loop", BoolAndCounterInLoop, lambda: (arr([1, 2]),)),
    ("r2_bool_and_counter_in_loop_zero", BoolAndCounterInLoop, lambda: (arr([20, 2]),)),
]

PRINT_CASES = [
    ("r2_print_counter", PrintCounter, lambda: (arr([1, -2, 3]),)),
]

ERROR_CASES = [
    ("r2_int_or_float_result", IntOrFloat, lambda: (arr([1, 2]),),
     ms.TypeJoinError, TypeError, "if x.sum() > 100:"),
    # a Python bool on one path and an int on the other: refused like int/float (eager's
    # result type would depend on the path)
    ("r2_bool_or_int_result", BoolOrInt, lambda: (arr([1, 2]),),
     ms.TypeJoinError, TypeError, "if x.sum() > 100:"),
]
