"""Gradients of gradients (grad(grad(f)), GradOperation of a Cell taking a gradient):
the gradient graph differentiated again, through If and Loop, checked against central
differences of the first gradient; the backward-only ops' own rules
(ir/defs/grad_ops_grad.py) each reached by a program; and the ops without one refused
with MissingGradientError instead of a silent zero."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ops import composite as C

BOTH = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def T(x):
    return ms.Tensor(np.asarray(x, dtype=np.float64))


def fd_of_grad_sum(g, x0, *rest):
    """Central differences of sum(g(x)) at x0 (g a first gradient, other args fixed)."""
    eps = 1e-6
    out = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[idx] = eps
        hi = g(T(x0 + e), *rest).asnumpy().sum()
        lo = g(T(x0 - e), *rest).asnumpy().sum()
        out[idx] = (hi - lo) / (2 * eps)
    return out


def while_of_sum(x):
    s = x.sum()
    while s < 20.0:
        x = x * 1.5 + ops.sin(x)
        s = x.sum()
    return (x * x).sum()


def for_break(x):
    y = x
    for _ in range(4):
        if y.sum() > 3.0:
            y = y * x
            break
        y = ops.tanh(y) + x * x
    return (y ** 2).mean()


def matmul_softmax(x):
    m = ops.matmul(x.reshape(2, 2), x.reshape(2, 2))
    return ops.softmax(m, axis=-1)[0].sum() * 3 + ops.exp(x).sum()


def gather_in_loop(x):
    # x[i] with i the Loop's counter: Gather, whose gradient GatherGrad needs its own
    i = ms.Tensor(0, ms.int32)
    acc = x * 0
    while i < 3:
        acc = acc + x[i] * x
        i = i + 1
    return (acc * acc).sum()


def sort_topk(x):
    v, _ = ops.sort(x)
    w, _ = ops.topk(x, 2)
    return (v * v * ops.arange(4).astype(ms.float64)).sum() + (w ** 3).sum()


def gather_elements(x):
    idx = ms.Tensor(np.array([[1, 0], [0, 1]]), ms.int64)
    return (ops.gather_elements(x.reshape(2, 2), 1, idx) ** 3).sum()


PROGRAMS = [while_of_sum, for_break, matmul_softmax, gather_in_loop, sort_topk,
            gather_elements]


@pytest.mark.parametrize("mode", BOTH)
@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_grad_of_grad_matches_differences_of_the_gradient(mode, fn):
    ms.set_context(mode=mode)
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, size=4)
    g = ms.grad(fn)
    want = fd_of_grad_sum(g, x0)
    got = ms.grad(ms.grad(fn))(T(x0)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


class DynamicShapes(nn.Cell):
    """With a first dim known only at run time the gradient is made of SumToLike,
    BroadcastLike, ReshapeLike, TileGrad and ConcatGrad: each differentiated again."""

    def construct(self, x, b):
        y = x * b + ops.tile(b, (2, 1)).sum(0) * x
        y = ops.concat((y, x * x), 1)
        z = (y.reshape(-1, 2) ** 3).sum()
        c = ops.concat((x.reshape(-1), (x * b).reshape(-1)), 0)
        return (y * y).sum() + z + (c ** 3).sum()


def test_grad_of_grad_through_the_dynamic_shape_ops():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = DynamicShapes()
    net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float64),
                   ms.Tensor(shape=[1, 3], dtype=ms.float64))
    x0 = np.random.default_rng(1).uniform(size=(2, 3))
    b0 = np.array([[0.5, 1.5, 2.0]])
    g = ms.grad(net, grad_position=(0, 1))

    def g_sum(x, b):      # the sum of both gradients, as the outer gradient seeds it
        gx, gb = g(x, b)
        return T(gx.asnumpy().sum() + gb.asnumpy().sum())
    want = fd_of_grad_sum(g_sum, x0, T(b0))
    got = ms.grad(g, grad_position=0)(T(x0), T(b0)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)
    graph = ms.compile(lambda x, b: ms.grad(g, grad_position=(0, 1))(x, b),
                       ms.TensorSpec((None, 3), ms.float64),
                       ms.TensorSpec((1, 3), ms.float64)).graph
    seen = {n.op for n in graph.nodes}
    assert {"SumToLike", "BroadcastLike", "ReshapeLike", "TileGrad", "ConcatGrad"} <= seen


class Cube(nn.Cell):
    def construct(self, x):
        while x < 10:
            x = x * x
        return x * x


class GradNet(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = C.GradOperation()

    def construct(self, x):
        return self.grad(self.net)(x)


def test_grad_operation_of_a_cell_taking_a_gradient():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = T([1.5])
    # 1.5 -> 2.25 -> 5.06 -> 25.6 (x^8), returned squared: x^16, second derivative 240 x^14
    want = 240 * 1.5 ** 14
    np.testing.assert_allclose(GradNet(GradNet(Cube()))(x).asnumpy(), [want], rtol=1e-12)
    np.testing.assert_allclose(ms.grad(GradNet(Cube()))(x).asnumpy(), [want], rtol=1e-12)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(C.GradOperation()(C.GradOperation()(Cube()))(x).asnumpy(),
                               [want], rtol=1e-12)


def test_a_second_gradient_through_a_convolution_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    conv = nn.Conv2d(1, 1, 3, has_bias=False)

    def f(x):
        return (conv(x) ** 2).sum()
    x = ms.Tensor(np.ones((1, 1, 4, 4), np.float32))
    with pytest.raises(ms.MissingGradientError, match="Conv2DBackprop"):
        ms.grad(ms.grad(f))(x)


class SinNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.5, -0.5])), name="w")

    def construct(self, x):
        return (ops.sin(self.w * x) * x).sum()


class GradXSum(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = C.GradOperation()

    def construct(self, x):
        return self.grad(self.net)(x).sum()


def test_weights_gradient_of_an_input_gradient():
    # d/dw sum_i d/dx_i [sin(w x) x] = d/dw sum(w x cos(w x) + sin(w x)): a gradient with
    # respect to the weights of a Cell that takes an input gradient (a gradient penalty);
    # the weights the inner gradient reads are inputs of its graph, not state (this gave
    # zeros silently)
    ms.set_context(mode=ms.GRAPH_MODE)
    w, x0 = np.array([1.5, -0.5]), np.array([0.3, 0.7])
    want = 2 * np.cos(w * x0) * x0 - np.sin(w * x0) * w * x0 * x0
    net = GradXSum(SinNet())
    got = C.GradOperation(get_by_list=True)(net, net.trainable_params())(T(x0))
    np.testing.assert_allclose(got[0].asnumpy(), want, rtol=1e-12)
