"""GradOperation over Cells with tensor-condition control flow, written as MindSpore's
own control-flow system tests are (a GradNet Cell around GradOperation(get_all=True),
Parameters read and updated in construct, int32 and float32 scalars and vectors):
each program gives the same gradients and Parameters in PYNATIVE and GRAPH mode, and
the hand-derived MindSpore value (integers differentiated as reals, cast to int32)."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit import nn, ops, Parameter, Tensor
from graphjit import dtype as mstype

from ms_grad_programs import (T, check, fd, grad_all, grad_all_list, grad_all_sens,
                              grad_by_list, grad_first, grad_list_sens, run_grad)

I32 = np.int32


# ---- int32 programs with Parameters updated in construct (tests/st/control style) ----

class ForAfterIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param_a = Parameter(Tensor(5, mstype.int32), name="a")
        self.param_b = Parameter(Tensor(4, mstype.int32), name="b")

    def construct(self, x):
        out = self.param_a
        if self.param_a > self.param_b:
            x += 3
        self.param_b += 1
        for _ in range(0, 5):
            x += self.param_b
        out *= x
        return out


def test_for_after_if_int32_parameter():
    # out = a * (x + 3 + 5 * (b + 1)): d/dx = a = 5
    g, f = run_grad(ForAfterIf, grad_all, T(2, ms.int32), forward=True)
    check(g, 5, dtype=I32)
    check(f, 5 * (2 + 3 + 25))


class IfAfterForInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param_a = Parameter(Tensor(5, mstype.int32), name="a")
        self.param_b = Parameter(Tensor(2, mstype.int32), name="b")

    def construct(self, x):
        out = x + self.param_a
        while self.param_a > self.param_b:
            self.param_b += 1
            for _ in range(4):
                self.param_a -= 3
        self.param_a -= 40
        if x > self.param_a:
            out += self.param_a * 10
        return out


def test_if_after_for_in_while_int32():
    g, f = run_grad(IfAfterForInWhile, grad_all, T(2, ms.int32), forward=True)
    check(g, 1, dtype=I32)
    check(f, 2 + 5 - 470)


class WhileDoubling(nn.Cell):
    def construct(self, x, y):
        while x < y:
            x = x * 2 + 1
        return x * y


def test_while_on_both_inputs_int32():
    # 1 -> 3 -> 7 -> 15: x_end = 8x + 7; d/dx = 8y = 80, d/dy = x_end = 15
    check(run_grad(WhileDoubling, grad_all, T(1, ms.int32), T(10, ms.int32)), 80, 15, dtype=I32)


def test_while_on_both_inputs_float32():
    g = run_grad(WhileDoubling, grad_all, T(1.5), T(10.0))
    # 1.5 -> 4 -> 9 -> 19: x_end = 8x + 7
    check(g, 80, 19, dtype=np.float32)


def test_while_zero_trips_int32():
    check(run_grad(WhileDoubling, grad_all, T(20, ms.int32), T(10, ms.int32)), 10, 20, dtype=I32)


class WhileInWhileParam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(1, mstype.int32), name="a")
        self.b = Parameter(Tensor(4, mstype.int32), name="b")

    def construct(self, x):
        out = x * 1
        while self.a < self.b:
            self.a += 1
            k = self.a * 1
            while k < 3:
                out = out + x
                k += 1
            out = out * 2
        return out


def test_while_in_while_with_parameter_condition_int32():
    g, f = run_grad(WhileInWhileParam, grad_all, T(3, ms.int32), forward=True)
    check(g, 16, dtype=I32)
    check(f, 48)


class IfInWhileInt(nn.Cell):
    def construct(self, x, y):
        i = 0
        while i < 4:
            if x > y:
                x = x - y
            else:
                x = x * y
            i += 1
        return x


def test_if_in_while_int32():
    # x=2, y=3: 2*3=6 -> 3 -> 3*3=9 -> 6: x_end = (x*y - y)*y - y
    # d/dx = y*y = 9; d/dy = 2xy - 2y... = 2*x*y - 1 - 1 computed: x*y^2 - y^2 - y
    # d/dy = 2xy - 2y - 1 = 12 - 6 - 1 = 5
    check(run_grad(IfInWhileInt, grad_all, T(2, ms.int32), T(3, ms.int32)), 9, 5, dtype=I32)


class WhileInIf(nn.Cell):
    def construct(self, x, y):
        if x < y:
            while x < y:
                x = x + 2 * x
        else:
            x = x - y
        return x + y


def test_while_in_if_int32_true_branch():
    # 1 -> 3 -> 9 -> 27 >= 20: x_end = 27x; out = 27x + y
    check(run_grad(WhileInIf, grad_all, T(1, ms.int32), T(20, ms.int32)), 27, 1, dtype=I32)


def test_while_in_if_int32_false_branch():
    check(run_grad(WhileInIf, grad_all, T(30, ms.int32), T(20, ms.int32)), 1, 0, dtype=I32)


class ForTensorRange(nn.Cell):
    def construct(self, x, n):
        out = x
        for _ in range(n):
            out = out * x
        return out


def test_for_over_tensor_bound_range():
    # x^(n+1) at x=2, n=3: 4 * 2^3 = 32
    check(run_grad(ForTensorRange, grad_first, T(2.0), Tensor(3, mstype.int32)), 32)


class IntDivisionTruncates(nn.Cell):
    def construct(self, x, y):
        if x > 0:
            out = x * x * y
        else:
            out = x + y
        return out / 3


def test_int_gradient_is_int_at_every_int_intermediate():
    # the product x*x*y is int32, so its gradient 1/3 is int32 too: 0, and so are the
    # gradients behind it (MindSpore differentiates each integer value in its own dtype)
    check(run_grad(IntDivisionTruncates, grad_all, T(2, ms.int32), T(5, ms.int32)), 0, 0,
          dtype=I32)


def test_int_gradient_negative_truncates_toward_zero():
    # x=-2 takes the else branch: out = (x+y)/3, both 1/3 -> 0
    check(run_grad(IntDivisionTruncates, grad_all, T(-2, ms.int32), T(5, ms.int32)), 0, 0,
          dtype=I32)


# ---- float32 programs (values by hand and against central differences) ----

class IfByIf(nn.Cell):
    def construct(self, x, y):
        if x > y:
            z = x * y
        else:
            z = x + y
        if z > 5:
            z = z * z
        return z


def test_if_by_if_both_taken():
    check(run_grad(IfByIf, grad_all, T(3.0), T(2.0)), 24, 36)


def test_if_by_if_none_taken():
    check(run_grad(IfByIf, grad_all, T(1.0), T(2.0)), 1, 1)


class WhileBreak(nn.Cell):
    def construct(self, x):
        i = Tensor(0, mstype.int32)
        while i < 10:
            x = x * 1.5
            if x.sum() > 20:
                break
            i += 1
        return x


def test_while_with_break_vector():
    check(run_grad(WhileBreak, grad_first, T([1.0, 2.0])), [1.5 ** 5] * 2)


class ForContinue(nn.Cell):
    def construct(self, x):
        out = x * 0
        for i in range(5):
            if (x * i).sum() > 6:
                continue
            out = out + x * i
        return out


def test_for_with_continue_on_tensor_condition():
    check(run_grad(ForContinue, grad_first, T([1.0, 1.0])), [6.0, 6.0])


class ReturnInWhile(nn.Cell):
    def construct(self, x, y):
        while y > 0:
            if x > 10:
                return x * y
            x = x * 2
            y = y - 1
        return x + y


def test_return_inside_while():
    check(run_grad(ReturnInWhile, grad_all, T(3.0), T(5.0)), 12, 12)


def test_return_after_while_exits():
    check(run_grad(ReturnInWhile, grad_all, T(1.0), T(2.0)), 4, 1)


class ForOverRows(nn.Cell):
    def construct(self, xs, h):
        for x in xs:
            h = h * x + 1
        return h


def test_for_over_tensor_rows():
    g = run_grad(ForOverRows, grad_all, T([[1.0, 2.0], [3.0, 4.0]]), T([1.0, 1.0]))
    check(g, [[3.0, 4.0], [2.0, 3.0]], [3.0, 8.0])


class NestedIfElif(nn.Cell):
    def construct(self, x):
        s = x.sum()
        if s > 4:
            if s > 8:
                y = x * x * x
            else:
                y = x * x
        elif s < 0:
            y = -x
        else:
            y = ops.exp(x)
        return y.sum()


def test_nested_if_elif_all_paths():
    for v, expect in (([3.0, 6.0], [27.0, 108.0]), ([2.0, 3.0], [4.0, 6.0]),
                      ([-1.0, -2.0], [-1.0, -1.0]), ([0.5, 1.0], np.exp([0.5, 1.0]))):
        check(run_grad(NestedIfElif, grad_first, T(v)), expect)


class WhileMatmul(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T([[0.5, 0.1], [0.2, 0.4]]), name="w")

    def construct(self, x):
        n = Tensor(0, mstype.int32)
        while n < 3:
            x = ops.tanh(ops.matmul(x, self.w))
            n += 1
        return x.sum()


def test_while_matmul_tanh_against_central_differences():
    x = T([[1.0, -0.5]])
    g = run_grad(WhileMatmul, grad_all_list, x)
    np.testing.assert_allclose(g[0], fd(WhileMatmul, [x], 0), rtol=1e-3, atol=1e-4)
    assert g[1].shape == (2, 2) and np.abs(g[1]).sum() > 0


class ForWhileIfMix(nn.Cell):
    def construct(self, x, y):
        for i in range(3):
            while x.sum() < 4 * (i + 1):
                x = x + y
            if (x * y).sum() > 10:
                y = y * 0.5
        return x * y


def test_for_while_if_mix_central_differences():
    x, y = T([0.5, 1.0]), T([1.0, 0.7])
    g = run_grad(ForWhileIfMix, grad_all, x, y)
    for pos in (0, 1):
        np.testing.assert_allclose(g[pos], fd(ForWhileIfMix, [x, y], pos), rtol=1e-3,
                                   atol=1e-3)


class SelectAndWhere(nn.Cell):
    def construct(self, x, y):
        out = x
        while out.max() < 5:
            out = ops.where(out > y, out * 2, out + y)
        return out


def test_where_inside_while_central_differences():
    x, y = T([1.0, 0.3]), T([0.5, 0.6])
    g = run_grad(SelectAndWhere, grad_all, x, y)
    for pos in (0, 1):
        np.testing.assert_allclose(g[pos], fd(SelectAndWhere, [x, y], pos), rtol=1e-3,
                                   atol=1e-3)


class ScalarVectorMix(nn.Cell):
    def construct(self, a, v):
        while a < 3:
            v = v * a + a
            a = a + 1
        return v


def test_scalar_and_vector_inputs():
    a, v = T(1.5), T([1.0, -2.0])
    g = run_grad(ScalarVectorMix, grad_all, a, v)
    # a=1.5: v1 = 1.5 v + 1.5, a=2.5: v2 = 2.5 v1 + 2.5 = 3.75 v + 6.25; d/dv = 3.75
    check([g[1]], [3.75, 3.75])
    np.testing.assert_allclose(g[0], fd(ScalarVectorMix, [a, v], 0), rtol=1e-3)


# ---- Parameters assigned in loops ----

class AssignInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T(2.0), name="w")

    def construct(self, x):
        i = Tensor(0, mstype.int32)
        while i < 3:
            ops.assign(self.w, self.w + 1)
            i += 1
        return x * self.w


def test_assign_in_while_then_read():
    # w becomes 5 before the read; the update carries no gradient
    g = run_grad(AssignInWhile, grad_all_list, T([1.0, 2.0]))
    check(g, [5.0, 5.0], 3.0)


class SetAttrInFor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.acc = Parameter(T([0.0, 0.0]), name="acc", requires_grad=False)
        self.w = Parameter(T([1.0, 3.0]), name="w")

    def construct(self, xs):
        for x in xs:
            self.acc = self.acc + x * self.w
        return (self.acc * self.w).sum()


def test_self_param_assigned_in_tensor_for():
    xs = T([[1.0, 2.0], [3.0, 1.0]])
    g = run_grad(SetAttrInFor, grad_all_list, xs)
    # out = sum(acc_end * w): acc_end = [1+3, 6+3] is read from the state its updates
    # wrote, and an update carries no gradient: d/dxs = 0, d/dw = acc_end
    check(g, np.zeros((2, 2)), [4.0, 9.0])


class AugAssignParamInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(0, mstype.int32), name="count")
        self.w = Parameter(T(0.5), name="w")

    def construct(self, x):
        if x.sum() > 0:
            self.count += 1
            y = x * self.w
        else:
            self.count -= 1
            y = x * x
        return y.sum()


def test_aug_assign_int_parameter_in_branch():
    # trainable_params holds the int32 counter too: its gradient is an int32 zero
    g = run_grad(AugAssignParamInIf, grad_all_list, T([1.0, 2.0]))
    check(g, [0.5, 0.5], 0, 3.0)
    assert g[1].dtype == I32


def test_aug_assign_int_parameter_other_branch():
    g = run_grad(AugAssignParamInIf, grad_all_list, T([-1.0, -2.0]))
    check(g, [-2.0, -4.0], 0, 0.0)


# ---- get_by_list, ParameterTuple, sens_param ----

class WhileOnWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T([2.0]), name="w")

    def construct(self, x):
        while x.sum() < 10:
            x = x * self.w + 1
        return x


def test_get_by_list_through_while():
    # x: 1 -> 3 -> 7 -> 15; d/dw = x2 + w (x1 + w x0) = 7 + 2 (3 + 2) = 17
    check(run_grad(WhileOnWeight, grad_by_list, T([1.0]), by_list=True), [17.0])


def test_get_all_and_by_list_through_while():
    check(run_grad(WhileOnWeight, grad_all_list, T([1.0]), by_list=True), [8.0], [17.0])


class TwoDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w1 = Parameter(T([[1.0, 0.5], [-0.5, 1.0]]), name="w1")
        self.w2 = Parameter(T([[0.3], [0.7]]), name="w2")

    def construct(self, x):
        h = ops.matmul(x, self.w1)
        if h.sum() > 0:
            h = ops.relu(h)
        else:
            h = h * 0.1
        return ops.matmul(h, self.w2)


def test_parameter_tuple_weights_if():
    x = T([[1.0, 2.0]])
    g = run_grad(TwoDense, grad_by_list, x, by_list=True)
    h = np.array([[0.0, 2.5]])      # x @ w1 = [0, 2.5], relu keeps it
    check(g, np.outer([1.0, 2.0], [0.0, 0.7]), h.T)


def test_sens_param_scales_vector_output():
    class Mul(nn.Cell):
        def construct(self, x, y):
            if x.sum() > y.sum():
                return x * y
            return x + y
    g = run_grad(Mul, grad_all_sens, T([3.0, 4.0]), T([1.0, 2.0]), T([2.0, -1.0]))
    check(g, [2.0, -2.0], [6.0, -4.0])


def test_sens_param_by_list():
    g = run_grad(WhileOnWeight, grad_list_sens, T([1.0]), T([3.0]), by_list=True)
    check(g, [51.0])


def test_sens_param_int32():
    class Sq(nn.Cell):
        def construct(self, x):
            while x < 10:
                x = x * x
            return x
    # 2 -> 4 -> 16: x^4, d/dx = 4 x^3 = 32, times sens 3
    check(run_grad(Sq, grad_all_sens, T(2, ms.int32), T(3, ms.int32)), 96, dtype=I32)


def test_grad_of_parameter_tuple_with_frozen_parameter():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(T(3.0), name="w")
            self.b = Parameter(T(1.0), name="b", requires_grad=False)

        def construct(self, x):
            if x > 0:
                return x * self.w + self.b
            return x - self.w
    g = run_grad(Net, grad_by_list, T(2.0), by_list=True)
    check(g, 2.0)   # b is not trainable: only w's gradient


# ---- int32 Parameters both differentiated (get_by_list) and updated in construct ----

def test_for_after_if_weights_read_after_their_update():
    # a is read once (out = a): d/da = x_end = 30; b's five reads after b += 1 give
    # a each (25); the update itself carries no gradient
    g = run_grad(ForAfterIf, grad_all_list, T(2, ms.int32))
    check(g, 5, 30, 25, dtype=I32)


def test_if_after_for_in_while_weights():
    # a: the first read (+1) and the read after its updates times 10 (+10); b: only in
    # conditions and updates
    g = run_grad(IfAfterForInWhile, grad_all_list, T(2, ms.int32))
    check(g, 1, 11, 0, dtype=I32)
