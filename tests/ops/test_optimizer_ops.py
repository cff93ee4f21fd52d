"""Optimizer ops with resource inputs (seed 004's ResourceApplyAdagrad): formulas
against numpy in both modes and inside a Loop, shape checks, and use_locking under
threads (infer requests of one compiled model, eager calls)."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ir.defs.state import Variable
from graphjit.jit.compiled_model import CompiledModel
from helpers_state import run_steps

f32 = np.float32
RNG = np.random.default_rng(0)


def P(a, name):
    return ms.Parameter(ms.Tensor(np.array(a, f32)), name=name)


def adagrad_ref(var, accum, lr, grad):
    accum = accum + grad * grad
    return var - lr * grad / np.sqrt(accum), accum


# -- ApplyAdagrad: the seed's formula -------------------------------------------------------------
class AdagradStep(nn.Cell):
    def __init__(self, use_locking=False):
        super().__init__()
        self.var = P([[0.6, 0.4], [0.1, 0.5]], "var")
        self.accum = P([[0.6, 0.5], [0.2, 0.6]], "accum")
        self.opt = ops.ApplyAdagrad(use_locking=use_locking)

    def construct(self, lr, grad):
        return self.opt(self.var, self.accum, lr, grad)


def test_apply_adagrad_matches_numpy_in_both_modes():
    grads = [RNG.standard_normal((2, 2)).astype(f32) for _ in range(3)]
    g, e, net = run_steps(AdagradStep, [(ms.Tensor(f32(0.01)), ms.Tensor(x)) for x in grads])
    var, accum = np.array([[0.6, 0.4], [0.1, 0.5]], f32), np.array([[0.6, 0.5], [0.2, 0.6]], f32)
    for step, grad in enumerate(grads):
        var, accum = adagrad_ref(var, accum, f32(0.01), grad)
        np.testing.assert_allclose(g[step][1]["var"], var, rtol=1e-6)
        np.testing.assert_allclose(g[step][1]["accum"], accum, rtol=1e-6)
    out_var, out_accum = g[-1][0]
    np.testing.assert_array_equal(out_var.asnumpy(), g[-1][1]["var"])
    assert len(net.compile_cache()) == 1
    graph = net.compile_cache()[0].graph
    assert "ApplyAdagrad(%var, %accum," in str(graph)
    assert [p.type.kind for p in graph.params] == ["tensor", "tensor", "ref", "ref", "state"]


class AdagradInLoop(nn.Cell):
    """One update per row of grads, in a Loop (a for over a tensor), stopping early when
    the update is small."""

    def __init__(self):
        super().__init__()
        self.var = P(np.ones((3,)), "var")
        self.accum = P(np.full((3,), 0.1), "accum")
        self.opt = ops.ApplyAdagrad()

    def construct(self, grads, lr):
        steps = 0
        for g in grads:
            v, a = self.opt(self.var, self.accum, lr, g)
            steps += 1
            if a.sum() > 20:
                break
        return self.var * 1, steps


@pytest.mark.parametrize("scale", [0.5, 3.0])
def test_apply_adagrad_inside_a_loop_matches_numpy(scale):
    grads = (RNG.standard_normal((5, 3)) * scale).astype(f32)
    g, _, net = run_steps(AdagradInLoop, [(ms.Tensor(grads), ms.Tensor(f32(0.1)))] * 2)
    var, accum = np.ones(3, f32), np.full(3, 0.1, f32)
    for _ in range(2):
        for grad in grads:
            var, accum = adagrad_ref(var, accum, f32(0.1), grad)
            if accum.sum() > 20:
                break
    np.testing.assert_allclose(g[-1][1]["var"], var, rtol=1e-5)
    np.testing.assert_allclose(g[-1][1]["accum"], accum, rtol=1e-5)
    loop = next(n for n in net.compile_cache()[0].graph.nodes if n.op == "Loop")
    assert any(n.op == "ApplyAdagrad" for n in loop.attrs["body"].walk())


def test_update_slots_false_keeps_the_accumulator():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    var, accum = P([1.0, 2.0], "var"), P([4.0, 4.0], "accum")
    out_var, out_accum = ops.ApplyAdagrad(update_slots=False)(var, accum, 0.5, ms.Tensor(
        np.array([1.0, -1.0], f32)))
    assert accum.asnumpy().tolist() == [4.0, 4.0]
    np.testing.assert_allclose(var.asnumpy(), [0.75, 2.25])


# -- use_locking under threads ------------------------------------------------------------------------
N_THREADS, UPDATES = 8, 40


def _sequential(shape, n, lr, grad):
    var, accum = np.ones(shape, f32), np.full(shape, 0.1, f32)
    for _ in range(n):
        var, accum = adagrad_ref(var, accum, f32(lr), grad)
    return var, accum


def _in_threads(work):
    errors = []

    def run():
        try:
            for _ in range(UPDATES):
                work()
        except BaseException as e:   # reported below
            errors.append(e)
    threads = [threading.Thread(target=run) for _ in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


class Update(nn.Cell):
    def __init__(self, shape, use_locking=True):
        super().__init__()
        self.var = P(np.ones(shape), "var")
        self.accum = P(np.full(shape, 0.1), "accum")
        self.opt = ops.ApplyAdagrad(use_locking=use_locking)

    def construct(self, grad):
        self.opt(self.var, self.accum, 0.01, grad)
        return self.var.sum()


def test_use_locking_makes_concurrent_infer_requests_of_one_model_safe():
    shape = (64, 64)
    grad = RNG.standard_normal(shape).astype(f32)
    net = Update(shape)
    model = ms.compile(net, ms.Tensor(grad))
    requests = {}

    def work():
        req = requests.setdefault(threading.get_ident(), model.create_infer_request())
        req.infer([grad])
    _in_threads(work)
    var, accum = _sequential(shape, N_THREADS * UPDATES, 0.01, grad)
    np.testing.assert_array_equal(net.accum.asnumpy(), accum)
    np.testing.assert_array_equal(net.var.asnumpy(), var)


def test_use_locking_makes_concurrent_eager_calls_safe():
    shape = (64, 64)
    grad = ms.Tensor(RNG.standard_normal(shape).astype(f32))
    var, accum = P(np.ones(shape), "var"), P(np.full(shape, 0.1), "accum")
    opt = ops.ApplyAdagrad(use_locking=True)
    _in_threads(lambda: opt(var, accum, 0.01, grad))
    want_var, want_accum = _sequential(shape, N_THREADS * UPDATES, 0.01, grad.asnumpy())
    np.testing.assert_array_equal(accum.asnumpy(), want_accum)
    np.testing.assert_array_equal(var.asnumpy(), want_var)


class SlowVariable(Variable):
    """A variable whose reads take a while, so that an update without the lock is
    certainly interleaved with another thread's (its read-modify-write is not atomic)."""

    __slots__ = ("_value",)

    def __init__(self, data):
        super().__init__(data)

    @property
    def _data(self):
        v = self._value
        time.sleep(0.0005)      # another thread may update the variable meanwhile
        return v

    @_data.setter
    def _data(self, v):
        self._value = v


