"""Losses and optimizers (MindSpore 2.x signatures) against numpy, in both modes: the
optimizers are given gradient tensors, so this needs no autodiff."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from helpers import run_both
from helpers_state import run_steps

f32 = np.float32
RNG = np.random.default_rng(3)


def T(a, dtype=f32):
    return ms.Tensor(np.asarray(a, dtype))


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


# -- losses -------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1(reduction):
    x, y = RNG.standard_normal((4, 3)).astype(f32), RNG.standard_normal((4, 3)).astype(f32)
    red = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    out = run_both(lambda: nn.MSELoss(reduction), T(x), T(y))[0]
    np.testing.assert_allclose(out.asnumpy(), red((x - y) ** 2), rtol=1e-5)
    out = run_both(lambda: nn.L1Loss(reduction), T(x), T(y))[0]
    np.testing.assert_allclose(out.asnumpy(), red(np.abs(x - y)), rtol=1e-5)


def test_softmax_cross_entropy_with_logits_sparse_and_dense():
    logits = RNG.standard_normal((5, 4)).astype(f32)
    labels = np.array([0, 3, 1, 1, 2])
    want = -log_softmax(logits)[np.arange(5), labels]
    out = run_both(lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                   T(logits), ms.Tensor(labels.astype(np.int32)))[0]
    np.testing.assert_allclose(out.asnumpy(), want.mean(), rtol=1e-5)
    dense = np.eye(4, dtype=f32)[labels]
    out = run_both(lambda: nn.SoftmaxCrossEntropyWithLogits(), T(logits), T(dense))[0]
    assert out.shape == (5,)        # MindSpore's default: sparse=False, reduction='none'
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)


def test_cross_entropy_loss_with_weights_ignore_index_and_smoothing():
    logits = RNG.standard_normal((6, 3)).astype(f32)
    labels = np.array([0, 2, -100, 1, 2, 0])
    w = np.array([1.0, 2.0, 0.5], f32)
    lp = log_softmax(logits)
    keep = labels != -100
    safe = np.where(keep, labels, 0)
    eps = 0.1
    target = np.eye(3)[safe] * (1 - eps) + eps / 3
    per = -(target * lp * w).sum(-1) * keep
    want = per.sum() / (w[safe] * keep).sum()
    out = run_both(lambda: nn.CrossEntropyLoss(weight=T(w), label_smoothing=eps),
                   T(logits), ms.Tensor(labels.astype(np.int32)))[0]
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    probs = np.abs(RNG.standard_normal((6, 3))).astype(f32)
    probs /= probs.sum(-1, keepdims=True)
    out = run_both(lambda: nn.CrossEntropyLoss(reduction="sum"), T(logits), T(probs))[0]
    np.testing.assert_allclose(out.asnumpy(), -(probs * lp).sum(), rtol=1e-5)


def test_loss_reduction_is_checked():
    with pytest.raises(ValueError, match="reduction must be one of"):
        nn.MSELoss("average")


# -- optimizers -------------------------------------------------------------------------------------
class Params(nn.Cell):
    """Two Parameters (a 'weight' and a 'gamma', which weight decay skips) and an
    optimizer step taking their gradients."""

    def __init__(self, make_opt):
        super().__init__()
        self.weight = ms.Parameter(T([[1.0, -2.0], [0.5, 3.0]]), name="weight")
        self.gamma = ms.Parameter(T([1.0, 1.0]), name="gamma")
        self.opt = make_opt([self.weight, self.gamma])

    def construct(self, g1, g2):
        self.opt((g1, g2))
        return self.weight * 1


GRADS = [(RNG.standard_normal((2, 2)).astype(f32), RNG.standard_normal(2).astype(f32))
         for _ in range(3)]


def _steps(make_opt):
    g, _, net = run_steps(lambda: Params(make_opt), [(T(a), T(b)) for a, b in GRADS],
                          exact=True)
    assert len(net.compile_cache()) == 1
    return g[-1][1]


def _ref(update, state=None, wd=0.0, scale=1.0, lrs=(0.1,)):
    """numpy reference: update(p, g, lr, state_of_p, step) -> new p."""
    ps = [np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([1.0, 1.0])]
    states = [dict(state or {}) for _ in ps]
    for step, gs in enumerate(GRADS):
        lr = lrs[min(step, len(lrs) - 1)]
        for i, (p, g) in enumerate(zip(ps, gs)):
            g = g.astype(np.float64)
            if wd and i == 0:           # 'gamma' does not decay
                g = g + wd * p
            g = g / scale
            ps[i] = update(p, g, lr, states[i], step)
    return ps


def _close(got, want):
    np.testing.assert_allclose(got["weight"], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["gamma"], want[1], rtol=1e-5, atol=1e-6)


def test_momentum_with_weight_decay_loss_scale_and_per_step_lr():
    def upd(p, g, lr, s, step):
        s["v"] = s.get("v", 0.0) * 0.9 + g
        return p - lr * s["v"]
    got = _steps(lambda ps: nn.Momentum(ps, [0.1, 0.05, 0.02], 0.9, weight_decay=0.01,
                                        loss_scale=4.0))
    _close(got, _ref(upd, wd=0.01, scale=4.0, lrs=(0.1, 0.05, 0.02)))
    assert got["opt.global_step"].tolist() == [3]


def test_momentum_nesterov():
    def upd(p, g, lr, s, step):
        s["v"] = s.get("v", 0.0) * 0.8 + g
        return p - (g * lr + s["v"] * 0.8 * lr)
    _close(_steps(lambda ps: nn.Momentum(ps, 0.1, 0.8, use_nesterov=True)), _ref(upd))


@pytest.mark.parametrize("momentum,dampening,nesterov", [(0.0, 0.0, False),
                                                         (0.9, 0.1, False), (0.9, 0.0, True)])
def test_sgd(momentum, dampening, nesterov):
    def upd(p, g, lr, s, step):
        if momentum > 0:
            s["a"] = g if step == 0 else s["a"] * momentum + (1 - dampening) * g
            g = g + momentum * s["a"] if nesterov else s["a"]
        return p - lr * g
    got = _steps(lambda ps: nn.SGD(ps, 0.1, momentum, dampening, weight_decay=0.02,
                                   nesterov=nesterov))
    _close(got, _ref(upd, wd=0.02))


def test_adam_with_weight_decay():
    def upd(p, g, lr, s, step):
        t = step + 1
        s["m"] = 0.9 * s.get("m", 0.0) + 0.1 * g
        s["v"] = 0.999 * s.get("v", 0.0) + 0.001 * g * g
        lr_t = lr * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        return p - lr_t * s["m"] / (np.sqrt(s["v"]) + 1e-8)
    got = _steps(lambda ps: nn.Adam(ps, 0.01, weight_decay=0.1))
    _close(got, _ref(upd, wd=0.1, lrs=(0.01,)))
    np.testing.assert_allclose(got["opt.beta1_power"], 0.9 ** 3, rtol=1e-6)


def test_adagrad():
    def upd(p, g, lr, s, step):
        s["a"] = s.get("a", 0.1) + g * g
        return p - lr * g / np.sqrt(s["a"])
    _close(_steps(lambda ps: nn.Adagrad(ps, accum=0.1, learning_rate=0.1)), _ref(upd))


def test_grouped_parameters_take_their_group_lr_and_weight_decay():
    def make(ps):
        # the groups list gamma first; order_params puts the weight first again, the order
        # the gradients come in
        return nn.Momentum([{"params": [ps[1]]},
                            {"params": [ps[0]], "lr": 0.2, "weight_decay": 0.1},
                            {"order_params": [ps[0], ps[1]]}], 0.05, 0.0)
    got = _steps(make)
    w = np.array([[1.0, -2.0], [0.5, 3.0]])
    gamma = np.array([1.0, 1.0])
    for g1, g2 in GRADS:
        w = w - 0.2 * (g1 + 0.1 * w)
        gamma = gamma - 0.05 * g2
    _close(got, [w, gamma])


def test_optimizer_arguments_are_checked():
    p = [ms.Parameter(T([1.0]), name="w")]
    with pytest.raises(ValueError, match="got no Parameters"):
        nn.SGD([], 0.1)
    with pytest.raises(ValueError, match="nesterov needs momentum > 0"):
        nn.SGD(p, 0.1, nesterov=True)
    with pytest.raises(ValueError, match="beta1 must be in"):
        nn.Adam(p, beta1=1.5)
    with pytest.raises(ValueError, match="learning_rate must be >= 0"):
        nn.Momentum(p, -0.1, 0.9)
    with pytest.raises(TypeError, match="parameters must be Parameters"):
        nn.Adagrad([T([1.0])])
    opt = nn.Momentum(p, 0.1, 0.9)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="updates 1 Parameters but got 2 gradients"):
        opt((T([1.0]), T([2.0])))


# -- Model: eval and predict -------------------------------------------------------------------------
def test_model_eval_and_predict_in_both_modes():
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    xs = [RNG.standard_normal((5, 4)).astype(f32) for _ in range(3)]
    data = [(x, (x @ np.asarray(net.weight).T + np.asarray(net.bias)).argmax(-1).astype(np.int32))
            for x in xs]
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         metrics={"accuracy", "loss"})
        results[mode] = (model.eval(data), model.predict(T(xs[0])).asnumpy())
    (e_metrics, e_pred), (g_metrics, g_pred) = results.values()
    assert e_metrics.keys() == {"accuracy", "loss"} and e_metrics["accuracy"] == 1.0
    np.testing.assert_allclose(g_metrics["loss"], e_metrics["loss"], rtol=1e-6)
    np.testing.assert_array_equal(g_pred, e_pred)
    with pytest.raises(RuntimeError, match="needs an optimizer"):
        ms.Model(net).train(1, data)
