"""Run by the tests under mpirun: every collective in both modes against numpy, their
gradients, a group, and the bucketing of DistributedGradReducer (messages counted).
Exits non-zero (an AssertionError) on the first difference; prints "ok <rank>"."""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

import graphjit as ms  # noqa: E402
from graphjit import nn, ops  # noqa: E402
from graphjit.communication import create_group, get_group_size, get_rank, init  # noqa: E402
from graphjit.ir.defs.collective import communicator  # noqa: E402


class Collectives(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sum = ops.AllReduce()
        self.max = ops.AllReduce(ops.ReduceOp.MAX)
        self.min = ops.AllReduce(ops.ReduceOp.MIN)
        self.prod = ops.AllReduce(ops.ReduceOp.PROD)
        self.gather = ops.AllGather()
        self.scatter = ops.ReduceScatter()
        self.bcast = ops.Broadcast(1)

    def construct(self, x):
        return (self.sum(x), self.max(x), self.min(x), self.prod(x), self.gather(x),
                self.scatter(x), self.bcast((x,))[0])


def expected(xs, rank, size):
    total = np.sum(xs, 0)
    return (total, np.max(xs, 0), np.min(xs, 0), np.prod(xs, 0), np.concatenate(xs, 0),
            np.split(total, size)[rank], xs[1])


def main():
    init()
    rank, size = get_rank(), get_group_size()
    xs = [np.arange(size * 3, dtype=np.float32).reshape(size, 3) * (r + 1) + r
          for r in range(size)]
    x = ms.Tensor(xs[rank])
    want = expected(xs, rank, size)
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        got = Collectives()(x)
        for g, w, name in zip(got, want, ("sum", "max", "min", "prod", "gather", "scatter",
                                          "broadcast")):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, err_msg=f"{name} mode {mode}")

        # gradients: AllReduce(sum)'s is AllReduce(sum), AllGather's is ReduceScatter
        def f(v):
            return (ops.AllGather()(v) * float(rank + 1)).sum() + ops.AllReduce()(v * v).sum()
        g = ms.grad(f)(x).asnumpy()
        w = float(sum(r + 1 for r in range(size))) + size * 2 * xs[rank]
        np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=f"grad mode {mode}")

        # max: the summed adjoint where this process holds the maximum; prod: the summed
        # adjoint times the product over x (MindSpore's bprops)
        g_max = ms.grad(lambda v: ops.AllReduce(ops.ReduceOp.MAX)(v).sum())(x).asnumpy()
        holds_max = np.asarray(xs[rank] == np.max(xs, 0), np.float32)
        np.testing.assert_allclose(g_max, size * holds_max, err_msg=f"max grad mode {mode}")
        small = ms.Tensor(np.float32(rank + 2) * np.ones(3, np.float32))
        g_prod = ms.grad(lambda v: ops.AllReduce(ops.ReduceOp.PROD)(v).sum())(small).asnumpy()
        prod = np.prod([r + 2.0 for r in range(size)])
        np.testing.assert_allclose(g_prod, size * prod / (rank + 2), rtol=1e-6,
                                   err_msg=f"prod grad mode {mode}")

    # a group of ranks 0 and 1
    create_group("pair", [0, 1])
    if rank in (0, 1):
        got = ops.AllReduce(group="pair")(ms.Tensor(np.float32(rank + 1))).asnumpy()
        assert float(got) == 3.0, got

    # buckets: one all-reduce per bucket
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    params = [ms.Parameter(ms.Tensor(np.zeros(s, np.float32)), name=f"p{i}")
              for i, s in enumerate([(3, 4), (4,), (4, 2), (2,)])]
    grads = tuple(ms.Tensor(np.full(p.shape, rank + 1.0, np.float32)) for p in params)
    for threshold, n_messages in ((0, 4), (1 << 20, 1)):
        ms.set_auto_parallel_context(comm_fusion_threshold=threshold)
        red = nn.DistributedGradReducer(params)
        assert len(red.buckets) == n_messages, red.buckets
        world = communicator("hccl_world_group")
        before = world.issued
        out = red(grads)
        assert world.issued - before == n_messages, (threshold, world.issued - before)
        mean = sum(r + 1.0 for r in range(size)) / size
        for o, p in zip(out, params):
            assert o.shape == p.shape
            np.testing.assert_allclose(o.asnumpy(), mean, rtol=1e-6)
    # one write per line: with PYTHONUNBUFFERED print writes the text and its newline
    # separately, and mpirun may interleave another process's line between them
    sys.stdout.write(f"ok {rank}\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
