"""Round 2: compiled models (ms.compile, model(*inputs), infer requests, export/import)
on programs with control flow; ms.explain naming every if/while/for line; print() inside
loops and branches (same order and text as eager mode); assert on tensors."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class GatedLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Tensor(np.array([[0.5, 1.0], [-1.0, 0.25]], np.float32))

    def construct(self, x):
        i = 0
        while x.sum() < 20 and i < 10:
            x = ops.matmul(self.w, x) + 2
            i += 1
        for k in range(3):
            if x.max() > 30:
                x = x / 2
            elif x.min() < 0:
                x = ops.abs(x)
            else:
                x = x + k
        return x


class TwoOutputsBreak(nn.Cell):
    def construct(self, x, y):
        for i in range(5):
            if (x > y).all():
                break
            x = x + 1
        if x.sum() > y.sum():
            return x, y * 2
        return y, x


@ms.jit
def jit_fn_flow(x, n):
    s = x * 0
    i = Tensor(0, ms.int32)
    while i < n:
        if x[0] > 0:
            s = s + x
        else:
            s = s - x
        i = i + 1
    return s


class SubCellsModel(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), nn.Sigmoid(), nn.Tanh()])

    def construct(self, x):
        for layer in self.layers:
            if x.mean() > 0.5:
                x = layer(x) + 1
            else:
                x = layer(x - 1)
        return x


class PrintInLoop(nn.Cell):
    def construct(self, x):
        for i in range(3):
            print("step", i)
            if x.sum() > 3:
                print("big", x)
                x = x - 1
            else:
                print("small")
                x = x * 2
        print("done", x)
        return x


class PrintInWhile(nn.Cell):
    def construct(self, x):
        n = 0
        while x.sum() < 10:
            x = x + 3
            n += 1
            print("iter", n, x.sum())
        return x


class PrintNested(nn.Cell):
    def construct(self, m):
        for row in m:
            for j in range(2):
                if row[j] > 0:
                    print("pos", j, row[j])
                    continue
                print("neg", j)
        return m


class AssertOnTensor(nn.Cell):
    def construct(self, x):
        assert x.shape[0] == 2, "need two"
        for _ in range(2):
            if x.sum() > 0:
                x = x - 1
        assert (x > -10).all(), "too small"
        return x


class ExplainAll(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flag = True

    def construct(self, x, n):
        if self.flag:
            x = x + 1
        for i in range(2):
            if x.sum() > i:
                x = x * 2
        while n > 0:
            n = n - 1
            x = x + 1
        for row in x:
            if row > 10:
                x = x - 1
        return x


COMPILE_CASES = [
    ("r2_compile_gated_loop", GatedLoop, lambda: (arr([1, 2]),)),
    ("r2_compile_two_outputs_break", TwoOutputsBreak, lambda: (arr([1, 5]), arr([3, 2]))),
    ("r2_compile_jit_fn", lambda: jit_fn_flow, lambda: (arr([-1, 2]), Tensor(3, ms.int32))),
    ("r2_compile_subcells", SubCellsModel, lambda: (arr([0.5, 2, -1]),)),
]

CASES = [
    ("r2_gated_loop", GatedLoop, lambda: (arr([1, 2]),)),
    ("r2_two_outputs_break", TwoOutputsBreak, lambda: (arr([1, 5]), arr([3, 2]))),
    ("r2_subcells_model", SubCellsModel, lambda: (arr([0.5, 2, -1]),)),
    ("r2_assert_on_tensor", AssertOnTensor, lambda: (arr([1, 2]),)),
]

PRINT_CASES = [
    ("r2_print_in_loop", PrintInLoop, lambda: (arr([1, 2]),)),
    ("r2_print_in_while", PrintInWhile, lambda: (arr([1, 2]),)),
    ("r2_print_nested", PrintNested, lambda: (arr([[1, -2], [-3, 4]]),)),
]

EXPLAIN_CASES = [
    ("r2_explain_all", ExplainAll, lambda: (arr([1, 2]), Tensor(2, ms.int32))),
    ("r2_explain_gated_loop", GatedLoop, lambda: (arr([1, 2]),)),
    ("r2_explain_jit_fn", lambda: jit_fn_flow, lambda: (arr([-1, 2]), Tensor(3, ms.int32))),
]
