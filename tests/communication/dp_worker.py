"""Data-parallel training run by the tests under mpirun (and plainly, as the one-process
reference): 5 steps of a small CNN or of an early-stopping RNN, each process on its
shard of every batch; writes each rank's Parameters to OUT.rank<k>.npz.

    python dp_worker.py cnn graph,pynative OUT [--kill-rank R] [--raise-rank R]

writes OUT.<mode>.rank<k>.npz for each mode of the comma-separated list.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

import graphjit as ms  # noqa: E402
from graphjit import nn, ops  # noqa: E402
from graphjit.communication import get_group_size, get_rank, init  # noqa: E402
import graphjit.dataset as ds  # noqa: E402

STEPS = 5
BATCH = 8


class SmallCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True)
        self.fc = nn.Dense(4 * 4 * 4, 3)

    def construct(self, x):
        h = ops.relu(self.conv(x))
        return self.fc(ops.reshape(h, (h.shape[0], -1)))


class EarlyStopRNN(nn.Cell):
    """tutorials/05_training.py's RNN, with the stopping statistic all-reduced so every
    process stops at the step the whole batch would (a collective inside the Loop:
    its condition comes from an AllReduce, the same on every process)."""

    def __init__(self, n_hidden=8):
        super().__init__()
        self.w_ih = nn.Dense(1, n_hidden)
        self.w_hh = nn.Dense(n_hidden, n_hidden, has_bias=False)
        self.head = nn.Dense(n_hidden, 1)
        self.n_hidden = n_hidden
        self.allreduce = ops.AllReduce()
        self.size = get_group_size()

    def construct(self, xs):
        h = ops.zeros((xs.shape[1], self.n_hidden), ms.float32)
        for x in xs:
            h = ops.tanh(self.w_ih(x) + self.w_hh(h))
            if self.allreduce(ops.abs(h).mean()) / self.size > 0.5:
                break
        return self.head(h)


def batches(kind):
    rng = np.random.default_rng(3)
    if kind == "cnn":
        return [(rng.standard_normal((BATCH, 1, 6, 6)).astype(np.float32),
                 rng.integers(0, 3, BATCH).astype(np.int32)) for _ in range(STEPS)]
    out = []
    for _ in range(STEPS):
        xs = rng.uniform(-1, 1, (BATCH, 6, 1)).astype(np.float32)   # (N, T, 1), sharded on N
        out.append((xs, xs[:, :3].mean(1)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", choices=["cnn", "rnn"])
    ap.add_argument("modes", help="graph, pynative or both: graph,pynative")
    ap.add_argument("out")
    ap.add_argument("--kill-rank", type=int, default=-1)
    ap.add_argument("--raise-rank", type=int, default=-1)
    ap.add_argument("--threshold", type=int, default=None)
    a = ap.parse_args()

    init()
    for mode in a.modes.split(","):
        train(a, mode)


def train(a, mode):
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode={"graph": ms.GRAPH_MODE, "pynative": ms.PYNATIVE_MODE}[mode])
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    if a.threshold is not None:
        ms.set_auto_parallel_context(comm_fusion_threshold=a.threshold)
    ms.set_seed(1 + rank)        # different initial weights: rank 0's are broadcast
    if a.model == "cnn":
        net = SmallCNN()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    else:
        net = EarlyStopRNN()
        loss = nn.MSELoss()
        opt = nn.Adam(net.trainable_params(), 0.05)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    for k, (x, y) in enumerate(batches(a.model)):
        # this process's shard of the batch (MindSpore's DistributedSampler order)
        shard = ds.NumpySlicesDataset((x, y), shuffle=False, num_shards=size, shard_id=rank)
        xs, ys = next(shard.batch(BATCH // size).create_tuple_iterator(output_numpy=True))
        if a.model == "rnn":
            xs = np.ascontiguousarray(xs.transpose(1, 0, 2))        # (T, N, 1)
        if k == 2 and rank == a.kill_rank:
            os.kill(os.getpid(), 9)
        if k == 2 and rank == a.raise_rank:
            raise ValueError("the data of this process is broken")
        step(ms.Tensor(xs), ms.Tensor(ys))
    params = {p.name: p.asnumpy() for p in net.trainable_params()}
    np.savez(f"{a.out}.{mode}.rank{rank}.npz", **params)


if __name__ == "__main__":
    main()
