"""Round 2: loops — zip of a CellList and a tuple, enumerate of a tensor, reversed and
sorted lists, negative range steps, while True with a tensor break, break/continue three
levels deep, return from a for over a tensor, lists appended in nested tensor loops and
stacked, loop-carried (h, c), Python counters and float accumulators in tensor loops."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def f32(*xs):
    return Tensor(np.asarray(xs, np.float32))


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        if x.sum() > 0:
            return x * self.k
        return x - self.k


class ZipCellListTuple(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cells = nn.CellList([Scale(2.0), Scale(0.5), Scale(3.0)])
        self.offsets = (1.0, -4.0, 2.0)

    def construct(self, x):
        for cell, off in zip(self.cells, self.offsets):
            x = cell(x) + off
        return x


class EnumerateTensor(nn.Cell):
    def construct(self, m):
        acc = ops.zeros_like(m[0])
        for i, row in enumerate(m):
            if row.sum() > 0:
                acc = acc + row * i
            else:
                acc = acc - row
        return acc


class ReversedSorted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ws = [3.0, 1.0, 2.0]

    def construct(self, x):
        for w in reversed(self.ws):
            if x.sum() > w:
                x = x - w
        for w in sorted(self.ws):
            x = x * w if x.max() < 5 else x
        return x


class NegativeRange(nn.Cell):
    def construct(self, x):
        out = x
        for i in range(5, -1, -2):
            if out.sum() > i:
                out = out - i
            else:
                out = out + x[i % 2]
        return out


class WhileTrueBreak(nn.Cell):
    def construct(self, x):
        n = 0
        while True:
            x = x * 2
            n = n + 1
            if x.sum() > 50:
                break
        return x, n


class ThreeLevelBreakContinue(nn.Cell):
    def construct(self, x):
        for i in range(3):
            for j in range(3):
                if j == 1 and x.sum() > 100:
                    continue
                k = 0
                while k < 3:
                    k += 1
                    if x.max() > 40:
                        break
                    if k == 2:
                        continue
                    x = x + 1
                if x.min() > 30:
                    break
            x = x * 2
        return x


class ReturnFromTensorFor(nn.Cell):
    def construct(self, m):
        for row in m:
            if row.max() > 5:
                return row * 10
        return m[0]


class StackNestedLists(nn.Cell):
    def construct(self, x):
        rows = []
        for i in range(3):
            cols = []
            for j in range(2):
                if x[i, j] > 0:
                    cols.append(x[i, j] * 2)
                else:
                    cols.append(-x[i, j])
            rows.append(ops.stack(cols))
        return ops.stack(rows)


class LSTMLikeStep(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Tensor(np.array([[0.5, -0.2], [0.1, 0.3]], np.float32))

    def construct(self, xs):
        h = ops.zeros((2,), ms.float32)
        c = ops.zeros((2,), ms.float32)
        state = (h, c)
        for t in range(xs.shape[0]):
            h, c = state
            g = ops.tanh(ops.matmul(self.w, xs[t]) + h)
            c = c * 0.9 + g
            if c.sum() > 1.0:
                c = c * 0.5
            h = ops.sigmoid(c)
            state = (h, c)
        return state


class CountersInTensorLoop(nn.Cell):
    def construct(self, x):
        count = 0
        acc = 0.0
        i = Tensor(0, ms.int32)
        while i < 5:
            x = x + 1
            count += 1
            acc += 0.5
            i = i + 1
        return x, count, acc


class WhileTensorCounterForCount(nn.Cell):
    def construct(self, x):
        steps = 0
        for _ in range(6):
            if x.sum() < 10:
                x = x * 2
                steps = steps + 1
        return x, steps


class ForRangeShape(nn.Cell):
    def construct(self, x):
        total = x[0] * 0
        for i in range(x.shape[0] - 1, -1, -1):
            if x[i].sum() > total.sum():
                total = total + x[i]
        return total


class WhileElseBreak(nn.Cell):
    def construct(self, x):
        i = 0
        while i < 4:
            if x.sum() > 20:
                break
            x = x + 3
            i += 1
        else:
            x = -x
        return x


class ZipEnumerate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ks = [1, 2, 3]

    def construct(self, a, b):
        out = a * 0
        for i, (k, t) in enumerate(zip(self.ks, (a, b, a + b))):
            if t.max() > k:
                out = out + t * i
        return out


class LoopOverDictItems(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = {"a": 1.0, "b": -2.0, "c": 0.5}

    def construct(self, x):
        for name, v in self.table.items():
            if name != "b" and x.sum() > v:
                x = x * v
            else:
                x = x + v
        return x


class NestedTensorWhile(nn.Cell):
    def construct(self, x, n):
        i = Tensor(0, ms.int32)
        res = x * 0
        while i < n:
            j = Tensor(0, ms.int32)
            while j < i:
                res = res + x
                j = j + 1
            i = i + 1
        return res


class AppendInTensorWhile(nn.Cell):
    def construct(self, x):
        outs = []
        for i in range(4):
            y = x
            while y.sum() < 8 + i:
                y = y * 2
            outs.append(y)
        return ops.stack(outs), len(outs)


CASES = [
    ("r2_zip_celllist_tuple", ZipCellListTuple, lambda: (f32(1, -0.5),)),
    ("r2_enumerate_tensor", EnumerateTensor, lambda: (arr([[1, 2], [-3, 1], [4, 0]]),)),
    ("r2_reversed_sorted", ReversedSorted, lambda: (f32(2, 3),)),
    ("r2_negative_range", NegativeRange, lambda: (f32(1, 2),)),
    ("r2_while_true_break", WhileTrueBreak, lambda: (f32(1, 2),)),
    ("r2_three_level_break_continue", ThreeLevelBreakContinue, lambda: (f32(1, 2),)),
    ("r2_return_from_tensor_for", ReturnFromTensorFor, lambda: (arr([[1, 2], [3, 7], [9, 9]]),)),
    ("r2_return_from_tensor_for_none", ReturnFromTensorFor, lambda: (arr([[1, 2], [3, 4]]),)),
    ("r2_stack_nested_lists", StackNestedLists, lambda: (arr([[1, -2], [0, 3], [-1, 5]]),)),
    ("r2_lstm_like_step", LSTMLikeStep, lambda: (arr([[1, 0], [0.5, 2], [-1, 1]]),)),
    ("r2_counters_in_tensor_loop", CountersInTensorLoop, lambda: (f32(1, 2),)),
    ("r2_counter_under_tensor_if", WhileTensorCounterForCount, lambda: (f32(1, 0.5),)),
    ("r2_for_range_shape_reverse", ForRangeShape, lambda: (arr([[1, 2], [-3, 1], [4, 0]]),)),
    ("r2_while_else_break", WhileElseBreak, lambda: (f32(1, 2),)),
    ("r2_while_else_nobreak", WhileElseBreak, lambda: (f32(-10, 0),)),
    ("r2_zip_enumerate", ZipEnumerate, lambda: (f32(1, 2), f32(3, 0))),
    ("r2_loop_dict_items", LoopOverDictItems, lambda: (f32(1, 2),)),
    ("r2_nested_tensor_while", NestedTensorWhile, lambda: (f32(1, 2), Tensor(4, ms.int32))),
    ("r2_append_in_tensor_while", AppendInTensorWhile, lambda: (f32(1, 0.5),)),
]
