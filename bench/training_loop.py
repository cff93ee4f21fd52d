"""Whole training steps (gradients and the optimizer's update) of a 64x32-64-10 MLP
with an MSE loss, in graph mode and PYNATIVE mode, against the same step written by
hand in numpy, in the same process:

- MindSpore's training loop: `value_and_grad(forward_fn, None, optimizer.parameters,
  has_aux=True)` then `optimizer(grads)` (nn.SGD);
- `nn.TrainOneStepCell(net, nn.Momentum(...))`, one compiled Cell.

    python bench/training_loop.py            # both
    python bench/training_loop.py --quick    # fewer repeats (noisier)

Ratios are CPU time (time.process_time) against numpy, best of several repeats, with
BLAS held to one thread; lower is better. Before timing, each mode's Parameters after
three steps are checked bit for bit against the other mode's.
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
from graphjit import nn   # noqa: E402
from timing import cpu_time_per_call   # noqa: E402

B, I, H, O = 64, 32, 64, 10
LR, MOMENTUM = np.float32(0.01), np.float32(0.9)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(I, H)
        self.fc2 = nn.Dense(H, O)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class WithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, y):
        return ((self.net(x) - y) ** 2).mean()


def loop_step(mode):
    """MindSpore's training loop (value_and_grad with has_aux, then the optimizer)."""
    ms.set_context(mode=mode)
    ms.set_seed(0)
    model = Net()
    loss_fn = nn.MSELoss()
    optimizer = nn.SGD(model.trainable_params(), float(LR))

    def forward_fn(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss
    return model, train_step


def cell_step(mode):
    """nn.TrainOneStepCell over the network with its loss, with Momentum."""
    ms.set_context(mode=mode)
    ms.set_seed(0)
    model = Net()
    opt = nn.Momentum(model.trainable_params(), float(LR), float(MOMENTUM))
    return model, nn.TrainOneStepCell(WithLoss(model), opt)


def numpy_step(params, momentum):
    """The same step by hand: forward, backward, then SGD (or Momentum) in place."""
    w1, b1, w2, b2 = params
    vel = [np.zeros_like(p) for p in params]

    def step(x, y):
        a = x @ w1.T + b1
        h = np.maximum(a, 0)
        out = h @ w2.T + b2
        d = out - y
        loss = (d * d).mean()
        g = d * (2.0 / d.size)
        ga = np.where(a > 0, g @ w2, 0)
        grads = (ga.T @ x, ga.sum(0), g.T @ h, g.sum(0))
        for p, gr, v in zip(params, grads, vel):
            if momentum:
                v *= MOMENTUM
                v += gr
                gr = v
            p -= LR * gr
        return loss
    return step


def bench(name, make, momentum, x, y, quick):
    budget, repeat = (0.05, 3) if quick else (0.3, 7)
    row, after = {}, {}
    for mode, label in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        model, step = make(mode)
        start = [p.asnumpy().copy() for p in model.trainable_params()]
        for _ in range(3):
            step(x, y)
        after[label] = [p.asnumpy() for p in model.trainable_params()]
        row[label] = cpu_time_per_call(lambda: step(x, y), budget, repeat)
    assert all(np.array_equal(a, b) for a, b in zip(after["graph"], after["pynative"])), \
        (name, "graph and pynative Parameters differ")
    ms.set_context(mode=ms.GRAPH_MODE)
    ref = numpy_step(start, momentum)
    xa, ya = x.asnumpy(), y.asnumpy()
    row["numpy"] = cpu_time_per_call(lambda: ref(xa, ya), budget, repeat)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.normal(size=(B, I)).astype(np.float32))
    y = ms.Tensor(rng.normal(size=(B, O)).astype(np.float32))
    rows = [("value_and_grad(has_aux) + SGD", bench("loop", loop_step, False, x, y,
                                                     opts.quick)),
            ("TrainOneStepCell + Momentum", bench("cell", cell_step, True, x, y, opts.quick))]
    print(f"{'one training step, MLP 64x32-64-10':42s} {'numpy':>10s} {'graph':>8s} "
          f"{'pynative':>9s}")
    for label, r in rows:
        print(f"{label:42s} {r['numpy'] * 1e6:8.1f}us {r['graph'] / r['numpy']:7.2f}x "
              f"{r['pynative'] / r['numpy']:8.2f}x")


if __name__ == "__main__":
    main()
