"""if/elif/else on tensor and Python conditions, MindSpore style."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class IfElifElseTensor(nn.Cell):
    def construct(self, x, y):
        if x > y:
            out = x - y
        elif x == y:
            out = x * 2
        else:
            out = y - x
        return out + 1


class IfSelfFlag(nn.Cell):
    def __init__(self, flag):
        super().__init__()
        self.flag = flag
        self.add = P.Add()
        self.mul = P.Mul()

    def construct(self, x):
        if self.flag:
            x = self.add(x, x)
        else:
            x = self.mul(x, x)
        if not self.flag:
            return x
        return x - 1


class IfOnShape(nn.Cell):
    def construct(self, x):
        if x.shape[0] > 2:
            out = x.sum(0)
        elif len(x.shape) == 2:
            out = x.mean(0)
        else:
            out = x.max(0)
        return out


class IfIsNone(nn.Cell):
    def construct(self, x, bias=None):
        if bias is None:
            out = x * 2
        else:
            out = x + bias
        if bias is not None and x.sum() > 0:
            out = out - 1
        return out


class IfIsInstance(nn.Cell):
    def construct(self, x, s):
        if isinstance(s, int):
            out = x + s
        elif isinstance(s, (tuple, list)):
            out = x
            for v in s:
                out = out * v
        else:
            out = x - s
        return out


class IfLenList(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scales = [1.0, 2.0, 3.0]

    def construct(self, x):
        if len(self.scales) < 2:
            return x
        out = x
        if len(self.scales) == 3 and x.sum() > 0:
            out = out * self.scales[2]
        return out


class IfAllAny(nn.Cell):
    def construct(self, x, y):
        if (x > 0).all():
            out = x + y
        elif (x > 0).any():
            out = ops.relu(x) + y
        else:
            out = y
        return out


class NestedIfReduce(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reduce_sum = P.ReduceSum(keep_dims=True)

    def construct(self, x, y):
        s = self.reduce_sum(x, 1)
        if x.sum() > y.sum():
            if s.max() > 5:
                out = s * 2
            else:
                out = s - 2
        else:
            if y.min() < 0:
                out = self.reduce_sum(y, 1)
            else:
                out = s + self.reduce_sum(y, 1)
        return out


class IfReturnInBranches(nn.Cell):
    def construct(self, x):
        if x.sum() > 10:
            return x * 0.5
        if x.sum() < 0:
            return -x
        return x + 1.0


class IfMixedScalarTensor(nn.Cell):
    """A Python scalar set in both branches of a constant if, used after."""
    def construct(self, x, mode):
        if mode == "double":
            k = 2
        elif mode == "half":
            k = 0.5
        else:
            k = 1
        if x.mean() > 0:
            y = x * k
        else:
            y = x + k
        return y


class IfTupleUnpack(nn.Cell):
    def construct(self, x, y):
        if x.sum() > y.sum():
            a, b = x, y
        else:
            a, b = y, x
        return a - b, (a * b).sum()


class IfSelect(nn.Cell):
    def __init__(self):
        super().__init__()
        self.select = P.Select()
        self.cast = P.Cast()

    def construct(self, x, y):
        cond = x > y
        out = self.select(cond, x, y)
        if cond.any():
            out = self.cast(out, mstype.float16)
        else:
            out = self.cast(out * 2, mstype.float16)
        return out


class IfIntTensorWithFloatScalar(nn.Cell):
    def construct(self, x):
        if x[0] > 1:
            out = x * 2
        else:
            out = x + 3
        return out, out / 2, out * 1.5


class IfBoolTensorCond(nn.Cell):
    def construct(self, flag, x):
        if flag:
            x = x + 1
        if not flag:
            x = x - 1
        return x


class IfCondAndOr(nn.Cell):
    def construct(self, x, y):
        if x > 0 and y > 0:
            out = x + y
        elif x > 0 or y > 0:
            out = x - y
        else:
            out = x * y
        return out


class IfElseExpr(nn.Cell):
    def construct(self, x, y):
        z = x if x.sum() > y.sum() else y
        w = 3 if x.shape[0] == 2 else 4
        return z * w


class IfEmptyElseUpdate(nn.Cell):
    def construct(self, x):
        out = ops.zeros_like(x)
        if x[0] > 0:
            out = out + x
        if x[1] > 0:
            out = out * 2
        return out


CASES = [
    ("if_elif_else_tensor_gt", IfElifElseTensor, lambda: (T(3, ms.int32), T(1, ms.int32))),
    ("if_elif_else_tensor_eq", IfElifElseTensor, lambda: (T(2.0, ms.float32), T(2.0, ms.float32))),
    ("if_elif_else_tensor_lt", IfElifElseTensor, lambda: (T([1.0], ms.float32), T([4.0], ms.float32))),
    ("if_self_flag_true", lambda: IfSelfFlag(True), lambda: (T([1.0, 2.0], ms.float32),)),
    ("if_self_flag_false", lambda: IfSelfFlag(False), lambda: (T([1, 2], ms.int32),)),
    ("if_on_shape_3rows", IfOnShape, lambda: (T(np.arange(12).reshape(3, 4), ms.float32),)),
    ("if_on_shape_2rows", IfOnShape, lambda: (T(np.arange(8).reshape(2, 4), ms.float32),)),
    ("if_on_shape_1d", IfOnShape, lambda: (T([1, 5], ms.int32),)),
    ("if_is_none_default", IfIsNone, lambda: (T([1.0, -2.0], ms.float32),)),
    ("if_is_none_bias", IfIsNone, lambda: (T([1.0, 2.0], ms.float32), T([0.5, 0.5], ms.float32))),
    ("if_isinstance_int", IfIsInstance, lambda: (T([1.0, 2.0], ms.float32), 3)),
    ("if_isinstance_tuple", IfIsInstance, lambda: (T([1, 2], ms.int32), (2, 3))),
    ("if_isinstance_float", IfIsInstance, lambda: (T([1, 2], ms.int32), 0.5)),
    ("if_len_list", IfLenList, lambda: (T([1.0, 2.0], ms.float32),)),
    ("if_all", IfAllAny, lambda: (T([1.0, 2.0], ms.float32), T([1.0, 1.0], ms.float32))),
    ("if_any", IfAllAny, lambda: (T([-1.0, 2.0], ms.float32), T([1.0, 1.0], ms.float32))),
    ("if_none_all_any", IfAllAny, lambda: (T([-1.0, -2.0], ms.float32), T([1.0, 1.0], ms.float32))),
    ("nested_if_reduce_sum", NestedIfReduce,
     lambda: (T(np.arange(6).reshape(2, 3), ms.float32), T(np.ones((2, 3)), ms.float32))),
    ("nested_if_reduce_sum_else", NestedIfReduce,
     lambda: (T(np.zeros((2, 3)), ms.float32), T(np.ones((2, 3)), ms.float32))),
    ("if_return_in_branches_a", IfReturnInBranches, lambda: (T([5.0, 6.0], ms.float32),)),
    ("if_return_in_branches_b", IfReturnInBranches, lambda: (T([-5.0, 1.0], ms.float32),)),
    ("if_return_in_branches_c", IfReturnInBranches, lambda: (T([1.0, 1.0], ms.float32),)),
    ("if_mixed_scalar_half_int", IfMixedScalarTensor, lambda: (T([1, 2], ms.int32), "half")),
    ("if_mixed_scalar_double", IfMixedScalarTensor, lambda: (T([-1, -2], ms.int32), "double")),
    ("if_tuple_unpack", IfTupleUnpack, lambda: (T([1.0, 2.0], ms.float32), T([3.0, 4.0], ms.float32))),
    ("if_select_cast_f16", IfSelect, lambda: (T([1.0, 5.0], ms.float32), T([2.0, 3.0], ms.float32))),
    ("if_int_tensor_float_scalar", IfIntTensorWithFloatScalar, lambda: (T([2, 3], ms.int32),)),
    ("if_bool_tensor_cond", IfBoolTensorCond, lambda: (T(True, ms.bool_), T([1, 2], ms.int32))),
    ("if_cond_and_or", IfCondAndOr, lambda: (T(1.0, ms.float32), T(-2.0, ms.float32))),
    ("if_cond_and_or_both_neg", IfCondAndOr, lambda: (T(-1.0, ms.float32), T(-2.0, ms.float32))),
    ("if_else_expr", IfElseExpr, lambda: (T([1.0, 2.0], ms.float32), T([0.0, 2.5], ms.float32))),
    ("if_empty_else_update", IfEmptyElseUpdate, lambda: (T([1, -2, 3], ms.int32),)),
]
