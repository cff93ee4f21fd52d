"""Front-end programs with control flow, compiled by graphjit, against the same
computation hand-written over numpy (ratios, measured in the same run).

    python bench/control_flow.py
"""
from __future__ import annotations

import time

import numpy as np

import graphjit as ms
from graphjit import nn, ops


class CountingWhile(nn.Cell):
    """A while loop on a tensor condition with a Python counter inside (Constraint 1)."""

    def construct(self, x, n):
        i = 0
        while i < n:
            x = x * 0.5 + 1.0
            i = i + 1
        return x


def counting_while_numpy(x, n):
    i = 0
    while i < n:
        x = x * np.float32(0.5) + np.float32(1.0)
        i += 1
    return x


class RNN(nn.Cell):
    """for over the time axis of a tensor, a carried state, outputs appended and stacked."""

    def __init__(self, w, u, b):
        super().__init__()
        self.w, self.u, self.b = ms.Tensor(w), ms.Tensor(u), ms.Tensor(b)

    def construct(self, xs, h):
        outs = []
        for x in xs:
            h = ops.tanh(ops.matmul(x, self.w) + ops.matmul(h, self.u) + self.b)
            outs.append(h)
        return ops.stack(outs), h


def rnn_numpy(xs, h, w, u, b):
    outs = []
    for x in xs:
        h = np.tanh(x @ w + h @ u + b)
        outs.append(h)
    return np.stack(outs), h


class Branchy(nn.Cell):
    """An unrolled loop of tensor-dependent ifs (If nodes)."""

    def construct(self, x):
        for i in range(8):
            if x.sum() > i:
                x = x - 0.5
            else:
                x = x * 1.5
        return x


def branchy_numpy(x):
    for i in range(8):
        if x.sum() > i:
            x = x - np.float32(0.5)
        else:
            x = x * np.float32(1.5)
    return x


def best_of(fn, repeat=7, number=20):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t) / number)
    return best


def row(name, graph_s, eager_s, numpy_s):
    print(f"{name:<34} graph {graph_s * 1e3:8.3f} ms   eager {eager_s * 1e3:8.3f} ms   "
          f"numpy {numpy_s * 1e3:8.3f} ms   graph/numpy {graph_s / numpy_s:5.2f}x")


def main():
    rng = np.random.default_rng(0)
    print("Control-flow programs: graphjit graph mode and eager mode against hand-written "
          "numpy")

    x = rng.standard_normal(16).astype(np.float32)
    n = 1000
    net = CountingWhile()
    args = (ms.Tensor(x), ms.Tensor(np.array(n, np.int32)))
    g = best_of(lambda: net(*args), number=5)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    e = best_of(lambda: net(*args), number=2, repeat=3)
    ms.set_context(mode=ms.GRAPH_MODE)
    row("while, 1000 iterations", g, e, best_of(lambda: counting_while_numpy(x, n), number=5))

    T, B, H = 100, 16, 64
    xs = rng.standard_normal((T, B, H)).astype(np.float32) * 0.1
    h0 = np.zeros((B, H), np.float32)
    w, u, b = (rng.standard_normal((H, H)).astype(np.float32) * 0.1 for _ in range(3))
    b = b[0]
    net = RNN(w, u, b)
    args = (ms.Tensor(xs), ms.Tensor(h0))
    g = best_of(lambda: net(*args), number=5)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    e = best_of(lambda: net(*args), number=2, repeat=3)
    ms.set_context(mode=ms.GRAPH_MODE)
    row("RNN over T=100 rows (Loop + stack)", g, e,
        best_of(lambda: rnn_numpy(xs, h0, w, u, b), number=5))

    x = rng.standard_normal(32).astype(np.float32)
    net = Branchy()
    arg = ms.Tensor(x)
    g = best_of(lambda: net(arg), number=200)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    e = best_of(lambda: net(arg), number=50)
    ms.set_context(mode=ms.GRAPH_MODE)
    row("8 unrolled tensor ifs", g, e, best_of(lambda: branchy_numpy(x), number=200))


if __name__ == "__main__":
    main()
