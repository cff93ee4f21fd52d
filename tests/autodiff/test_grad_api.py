"""ms.grad, ms.value_and_grad and ops.GradOperation: MindSpore's return conventions in
both modes, weights, has_aux, sens_param, gradients taken inside a construct, the
compile cache, errors, and the backward graph as an ordinary graph."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.autodiff import grad_graph
from graphjit.ir import verify

BOTH = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def T(x, dtype=np.float64):
    return ms.Tensor(np.asarray(x, dtype=dtype))


def f3(x, y, z):
    return x * y * z


X, Y, Z = T([1.0, 2.0]), T([-2.0, 3.0]), T([0.0, 3.0])


@pytest.mark.parametrize("mode", BOTH)
def test_grad_position_conventions(mode):
    ms.set_context(mode=mode)
    g = ms.grad(f3)(X, Y, Z)
    assert isinstance(g, ms.Tensor)
    np.testing.assert_array_equal(g.asnumpy(), [-0.0, 9.0])
    g = ms.grad(f3, grad_position=(1, 2))(X, Y, Z)
    assert isinstance(g, tuple) and len(g) == 2
    np.testing.assert_array_equal(g[0].asnumpy(), [0.0, 6.0])
    np.testing.assert_array_equal(g[1].asnumpy(), [-2.0, 6.0])
    g = ms.grad(f3, grad_position=(0,))(X, Y, Z)
    assert isinstance(g, tuple) and len(g) == 1


class Lin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(T([[1.0, 2.0], [3.0, -1.0]]), name="w")
        self.b = ms.Parameter(T([0.5, -0.5]), name="b")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b).sum()


@pytest.mark.parametrize("mode", BOTH)
def test_weights_and_aux_conventions(mode):
    ms.set_context(mode=mode)
    net = Lin()
    ws = net.trainable_params()
    assert [p.name for p in ws] == ["w", "b"]
    x = T([[0.1, 0.2], [0.3, -0.4]])
    gx, (gw, gb) = ms.grad(net, 0, ws)(x)
    assert gx.shape == (2, 2) and gw.shape == (2, 2) and gb.shape == (2,)
    only = ms.grad(net, None, ws)(x)
    assert isinstance(only, tuple) and len(only) == 2
    np.testing.assert_array_equal(only[0].asnumpy(), gw.asnumpy())
    one = ms.grad(net, None, net.w)(x)          # a single Parameter: a single gradient
    assert isinstance(one, ms.Tensor)
    np.testing.assert_array_equal(one.asnumpy(), gw.asnumpy())

    def with_aux(x):
        y = net(x)
        return y, y * 2, x
    g, aux = ms.grad(with_aux, 0, has_aux=True)(x)
    np.testing.assert_array_equal(g.asnumpy(), gx.asnumpy())
    assert isinstance(aux, tuple) and len(aux) == 2
    np.testing.assert_allclose(aux[0].asnumpy(), 2 * net(x).asnumpy())
    (out, *rest), (g2, ws2) = ms.value_and_grad(with_aux, 0, ws, has_aux=True)(x)
    np.testing.assert_allclose(out.asnumpy(), net(x).asnumpy())
    np.testing.assert_array_equal(g2.asnumpy(), gx.asnumpy())
    loss, g3 = ms.value_and_grad(net)(x)
    np.testing.assert_allclose(loss.asnumpy(), net(x).asnumpy())


@pytest.mark.parametrize("mode", BOTH)
def test_several_outputs_sum_and_stop_gradient(mode):
    ms.set_context(mode=mode)

    def fn(x):
        y = x * x
        u = ops.stop_gradient(y)
        return u * x, u
    x = T([0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ms.grad(fn)(x).asnumpy(), (x * x).asnumpy())


@pytest.mark.parametrize("mode", BOTH)
def test_grad_operation(mode):
    ms.set_context(mode=mode)
    net = Lin()
    x = T([[0.1, 0.2], [0.3, -0.4]])
    g0 = ops.GradOperation()(net)(x)
    assert isinstance(g0, ms.Tensor)
    gall = ops.GradOperation(get_all=True)(net)(x)
    assert isinstance(gall, tuple) and len(gall) == 1
    np.testing.assert_array_equal(gall[0].asnumpy(), g0.asnumpy())
    ws = ms.ParameterTuple(net.trainable_params())
    gw = ops.GradOperation(get_by_list=True)(net, ws)(x)
    assert isinstance(gw, tuple) and len(gw) == 2
    both = ops.GradOperation(get_all=True, get_by_list=True)(net, ws)(x)
    assert isinstance(both[0], tuple) and isinstance(both[1], tuple)
    np.testing.assert_array_equal(both[1][1].asnumpy(), gw[1].asnumpy())
    sens = ops.GradOperation(sens_param=True)(f3)(X, Y, Z, T([2.0, -1.0]))
    np.testing.assert_array_equal(sens.asnumpy(), (Y * Z).asnumpy() * [2.0, -1.0])


class TrainStep(nn.Cell):
    """A TrainOneStep-like Cell: the gradient is built inline in its construct."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, x, n):
        loss = self.net(x)
        grads = self.grad(self.net, self.weights)(x)
        k = 0
        while k < n:                       # control flow around the gradient too
            loss = loss * 0.5
            k += 1
        return loss, grads


