"""Round 2: dynamic shapes (set_inputs with None dims, x.shape[0] in conditions and in
range()), int8/uint8/float16/float64 tensors, mixed-dtype comparisons, floor division and
modulo of negative numbers, bool tensors as conditions, where/select/clamp/maximum in
branches, Tensor methods in loops."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class DynShapeCond(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))

    def construct(self, x):
        if x.shape[0] > 2:
            y = x[:2].sum(axis=0)
        else:
            y = x.sum(axis=0) * 2
        for i in range(x.shape[0]):
            if x[i].sum() > 0:
                y = y + x[i]
        return y


class DynShapeWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None], dtype=ms.float32))

    def construct(self, x):
        n = x.shape[0]
        i = 0
        s = x[0] * 0
        while i < n:
            s = s + x[i] * i
            i += 1
        return s, n


class Int8Loop(nn.Cell):
    def construct(self, x):
        for _ in range(3):
            if x.sum() > 0:
                x = x - 3
            else:
                x = x + 1
        return x, x.sum(), x.max()


class Uint8Cond(nn.Cell):
    def construct(self, x):
        if x.max() > 200:
            y = x // 2
        else:
            y = x * 2
        return y, y.mean()


class Float16Accum(nn.Cell):
    def construct(self, x):
        acc = x * 0
        i = 0
        while acc.sum() < 10:
            acc = acc + x
            i += 1
        return acc, i


class Float64Branch(nn.Cell):
    def construct(self, x, y):
        if x.sum() > y.sum():
            return x * y + 1.5
        return x - y


class MixedDtypeCompare(nn.Cell):
    def construct(self, a, b):
        # int32 against float32, int64 against a Python float
        if (a > b).all():
            r = a + b
        else:
            r = b - a
        c = a.sum() > 2.5
        return r, c, a < 3


class FloorDivModNegative(nn.Cell):
    def construct(self, x, y):
        q = x // y
        r = x % y
        if (r < 0).any():
            r = r + 100
        return q, r, x // 3, x % -3, -7 // 2, -7 % 2


class BoolTensorCondition(nn.Cell):
    def construct(self, flag, x):
        if flag:
            x = x + 1
        while flag:
            x = x * 2
            flag = x.sum() < 20
        return x


class WhereSelectInBranches(nn.Cell):
    def construct(self, x, y):
        if x.mean() > 0:
            z = ops.where(x > y, x, y)
        else:
            z = ops.select(x < y, x, y)
        z = ops.clamp(z, -1.0, 2.0)
        if z.sum() > 0:
            z = ops.maximum(z, y)
        else:
            z = ops.minimum(z, y)
        return z


class TensorMethodsInLoop(nn.Cell):
    def construct(self, x):
        for _ in range(2):
            if x.sum() > 0:
                x = x.transpose().reshape(3, 2) * 2
            else:
                x = x.reshape(3, 2)
            m = x.max(axis=0)
            x = x - m.expand_dims(0)
            x = x.squeeze() if x.shape[0] == 1 else x
        idx = x.argmax(axis=1)
        return x, idx, x.min(), x.mean(axis=1), x.astype(ms.int32)


class AstypeInWhile(nn.Cell):
    def construct(self, x):
        y = x.astype(ms.float32)
        while y.sum() < 100:
            y = (y * 3).astype(ms.int32).astype(ms.float32)
        return y, y.astype(ms.int8)


class IntTensorDivision(nn.Cell):
    def construct(self, a, b):
        q = a / b
        if q.sum() > 1:
            q = q * 2
        return q, (a // b).dtype == a.dtype


class ShapeDimInRangeDyn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32))

    def construct(self, x):
        outs = []
        for i in range(x.shape[0] - 1, -1, -1):
            if x[i, 0] > x[i, 1]:
                outs.append(x[i, 0])
            else:
                outs.append(x[i, 1])
        return ops.stack(outs)


CASES = [
    ("r2_dyn_shape_cond", DynShapeCond, lambda: (arr([[1, 2, 3], [-4, 0, 1], [2, 2, 2], [0, -1, 0]]),)),
    ("r2_dyn_shape_cond_small", DynShapeCond, lambda: (arr([[1, 2, 3], [-4, 0, 1]]),)),
    ("r2_dyn_shape_while", DynShapeWhile, lambda: (arr([1, 2, 3, 4]),)),
    ("r2_int8_loop", Int8Loop, lambda: (arr([5, -2, 7], np.int8),)),
    ("r2_uint8_cond", Uint8Cond, lambda: (arr([250, 3, 100], np.uint8),)),
    ("r2_uint8_cond_small", Uint8Cond, lambda: (arr([25, 3, 100], np.uint8),)),
    ("r2_float16_accum", Float16Accum, lambda: (arr([0.7, 1.3], np.float16),)),
    ("r2_float64_branch", Float64Branch, lambda: (arr([1, 2], np.float64), arr([0.5, 0.25], np.float64))),
    ("r2_mixed_dtype_compare", MixedDtypeCompare, lambda: (arr([1, 5], np.int32), arr([0.5, 2.5]))),
    ("r2_floordiv_mod_negative", FloorDivModNegative, lambda: (arr([-7, 7, -8, 5], np.int32), arr([2, -3, -3, 5], np.int32))),
    ("r2_bool_tensor_condition", BoolTensorCondition, lambda: (Tensor(True), arr([1, 2]))),
    ("r2_bool_tensor_condition_false", BoolTensorCondition, lambda: (Tensor(False), arr([1, 2]))),
    ("r2_where_select_branches", WhereSelectInBranches, lambda: (arr([1, -2, 3]), arr([0.5, 0.5, 4]))),
    ("r2_where_select_branches_neg", WhereSelectInBranches, lambda: (arr([-1, -2, 3]), arr([0.5, -5, -4]))),
    ("r2_tensor_methods_in_loop", TensorMethodsInLoop, lambda: (arr([[1, 2], [3, -4], [5, 6]]),)),
    ("r2_astype_in_while", AstypeInWhile, lambda: (arr([1, 2], np.int32),)),
    ("r2_int_tensor_division", IntTensorDivision, lambda: (arr([3, 7], np.int32), arr([2, 2], np.int32))),
    ("r2_shape_dim_in_range_dyn", ShapeDimInRangeDyn, lambda: (arr([[1, 2], [4, 3], [0, -1]]),)),
]

TWICE_CASES = [
    ("r2_dyn_shape_cond_twice", DynShapeCond,
     [lambda: (arr([[1, 2, 3], [-4, 0, 1], [2, 2, 2]]),), lambda: (arr([[1, -2, 3]]),),
      lambda: (arr(np.ones((5, 3))),)]),
    ("r2_dyn_shape_while_twice", DynShapeWhile, [lambda: (arr([1, 2]),), lambda: (arr([1, 2, 3, 4, 5]),)]),
    ("r2_uint8_then_int8", Uint8Cond, [lambda: (arr([250, 3], np.uint8),), lambda: (arr([-5, 3], np.int8),)]),
]
