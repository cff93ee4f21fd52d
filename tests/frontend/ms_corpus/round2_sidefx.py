"""Round 2: prints and asserts nested in variable control flow, closures and lambdas made
in loops, sub-Cells with their own Loops called from a Loop, jit functions called in a
tensor loop, jit_class objects held by a Cell, walrus conditions, small-dtype wrap-around,
bool masks as conditions, chained comparisons."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class PrintNestedIfs(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            print("outer")
            if x[0] > 1:
                print("inner", x[0])
            else:
                print("inner-else")
        print("end")
        return x


class PrintForOverTensor(nn.Cell):
    def construct(self, m):
        for row in m:
            print("row", row)
            if row.sum() > 2:
                print("big row")
                break
        return m


class PrintFString(nn.Cell):
    def construct(self, x):
        for i in range(2):
            print(f"i={i} shape={x.shape} dtype={x.dtype}")
            x = x * 2
        return x


class AssertInWhile(nn.Cell):
    def construct(self, x):
        while x.sum() < 20:
            assert x.sum() < 1000, "diverged"
            x = x * 2
        return x


class LambdasMadeInLoop(nn.Cell):
    def construct(self, x):
        fs = [lambda t, k=k: t * k if t.sum() > k else t + k for k in range(3)]
        for f in fs:
            x = f(x)
        return x


class ClosureInWhileBody(nn.Cell):
    def construct(self, x):
        i = 0
        while x.sum() < 30:
            def g(t):
                return t + i
            x = g(x) * 2
            i += 1
        return x


class InnerLoopCell(nn.Cell):
    def construct(self, x):
        while x.max() < 5:
            x = x + 1
        return x


class SubCellLoopInLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = InnerLoopCell()

    def construct(self, x):
        n = Tensor(0, ms.int32)
        while n < 3:
            x = self.inner(x) - 4
            n = n + 1
        return x


@ms.jit
def jit_step(x):
    if x.sum() > 0:
        return x - 1
    return x + 2


class JitInTensorLoop(nn.Cell):
    def construct(self, x):
        while x.max() > 2:
            x = jit_step(x)
        return x


@ms.jit_class
class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        for _ in range(2):
            if x.sum() > self.k:
                x = x / self.k
        return x


class HoldsJitClass(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scaler = Scaler(2.0)

    def construct(self, x):
        i = 0
        while x.sum() > 1 and i < 4:
            x = self.scaler.apply(x) - 0.5
            i += 1
        return x


class WalrusWhile(nn.Cell):
    def construct(self, x):
        while (s := x.sum()) < 10:
            x = x + s
        return x, s


class Uint8Wrap(nn.Cell):
    def construct(self, x):
        if x.min() < 10:
            x = x - 10
        else:
            x = x + 250
        return x


class BoolMaskConditions(nn.Cell):
    def construct(self, x):
        mask = x > 0
        if not mask.any():
            return x * 0, mask
        if (~mask).any():
            x = ops.where(mask, x, -x)
        return x, mask


class ChainedCompare(nn.Cell):
    def construct(self, x):
        if 0 < x.sum() < 5:
            x = x * 2
        elif x.sum() >= 5:
            x = x - 5
        return x


class SingleElementCond(nn.Cell):
    def construct(self, x):
        if x:
            x = x + 1
        while x < 5:
            x = x * 2
        return x


class MethodRecursion(nn.Cell):
    def halve(self, x, depth):
        if depth == 0:
            return x
        if x.sum() > 4:
            x = x / 2
        return self.halve(x, depth - 1)

    def construct(self, x):
        return self.halve(x, 3)


class IntDivNegScalar(nn.Cell):
    def construct(self, x):
        a = x // -2
        b = x % -2
        if (a > b).any():
            a = a - b
        return a, b


CASES = [
    ("r2_assert_in_while", AssertInWhile, lambda: (arr([1, 2]),)),
    ("r2_lambdas_made_in_loop", LambdasMadeInLoop, lambda: (arr([1, 2]),)),
    ("r2_closure_in_while_body", ClosureInWhileBody, lambda: (arr([1, 2]),)),
    ("r2_subcell_loop_in_loop", SubCellLoopInLoop, lambda: (arr([1, 2]),)),
    ("r2_jit_in_tensor_loop", JitInTensorLoop, lambda: (arr([4, 6]),)),
    ("r2_holds_jit_class", HoldsJitClass, lambda: (arr([3, 6]),)),
    ("r2_walrus_while", WalrusWhile, lambda: (arr([1, 2]),)),
    ("r2_uint8_wrap", Uint8Wrap, lambda: (arr([5, 100], np.uint8),)),
    ("r2_uint8_wrap_up", Uint8Wrap, lambda: (arr([50, 100], np.uint8),)),
    ("r2_bool_mask_conditions", BoolMaskConditions, lambda: (arr([1, -2]),)),
    ("r2_chained_compare", ChainedCompare, lambda: (arr([1, 2]),)),
    ("r2_chained_compare_big", ChainedCompare, lambda: (arr([4, 2]),)),
    ("r2_single_element_cond", SingleElementCond, lambda: (arr([0.5]),)),
    ("r2_method_recursion", MethodRecursion, lambda: (arr([8, 6]),)),
    ("r2_int_div_neg_scalar", IntDivNegScalar, lambda: (arr([-7, 7, 3, -4], np.int32),)),
]

PRINT_CASES = [
    ("r2_print_nested_ifs", PrintNestedIfs, lambda: (arr([2, 1]),)),
    ("r2_print_nested_ifs_else", PrintNestedIfs, lambda: (arr([0.5, 1]),)),
    ("r2_print_for_over_tensor", PrintForOverTensor, lambda: (arr([[1, 0.5], [2, 1], [5, 5]]),)),
    ("r2_print_fstring", PrintFString, lambda: (arr([1, 2]),)),
]


EXPLAIN_CASES = [
    ("r2_explain_subcell_loop_in_loop", SubCellLoopInLoop, lambda: (arr([1, 2]),),
     (InnerLoopCell.construct,)),
    ("r2_explain_jit_in_tensor_loop", JitInTensorLoop, lambda: (arr([4, 6]),), (jit_step,)),
    ("r2_explain_jit_class", HoldsJitClass, lambda: (arr([3, 6]),), (Scaler.apply,)),
    ("r2_explain_method_recursion", MethodRecursion, lambda: (arr([8, 6]),), (MethodRecursion.halve,)),
    ("r2_explain_walrus", WalrusWhile, lambda: (arr([1, 2]),)),
]