def test_gradient_inside_construct_matches_pynative():
    x = T([[0.1, 0.2], [0.3, -0.4]])
    res = {}
    for mode in BOTH:
        ms.set_context(mode=mode)
        net = Lin()
        step = TrainStep(net)
        out = []
        for _ in range(3):                 # updates between calls: no stale constants
            loss, grads = step(x, ms.Tensor(2))
            for p, g in zip(net.trainable_params(), grads):
                p.set_data(ms.Tensor(p.asnumpy() - 0.1 * g.asnumpy()))
            out.append(loss.asnumpy())
        res[mode] = out + [p.asnumpy() for p in net.trainable_params()]
    for a, b in zip(res[ms.PYNATIVE_MODE], res[ms.GRAPH_MODE]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_ms_grad_inside_construct_with_value_and_has_aux():
    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Lin()
            self.vg = ms.value_and_grad(self.fwd, 0, None, has_aux=True)

        def fwd(self, x):
            y = self.inner(x)
            return y * 3.0, y

        def construct(self, x):
            (loss, aux), dx = self.vg(x)
            return loss + aux, dx
    x = T([[0.1, 0.2], [0.3, -0.4]])
    res = []
    for mode in BOTH:
        ms.set_context(mode=mode)
        ms.set_seed(0)
        out = Outer()(x)
        res.append([t.asnumpy() for t in out])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_graph_mode_compiles_once_and_reads_the_current_weights():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Lin()
    gf = ms.grad(net, None, net.trainable_params())
    x = T([[0.1, 0.2], [0.3, -0.4]])
    first = gf(x)
    net.w.set_data(ms.Tensor(net.w.asnumpy() * 2.0))
    second = gf(x)
    entries = [e for e in net.compile_cache()]
    from graphjit.jit.cache import _CACHES
    grad_caches = [c for k, c in _CACHES[net].items() if isinstance(k, tuple)]
    assert len(grad_caches) == 1 and len(grad_caches[0].order) == 1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = ms.grad(net, None, net.trainable_params())(x)
    for a, b in zip(second, want):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert not np.array_equal(first[0].asnumpy(), second[0].asnumpy())
    del entries


no_grad_op = ops.register_op("GradTestNoRule", ["x"], infer=lambda ts, attrs: ts[0],
                             kernel=lambda x: x * 2, replace=True)
with_grad_op = ops.register_op(
    "GradTestWithRule", ["x"], infer=lambda ts, attrs: ts[0], kernel=lambda x: x * x,
    grad=lambda b, n: [n.like(b.mul(b.mul(n.g, n.x(0)), b.scalar(2.0, n.in_types[0].dtype)),
                              0)], replace=True)


def uses_no_grad(x):
    y = x * 2.0
    return no_grad_op(y).sum()                 # the line the error must name


def uses_it_only_for_a_condition(x):
    if no_grad_op(x).sum() > 0:
        return (x * 3.0).sum()
    return x.sum()


@pytest.mark.parametrize("mode", BOTH)
def test_an_op_without_a_gradient_is_an_error_at_its_line(mode):
    ms.set_context(mode=mode)
    with pytest.raises(ms.MissingGradientError) as info:
        ms.grad(uses_no_grad)(T([1.0, 2.0]))
    e = info.value
    assert "GradTestNoRule" in str(e)
    assert e.loc is not None and "no_grad_op(y)" in e.loc.text
    # where no gradient flows through it, the op is fine
    np.testing.assert_array_equal(ms.grad(uses_it_only_for_a_condition)(T([1.0, 2.0])).asnumpy(),
                                  [3.0, 3.0])


@pytest.mark.parametrize("mode", BOTH)
def test_a_user_op_with_a_gradient_rule(mode):
    ms.set_context(mode=mode)
    g = ms.grad(lambda x: with_grad_op(x).sum())(T([1.0, -2.0]))
    np.testing.assert_array_equal(g.asnumpy(), [2.0, -4.0])


@pytest.mark.parametrize("mode", BOTH)
def test_bad_arguments(mode):
    ms.set_context(mode=mode)
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.grad(f3, None, None)
    with pytest.raises(ValueError, match="out of range"):
        ms.grad(f3, 5)(X, Y, Z)
    with pytest.raises(TypeError, match="not a Tensor"):
        ms.grad(lambda x, k: x * k, 1)(X, 2)
    with pytest.raises(TypeError, match="Parameters"):
        ms.grad(f3, 0, [X])
    with pytest.raises(TypeError, match="more than one output"):
        ms.grad(lambda x: x * 2, has_aux=True)(X)


def test_the_backward_graph_is_an_ordinary_graph(tmp_path):
    def fn(x, n):
        i = 0
        h = x
        while i < n:
            h = ops.tanh(h * x)
            if h.sum() > 1.0:
                h = h * 0.5
            i += 1
        return h.sum()
    x = T([0.2, 0.4])
    model = ms.compile(fn, x, ms.Tensor(3))
    g = grad_graph(model.graph, [0])
    verify(g)
    text = str(g)
    assert "Loop(" in text and "_grad" in text
    from graphjit.backend.executor import compile_graph
    from graphjit.ir.serialize import load_graph, save_graph
    save_graph(g, str(tmp_path / "g.gjm"))
    loaded, _ = load_graph(str(tmp_path / "g.gjm"))
    assert str(loaded) == text
    out = compile_graph(loaded)(x.asnumpy(), np.asarray(3))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out[1], ms.grad(fn)(x, ms.Tensor(3)).asnumpy(), rtol=1e-12)


