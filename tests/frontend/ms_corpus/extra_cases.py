"""Further corners: tensor-indexed item assignment in loops, boolean masks,
@ms.jit on methods and classes, lists built in tensor loops."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class SetItemTensorIndex(nn.Cell):
    def construct(self, x, i):
        while i < 3:
            if x[i] < 0:
                x[i] = -x[i]
            i = i + 1
        return x


class MaskAssign(nn.Cell):
    def construct(self, x):
        for _ in range(2):
            if (x < 0).any():
                x[x < 0] = 0
            x = x - 1
        return x


class ReturnFromRowsInWhile(nn.Cell):
    def construct(self, x, t):
        while t < 3:
            for row in x:
                if row.sum() > t * 3:
                    return row, t
            t = t + 1
        return x[0], t


class ContinueNestedForInWhile(nn.Cell):
    def construct(self, x, t):
        while t > 0:
            for j in range(3):
                if j == 1:
                    continue
                if x[j] > 5:
                    continue
                x[j] = x[j] + t
            t = t - 1
        return x


class JitMethod(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 3

    @ms.jit
    def construct(self, x):
        while x.sum() < 20:
            x = x * self.k
        return x


@ms.jit
class JitClassCell(nn.Cell):
    def construct(self, x):
        out = x
        for i in range(3):
            if out.max() > 4:
                out = out - i
            else:
                out = out + i * 2
        return out


class SelectScalarCond(nn.Cell):
    def __init__(self):
        super().__init__()
        self.select = P.Select()
        self.less = P.Less()
        self.add = P.Add()

    def construct(self, x, y):
        i = 0
        while i < 3:
            m = self.less(x, y)
            x = self.select(m, self.add(x, 1.0), x)
            i += 1
        return x


class AppendInConstWhileStack(nn.Cell):
    def construct(self, x):
        outs = []
        i = 0
        while i < 3:
            if x.sum() > i:
                x = x - 1
            outs.append(x)
            i += 1
        return ops.stack(outs), P.Concat(1)(outs)


class SoftmaxTemperatureLoop(nn.Cell):
    def construct(self, logits, temp):
        p = ops.softmax(logits / temp, -1)
        while p.max() > 0.6:
            temp = temp * 2
            p = ops.softmax(logits / temp, -1)
        return p, temp


class ExpandConcatInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.expand = P.ExpandDims()
        self.concat = P.Concat(axis=0)

    def construct(self, a, b):
        a2 = self.expand(a, 0)
        b2 = self.expand(b, 0)
        if a.sum() > b.sum():
            out = self.concat((a2, b2))
        else:
            out = self.concat((b2, a2))
        return out


class Int64Float32Mix(nn.Cell):
    def construct(self, x, y):
        # x int64 tensor, y float32 tensor
        out = x * y
        if out.sum() > 0:
            out = out + x
        else:
            out = out - 1
        return out, x + 1, x * 1.0


CASES = [
    ("setitem_tensor_index_while", SetItemTensorIndex, lambda: (T([-1.0, 2.0, -3.0], ms.float32), T(0, ms.int32))),
    ("mask_assign", MaskAssign, lambda: (T([-1.0, 2.0, 0.5], ms.float32),)),
    ("return_from_rows_in_while", ReturnFromRowsInWhile,
     lambda: (T([[1.0, 1.0], [2.0, 3.0]], ms.float32), T(0, ms.int32))),
    ("return_from_rows_in_while_miss", ReturnFromRowsInWhile,
     lambda: (T([[0.0, 0.0], [0.0, 1.0]], ms.float32), T(0, ms.int32))),
    ("continue_nested_for_in_while", ContinueNestedForInWhile,
     lambda: (T([1, 2, 5], ms.int32), T(3, ms.int32))),
    ("jit_method", JitMethod, lambda: (T([1.0, 2.0], ms.float32),)),
    ("select_scalar_cond", SelectScalarCond, lambda: (T([0.0, 5.0], ms.float32), T([2.0, 2.0], ms.float32))),
    ("append_in_const_while_stack", AppendInConstWhileStack, lambda: (T([[1.0, 1.0]], ms.float32),)),
    ("softmax_temperature_loop", SoftmaxTemperatureLoop,
     lambda: (T([1.0, 3.0, 0.0], ms.float32), T(1.0, ms.float32))),
    ("expand_concat_in_if", ExpandConcatInIf, lambda: (T([1.0, 2.0], ms.float32), T([0.0, 5.0], ms.float32))),
    ("int64_float32_mix", Int64Float32Mix, lambda: (T(np.array([1, 2], np.int64)), T([0.5, -3.0], ms.float32))),
]
