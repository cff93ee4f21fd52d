"""The workloads `bench/run.py` times: each a MindSpore-style Cell, the same computation
hand-written over numpy, and its inputs.

W1-W6 are issue 8's table; X1-X5 are other kinds of program (normalization layers,
reductions with broadcasting, integer powers, gathers and appends inside a
data-dependent loop, a branch between two MLPs on a batch) so that the mechanisms are
measured, not only the named programs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Sequence

import numpy as np

import graphjit as ms
from graphjit import nn, ops


@dataclass
class Workload:
    key: str
    title: str
    make_net: Callable[[], nn.Cell]       # a fresh Cell (each mode gets its own)
    numpy_fn: Callable                    # the same computation over numpy arrays
    arrays: Sequence[np.ndarray]          # the inputs
    rtol: float = 1e-5                    # graph mode against numpy (order of float ops)


# -- W1: the tutorial's IfInWhileNet --------------------------------------------------------------
class IfInWhileNet(nn.Cell):
    def construct(self, x, y, i):
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + 1
            i = i + 1
        return out


def if_in_while_numpy(x, y, i):
    out = x
    while i < 3:
        if x + i < y:
            out = out + x
        else:
            out = out + y
        out = out + np.int32(1)
        i = i + np.int32(1)
    return out


# -- W2: RNN over T steps, appended and stacked --------------------------------------------------
class RNN(nn.Cell):
    def __init__(self, w, u, b, steps):
        super().__init__()
        self.w, self.u, self.b = ms.Tensor(w), ms.Tensor(u), ms.Tensor(b)
        self.steps = steps

    def construct(self, x, h):
        outs = []
        for t in range(self.steps):
            h = ops.tanh(ops.matmul(x[t], self.w) + ops.matmul(h, self.u) + self.b)
            outs.append(h)
        return ops.stack(outs)


def rnn_numpy(w, u, b, steps):
    def f(x, h):
        outs = []
        for t in range(steps):
            h = np.tanh(x[t] @ w + h @ u + b)
            outs.append(h)
        return np.stack(outs)
    return f


# -- W3: a long elementwise chain --------------------------------------------------------------------
class Chain(nn.Cell):
    def construct(self, x):
        return ops.exp(-ops.abs(x)) * 0.5 + ops.sin(x) * x - 1


def chain_numpy(x):
    return np.exp(-np.abs(x)) * np.float32(0.5) + np.sin(x) * x - np.float32(1)


# -- W4: Newton's square root, a data-dependent while --------------------------------------------
class Newton(nn.Cell):
    def construct(self, a):
        x = a
        it = 0
        dmax = a.max()
        while it < 100 and dmax >= 1e-10:
            xn = 0.5 * (x + a / x)
            dmax = ops.abs(xn - x).max()
            x = xn
            it = it + 1
        return x


def newton_numpy(a):
    x = a
    it = 0
    dmax = np.max(a)
    while it < 100 and dmax >= 1e-10:
        xn = 0.5 * (x + a / x)
        dmax = np.max(np.abs(xn - x))
        x = xn
        it += 1
    return x


# -- W5: a tensor if between two small MLPs -------------------------------------------------------------
class BranchMLP(nn.Cell):
    def __init__(self, ws):
        super().__init__()
        self.a1, self.a2, self.a3, self.b1, self.b2 = (ms.Tensor(w) for w in ws)

    def construct(self, x):
        if x.sum() > 0:
            x = ops.relu(ops.matmul(x, self.a1))
            x = ops.relu(ops.matmul(x, self.a2))
            x = ops.relu(ops.matmul(x, self.a3))
        else:
            x = ops.tanh(ops.matmul(x, self.b1))
            x = ops.tanh(ops.matmul(x, self.b2))
        return x


def branch_mlp_numpy(ws):
    a1, a2, a3, b1, b2 = ws

    def f(x):
        if x.sum() > 0:
            x = np.maximum(x @ a1, 0)
            x = np.maximum(x @ a2, 0)
            return np.maximum(x @ a3, 0)
        x = np.tanh(x @ b1)
        return np.tanh(x @ b2)
    return f


# -- W6: an unrolled 128-step chain ------------------------------------------------------------------
class Unrolled(nn.Cell):
    def construct(self, x):
        for i in range(128):
            x = x * 0.9 + i
        return x


def unrolled_numpy(x):
    for i in range(128):
        x = x * np.float32(0.9) + np.float32(i)
    return x


# -- X1: layer normalization -------------------------------------------------------------------------------
class LayerNorm(nn.Cell):
    def __init__(self, g, b):
        super().__init__()
        self.g, self.b = ms.Tensor(g), ms.Tensor(b)

    def construct(self, x):
        mu = x.mean(axis=-1, keep_dims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keep_dims=True)
        return (x - mu) / ops.sqrt(var + 1e-5) * self.g + self.b


def layernorm_numpy(g, b):
    def f(x):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + np.float32(1e-5)) * g + b
    return f


# -- X2: softmax (reductions with broadcasting) ----------------------------------------------------------
class Softmax(nn.Cell):
    def construct(self, x):
        e = ops.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def softmax_numpy(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# -- X3: integer powers ------------------------------------------------------------------------------------
class Poly(nn.Cell):
    def construct(self, x):
        return x ** 3 - 2 * x ** 2 + x ** 4 * 0.25


def poly_numpy(x):
    # what a person writes for speed (np.power(x, 3.0) is ~70x slower than x * x * x)
    return x * x * x - np.float32(2) * x * x + x * x * x * x * np.float32(0.25)


# -- X4: gathers and appends inside a data-dependent loop ------------------------------------------
class GatherWalk(nn.Cell):
    def construct(self, table, idx, limit):
        acc = table[0] * 0
        outs = []
        i = 0
        while acc.sum() < limit:
            acc = acc + ops.gather(table, idx[i], 0)
            outs.append(acc)
            i = i + 1
        return ops.stack(outs)


def gather_walk_numpy(table, idx, limit):
    acc = table[0] * 0
    outs = []
    i = 0
    while acc.sum() < limit:
        acc = acc + table[idx[i]]
        outs.append(acc)
        i += 1
    return np.stack(outs)


def all_workloads() -> List[Workload]:
    rng = np.random.default_rng(0)
    w = []
    i32 = lambda v: np.array(v, np.int32)   # noqa: E731
    w.append(Workload("W1", "IfInWhileNet, int32 scalars", IfInWhileNet, if_in_while_numpy,
                      (i32(0), i32(1), i32(0)), rtol=0))

    T, B, I, H = 200, 16, 32, 64
    wx = (rng.standard_normal((I, H)) * 0.1).astype(np.float32)
    wu = (rng.standard_normal((H, H)) * 0.1).astype(np.float32)
    wb = (rng.standard_normal(H) * 0.1).astype(np.float32)
    xs = rng.standard_normal((T, B, I)).astype(np.float32)
    h0 = np.zeros((B, H), np.float32)
    w.append(Workload("W2", "RNN T=200, for + append + stack",
                      lambda: RNN(wx, wu, wb, T), rnn_numpy(wx, wu, wb, T), (xs, h0)))

    x3 = rng.standard_normal(4_194_304).astype(np.float32)
    w.append(Workload("W3", "exp(-abs(x))*0.5 + sin(x)*x - 1, 4M f32", Chain, chain_numpy,
                      (x3,)))

    a4 = rng.uniform(1, 100, 1024)
    w.append(Workload("W4", "Newton sqrt, data-dependent while", Newton, newton_numpy, (a4,)))

    ws = [(rng.standard_normal(s) * 0.05).astype(np.float32)
          for s in ((256, 256), (256, 256), (256, 128), (256, 256), (256, 128))]
    x5 = rng.standard_normal((64, 256)).astype(np.float32)
    w.append(Workload("W5", "if x.sum() > 0 between two MLPs", lambda: BranchMLP(ws),
                      branch_mlp_numpy(ws), (x5,)))

    x6 = rng.standard_normal(256).astype(np.float32)
    w.append(Workload("W6", "128-step unrolled x = x * 0.9 + i", Unrolled, unrolled_numpy,
                      (x6,)))

    g1 = rng.standard_normal(1024).astype(np.float32)
    b1 = rng.standard_normal(1024).astype(np.float32)
    xl = rng.standard_normal((512, 1024)).astype(np.float32)
    w.append(Workload("X1", "layernorm [512, 1024]", lambda: LayerNorm(g1, b1),
                      layernorm_numpy(g1, b1), (xl,)))
    xs2 = rng.standard_normal((256, 1000)).astype(np.float32)
    w.append(Workload("X2", "softmax [256, 1000]", Softmax, softmax_numpy, (xs2,)))
    xp = rng.standard_normal(1_000_000).astype(np.float32)
    w.append(Workload("X3", "x**3 - 2*x**2 + x**4*0.25, 1M f32", Poly, poly_numpy, (xp,)))
    table = rng.uniform(0, 1, (64, 128)).astype(np.float32)
    idx = rng.integers(0, 64, 400).astype(np.int32)
    w.append(Workload("X4", "gather + append in a data-dependent while", GatherWalk,
                      gather_walk_numpy, (table, idx, np.array(2000.0, np.float32))))
    return w
