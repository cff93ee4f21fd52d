"""Harder corners: loop else clauses, tensor loop bounds, carried flags and
counters of several dtypes, chained comparisons, defaults and *args, scalars
read by index inside tensor loops."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class ScalarIndexInTensorWhile(nn.Cell):
    """The tutorial's Constraint-1 program (MindSpore raises IndexError there)."""
    def __init__(self):
        super().__init__()
        self.nums = [1, 2, 3]

    def construct(self, x, y, i):
        j = 0
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + self.nums[j]
            i = i + 1
            j = j + 1
        return out


class ForElse(nn.Cell):
    def construct(self, x):
        for i in range(3):
            if (x > 10).any():
                break
            x = x * 3
        else:
            x = x - 100
        return x


class WhileElse(nn.Cell):
    def construct(self, x, n):
        while n > 0:
            n = n - 1
            if x.sum() > 50:
                break
            x = x * 2
        else:
            x = -x
        return x, n


class RangeTensorBound(nn.Cell):
    def construct(self, x, n):
        for i in range(n):
            x = x + i
        return x


class CarriedFlags(nn.Cell):
    def construct(self, x):
        done = x < 0
        steps = Tensor(0, ms.int32)
        total = Tensor(0.0, ms.float32)
        while not done.all():
            x = x - 1.0
            done = done | (x < 0)
            steps = steps + 1
            total = total + x.sum()
        return done, steps, total


class ChainedCompare(nn.Cell):
    def construct(self, x):
        if 0 < x < 5:
            out = x * 2
        elif 5 <= x < 10:
            out = x - 5
        else:
            out = x * 0
        return out


class DefaultArgs(nn.Cell):
    def construct(self, x, scale=2, shift=None):
        out = x * scale
        if shift is not None:
            out = out + shift
        if out.sum() > 5:
            out = out - scale
        return out


class StarArgs(nn.Cell):
    def construct(self, *inputs):
        out = inputs[0]
        for t in inputs[1:]:
            if t.sum() > out.sum():
                out = t
        return out, len(inputs)


class TensorIndexByCounter(nn.Cell):
    def construct(self, x, i):
        acc = x[0] * 0
        while i < 4:
            acc = acc + x[i]
            i = i + 1
        return acc


class NestedReturnNoElse(nn.Cell):
    def construct(self, x, y):
        for i in range(3):
            if x.sum() > i:
                while y < 10:
                    y = y + 3
                    if y > 7:
                        return x * y, i
            x = x - 1
        return x, -1


class FloorModNegatives(nn.Cell):
    def construct(self, x):
        if x.min() < 0:
            a = x // 3
            b = x % 3
        else:
            a = x // 2
            b = x % 2
        return a, b, x / 4


class Float16Accumulate(nn.Cell):
    def construct(self, x):
        acc = ops.zeros_like(x)
        for i in range(4):
            acc = acc + x * 0.1 + i
            if acc.max() > 3:
                acc = acc * 0.5
        return acc


class BreakContinueSameLoop(nn.Cell):
    def construct(self, x):
        i = Tensor(0, ms.int32)
        while i < 10:
            i += 1
            if i % 3 == 0:
                continue
            if x.sum() > 40:
                break
            x = x + i
        return x, i


class TupleReturnSwap(nn.Cell):
    def construct(self, a, b):
        n = Tensor(0, ms.int32)
        while n < 3:
            a, b = b, a + b
            n += 1
        return a, b


class WhereScalarArgs(nn.Cell):
    def construct(self, x):
        for _ in range(2):
            x = ops.where(x > 1, x - 1.0, 0.0)
        return x


class NotTensor(nn.Cell):
    def construct(self, x):
        if not x:
            return x + 10
        return x - 10


class IfShapeDynamic(nn.Cell):
    def construct(self, x):
        k = x.shape[-1]
        out = x
        for i in range(k):
            if out[..., i].sum() > 0:
                out = out + 1
        return out


class LayerLoopWithIndex(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])

    def construct(self, x):
        for i, layer in enumerate(self.layers):
            if i == 1:
                continue
            y = layer(x)
            if y.sum() > 0:
                x = y
        return x


class ReturnDifferentStructure(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            return x, x
        return x + 1, x - 1


class ScalarInTensorIfInLoop(nn.Cell):
    def construct(self, x):
        count = 0
        for row in x:
            if row.sum() > 0:
                count = count + 1
        return count


CASES = [
    ("scalar_index_in_tensor_while", ScalarIndexInTensorWhile,
     lambda: (T(0, ms.int32), T(1, ms.int32), T(0, ms.int32))),
    ("for_else_break", ForElse, lambda: (T([1.0, 4.0]),)),
    ("for_else_no_break", ForElse, lambda: (T([0.1, 0.2]),)),
    ("while_else_break", WhileElse, lambda: (T([10.0, 20.0]), T(5, ms.int32))),
    ("while_else_exhaust", WhileElse, lambda: (T([1.0, 1.0]), T(2, ms.int32))),
    ("range_tensor_bound", RangeTensorBound, lambda: (T([1.0, 2.0]), T(4, ms.int32))),
    ("carried_flags_dtypes", CarriedFlags, lambda: (T([0.5, 2.5, -1.0], ms.float32),)),
    ("chained_compare", ChainedCompare, lambda: (T(3.0),)),
    ("chained_compare_mid", ChainedCompare, lambda: (T(7, ms.int32),)),
    ("default_args", DefaultArgs, lambda: (T([1.0, 2.0]),)),
    ("default_args_given", DefaultArgs, lambda: (T([1, 2], ms.int32), 3, T([1, 1], ms.int32))),
    ("star_args", StarArgs, lambda: (T([1.0]), T([5.0]), T([2.0]))),
    ("tensor_index_by_counter", TensorIndexByCounter,
     lambda: (T(np.arange(8).reshape(4, 2), ms.float32), T(1, ms.int32))),
    ("nested_return_no_else", NestedReturnNoElse, lambda: (T([1.0, 2.0]), T(2, ms.int32))),
    ("nested_return_no_else_miss", NestedReturnNoElse, lambda: (T([-5.0, 2.0]), T(2, ms.int32))),
    ("floor_mod_negatives", FloorModNegatives, lambda: (T([-7, 5, -1], ms.int32),)),
    ("floor_mod_positive", FloorModNegatives, lambda: (T([7, 5, 1], ms.int32),)),
    ("float16_accumulate", Float16Accumulate, lambda: (T([1.0, 2.0], ms.float16),)),
    ("break_continue_same_loop", BreakContinueSameLoop, lambda: (T([1.0, 2.0]),)),
    ("tuple_return_swap_fib", TupleReturnSwap, lambda: (T(1, ms.int32), T(1, ms.int32))),
    ("where_scalar_args", WhereScalarArgs, lambda: (T([0.5, 3.0, 1.5]),)),
    ("not_tensor", NotTensor, lambda: (T(0.0),)),
    ("not_tensor_true", NotTensor, lambda: (T(True, ms.bool_),)),
    ("if_shape_last_dim_loop", IfShapeDynamic, lambda: (T([[1.0, -2.0, 3.0]]),)),
    ("celllist_enumerate_continue", LayerLoopWithIndex, lambda: (T([-1.0, 2.0]),)),
    ("return_same_structure_tuple", ReturnDifferentStructure, lambda: (T([1.0]),)),
    ("scalar_count_in_tensor_if_loop", ScalarInTensorIfInLoop,
     lambda: (T([[1.0, -2.0], [3.0, 1.0], [-1.0, 0.0]]),)),
]
