"""The recurrent layers' cost: nn.LSTM and nn.GRU (16 -> 32, two layers, bidirectional,
batch 4) over T = 10, 50 and 200 steps, against the same recurrence hand-written in numpy.

    python bench/rnn.py              # LSTM and GRU, T = 10, 50, 200
    python bench/rnn.py --quick      # fewer repeats (noisier)
    python bench/rnn.py --steps 10 500

Per row: the forward graph's node count (If/Loop bodies included), the first call (a
new layer: build, compile, run), the first training step (a new layer in
TrainOneStepCell with SGD: forward, backward and update built and compiled, then run),
the steady forward in graph and PYNATIVE mode and the steady training step. Steady
times are ratios against the numpy forward loop (input projections of all steps in
one matmul, then the recurrence step by step: the algorithm the layer uses), measured
in the same run. Times are CPU time (time.process_time), best of several repeats, BLAS
held to one thread; the layer's output is checked against numpy's before timing.
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse      # noqa: E402
import time          # noqa: E402

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402
from graphjit import nn   # noqa: E402
from graphjit.jit.cache import cache_of   # noqa: E402
from timing import cpu_time_per_call   # noqa: E402

IN, HIDDEN, LAYERS, BATCH = 16, 32, 2, 4




def once(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


# -- the numpy forward -------------------------------------------------------------------------
def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _lstm_steps(gi, h, c, w_hh_t, b_hh):
    outs = np.empty(gi.shape[:2] + (h.shape[1],), gi.dtype)
    for t in range(gi.shape[0]):
        g = gi[t] + (h @ w_hh_t + b_hh)
        i, f, u, o = np.split(g, 4, 1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(u)
        h = _sigmoid(o) * np.tanh(c)
        outs[t] = h
    return outs, h


def _gru_steps(gi, h, c, w_hh_t, b_hh):
    outs = np.empty(gi.shape[:2] + (h.shape[1],), gi.dtype)
    for t in range(gi.shape[0]):
        i_r, i_z, i_n = np.split(gi[t], 3, 1)
        h_r, h_z, h_n = np.split(h @ w_hh_t + b_hh, 3, 1)
        r = _sigmoid(i_r + h_r)
        z = _sigmoid(i_z + h_z)
        n = np.tanh(i_n + r * h_n)
        h = n + z * (h - n)
        outs[t] = h
    return outs, h


def numpy_forward(net, kind):
    """The layer's forward over time-major x, in numpy; returns (output, h_n)."""
    p = {k: v.asnumpy() for k, v in net.parameters_and_names()}
    steps = _lstm_steps if kind == "LSTM" else _gru_steps
    dirs = []
    for layer in range(LAYERS):
        for sfx in (f"_l{layer}", f"_l{layer}_reverse"):
            dirs.append((p["weight_ih" + sfx].T.copy(), p["bias_ih" + sfx],
                         p["weight_hh" + sfx].T.copy(), p["bias_hh" + sfx]))

    def run(x):
        hs = []
        for layer in range(LAYERS):
            outs = []
            for d in range(2):
                w_ih_t, b_ih, w_hh_t, b_hh = dirs[2 * layer + d]
                xs = x[::-1] if d else x
                t_, b_, i_ = xs.shape
                gi = (xs.reshape(t_ * b_, i_) @ w_ih_t + b_ih).reshape(t_, b_, -1)
                h = np.zeros((b_, HIDDEN), x.dtype)
                o, h = steps(gi, h, h, w_hh_t, b_hh)
                outs.append(o[::-1] if d else o)
                hs.append(h)
            x = np.concatenate(outs, -1)
        return x, np.stack(hs)
    return run


# -- graphjit ------------------------------------------------------------------------------------
class _Loss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        out, _ = self.net(x)
        return (out * out).mean()


def _layer(kind):
    cls = nn.LSTM if kind == "LSTM" else nn.GRU
    return cls(IN, HIDDEN, num_layers=LAYERS, bidirectional=True)


def measure(kind, steps, rng, quick):
    budget, repeat = (0.05, 2) if quick else (0.2, 5)
    x_np = rng.standard_normal((steps, BATCH, IN)).astype(np.float32)
    x = ms.Tensor(x_np)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _layer(kind)
    first = once(lambda: net(x))
    nodes = sum(1 for _ in cache_of(net)[-1].graph.walk())
    ref = numpy_forward(net, kind)
    out, state = net(x)
    want_out, want_h = ref(x_np)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose((state[0] if kind == "LSTM" else state).asnumpy(), want_h,
                               rtol=1e-4, atol=1e-5)
    t_numpy = cpu_time_per_call(lambda: ref(x_np), budget, repeat)
    t_graph = cpu_time_per_call(lambda: net(x), budget, repeat)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    t_eager = cpu_time_per_call(lambda: net(x), budget, repeat)
    ms.set_context(mode=ms.GRAPH_MODE)

    train_net = _layer(kind)
    step = nn.TrainOneStepCell(_Loss(train_net), nn.SGD(train_net.trainable_params(), 0.01))
    step.set_train()
    first_train = once(lambda: step(x))
    t_train = cpu_time_per_call(lambda: step(x), budget, repeat)
    return dict(nodes=nodes, first=first, first_train=first_train, numpy=t_numpy,
                graph=t_graph, eager=t_eager, train=t_train)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--steps", type=int, nargs="+", default=[10, 50, 200])
    ap.add_argument("--layers", nargs="+", default=["LSTM", "GRU"], choices=["LSTM", "GRU"])
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    ms.set_seed(0)
    measure(opts.layers[0], 3, rng, True)    # import and first-use costs, not timed
    print(f"2-layer bidirectional ({IN} -> {HIDDEN}), batch {BATCH}; steady times are "
          f"ratios to the numpy forward")
    print(f"{'layer':6s} {'T':>4s} {'nodes':>6s} {'first':>8s} {'1st train':>10s} "
          f"{'numpy fwd':>10s} {'graph fwd':>10s} {'pynative':>9s} {'train step':>11s}")
    for kind in opts.layers:
        for steps in opts.steps:
            r = measure(kind, steps, rng, opts.quick)
            print(f"{kind:6s} {steps:4d} {r['nodes']:6d} {r['first'] * 1e3:6.0f}ms "
                  f"{r['first_train'] * 1e3:8.0f}ms {r['numpy'] * 1e3:8.2f}ms "
                  f"{r['graph'] / r['numpy']:9.2f}x {r['eager'] / r['numpy']:8.2f}x "
                  f"{r['train'] / r['numpy']:10.2f}x", flush=True)


if __name__ == "__main__":
    main()
