"""ms.grad / ms.value_and_grad (grad_position, weights, has_aux) and @ms.jit functions
over tensor-condition control flow, as MindSpore 2.x code writes them: the same
structure, dtypes and values in PYNATIVE and GRAPH mode, the hand-derived values, and
central differences for float inputs."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops, Parameter, Tensor

from ms_grad_programs import T, check, fd, flat

I32 = np.int32


def both(call):
    """call() in PYNATIVE and in GRAPH mode (call builds what it needs, so the
    Parameters are fresh); the results' structure and values agree; returns GRAPH's."""
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            r = call()
            out[mode] = (r, flat(r))
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    (re, fe), (rg, fg) = out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]
    assert _shape(re) == _shape(rg), (_shape(re), _shape(rg))
    for e, g in zip(fe, fg):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
    return rg, fg


def _shape(x):
    if isinstance(x, (tuple, list)):
        return tuple(_shape(v) for v in x)
    return "T"


def looped(x, y):
    while x.sum() < 10:
        if (x > y).any():
            x = x * 2
        else:
            x = x + y
    return x * y


def test_grad_of_function_positions_tuple():
    x, y = T([1.0, 2.0]), T([1.5, 0.5])
    r, g = both(lambda: ms.grad(looped, grad_position=(0, 1))(x, y))
    assert _shape(r) == ("T", "T")
    for pos in (0, 1):
        np.testing.assert_allclose(g[pos], fd(lambda: looped, [x, y], pos), rtol=1e-3, atol=1e-3)


def test_grad_of_function_default_position():
    x, y = T([1.0, 2.0]), T([1.5, 0.5])
    r, g = both(lambda: ms.grad(looped)(x, y))
    assert _shape(r) == "T"
    np.testing.assert_allclose(g[0], fd(lambda: looped, [x, y], 0), rtol=1e-3, atol=1e-3)


def test_grad_under_jit_function():
    @ms.jit
    def step(x, y):
        return ms.grad(looped, grad_position=1)(x, y)
    x, y = T([1.0, 2.0]), T([1.5, 0.5])
    r, g = both(lambda: step(x, y))
    np.testing.assert_allclose(g[0], fd(lambda: looped, [x, y], 1), rtol=1e-3, atol=1e-3)


def with_aux(x, y):
    z = x * y
    if z.sum() > 0:
        z = z * z
    return z.sum(), z.mean()


def test_grad_has_aux():
    r, g = both(lambda: ms.grad(with_aux, grad_position=0, has_aux=True)(T([1.0, 2.0]),
                                                                         T([3.0, 1.0])))
    # z = [3, 2] -> [9, 4]; d sum(z^2)/dx = 2 z y = [18, 4]; aux = mean = 6.5
    assert _shape(r) == ("T", ("T",))
    check(g, [18.0, 4.0], 6.5)


def test_value_and_grad_has_aux():
    r, g = both(lambda: ms.value_and_grad(with_aux, grad_position=(0, 1), has_aux=True)(
        T([1.0, 2.0]), T([3.0, 1.0])))
    assert _shape(r) == (("T", "T"), ("T", "T"))
    check(g, 13.0, 6.5, [18.0, 4.0], [6.0, 8.0])


class Regress(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T([[0.5], [-0.25]]), name="w")
        self.b = Parameter(T([0.1]), name="b")

    def construct(self, x):
        y = ops.matmul(x, self.w) + self.b
        if y.sum() < 0:
            y = -y
        return y


def test_value_and_grad_weights_only():
    net = None

    def call():
        nonlocal net
        net = Regress()
        loss_fn = nn.MSELoss()

        def forward(x, t):
            return loss_fn(net(x), t)
        return ms.value_and_grad(forward, None, net.trainable_params())(
            T([[1.0, 2.0], [3.0, 1.0]]), T([[1.0], [0.0]]))
    r, g = both(call)
    assert _shape(r) == ("T", ("T", "T"))
    # y = x w + b = [0.1, 1.35]; e = y - t = [-0.9, 1.35]; loss = mean(e^2)
    e = np.array([-0.9, 1.35])
    x = np.array([[1.0, 2.0], [3.0, 1.0]])
    check(g, np.mean(e ** 2), (x.T @ e).reshape(2, 1), [np.sum(e)])


def test_value_and_grad_positions_and_weights_has_aux():
    def call():
        net = Regress()

        def forward(x):
            y = net(x)
            return y.sum(), y
        return ms.value_and_grad(forward, 0, net.trainable_params(), has_aux=True)(
            T([[-1.0, 2.0]]))
    r, g = both(call)
    # y = -0.5 - 0.5 + 0.1 = -0.9 < 0: out = -y = 0.9: d/dx = -w^T, d/dw = -x^T, d/db = -1
    assert _shape(r) == (("T", "T"), ("T", ("T", "T")))
    check(g, 0.9, [[0.9]], [[-0.5, 0.25]], [[1.0], [-2.0]], [-1.0])


def test_grad_weights_of_cell_in_train_step_jit():
    def call():
        net = Regress()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

        @ms.jit
        def step(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss
        losses = [step(T([[1.0, 1.0]])) for _ in range(3)]
        return tuple(losses) + (Tensor(net.w.asnumpy()), Tensor(net.b.asnumpy()))
    r, g = both(call)
    # y = 0.25 + 0.1 = 0.35; grads: w: [1, 1], b: 1; each step w -= 0.1, b -= 0.1;
    # at the third step y = -0.25 < 0 flips the sign: loss 0.25 and the step goes back
    check(g, 0.35, 0.05, 0.25, [[0.4], [-0.35]], [0.0])


def test_grad_int32_function_while():
    def f(x, y):
        while x < y:
            x = x * 3
        return x - y
    # 2 -> 6 -> 18 >= 10: 9x - y: (9, -1)
    r, g = both(lambda: ms.grad(f, grad_position=(0, 1))(T(2, ms.int32), T(10, ms.int32)))
    check(g, 9, -1, dtype=I32)


def test_grad_int32_vector_through_if_and_for():
    def f(x):
        out = x
        for i in range(3):
            if out.sum() > 5:
                out = out * 2
            else:
                out = out + x
        return out
    # x = [1, 2]: 3 <= 5: 2x ([2, 4]); 6 > 5: 4x; then 8x
    r, g = both(lambda: ms.grad(f)(T([1, 2], ms.int32)))
    check(g, [8, 8], dtype=I32)


def test_grad_mixed_int_and_float_positions():
    def f(n, x):
        k = n * 1
        while k > 0:
            x = x * 1.5
            k = k - 1
        return x * n
    # n = 2: out = 2.25 x n (the trip count carries no gradient); d/dx = 4.5,
    # d/dn = sum(2.25 x) = 13.5, cast to int32 where n meets x: 13
    r, g = both(lambda: ms.grad(f, grad_position=(0, 1))(T(2, ms.int32), T([2.0, 4.0])))
    check(g, 13, [4.5, 4.5])
    assert g[0].dtype == I32 and g[1].dtype == np.float32


def test_get_grad_by_position_ids():
    def f(x, y):
        if x.sum() > y.sum():
            return x * y
        return x - y
    r, g = both(lambda: ms.get_grad(ms.grad(f, (0, 1), return_ids=True)(T([3.0]), T([1.0])),
                                    1))
    check(g, [3.0])


def test_jit_function_while_break_gradients_against_fd():
    def f(x):
        n = Tensor(0, ms.int32)
        while True:
            x = ops.sin(x) + x
            n += 1
            if n >= 4 or x.max() > 3:
                break
        return x
    x = T([0.3, -0.2])
    r, g = both(lambda: ms.grad(ms.jit(f))(x))
    np.testing.assert_allclose(g[0], fd(lambda: f, [x], 0), rtol=1e-3, atol=1e-3)


def test_jit_method_of_cell_grad():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(T(2.0), name="w")

        @ms.jit
        def construct(self, x):
            while x < 20:
                x = x * self.w
            return x
    # x = 3: 6, 12, 24 -> 3 w^3: d/dx = 8, d/dw = 9 w^2 = 36
    r, g = both(lambda: ops.GradOperation(get_all=True, get_by_list=True)(
        (net := Net()), ms.ParameterTuple(net.trainable_params()))(T(3.0)))
    check(g, 8.0, 36.0)


def test_grad_of_nested_function_calls_with_return_in_loop():
    def inner(x, k):
        for i in range(4):
            if x.sum() > k:
                return x * i
            x = x + 1
        return x

    def outer(x):
        return inner(x, 5.0) * x

    x = T([1.0, 1.5])
    # sums: 2.5, 4.5, 6.5 > 5 at i=2: inner = 2 (x + 2); out = 2 (x + 2) x: 4x + 4
    r, g = both(lambda: ms.grad(outer)(x))
    check(g, [8.0, 10.0])


def test_grad_of_list_append_in_tensor_loop():
    def f(x):
        outs = []
        i = Tensor(0, ms.int32)
        while i < 3:
            x = x * 2
            outs.append(x)
            i += 1
        return ops.stack(outs).sum()
    # 2x + 4x + 8x
    r, g = both(lambda: ms.grad(f)(T([1.0, -1.0])))
    check(g, [14.0, 14.0])


def test_grad_sens_via_grad_operation_of_function():
    def f(x):
        if x.sum() > 0:
            return x * x, x
        return x, x * 3
    go = ops.GradOperation(sens_param=True)
    r, g = both(lambda: go(f)(T([1.0, 2.0]), (T([1.0, 1.0]), T([2.0, 0.5]))))
    # 2x * s1 + s2 = [2 + 2, 4 + 0.5]
    check(g, [4.0, 4.5])


def test_value_and_grad_cell_with_int_parameter_state():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.steps = Parameter(Tensor(0, ms.int32), name="steps", requires_grad=False)
            self.w = Parameter(T([1.0, 2.0]), name="w")

        def construct(self, x):
            self.steps += 1
            y = x * self.w
            if self.steps > 1:
                y = y * 2
            return y.sum()

    def call():
        net = Net()
        vg = ms.value_and_grad(net, None, net.trainable_params())
        a = vg(T([1.0, 1.0]))
        b = vg(T([1.0, 1.0]))
        return a, b, Tensor(net.steps.asnumpy())
    r, g = both(call)
    check(g, 3.0, [1.0, 1.0], 6.0, [2.0, 2.0], 2)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_grad_fori_style_tensor_range(n):
    def f(x, n):
        acc = x * 0
        for i in range(n):
            acc = acc + x * i
        return acc
    # sum_i i = n (n - 1) / 2
    r, g = both(lambda: ms.grad(f)(T([1.0, 2.0]), Tensor(n, ms.int32)))
    check(g, [n * (n - 1) / 2] * 2)
