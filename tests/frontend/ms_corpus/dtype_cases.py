"""dtype promotion through branches and loops: bool sums, Tensor(3) literals,
float16 with Python floats, integer division, int32/int64 mixes, AddN on a list."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=ms.float32):
    return Tensor(np.asarray(x), dtype=dtype)


class TensorOrInt(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = x.sum()
        else:
            out = 0
        return out

class BoolSum(nn.Cell):
    def construct(self, x):
        m = x > 0
        c = m.sum()
        while c < 5:
            c = c + m.sum()
        return c, m + 1, m.mean()

class Tensor3Literal(nn.Cell):
    def construct(self, x):
        k = Tensor(3)
        i = Tensor(0)
        while i < k:
            x = x + i
            i = i + 1
        return x, i

class F16WithPyFloat(nn.Cell):
    def construct(self, x):
        for _ in range(3):
            if x.sum() > 2.5:
                x = x * 0.5
            else:
                x = x + 1.25
        return x

class IntDiv(nn.Cell):
    def construct(self, x, y):
        if (x > y).any():
            z = x / y
        else:
            z = (x // y).astype(ms.float32)
        return z

class MixedI32I64(nn.Cell):
    def construct(self, a, b):
        i = 0
        while a.sum() < 20:
            a = a + b
            i += 1
        return a, i

class AddNStack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.addn = P.AddN()
    def construct(self, x):
        items = [x, x * 2]
        if x.sum() > 0:
            items.append(x * 3)
        else:
            items.append(x * 4)
        return self.addn(items), ops.stack(items).shape

class ScalarTensorPow(nn.Cell):
    def construct(self, x):
        while x.max() < 100:
            x = x ** 2 + 1
        return x, 2 ** 3, -x

class WhereCastChain(nn.Cell):
    def construct(self, x):
        y = ops.cast(x, mstype.int32)
        out = ops.where(y > 1, y, 0)
        if out.sum() > 2:
            out = out * 2
        return out

class ReduceAllAny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.all = P.ReduceAll()
        self.any = P.ReduceAny(keep_dims=True)
    def construct(self, x):
        while self.all(x > 0):
            x = x - 1
        return x, self.any(x > 0, 0)

CASES = [
 ("tensor_or_int", TensorOrInt, lambda: (T([1.0, 2.0]),)),
 ("tensor_or_int_neg", TensorOrInt, lambda: (T([-1.0, -2.0]),)),
 ("bool_sum", BoolSum, lambda: (T([1.0, -2.0, 3.0]),)),
 ("tensor3_literal", Tensor3Literal, lambda: (T([1, 2], ms.int64),)),
 ("tensor3_literal_i32", Tensor3Literal, lambda: (T([1, 2], ms.int32),)),
 ("f16_py_float", F16WithPyFloat, lambda: (T([1.0, 2.0], ms.float16),)),
 ("int_div", IntDiv, lambda: (T([5, 2], ms.int32), T([2, 3], ms.int32))),
 ("mixed_i32_i64", MixedI32I64, lambda: (T([1, 2], ms.int64), T([1, 2], ms.int32))),
 ("addn_stack", AddNStack, lambda: (T([1.0, 2.0]),)),
 ("scalar_tensor_pow", ScalarTensorPow, lambda: (T([1.0, 2.0]),)),
 ("where_cast_chain", WhereCastChain, lambda: (T([1.5, 2.5, 0.5]),)),
 ("reduce_all_any", ReduceAllAny, lambda: (T([[1.0, 2.0], [3.0, 4.0]]),)),
]

ERROR_CASES = [
    # int32 accumulator + int64 increment: the carried dtype changes (MindSpore: Type Join Failed)
    ("err_int32_carry_becomes_int64", MixedI32I64, lambda: (T([1, 2], ms.int32), T([1, 2], ms.int64)),
     ms.TypeJoinError, TypeError, "a = a + b"),
]
