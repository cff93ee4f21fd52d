"""Programs after MindSpore's own control-flow tests (tests/st/control,
tests/ut/python/pipeline/parse): parameters, primitives and item assignment."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor, context
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype
from graphjit.common.parameter import Parameter


class MyWhileNet(nn.Cell):
    """test_while_with_param_forward."""
    def __init__(self):
        super().__init__()
        self.max = P.ReduceMax()
        self.param = Parameter(Tensor(np.arange(2 * 2 * 2).reshape((2, 2, 2)), ms.float32), name="weight")
        self.zero = Tensor(np.zeros(([2, 2, 2])), ms.float32)

    def construct(self, idx, end, x):
        out = self.zero
        while idx < end:
            part = x[idx, :, :]
            max_num = self.max(part)
            x[idx, :, 0:2] = max_num
            out = out + x + self.param
            idx = idx + 1
        return out


class WhileEndlessCase(nn.Cell):
    """test_while_endless_case: a while whose condition never involves the body."""
    def __init__(self):
        super().__init__()
        self.max = P.ReduceMax()
        self.param = Parameter(Tensor(np.arange(2 * 2 * 2).reshape((2, 2, 2)), ms.float32), name="weight")
        self.zero = Tensor(np.zeros(([2, 2, 2])), ms.float32)

    def construct(self, idx, end, x):
        out = self.zero
        while idx < end:
            part = x[idx, :, :]
            out = out + part
            idx = idx + 1
        return out


class SingleForNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.add = P.Add()
        self.mul = P.Mul()

    def construct(self, x, y, z):
        x = self.add(x, y)
        for _ in range(0, 3):
            z = self.add(z, x)
        y = self.mul(z, y)
        return y


class IfByIfNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.add = P.Add()
        self.mul = P.Mul()
        self.param_a = Parameter(Tensor(5, ms.int32), name="a")
        self.param_b = Parameter(Tensor(4, ms.int32), name="b")

    def construct(self, x):
        if self.param_a > self.param_b:
            x = self.mul(x, 2)
        if x > self.param_a:
            x = self.add(x, self.param_b)
        else:
            x = x - 1
        return x


class WhileInWhileParam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param_a = Parameter(Tensor(np.array(1), ms.int32), name="a")

    def construct(self, x, y):
        while x < y:
            z = x
            while z < y:
                z = z + self.param_a
            x = x + 2
        return x, z


class WhileInWhileParamReturnsX(WhileInWhileParam):
    def construct(self, x, y):
        while x < y:
            z = x
            while z < y:
                z = z + self.param_a
            x = x + z - y + 1
        return x


class IfAfterWhileMul(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mul = P.Mul()
        self.reduce_sum = P.ReduceSum(keep_dims=True)

    def construct(self, x, y):
        while self.reduce_sum(x) < 10:
            x = self.mul(x, y)
        if self.reduce_sum(x, 0).max() > 20:
            return x - 20
        return x


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


CASES = [
    # a name bound only inside a while: defined after it when the loop ran
    ("while_in_while_param_returns_z", WhileInWhileParam,
     lambda: (T(1, ms.int32), T(6, ms.int32))),
    ("ms_while_with_param_forward", MyWhileNet,
     lambda: (T(0, ms.int32), T(2, ms.int32), T(np.random.RandomState(0).randn(2, 2, 2), ms.float32))),
    ("ms_while_endless_case", WhileEndlessCase,
     lambda: (T(0, ms.int32), T(2, ms.int32), T(np.arange(8).reshape(2, 2, 2), ms.float32))),
    ("ms_single_for", SingleForNet,
     lambda: (T([2, 3], ms.int32), T([1, 1], ms.int32), T([0, 1], ms.int32))),
    ("ms_if_by_if_params", IfByIfNet, lambda: (T(3, ms.int32),)),
    ("ms_while_in_while_param", WhileInWhileParamReturnsX, lambda: (T(1, ms.int32), T(6, ms.int32))),
    ("ms_if_after_while_mul", IfAfterWhileMul,
     lambda: (T([[1.0, 2.0]], ms.float32), T([[2.0, 1.5]], ms.float32))),
]

MODEL_CASES = [
    ("ms_single_for_predict", SingleForNet,
     lambda: (np.array([2, 3], np.int32), np.array([1, 1], np.int32), np.array([0, 1], np.int32))),
]

ERROR_CASES = [
    # z is assigned only inside a while that runs zero times for these inputs
    ("err_undefined_after_nested_while", WhileInWhileParam,
     lambda: (T(6, ms.int32), T(1, ms.int32)), ms.GraphRuntimeError, UnboundLocalError,
     "return x, z"),
]
