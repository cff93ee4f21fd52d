"""Models the graphjit.distributed tests score (shared by the local and cluster tests)."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops

RNG = np.random.default_rng(11)
W_IN = RNG.standard_normal((4, 8)).astype(np.float32)
W_REC = (RNG.standard_normal((8, 8)) * 0.3).astype(np.float32)


class Decay(nn.Cell):
    """A while loop whose trip count comes from the data (its length along axis 1),
    so it is a Loop node; two outputs."""

    def construct(self, x):
        h = x[:, 0] * 0.0
        t = 0
        while t < x.shape[1]:
            h = h * 0.5 + x[:, t]
            t = t + 1
        return h, ops.tanh(h) * 2.0


class Branch(nn.Cell):
    """An If on the feature count: the same branch for every block of rows."""

    def construct(self, x):
        if x.shape[1] > 3:
            y = ops.relu(x[:, :3]) + 1.0
        else:
            y = x * x - 2.0
        return y


class SeqRNN(nn.Cell):
    """An RNN over a sequence of unknown length: a Loop with matmuls in its body."""

    def __init__(self):
        super().__init__()
        self.w, self.u = ms.Tensor(W_IN), ms.Tensor(W_REC)

    def construct(self, x):
        h = ops.zeros_like(ops.matmul(x[:, 0, :], self.w))
        for t in range(x.shape[1]):
            h = ops.tanh(ops.matmul(x[:, t, :], self.w) + ops.matmul(h, self.u))
        return h


class Centered(nn.Cell):
    """Not batch-wise: subtracts the mean over the batch."""

    def construct(self, x):
        return x - x.mean(0)


def decay_model():
    return ms.compile(Decay(), ms.TensorSpec((None, None), ms.float32))


def branch_model():
    return ms.compile(Branch(), ms.TensorSpec((None, None), ms.float32))


def rnn_model():
    return ms.compile(SeqRNN(), ms.TensorSpec((None, None, 4), ms.float32))


def data(rows, *dims, seed=0):
    return np.random.default_rng(seed).standard_normal((rows,) + dims).astype(np.float32)


def die_once(block, flag, victim, block_info=None):
    """Identity, except that making block `victim` the first time (no file `flag` yet)
    kills the worker process that runs it."""
    import os
    if block_info[0]["chunk-location"][0] == victim and not os.path.exists(flag):
        open(flag, "w").close()
        os._exit(1)
    return block
