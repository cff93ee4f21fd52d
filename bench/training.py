"""One gradient step (forward and backward) of a small MLP and of an RNN that stops
early on its data, in graph mode (`ms.value_and_grad`, compiled) and PYNATIVE mode,
against the same forward and backward written by hand in numpy, in the same process.

    python bench/training.py            # both models
    python bench/training.py --quick    # fewer repeats (noisier)

Ratios are CPU time (time.process_time) against numpy, best of several repeats, with
BLAS held to one thread; lower is better. The gradients of each mode are checked
against numpy's before anything is timed.
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse      # noqa: E402

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402
from graphjit import nn, ops   # noqa: E402
from timing import cpu_time_per_call   # noqa: E402




# -- the MLP ------------------------------------------------------------------------------------
class MLP(nn.Cell):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.fc1 = nn.Dense(d_in, d_hidden)
        self.fc2 = nn.Dense(d_hidden, d_out)

    def construct(self, x, y):
        h = ops.relu(self.fc1(x))
        out = self.fc2(h)
        return ((out - y) ** 2).mean()


def mlp_numpy(w1, b1, w2, b2):
    def step(x, y):
        a = x @ w1.T + b1
        h = np.maximum(a, 0)
        out = h @ w2.T + b2
        d = out - y
        loss = (d * d).mean()
        g = d * (2.0 / d.size)
        gw2 = g.T @ h
        gb2 = g.sum(0)
        gh = g @ w2
        ga = np.where(a > 0, gh, 0)
        gw1 = ga.T @ x
        gb1 = ga.sum(0)
        return loss, (gw1, gb1, gw2, gb2)
    return step


# -- the RNN with a data-dependent stop -----------------------------------------------------------
class EarlyStopRNN(nn.Cell):
    """h = tanh(h W + x_t U + b) over the rows of xs, stopping once the squared states
    summed so far pass a limit (how many steps depends on the data); the loss is that
    sum over the number of steps."""

    def __init__(self, d_in, d_hidden, limit):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.random.default_rng(1).normal(
            0, 0.3, (d_hidden, d_hidden)).astype(np.float32)), name="w")
        self.u = ms.Parameter(ms.Tensor(np.random.default_rng(2).normal(
            0, 0.3, (d_in, d_hidden)).astype(np.float32)), name="u")
        self.b = ms.Parameter(ms.Tensor(np.zeros(d_hidden, np.float32)), name="b")
        self.limit = limit

    def construct(self, xs, h):
        total = h.sum() * 0.0
        steps = 0
        for x in xs:
            h = ops.tanh(ops.matmul(h, self.w) + ops.matmul(x, self.u) + self.b)
            total = total + (h * h).sum()
            steps += 1
            if total > self.limit:
                break
        return total / steps


def rnn_numpy(w, u, b, limit):
    def step(xs, h0):
        hs, h, total = [h0], h0, 0.0
        for x in xs:
            h = np.tanh(h @ w + x @ u + b)
            hs.append(h)
            total += (h * h).sum()
            if total > limit:
                break
        n = len(hs) - 1
        loss = sum((q * q).sum() for q in hs[1:]) / n
        gw, gu, gb = np.zeros_like(w), np.zeros_like(u), np.zeros_like(b)
        gh = np.zeros_like(h0)
        for t in range(n, 0, -1):
            gh = gh + hs[t] * (2.0 / n)
            ga = gh * (1 - hs[t] * hs[t])
            gw += hs[t - 1].T @ ga
            gu += xs[t - 1].T @ ga
            gb += ga.sum(0)
            gh = ga @ w.T
        return loss, (gw, gu, gb)
    return step


def _steps(xs, h, params, limit):
    w, u, b = params
    total = 0.0
    for n, x in enumerate(xs, 1):
        h = np.tanh(h @ w + x @ u + b)
        total += (h * h).sum()
        if total > limit:
            return n
    return len(xs)


# -- running ----------------------------------------------------------------------------------------
def _check(name, got, want, rtol):
    loss, grads = got
    assert np.allclose(loss.asnumpy(), want[0], rtol=rtol, atol=rtol), (name, "loss")
    for g, w in zip(grads, want[1]):
        assert np.allclose(g.asnumpy(), w, rtol=rtol, atol=rtol), (name, "grad")


def bench(name, net, numpy_step, args, quick):
    weights = net.trainable_params()
    arrays = [a.asnumpy() for a in args]
    want = numpy_step(*arrays)
    budget, repeat = (0.05, 3) if quick else (0.3, 7)
    row = {}
    for mode, label in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode)
        step = ms.value_and_grad(net, None, weights)
        _check(f"{name} {label}", step(*args), want, 1e-4)
        row[label] = cpu_time_per_call(lambda: step(*args), budget, repeat)
    ms.set_context(mode=ms.GRAPH_MODE)
    row["numpy"] = cpu_time_per_call(lambda: numpy_step(*arrays), budget, repeat)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    ms.set_seed(0)
    rows = []

    for b, i, h, o in ((64, 32, 64, 10), (256, 128, 256, 10)):
        mlp = MLP(i, h, o)
        x = ms.Tensor(rng.normal(size=(b, i)).astype(np.float32))
        y = ms.Tensor(rng.normal(size=(b, o)).astype(np.float32))
        p = [q.asnumpy() for q in mlp.trainable_params()]
        rows.append((f"MLP {b}x{i}-{h}-{o}, MSE", bench("mlp", mlp, mlp_numpy(*p), [x, y],
                                                         opts.quick)))

    for b, h in ((16, 32), (64, 128)):
        limit = 6000.0 * b * h / (16 * 32)
        rnn = EarlyStopRNN(8, h, limit=limit)
        xs = ms.Tensor(rng.normal(size=(40, b, 8)).astype(np.float32))
        h0 = ms.Tensor(np.zeros((b, h), np.float32))
        p = [q.asnumpy() for q in rnn.trainable_params()]
        steps = _steps(xs.asnumpy(), h0.asnumpy(), p, limit)
        rows.append((f"RNN {b}x8-{h}, 40 rows, stops at {steps}",
                     bench("rnn", rnn, rnn_numpy(*p, limit), [xs, h0], opts.quick)))

    print(f"{'one gradient step':42s} {'numpy':>10s} {'graph':>8s} {'pynative':>9s}")
    for label, r in rows:
        print(f"{label:42s} {r['numpy'] * 1e6:8.1f}us {r['graph'] / r['numpy']:7.2f}x "
              f"{r['pynative'] / r['numpy']:8.2f}x")


if __name__ == "__main__":
    main()
