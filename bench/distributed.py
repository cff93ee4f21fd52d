"""Batch scoring over Dask: 1,000,000 rows through an MLP (or an RNN with a Loop) with
graphjit.distributed.predict on a LocalCluster of 1 and of 2 worker processes, against
one in-process call of the same compiled model and the same network hand-written in
numpy, measured in the same run.

    python bench/distributed.py                       # MLP, 1,000,000 rows
    python bench/distributed.py --model rnn           # RNN over 8 steps (a Loop)
    python bench/distributed.py --rows 200000 --repeat 2

Each worker runs one thread and BLAS is held to one thread everywhere, so 2 workers
can at best score twice as many rows per second as 1. The inputs are generated on the
workers and persisted first; a timed run is `predict` plus `client.persist` of the
outputs (they stay on the workers, as a pipeline writing results out would have them),
best of --repeat runs after one warm-up run (which also imports the model on each
worker). Reported: rows per second of wall time, the scaling from 1 to 2 workers, and
the workers' CPU seconds per million rows (flat when Dask adds little per block). On a
busy machine the wall-time figures are noisy; the CPU figures much less so.
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
_HERE = os.path.dirname(os.path.abspath(__file__))
# this file's name hides the `distributed` package while bench/ leads sys.path
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.insert(0, os.path.dirname(_HERE))

import argparse   # noqa: E402
import logging    # noqa: E402
import time       # noqa: E402

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402
from graphjit import nn, ops   # noqa: E402

RNG = np.random.default_rng(0)


class MLP(nn.Cell):
    """32 features -> 64 -> 64 -> 10 classes."""

    def __init__(self):
        super().__init__()
        shapes = [(32, 64), (64, 64), (64, 10)]
        self.ws = [ms.Tensor((RNG.standard_normal(s) / np.sqrt(s[0])).astype(np.float32))
                   for s in shapes]
        self.bs = [ms.Tensor((RNG.standard_normal(s[1]) * 0.1).astype(np.float32))
                   for s in shapes]

    def construct(self, x):
        h = ops.relu(ops.matmul(x, self.ws[0]) + self.bs[0])
        h = ops.relu(ops.matmul(h, self.ws[1]) + self.bs[1])
        return ops.softmax(ops.matmul(h, self.ws[2]) + self.bs[2], -1)


def mlp_numpy(x, net):
    (w0, w1, w2), (b0, b1, b2) = ([t.asnumpy() for t in ts] for ts in (net.ws, net.bs))
    h = np.maximum(x @ w0 + b0, 0)
    h = np.maximum(h @ w1 + b1, 0)
    z = h @ w2 + b2
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


class RNN(nn.Cell):
    """A tanh RNN over a sequence whose length the data gives (a Loop): 4 -> 32."""

    def __init__(self):
        super().__init__()
        self.w = ms.Tensor((RNG.standard_normal((4, 32)) * 0.5).astype(np.float32))
        self.u = ms.Tensor((RNG.standard_normal((32, 32)) * 0.2).astype(np.float32))

    def construct(self, x):
        h = ops.zeros_like(ops.matmul(x[:, 0, :], self.w))
        for t in range(x.shape[1]):
            h = ops.tanh(ops.matmul(x[:, t, :], self.w) + ops.matmul(h, self.u))
        return h


def rnn_numpy(x, net):
    w, u = net.w.asnumpy(), net.u.asnumpy()
    h = np.zeros((x.shape[0], w.shape[1]), np.float32)
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t, :] @ w + h @ u)
    return h


MODELS = {
    "mlp": (MLP, (32,), mlp_numpy),
    "rnn": (RNN, (8, 4), rnn_numpy),
}


def cpu_best(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def in_process(model, net, by_hand, rows, dims, repeat):
    """CPU seconds of the numpy network and of one call of the compiled model."""
    x = np.random.default_rng(1).standard_normal((rows,) + dims).astype(np.float32)
    np.testing.assert_allclose(model.run_arrays([x[:1000]])[0], by_hand(x[:1000], net),
                               rtol=1e-4, atol=1e-5)
    return (cpu_best(lambda: by_hand(x, net), repeat),
            cpu_best(lambda: model.run_arrays([x]), repeat))


def on_cluster(model, n_workers, rows, dims, chunk, repeat, check):
    """Best wall seconds and the workers' CPU seconds of one scoring run."""
    import dask.array as da
    from distributed import Client, LocalCluster, wait
    import graphjit.distributed as gd

    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        x = da.random.default_rng(1).standard_normal((rows,) + dims,
                                                     chunks=(chunk,) + dims)
        x = client.persist(x.astype(np.float32))
        wait(x)
        best_wall, best_cpu = float("inf"), float("inf")
        for run in range(repeat + 1):
            cpu0 = sum(client.run(time.process_time).values())
            t = time.perf_counter()
            y = client.persist(gd.predict(model, x))
            wait(y)
            wall = time.perf_counter() - t
            cpu = sum(client.run(time.process_time).values()) - cpu0
            if run:                     # run 0 warms up (and imports the model)
                best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
            if check and run == 0:
                got, xs = client.compute([y, x], sync=True)
                np.testing.assert_allclose(got, model.run_arrays([xs])[0], rtol=1e-5,
                                           atol=1e-6)
            del y
    return best_wall, best_cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="mlp")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=62_500, help="rows per block")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    cls, dims, by_hand = MODELS[args.model]
    net = cls()
    model = ms.compile(net, ms.TensorSpec((None,) + dims, ms.float32))
    rows, mrows = args.rows, args.rows / 1e6
    print(f"{args.model.upper()}: {rows:,} rows of {dims}, blocks of {args.chunk:,} rows "
          f"({-(-rows // args.chunk)} blocks)")

    t_numpy, t_model = in_process(model, net, by_hand, rows, dims, args.repeat)
    print(f"  numpy by hand, in process      {rows / t_numpy:>12,.0f} rows/s  "
          f"({t_numpy:.2f} s CPU)")
    print(f"  compiled model, in process     {rows / t_model:>12,.0f} rows/s  "
          f"({t_model:.2f} s CPU, {t_model / t_numpy:.2f}x numpy)")

    rates = {}
    for n in (1, 2):
        wall, cpu = on_cluster(model, n, rows, dims, args.chunk, args.repeat, check=n == 2)
        rates[n] = rows / wall
        print(f"  predict, {n} worker process{'es' if n > 1 else '  '}    {rates[n]:>12,.0f} "
              f"rows/s  ({wall:.2f} s wall; workers' CPU {cpu / mrows:.2f} s per million "
              f"rows, {cpu / t_model:.2f}x in process)")
    print(f"  scaling from 1 to 2 workers: {rates[2] / rates[1]:.2f}x "
          f"(2 workers at {rates[2] / (rows / t_model):.2f}x one in-process call)")


if __name__ == "__main__":
    main()
