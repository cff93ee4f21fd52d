"""Random tensors (ops.standard_normal, randn, rand, randn_like, rand_like, uniform,
normal, randint; StandardNormal, UniformReal): drawn when the graph runs, from the
generators eager mode uses, so after ms.set_seed both modes draw the same numbers; a
sampling loop and a VAE training step with the reparameterization trick agree."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.api import compare_results


class Sampler(nn.Cell):
    """A denoising-style sampling loop: noise drawn at every step of a tensor while."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)
        self.normal = ops.StandardNormal()
        self.uniform = ops.UniformReal(seed=5)

    def construct(self, x, steps):
        t = 0
        while t < steps:
            x = ops.tanh(self.fc(x)) + ops.randn_like(x) * 0.1
            if x.abs().max() > 3.0:
                break
            t += 1
        return (x, ops.rand(2, 2), ops.randint(0, 5, (3,), dtype=ms.int32),
                self.normal((2,)), self.uniform((2, 1)),
                ops.uniform((2,), ms.Tensor(1.0), ms.Tensor(2.0)), ops.normal((2,), 1.0, 0.5),
                ops.randn((2,), dtype=ms.float16), ops.rand_like(x, seed=7))


def _run_both(net, *args):
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        outs.append(net(*args))
    problem = compare_results(outs[1], outs[0])
    assert not problem, problem
    return outs[0]


def test_the_same_draws_in_both_modes_and_new_ones_each_call():
    net = Sampler()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    out = _run_both(net, x, ms.Tensor(4))
    r, ints, u5, un, nm, h = out[1], out[2], out[4], out[5], out[6], out[7]
    assert r.dtype == ms.float32 and ((r.asnumpy() >= 0) & (r.asnumpy() < 1)).all()
    assert ints.dtype == ms.int32 and set(ints.asnumpy()) <= set(range(5))
    assert ((un.asnumpy() >= 1) & (un.asnumpy() < 2)).all() and h.dtype == ms.float16
    assert u5.shape == (2, 1) and nm.shape == (2,)
    a, b = net(x, ms.Tensor(4)), net(x, ms.Tensor(4))      # graph mode: new draws
    assert not np.allclose(a[0].asnumpy(), b[0].asnumpy())


def test_draws_follow_numpys_generator_of_the_seed():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(11)

    @ms.jit
    def draw():
        return ops.standard_normal((4,)), ops.rand(3)
    z, u = draw()
    g = np.random.default_rng(11)
    np.testing.assert_allclose(z.asnumpy(), g.standard_normal((4,)).astype(np.float32))
    np.testing.assert_allclose(u.asnumpy(), g.random((3,)).astype(np.float32))


class VAE(nn.Cell):
    def __init__(self):
        super().__init__()
        self.enc = nn.Dense(6, 8)
        self.mu = nn.Dense(8, 2)
        self.logvar = nn.Dense(8, 2)
        self.dec = nn.SequentialCell([nn.Dense(2, 8), nn.ReLU(), nn.Dense(8, 6)])

    def construct(self, x):
        h = ops.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + ops.exp(0.5 * logvar) * ops.randn_like(mu)
        return self.dec(z), mu, logvar


class VAELoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        recon, mu, logvar = self.net(x)
        rec = ops.mse_loss(recon, x, "sum")
        kl = -0.5 * ops.sum(1 + logvar - mu * mu - ops.exp(logvar))
        if kl > rec:
            kl = kl * 0.5      # KL annealing under a tensor condition
        return rec + kl


def test_a_vae_trains_the_same_in_both_modes():
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32))
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(2)
        net = VAE()
        step = nn.TrainOneStepCell(VAELoss(net), nn.Adam(net.trainable_params(), 0.01))
        runs.append([float(step(x)) for _ in range(4)])
    assert runs[0] == runs[1]


def test_bad_arguments():
    with pytest.raises(TypeError, match="floating"):
        ops.randn(2, dtype=ms.int32)
    with pytest.raises(ValueError, match="less than"):
        ops.randint(3, 3, (2,))
    with pytest.raises(ValueError, match="seed"):
        ops.rand(2, seed=-1)
