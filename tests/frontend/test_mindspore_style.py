"""Programs in the style of MindSpore's own control-flow tests (primitives from
ops.operations, common.dtype, item assignment, CellList indexed by a tensor, Model),
checked against eager mode."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import context, nn
from graphjit.common import dtype as mstype
from graphjit.common.parameter import Parameter
from graphjit.ops import operations as P
from helpers import run_both


class WhileItemUpdate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mul = P.Mul()

    def construct(self, x):
        while x[2] < 4:
            x[2] -= 1
            if x[0] > 2:
                return x
            elif x[1] > 2:
                x[2] += 1
            elif x[2] > 2:
                x[1] += 1
            else:
                x = self.mul(x, x)
        return x


class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return self.k * x


class CellListByTensor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cells = nn.CellList()
        for k in (4, 5, 6):
            self.cells.append(Scale(k))

    def construct(self, n, x, y):
        out = n
        while x < 3:
            out += 4
            x += 1
        while y < 3:
            out = out + self.cells[y](n)
            y += 1
        return out


class ForBreakPrimitives(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = P.ReLU()
        self.add = P.Add()

    def construct(self, x, y, z):
        out = z
        for _ in range(5):
            if 3 * x < y:
                out = self.add(out, out)
            else:
                out = self.relu(out)
                if x + 6 == y:
                    break
        return self.relu(out)


class WhileWithParameter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reduce_max = P.ReduceMax()
        self.param = Parameter(ms.Tensor(np.arange(8).reshape((2, 2, 2)), mstype.float32),
                               name="weight")
        self.zero = ms.Tensor(np.zeros((2, 2, 2)), mstype.float32)

    def construct(self, idx, end, x):
        out = self.zero
        while idx < end:
            if 2 > 1:
                out = out + x + self.param
            else:
                out = out + x
            idx = idx + 1
        return self.reduce_max(out)


def max_min_tensors():
    x = ms.Tensor([1])
    y = ms.Tensor([2])
    z = []
    while max(x, y) == ms.Tensor([2]):
        y = y + min(x, y)
        for _ in range(3):
            z.append(ms.Tensor([2]))
    for i in z:
        x = x * i
    return x


@pytest.mark.parametrize("v", [[1.0, 2.0, 3.0], [3.0, 1.0, 0.0], [0.5, 1.0, 5.0]])
def test_item_assignment_in_while(v):
    # eager item assignment changes the caller's tensor in place: give each mode its own
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = WhileItemUpdate()(ms.Tensor(v, mstype.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    arg = ms.Tensor(v, mstype.float32)
    graph = WhileItemUpdate()(arg)
    assert graph.asnumpy().tolist() == eager.asnumpy().tolist()
    assert arg.asnumpy().tolist() == v      # graph mode never writes into its inputs


def test_cell_list_indexed_by_a_tensor():
    args = (ms.Tensor(10, mstype.int32), ms.Tensor(0, mstype.int32), ms.Tensor(0, mstype.int32))
    g, _ = run_both(lambda: CellListByTensor(), *args)
    assert int(g) == 172


@pytest.mark.parametrize("x,y", [(2, 8), (3, 9), (1, 10)])
def test_python_scalar_arguments_fold(x, y):
    z = ms.Tensor(np.linspace(-1, 1, 8).reshape(2, 4), mstype.float32)
    run_both(lambda: ForBreakPrimitives(), x, y, z)


def test_while_with_parameter_and_constant_branch():
    args = (ms.Tensor(0, mstype.int32), ms.Tensor(3, mstype.int32),
            ms.Tensor(np.ones((2, 2, 2)), mstype.float32))
    run_both(lambda: WhileWithParameter(), *args)


def test_builtin_max_min_and_list_built_in_a_variable_loop():
    g, e = run_both(lambda: max_min_tensors)
    assert int(g.asnumpy()[0]) == 8


def test_model_predict_and_old_spellings():
    context.set_context(mode=context.GRAPH_MODE, device_target="CPU")
    model = ms.Model(ForBreakPrimitives())
    z = ms.Tensor(np.ones((2, 2)), mstype.float32)
    out = model.predict(2, 8, z)
    assert out.shape == (2, 2)

    @ms.ms_function
    def f(a):
        return a * 2
    assert f(ms.Tensor([1.0])).asnumpy().tolist() == [2.0]
    with pytest.warns(UserWarning):
        context.set_context(enable_reduce_precision=True)


class AbsByIndex(nn.Cell):
    def construct(self, x, i):
        while i < 3:
            if x[i] < 0:
                x[i] = -x[i]
            i = i + 1
        return x


class ZeroNegatives(nn.Cell):
    def construct(self, x):
        if (x < 0).any():
            x[x < 0] = 0
        return x


class SetFirstInLoop(nn.Cell):
    def construct(self, x, t):
        while t > 0:
            x[0] = x[0] + t
            t = t - 1
        return x


def _fresh(v, dtype=mstype.float32):
    return ms.Tensor(np.array(v), dtype)


@pytest.mark.parametrize("make,args", [
    (AbsByIndex, lambda: (_fresh([-1.0, 2.0, -3.0]), ms.Tensor(0, mstype.int32))),
    (ZeroNegatives, lambda: (_fresh([-1.0, 2.0, -3.0]),)),
    (SetFirstInLoop, lambda: (_fresh([1, 2], mstype.int32), ms.Tensor(3, mstype.int32))),
])
def test_item_assignment_with_tensor_indices_and_masks(make, args):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = make()(*args())
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = make()(*args())
    assert graph.dtype == eager.dtype
    assert graph.asnumpy().tolist() == eager.asnumpy().tolist()