def test_gradients_with_respect_to_a_constant_value():
    """Weights baked into a graph as constants can be sources too."""
    class Baked(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = T([1.5, -2.0])

        def construct(self, x):
            return (x * self.w).sum()
    x = T([3.0, 4.0])
    model = ms.compile(Baked(), x)
    const = next(n for n in model.graph.nodes if n.op == "Const" and
                 n.outputs[0].type.shape == (2,)).outputs[0]
    g = grad_graph(model.graph, [const, 0])
    from graphjit.backend.executor import compile_graph
    loss, dw, dx = compile_graph(g)(x.asnumpy())
    np.testing.assert_array_equal(dw, [3.0, 4.0])
    np.testing.assert_array_equal(dx, [1.5, -2.0])


def test_jit_functions_inside_a_pynative_gradient_run_on_the_tape():
    @ms.jit
    def inner(x):
        return ops.sin(x) * x

    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = T([0.5, 1.0])
    g = ms.grad(lambda v: inner(v).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.cos(x.asnumpy()) * x.asnumpy() +
                               np.sin(x.asnumpy()))


def test_pynative_item_assignment_and_bool_mask_reads_are_recorded():
    ms.set_context(mode=ms.PYNATIVE_MODE)

    def fn(x):
        y = x * 1.0
        y[0] = y[1] * y[2]
        return y[y > 0.5].sum() + y.sum()
    x = T([0.3, 2.0, 3.0])
    g = ms.grad(fn)(x)
    # y = [x1*x2, x1, x2]; y > 0.5 everywhere here: total = 2 * (x1 x2 + x1 + x2)
    np.testing.assert_allclose(g.asnumpy(), [0.0, 2 * (3.0 + 1.0), 2 * (2.0 + 1.0)])


def test_pynative_item_assignment_with_array_indices():
    ms.set_context(mode=ms.PYNATIVE_MODE)

    def fn(x):
        y = x * 1.0
        y[[0, 2]] = y[[1, 1]] * 3.0
        y[ms.Tensor(np.array([True, False, False, True]))] = 0.5 * x[0]
        return (y * y).sum()
    x = T([1.0, 2.0, 3.0, 4.0])
    # y = [3 x1, x1, 3 x1, x3], then y[0] = y[3] = x0 / 2: total = x0^2 / 2 + 10 x1^2
    np.testing.assert_allclose(ms.grad(fn)(x).asnumpy(), [1.0, 40.0, 0.0, 0.0])


def test_a_function_taking_a_gradient_is_differentiated_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)

    def inner(x):
        return (x * x * x).sum()

    def outer(x):
        return ms.grad(inner)(x).sum()
    # outer = sum(3 x^2): its gradient 6 x
    np.testing.assert_allclose(ms.grad(outer)(T([1.0, 2.0])).asnumpy(), [6.0, 12.0])


def test_a_function_taking_a_gradient_is_refused_in_pynative_mode():
    ms.set_context(mode=ms.PYNATIVE_MODE)

    def inner(x):
        return (x * x * x).sum()

    def outer(x):
        return ms.grad(inner)(x).sum()
    with pytest.raises(NotImplementedError, match="higher-order"):
        ms.grad(outer)(T([1.0, 2.0]))


def test_a_compiled_model_inside_a_pynative_gradient_runs_its_source():
    net = Lin()
    x = T([[0.1, 0.2], [0.3, -0.4]])
    model = ms.compile(net, x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = ms.grad(lambda v: model(v) * 2.0)(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * ms.grad(net)(x).asnumpy(), rtol=1e-12)
