"""More MindSpore-style control-flow gradient programs: primitive objects made in
__init__ (P.Add(), P.Mul(), P.ReLU()), Parameters in conditions, sub-Cells with loops
called in loops, tensor indexing by a loop counter, `and`/`or` of tensor conditions,
stop_gradient and depend in loops, gradients taken inside a construct with a stored
ParameterTuple: both modes agree and the hand-derived values hold."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit import nn, ops, Parameter, Tensor
from graphjit import dtype as mstype

from ms_grad_programs import (T, check, fd, grad_all, grad_all_list, grad_by_list,
                              grad_first, run_grad)

I32 = np.int32
P = ops   # MindSpore's `from mindspore.ops import operations as P` spelling


class PrimitiveWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.add = P.Add()
        self.mul = P.Mul()

    def construct(self, x, y, z):
        x = self.add(x, y)
        while z < 20:
            z = self.add(z, x)
        return self.mul(z, y)


def test_primitive_objects_in_while_int32():
    # x = 2 + 5 = 7; z: 4 -> 11 -> 18 -> 25 (3 trips): z = z0 + 3 (x0 + y)
    # out = (z0 + 3 x0 + 3 y) y: d/dx = 3y = 15, d/dy = z_end + 3y = 40, d/dz = y = 5
    g = run_grad(PrimitiveWhile, grad_all, T([2], ms.int32), T([5], ms.int32),
                 T([4], ms.int32))
    check(g, [15], [40], [5], dtype=I32)


class ParamCondition(nn.Cell):
    def __init__(self):
        super().__init__()
        self.threshold = Parameter(T(3.0), name="threshold")
        self.relu = P.ReLU()

    def construct(self, x):
        if self.threshold > x.sum():
            out = self.relu(x) * self.threshold
        else:
            out = x - self.threshold
        return out


def test_parameter_in_condition_both_paths():
    check(run_grad(ParamCondition, grad_all_list, T([1.0, -1.0])), [3.0, 0.0], 1.0)
    check(run_grad(ParamCondition, grad_all_list, T([2.0, 4.0])), [1.0, 1.0], -2.0)


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T(0.5), name="w")

    def construct(self, x):
        while x.sum() < 4:
            x = x + self.w * x
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        out = x
        for _ in range(2):
            out = self.inner(out) * 0.5
        return out


def test_sub_cell_with_while_called_in_a_loop():
    x = T([1.0, 1.0])
    g = run_grad(Outer, grad_all_list, x)
    # sums 2 -> 3 -> 4.5 (x 2.25), halved: 2.25 -> 3.375 -> 5.06 (x 2.25), halved
    # d/dx = 2.25 * 0.5 * 2.25 * 0.5
    check([g[0]], [1.265625, 1.265625])
    eps = 1e-3
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        def total(wv):
            n = Outer()
            n.inner.w.set_data(T(wv))
            return float(n(x).asnumpy().sum())
        num = (total(0.5 + eps) - total(0.5 - eps)) / (2 * eps)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(g[1], num, rtol=1e-3)


class IndexByCounter(nn.Cell):
    def construct(self, xs):
        i = Tensor(0, mstype.int32)
        acc = xs[0] * 0
        while i < 3:
            acc = acc * 2 + xs[i]
            i = i + 1
        return acc


def test_indexing_by_loop_counter():
    # acc = 4 xs0 + 2 xs1 + xs2
    g = run_grad(IndexByCounter, grad_first, T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0],
                                                [7.0, 8.0]]))
    check(g, [[4.0, 4.0], [2.0, 2.0], [1.0, 1.0], [0.0, 0.0]])


class AndOr(nn.Cell):
    def construct(self, x, y):
        if x > 1 and y < 3:
            z = x * y
        elif x < 0 or y > 10:
            z = x - y
        else:
            z = x + y * y
        return z


def test_and_or_tensor_conditions():
    check(run_grad(AndOr, grad_all, T(2.0), T(2.0)), 2.0, 2.0)
    check(run_grad(AndOr, grad_all, T(-1.0), T(2.0)), 1.0, -1.0)
    check(run_grad(AndOr, grad_all, T(0.5), T(4.0)), 1.0, 8.0)


class StopInLoop(nn.Cell):
    def construct(self, x):
        i = Tensor(0, mstype.int32)
        y = x
        while i < 3:
            y = y * x + ops.stop_gradient(y)
            i += 1
        return y


def test_stop_gradient_inside_while():
    x = T([0.5, 2.0])
    g = run_grad(StopInLoop, grad_first, x)
    # y1 = x^2 + x (stop on the second), dy1 = 2x; y_{k+1} = y_k x + stop(y_k)
    # dy_{k+1} = dy_k x + y_k
    xv = np.array([0.5, 2.0])
    y, dy = xv.copy(), np.ones(2)
    for _ in range(3):
        y, dy = y * xv + y, dy * xv + y
    check(g, dy)


class DependInLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(0, mstype.int32), name="count", requires_grad=False)

    def construct(self, x):
        while x.sum() < 10:
            x = ops.depend(x * 2, ops.assign_add(self.count, Tensor(1, mstype.int32)))
        return x


def test_depend_with_update_inside_while():
    g = run_grad(DependInLoop, grad_first, T([1.0, 0.5]))
    check(g, [8.0, 8.0])


class GradInside(nn.Cell):
    """A gradient taken inside construct, weights stored as a ParameterTuple."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, x, sens):
        return self.grad(self.net, self.weights)(x, sens)


class LoopNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T([1.5, 0.5]), name="w")
        self.b = Parameter(T(0.25), name="b")

    def construct(self, x):
        i = 0
        while i < 2:
            x = x * self.w + self.b
            i += 1
        return x


def test_grad_by_list_with_sens_inside_construct():
    def run(mode):
        ms.set_context(mode=mode)
        try:
            return [t.asnumpy() for t in GradInside(LoopNet())(T([1.0, 2.0]),
                                                                 T([1.0, 2.0]))]
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    e, g = run(ms.PYNATIVE_MODE), run(ms.GRAPH_MODE)
    for a, b in zip(e, g):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # x2 = (x w + b) w + b: d/dw = sens (2 x w + b), d/db = sum(sens (w + 1))
    x, w, s = np.array([1.0, 2.0]), np.array([1.5, 0.5]), np.array([1.0, 2.0])
    check(g, s * (2 * x * w + 0.25), np.sum(s * (w + 1)))


class ForReturnInIf(nn.Cell):
    def construct(self, x):
        for i in range(4):
            if x.sum() > 6:
                return x * (i + 1)
            x = x * 2
        return -x


def test_return_in_if_in_for():
    # x = [1, 1]: 2 -> 4 -> 8 > 6 at i=3? sums: 2, 4, 8: at i = 2 returns 4x * 3
    check(run_grad(ForReturnInIf, grad_first, T([1.0, 1.0])), [12.0, 12.0])
    # never large: -16 x
    check(run_grad(ForReturnInIf, grad_first, T([0.1, 0.1])), [-16.0, -16.0])


class BreakInConstFor(nn.Cell):
    def construct(self, x):
        out = x
        for _ in range(10):
            out = out * 1.1
            if out.max() > 2:
                break
        return out


def test_break_in_constant_for_on_tensor_condition():
    x = T([1.0, 0.5])
    g = run_grad(BreakInConstFor, grad_first, x)
    k = int(np.ceil(np.log(2) / np.log(1.1)))   # first power of 1.1 above 2
    if 1.1 ** k <= 2:
        k += 1
    check(g, [1.1 ** k] * 2)


