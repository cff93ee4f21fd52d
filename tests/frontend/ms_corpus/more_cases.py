"""More corners: dynamic shapes through loops, comprehensions, dicts, dtype
conditions, Cell helper methods, primitives with attributes."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class DynGrowInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None], dtype=ms.float32))

    def construct(self, x):
        while x.shape[0] < 8:
            x = ops.concat((x, x))
        return x


class DynRankIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=None, dtype=ms.float32))

    def construct(self, x):
        if x.sum() > 0:
            y = x.reshape(-1)
        else:
            y = x * 2
        return y


class ComprehensionConst(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scales = [1, 2, 3, 4]

    def construct(self, x):
        outs = [x * s for s in self.scales if s % 2 == 0]
        out = outs[0]
        for o in outs[1:]:
            if o.sum() > out.sum():
                out = o
        return out, len(outs)


class DictInBranches(nn.Cell):
    def construct(self, x):
        d = {"a": x, "b": x * 2}
        if x.sum() > 0:
            d["a"] = d["b"] + 1
        else:
            d["a"] = d["b"] - 1
        return d["a"], d["b"]


class DtypeCondition(nn.Cell):
    def construct(self, x):
        if x.dtype == mstype.float16:
            x = P.Cast()(x, mstype.float32)
        elif x.dtype == ms.int32:
            x = x.astype(ms.float32) / 2
        if isinstance(x, Tensor) and x.sum() > 1:
            x = x - 1
        return x


class HelperMethod(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = 6

    def step(self, x):
        while x.max() < self.limit:
            x = x + 2
            if x.min() > 3:
                return x
        return x * -1

    def construct(self, x, y):
        return self.step(x), self.step(y)


class PrimsWithAttrs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sum_keep = P.ReduceSum(keep_dims=True)
        self.sum_drop = P.ReduceSum()
        self.squeeze = P.Squeeze(0)
        self.tile = P.Tile()
        self.shape = P.Shape()
        self.transpose = P.Transpose()

    def construct(self, x):
        s = self.sum_keep(x, 0)
        if self.sum_drop(x) > 0:
            s = self.tile(s, (2, 1))
        else:
            s = self.transpose(self.transpose(self.tile(s, (2, 1)), (1, 0)), (1, 0))
        return self.squeeze(s[0:1]), self.shape(s), len(x)


class ReverseRangeStep(nn.Cell):
    def construct(self, x):
        for i in range(5, 0, -2):
            if x[0] > i:
                x = x - i
        for v in reversed((1, 2, 3)):
            x = x * v
        return x


class LoopOverVectorElements(nn.Cell):
    def construct(self, v):
        acc = v[0] * 0
        for e in v:
            if e > 0:
                acc = acc + e
            else:
                acc = acc - e * 2
        return acc


class BreakInTensorRows(nn.Cell):
    def construct(self, x):
        out = ops.zeros_like(x[0])
        for row in x:
            if row.sum() < 0:
                break
            out = out + row
        return out


class IntCastOfTensor(nn.Cell):
    def construct(self, x, n):
        k = int(n)
        out = x
        for _ in range(3):
            out = out * k
        return out


class NestedCellWithLoopAndFlag(nn.Cell):
    def __init__(self, training):
        super().__init__()
        self.training_flag = training
        self.inner = nn.SequentialCell([nn.ReLU(), nn.Tanh()])

    def construct(self, x):
        for _ in range(2):
            if self.training_flag:
                x = self.inner(x) * 2
            else:
                x = self.inner(x)
            if (x < 0.5).all():
                x = x + 1
        return x


class OpsMisc(nn.Cell):
    def construct(self, x):
        if ops.sum(x) > 0:
            y = ops.clamp(x, -1.0, 1.0)
        else:
            y = ops.abs(x)
        z = ops.mean(y, 0)
        while z.max() < 1.0:
            z = ops.sqrt(z + 1.0)
        return y, z


class MatMulBatch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2) / 10), name="w")

    def construct(self, x):
        h = ops.matmul(x, self.w)
        i = 0
        while h.sum() < 5 and i < 4:
            h = ops.relu(h) + 0.5
            i += 1
        return h, i


CASES = [
    ("comprehension_const_filter", ComprehensionConst, lambda: (T([1.0, -2.0], ms.float32),)),
    ("dict_in_branches", DictInBranches, lambda: (T([1.0, 2.0], ms.float32),)),
    ("dict_in_branches_neg", DictInBranches, lambda: (T([-1, -2], ms.int32),)),
    ("dtype_condition_f16", DtypeCondition, lambda: (T([1.0, 2.0], ms.float16),)),
    ("dtype_condition_i32", DtypeCondition, lambda: (T([1, 6], ms.int32),)),
    ("helper_method_return_in_while", HelperMethod,
     lambda: (T([1.0, 2.0], ms.float32), T([4.0, 5.0], ms.float32))),
    ("prims_with_attrs", PrimsWithAttrs, lambda: (T([[1.0, 2.0], [3.0, -1.0]], ms.float32),)),
    ("reverse_range_step", ReverseRangeStep, lambda: (T([6, 2], ms.int32),)),
    ("loop_over_vector_elements", LoopOverVectorElements, lambda: (T([1.0, -2.0, 3.0], ms.float32),)),
    ("break_in_tensor_rows", BreakInTensorRows, lambda: (T([[1, 2], [-5, 1], [3, 3]], ms.int32),)),
    ("int_cast_of_tensor", IntCastOfTensor, lambda: (T([1.0, 2.0], ms.float32), T(2, ms.int32))),
    ("nested_cell_loop_flag_train", lambda: NestedCellWithLoopAndFlag(True), lambda: (T([-1.0, 0.3], ms.float32),)),
    ("nested_cell_loop_flag_eval", lambda: NestedCellWithLoopAndFlag(False), lambda: (T([-1.0, 0.3], ms.float32),)),
    ("ops_misc", OpsMisc, lambda: (T([[0.5, -3.0], [2.0, 0.1]], ms.float32),)),
    ("matmul_while_and_python_counter", MatMulBatch, lambda: (T([[0.1, 0.2, 0.3]], ms.float32),)),
]

TWICE_CASES = [
    ("dyn_grow_in_while", DynGrowInWhile,
     [lambda: (T([1.0, 2.0], ms.float32),), lambda: (T([1.0, 2.0, 3.0], ms.float32),)]),
    ("dyn_rank_if", DynRankIf,
     [lambda: (T([[1.0, 2.0]], ms.float32),), lambda: (T([-1.0, 2.0, -3.0], ms.float32),)]),
]
