"""Losses, activations, adaptive pooling and padding layers MindSpore 2.x models use
that graphjit lacked (ops.cross_entropy, nn.BCEWithLogitsLoss, nn.NLLLoss,
nn.SmoothL1Loss, nn.HuberLoss, nn.HSwish, nn.PReLU, nn.AdaptiveAvgPool2d, nn.ZeroPad2d,
nn.Pad, ...): against numpy, the same in PYNATIVE and GRAPH mode, with gradients."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.api import compare_results

R = np.random.default_rng(9)
L = R.standard_normal((6, 4)).astype(np.float32)
Y = np.array([0, 3, 1, 1, 2, -100], np.int32)
P01 = R.uniform(0.05, 0.95, (6, 4)).astype(np.float32)
B01 = (R.uniform(size=(6, 4)) > 0.5).astype(np.float32)
IMG = R.standard_normal((2, 3, 5, 7)).astype(np.float32)
W = np.array([1.0, 2.0, 0.5, 1.5], np.float32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _logsoftmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _ce(x, y, w=None):
    lp, keep = _logsoftmax(x), y != -100
    cw = np.ones(x.shape[-1], np.float32) if w is None else w
    per = np.array([-lp[i, y[i]] * cw[y[i]] if keep[i] else 0.0 for i in range(len(y))])
    return per.sum() / sum(cw[y[i]] for i in range(len(y)) if keep[i])


def _adaptive(x, oh, ow, fn):
    h, w = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[..., i, j] = fn(x[..., r0:r1, c0:c1], axis=(-2, -1))
    return out


def _sp(x):
    return np.log1p(np.exp(x))


CASES = [
    ("cross_entropy", lambda: ops.cross_entropy, (L, Y), _ce),
    ("cross_entropy weight", lambda: lambda x, y: ops.cross_entropy(x, y, ms.Tensor(W)),
     (L, Y), lambda x, y: _ce(x, y, W)),
    ("nn.NLLLoss", lambda: lambda x, y: nn.NLLLoss()(ops.log_softmax(x, -1), y), (L, Y), _ce),
    ("nll_loss sum", lambda: lambda x, y: ops.nll_loss(x, y, reduction="sum"), (L, Y),
     lambda x, y: -sum(x[i, y[i]] for i in range(5))),
    ("nn.BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(), (L, B01),
     lambda x, y: np.mean(-(y * np.log(_sigmoid(x)) + (1 - y) * np.log(1 - _sigmoid(x))))),
    ("bce_with_logits pos_weight", lambda: lambda x, y: ops.binary_cross_entropy_with_logits(
        x, y, ms.Tensor(W), ms.Tensor(W[::-1].copy()), "none"), (L, B01),
     lambda x, y: -W * (W[::-1] * y * np.log(_sigmoid(x)) + (1 - y) * np.log(1 - _sigmoid(x)))),
    ("nn.BCELoss", lambda: nn.BCELoss(reduction="sum"), (P01, B01),
     lambda x, y: np.sum(-(y * np.log(x) + (1 - y) * np.log(1 - x)))),
    ("nn.SmoothL1Loss default none", lambda: nn.SmoothL1Loss(beta=0.5), (L, P01),
     lambda x, y: np.where(np.abs(x - y) < 0.5, 0.5 * (x - y) ** 2 / 0.5,
                           np.abs(x - y) - 0.25)),
    ("nn.HuberLoss", lambda: nn.HuberLoss(delta=0.7), (L, P01),
     lambda x, y: np.mean(np.where(np.abs(x - y) < 0.7, 0.5 * (x - y) ** 2,
                                   0.7 * (np.abs(x - y) - 0.35)))),
    ("mse_loss/l1_loss", lambda: lambda x, y: (ops.mse_loss(x, y), ops.l1_loss(x, y, "sum")),
     (L, P01), lambda x, y: [np.mean((x - y) ** 2), np.sum(np.abs(x - y))]),
    ("nn.HSwish", lambda: nn.HSwish(), (L,), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("nn.HSigmoid", lambda: nn.HSigmoid(), (L,), lambda x: np.clip(x + 3, 0, 6) / 6),
    ("nn.Mish", lambda: nn.Mish(), (L,), lambda x: x * np.tanh(_sp(x))),
    ("nn.LogSigmoid", lambda: nn.LogSigmoid(), (L,), lambda x: np.log(_sigmoid(x))),
    ("nn.Softsign", lambda: nn.Softsign(), (L,), lambda x: x / (1 + np.abs(x))),
    ("nn.SeLU", lambda: nn.SeLU(), (L,),
     lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    ("nn.CELU", lambda: nn.CELU(0.5), (L,), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x / 0.5))),
    ("nn.Hardtanh", lambda: nn.Hardtanh(-0.5, 0.25), (L,), lambda x: np.clip(x, -0.5, 0.25)),
    ("nn.PReLU channels", lambda: nn.PReLU(3, 0.1), (IMG,), lambda x: np.where(x > 0, x, 0.1 * x)),
    ("nn.PReLU 1-D", lambda: nn.PReLU(), (L[0],), lambda x: np.where(x > 0, x, 0.25 * x)),
    ("nn.AdaptiveAvgPool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)), (IMG,),
     lambda x: _adaptive(x, 2, 3, np.mean)),
    ("nn.AdaptiveAvgPool2d 1", lambda: nn.AdaptiveAvgPool2d(1), (IMG,),
     lambda x: x.mean((-2, -1), keepdims=True)),
    ("nn.AdaptiveMaxPool2d None", lambda: nn.AdaptiveMaxPool2d((None, 4)), (IMG[0],),
     lambda x: _adaptive(x, 5, 4, np.max)),
    ("nn.ZeroPad2d", lambda: nn.ZeroPad2d((1, 0, 2, 1)), (IMG,),
     lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)))),
    ("nn.Pad reflect", lambda: nn.Pad(((0, 0), (0, 0), (1, 1), (2, 2)), mode="REFLECT"), (IMG,),
     lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode="reflect")),
]


@pytest.mark.parametrize("name, make, args, ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy_in_both_modes(name, make, args, ref):
    fn = make()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*[ms.Tensor(a) for a in args])
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = (fn if isinstance(fn, nn.Cell) else ms.jit(fn))(*[ms.Tensor(a) for a in args])
    problem = compare_results(graph, eager)
    assert not problem, problem
    want = ref(*args)
    got = [o.asnumpy() for o in eager] if isinstance(eager, tuple) else eager.asnumpy()
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=2e-5, atol=2e-6)


def test_training_steps_with_the_new_losses_and_layers_agree_between_modes():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, pad_mode="same")
            self.act = nn.PReLU(4)
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Dense(4, 4)
            self.hs = nn.HSwish()

        def construct(self, x):
            h = self.pool(self.act(self.conv(ops.pad(x, (1, 1, 1, 1), mode="reflect"))))
            h = self.hs(ops.flatten(h))
            if h.mean() > 0:
                h = h * 2
            return self.fc(h)
    x = ms.Tensor(IMG)
    y = ms.Tensor(B01[:2])
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = Net()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.BCEWithLogitsLoss()),
                                   nn.Adam(net.trainable_params(), 0.01))
        runs.append([float(step(x, y)) for _ in range(3)] + [net.act.w.asnumpy()])
    np.testing.assert_allclose(runs[0][:3], runs[1][:3], rtol=1e-6)
    np.testing.assert_allclose(runs[0][3], runs[1][3], rtol=1e-6)
    assert runs[0][2] < runs[0][0]


def test_bad_arguments_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="reduction must be one of"):
        nn.BCEWithLogitsLoss(reduction="avg")
    with pytest.raises(ValueError, match="beta must be positive"):
        nn.SmoothL1Loss(beta=0)
    with pytest.raises(ValueError, match="output sizes must be positive"):
        nn.AdaptiveAvgPool2d(0)(ms.Tensor(IMG))
    with pytest.raises(TypeError, match="class indices"):
        ops.nll_loss(ms.Tensor(L), ms.Tensor(P01))