class WhileWeightBreak(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(T([[1.0, 0.5], [0.0, 1.0]]), name="weight")

    def construct(self, x):
        n = Tensor(0, mstype.int32)
        while n < 5:
            x = ops.matmul(x, self.weight)
            if x.sum() > 8:
                break
            n += 1
        return x.sum()


def test_weight_gradient_with_break_central_differences():
    x = T([[1.0, 1.0]])
    g = run_grad(WhileWeightBreak, grad_by_list, x)
    eps = 1e-3
    w0 = np.array([[1.0, 0.5], [0.0, 1.0]])
    num = np.zeros((2, 2))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        for idx in np.ndindex(2, 2):
            vals = []
            for d in (eps, -eps):
                n = WhileWeightBreak()
                w = w0.copy()
                w[idx] += d
                n.weight.set_data(Tensor(w.astype(np.float32)))
                vals.append(float(n(x).asnumpy()))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(g[0], num, rtol=2e-3, atol=2e-3)


class Int64Scalar(nn.Cell):
    def construct(self, x, y):
        while x < y:
            x = x + x
        return x * y


def test_int64_inputs():
    # 3 -> 6 -> 12 -> 24 >= 20: 8x; out = 8 x y: (160, 24)
    g = run_grad(Int64Scalar, grad_all, Tensor(3, mstype.int64), Tensor(20, mstype.int64))
    check(g, 160, 24, dtype=np.int64)


class MixedFloatInt(nn.Cell):
    def construct(self, x, n):
        k = n
        while k > 0:
            x = x * ops.cast(k, mstype.float32)
            k = k - 1
        return x


def test_float_gradient_with_int_loop_counter_input():
    # n = 3: x n (n-1) (n-2) = 6x; d/dn = sum(x) (3n^2 - 6n + 2) = 3 * 11 = 33, each
    # cast's gradient an int32 (6, 9 and 18, all whole)
    g = run_grad(MixedFloatInt, grad_all, T([1.0, 2.0]), Tensor(3, mstype.int32))
    check(g, [6.0, 6.0], 33)
    assert g[1].dtype == I32 and g[1].shape == ()


class TupleOut(nn.Cell):
    def construct(self, x, y):
        while x.sum() < 5:
            x = x * 2
        return x * y, x + y


def test_two_outputs_get_all():
    # x: [1, 2] -> [2, 4] (sum 6): outputs 2x y and 2x + y, each seeded with ones
    check(run_grad(TupleOut, grad_all, T([1.0, 2.0]), T([3.0, 1.0])), [8.0, 4.0], [3.0, 5.0])


class ItemAssignLoop(nn.Cell):
    def construct(self, x):
        i = Tensor(0, mstype.int32)
        out = ops.zeros((3,), mstype.float32)
        while i < 3:
            out[i] = x[i] * x[i]
            i += 1
        return out


def test_item_assignment_in_while():
    check(run_grad(ItemAssignLoop, grad_first, T([1.0, 2.0, 3.0])), [2.0, 4.0, 6.0])


class TupleInput(nn.Cell):
    def construct(self, xs, y):
        a, b = xs
        if a.sum() > b.sum():
            return a * y
        return b * y


def test_tuple_argument_get_all():
    check(run_grad(TupleInput, grad_all, (T([1.0]), T([2.0])), T([3.0])), [0.0], [3.0], [2.0])


class KeepDimsLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rs = ops.ReduceSum(keep_dims=True)

    def construct(self, x):
        while self.rs(x).sum() < 10:
            x = x + self.rs(x)
        return x


def test_reduce_keep_dims_in_while():
    # two trips of x + sum(x): the Jacobian (I + 11^T)^2 = I + 4 11^T, column sums 9
    check(run_grad(KeepDimsLoop, grad_first, T([[1.0, 2.0]])), [[9.0, 9.0]])


class DenseLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
        self.fc.weight.set_data(T([[0.5, -0.25], [0.1, 0.3]]))

    def construct(self, x):
        n = Tensor(0, mstype.int32)
        while n < 3:
            x = ops.tanh(self.fc(x))
            n += 1
        return x.sum()


def test_dense_in_while_weights_against_central_differences():
    x = T([[1.0, -1.0]])
    g = run_grad(DenseLoop, grad_all_list, x)
    np.testing.assert_allclose(g[0], fd(DenseLoop, [x], 0), rtol=1e-3, atol=1e-4)
    assert g[1].shape == (2, 2) and g[2].shape == (2,)


class ValueAndGradInside(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = DenseLoop()
        self.vg = ms.value_and_grad(self.forward, None, self.net.trainable_params(),
                                    has_aux=True)

    def forward(self, x):
        y = self.net(x)
        return y, y * 2

    def construct(self, x):
        (loss, aux), grads = self.vg(x)
        return loss, aux, grads


def test_value_and_grad_has_aux_inside_construct():
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            loss, aux, grads = ValueAndGradInside()(T([[1.0, -1.0]]))
            out[mode] = [loss.asnumpy(), aux.asnumpy()] + [t.asnumpy() for t in grads]
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    for e, g in zip(out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out[ms.GRAPH_MODE][1], 2 * out[ms.GRAPH_MODE][0], rtol=1e-6)