@pytest.mark.parametrize("use_locking", [True, False])
def test_the_lock_is_what_keeps_updates(use_locking):
    grad = np.ones(3, f32)
    net = Update((3,), use_locking)
    graph = ms.compile(net, ms.Tensor(grad)).graph
    var, accum = SlowVariable(np.ones(3, f32)), SlowVariable(np.full(3, 0.1, f32))
    model = CompiledModel(graph, variables=[var, accum])
    _in_threads(lambda: model.create_infer_request().infer([grad]))
    want_var, want_accum = _sequential((3,), N_THREADS * UPDATES, 0.01, grad)
    if use_locking:
        np.testing.assert_array_equal(accum._value, want_accum)
        np.testing.assert_array_equal(var._value, want_var)
    else:   # threads read the same old value and overwrite each other's updates
        assert accum._value[0] < want_accum[0]


# -- the other optimizer ops ----------------------------------------------------------------------------
def _run(mode, fn):
    ms.set_context(mode=mode)
    return fn()


def test_apply_gradient_descent_momentum_adam_and_sgd_match_numpy():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        g = np.array([0.5, -1.0], f32)

        class Steps(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = P([1.0, 2.0], "w")
                self.m = P([0.1, 0.2], "m")
                self.v = P([0.3, 0.4], "v")
                self.acc = P([0.0, 0.0], "acc")
                self.stat = P([1.0, 1.0], "stat")
                self.gd = ops.ApplyGradientDescent()
                self.mom = ops.ApplyMomentum(use_nesterov=True)
                self.adam = ops.Adam()
                self.sgd = ops.SGD(dampening=0.1, weight_decay=0.01)

            def construct(self, grad):
                a = self.gd(self.w, 0.1, grad)
                b = self.mom(self.w, self.m, 0.1, grad, 0.9)
                c = self.adam(self.w, self.m, self.v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, grad)
                d = self.sgd(self.w, grad, 0.1, self.acc, 0.9, self.stat)
                e = self.sgd(self.w, grad, 0.1, self.acc, 0.9, self.stat)
                return a, b, c[0], d, e

        net = Steps()
        outs = [o.asnumpy() for o in net(ms.Tensor(g))]
        w = np.array([1.0, 2.0], f32) - f32(0.1) * g
        np.testing.assert_allclose(outs[0], w, rtol=1e-6)
        m = np.array([0.1, 0.2], f32) * f32(0.9) + g
        w = w - (g * f32(0.1) + m * f32(0.9) * f32(0.1))
        np.testing.assert_allclose(outs[1], w, rtol=1e-6)
        m = m * f32(0.9) + f32(0.1) * g
        v = np.array([0.3, 0.4], f32) * f32(0.999) + f32(0.001) * g * g
        lr_t = f32(0.01) * np.sqrt(f32(1 - 0.999)) / f32(1 - 0.9)
        w = w - lr_t * m / (np.sqrt(v) + f32(1e-8))
        np.testing.assert_allclose(outs[2], w, rtol=1e-5)
        np.testing.assert_allclose(net.m.asnumpy(), m, rtol=1e-5)
        gd = g + w * f32(0.01)          # SGD: first step takes the gradient as accum
        acc = gd
        w = w - f32(0.1) * acc
        np.testing.assert_allclose(outs[3], w, rtol=1e-5)
        gd = g + w * f32(0.01)
        acc = acc * f32(0.9) + f32(0.9) * gd
        w = w - f32(0.1) * acc
        np.testing.assert_allclose(outs[4], w, rtol=1e-5)
        assert net.stat.asnumpy().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_shape_functions_check_var_accum_grad_and_scalar_lr(mode):
    ms.set_context(mode=mode)

    class Bad(nn.Cell):
        def __init__(self, accum_shape):
            super().__init__()
            self.var = P(np.ones((2, 3)), "var")
            self.accum = P(np.ones(accum_shape), "accum")

        def construct(self, lr, grad):
            return ops.ApplyAdagrad()(self.var, self.accum, lr, grad)

    ok_grad = ms.Tensor(np.ones((2, 3), f32))
    with pytest.raises(ms.ShapeInferenceError, match=r"accum must have the shape of var"):
        Bad((3, 2))(0.1, ok_grad)
    with pytest.raises(ms.ShapeInferenceError, match=r"grad must have the shape of var"):
        Bad((2, 3))(0.1, ms.Tensor(np.ones((2, 2), f32)))
    with pytest.raises(ms.ShapeInferenceError, match=r"lr must be a scalar \(shape \(\)\), got "
                                                     r"f32\[2\]"):
        Bad((2, 3))(ms.Tensor(np.ones(2, f32)), ok_grad)
    with pytest.raises(TypeError, match="'accum' must be a Parameter"):
        ops.ApplyAdagrad()(P(np.ones(2), "v"), ms.Tensor(np.ones(2, f32)), 0.1, ms.Tensor(
            np.ones(2, f32)))


def test_int_parameters_are_refused_by_optimizer_ops():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    var = ms.Parameter(ms.Tensor(np.ones(2, np.int32)), name="n")
    with pytest.raises(ms.ShapeInferenceError, match="var must be a floating Parameter"):
        ops.ApplyGradientDescent()(var, 1, ms.Tensor(np.ones(2, np.int32)))


@pytest.mark.parametrize("momentum", [0.9, 0.0])
def test_sgd_holds_its_locks_under_concurrent_eager_calls(momentum):
    """ops.SGD always locks what it updates (parameters, and with momentum accum and
    stat, in ordered_locks' order): no update is lost, and a variable passed twice is
    locked once (no deadlock)."""
    shape = (32, 32)
    grad = ms.Tensor(RNG.standard_normal(shape).astype(f32))
    mom = P(np.asarray(momentum), "momentum")

    def fresh():
        return P(np.ones(shape), "p"), P(np.zeros(shape), "accum"), P(np.ones(shape), "stat")
    opt = ops.SGD(0.0, 0.0, False)
    param, accum, stat = fresh()
    _in_threads(lambda: opt(param, grad, 0.01, accum, mom, stat))
    want = fresh()
    for _ in range(N_THREADS * UPDATES):
        opt(want[0], grad, 0.01, want[1], mom, want[2])
    for got, w in zip((param, accum, stat), want):
        np.testing.assert_array_equal(got.asnumpy(), w.asnumpy())
    same = P(np.ones(shape), "same")
    opt(same, grad, 0.01, same, mom, stat)          # one variable twice: locked once
    from graphjit.ir.defs.state import ordered_locks
    locks = ordered_locks(param, accum, param)
    assert len(locks) == 3 and sum(lk is param._lock for lk in locks) == 1
