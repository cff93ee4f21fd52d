"""Data-parallel training over MPI: the same script on one process or on many.

Every process holds the whole model and reads its own shard of the data; before each
update the gradients are all-reduced (averaged) so every process makes the same
update. It is MindSpore's API with the import changed:

    python tutorials/09_data_parallel.py                 # one process (standalone)
    mpirun -n 2 python tutorials/09_data_parallel.py     # two processes (pip install -e '.[mpi]')

(As root add --allow-run-as-root; for 4 processes on 2 cores add --oversubscribe.)
Run plainly, init() makes a one-process world and mpi4py is not needed.
"""
import os
import sys
import tempfile

import numpy as np

import graphjit as ms
import graphjit.dataset as ds
from graphjit import nn, ops
from graphjit.communication import get_group_size, get_rank, init, release

init()
rank, size = get_rank(), get_group_size()


def say(*args):
    # one write per line, so that mpirun never splices another process's line into it
    sys.stdout.write(" ".join([f"[rank {rank}/{size}]"] + [str(a) for a in args]) + "\n")
    sys.stdout.flush()


def banner(text):
    if rank == 0:
        sys.stdout.write(f"\n== {text} ==\n")
        sys.stdout.flush()


# -- 1. collectives ---------------------------------------------------------------------------
banner("1. collectives: every process gets the sum, the gathered values, rank 0's value")
x = ms.Tensor(np.array([rank + 1.0, 10.0 * (rank + 1)], np.float32))
say("AllReduce:", ops.AllReduce()(x), " AllGather:", ops.AllGather()(x.reshape(1, 2)).shape,
    " Broadcast from 0:", ops.Broadcast(0)((x,))[0])

# -- 2. data-parallel training -----------------------------------------------------------------
banner("2. DATA_PARALLEL: each process trains on its shard, gradients averaged")
ms.set_context(mode=ms.GRAPH_MODE)
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
ms.set_seed(rank)       # different initial weights per process: rank 0's are broadcast


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 16, activation="relu")
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


rng = np.random.default_rng(0)               # the same data everywhere; each reads a shard
features = rng.standard_normal((256, 4)).astype(np.float32)
labels = (features[:, 0] > 0).astype(np.int32) + (features[:, 1] > 0).astype(np.int32)
data = ds.NumpySlicesDataset((features, labels), column_names=["x", "y"], shuffle=False,
                             num_shards=size, shard_id=rank).batch(64 // size)
say(f"my shard: {data.get_dataset_size()} batches of {64 // size} rows")

net = Net()
model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                 nn.Momentum(net.trainable_params(), 0.05, 0.9), metrics={"accuracy"})
model.train(3, data)      # TrainOneStepCell all-reduces the gradients itself in this mode

# every process ends with the same Parameters: compare a checksum of each with rank 0's
checksum = ms.Tensor(np.array([sum(float(np.abs(p.asnumpy()).sum())
                                   for p in net.trainable_params())], np.float32))
same = ops.AllReduce(ops.ReduceOp.MAX)(checksum) - ops.AllReduce(ops.ReduceOp.MIN)(checksum)
say(f"Parameter checksum {float(checksum.asnumpy()[0]):.6f} (the same with any number of "
    f"processes); spread over processes {float(same.asnumpy()[0]):.2g}")
assert float(same.asnumpy()[0]) <= 1e-3 * float(checksum.asnumpy()[0])
acc = model.eval(ds.NumpySlicesDataset((features, labels), shuffle=False).batch(64))
say("accuracy on all the data:", round(acc["accuracy"], 3))

# -- 3. a checkpoint, written by rank 0 only ---------------------------------------------------
banner("3. save_checkpoint: rank 0 writes (atomically: a temporary file renamed)")
path = os.path.join(tempfile.gettempdir(), "graphjit_09_data_parallel.ckpt")
ms.save_checkpoint(net, path)
ops.AllReduce()(ms.Tensor(np.zeros(1, np.float32)))     # wait until rank 0 has written
say("checkpoint there:", os.path.exists(path), "loaded back:",
    sorted(ms.load_checkpoint(path))[:2], "...")

ms.reset_auto_parallel_context()
release()
