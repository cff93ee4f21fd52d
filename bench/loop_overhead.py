"""Loop overhead: graphjit's Loop against the same loop hand-written over numpy.

Two programs, each timed as a compiled graph and as a plain Python loop in the
same run (best of several interleaved repeats), with the ratio printed:

  scalar: 10,000 iterations of a few scalar ops with a data-dependent condition;
  rnn:    h = tanh(x_t @ W + h @ U + b) over T=200 steps (batch 16, hidden 64),
          x sliced along axis 0 and every h concatenated along axis 0.

Run: python bench/loop_overhead.py [--repeat N]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, TensorType, dtypes as dt, verify
from graphjit.ir.builders import loop

F32 = dt.float32


# -- scalar loop ---------------------------------------------------------------------------
def scalar_graph() -> Graph:
    """x = x * 0.5 + 1; s = s + x; go on while s < 1e30 (always), 10,000 times."""
    g = Graph("scalar_loop")
    n = g.add_param(TensorType(dt.int64, ()), "n")
    x0 = g.add_param(TensorType(F32, ()), "x0")
    s0 = g.add_param(TensorType(F32, ()), "s0")

    def step(b, i, carried, sliced, invariant):
        x, s = carried
        x2 = b.apply("Add", b.apply("Mul", x, b.const(0.5)), b.const(1.0), name="x_next")
        s2 = b.apply("Add", s, x2, name="s_next")
        return b.apply("Less", s2, b.const(1e30)), [x2, s2], []

    g.set_results(loop(g, step, trip_count=n, carried=[x0, s0], iteration_type=None,
                       names=["x", "s"]))
    return g


def scalar_by_hand(n, x0, s0):
    half, one, limit = np.float32(0.5), np.float32(1.0), np.float32(1e30)
    x, s = x0, s0
    go, i, n = True, 0, int(n)
    while go and i < n:
        x = x * half + one
        s = s + x
        go = s < limit
        i += 1
    return x, s


# -- RNN -----------------------------------------------------------------------------------
T, BATCH, IN, HIDDEN = 200, 16, 64, 64


def rnn_graph() -> Graph:
    """h = tanh(x_t @ W + h @ U + b) for each step t of xs; returns h and all the h."""
    g = Graph("rnn")
    xs = g.add_param(TensorType(F32, (T, BATCH, IN)), "xs")
    h0 = g.add_param(TensorType(F32, (BATCH, HIDDEN)), "h0")
    w = g.add_param(TensorType(F32, (IN, HIDDEN)), "W")
    u = g.add_param(TensorType(F32, (HIDDEN, HIDDEN)), "U")
    bias = g.add_param(TensorType(F32, (HIDDEN,)), "b")

    def step(b, i, carried, sliced, invariant):
        (h,), (x_t,), (w_, u_, b_) = carried, sliced, invariant
        x = b.apply("Squeeze", x_t, axis=0)
        pre = b.apply("Add", b.apply("Add", b.apply("MatMul", x, w_),
                                     b.apply("MatMul", h, u_)), b_)
        h_next = b.apply("Tanh", pre, name="h_next")
        return True, [h_next], [b.apply("ExpandDims", h_next, axis=0)]

    g.set_results(loop(g, step, carried=[h0], sliced=[(xs, 0)], invariant=[w, u, bias],
                       iteration_type=None, names=["h", "hs"]))
    return g


def rnn_by_hand(xs, h0, w, u, b):
    h, hs = h0, []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w + h @ u + b)
        hs.append(h)
    return h, np.stack(hs)


# -- timing --------------------------------------------------------------------------------
def best_times(fns, args, repeat):
    """Best wall time of each function over `repeat` interleaved rounds."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn(*args)
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def compare(label, graph, by_hand, args, repeat):
    verify(graph)
    run = compile_graph(graph)
    got, want = run(*args), by_hand(*args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    t_graph, t_hand = best_times([run, by_hand], args, repeat)
    print(f"{label:<44} graph {t_graph * 1e3:8.2f} ms   by hand {t_hand * 1e3:8.2f} ms   "
          f"ratio {t_graph / t_hand:5.2f}x")
    return t_graph / t_hand


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds (best is kept)")
    opts = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    scalar_args = (np.asarray(10_000, np.int64), np.asarray(1.0, np.float32),
                   np.asarray(0.0, np.float32))
    rnn_args = (rng.standard_normal((T, BATCH, IN), np.float32),
                rng.standard_normal((BATCH, HIDDEN), np.float32),
                (rng.standard_normal((IN, HIDDEN), np.float32) * 0.1).astype(np.float32),
                (rng.standard_normal((HIDDEN, HIDDEN), np.float32) * 0.1).astype(np.float32),
                rng.standard_normal((HIDDEN,), np.float32))
    print("Loop overhead: compiled graph vs the same loop hand-written over numpy")
    compare("scalar: 10,000 iterations, 4 scalar ops", scalar_graph(), scalar_by_hand,
            scalar_args, opts.repeat)
    compare(f"rnn: T={T}, batch {BATCH}, hidden {HIDDEN}, slice+concat", rnn_graph(),
            rnn_by_hand, rnn_args, opts.repeat)


if __name__ == "__main__":
    main()
