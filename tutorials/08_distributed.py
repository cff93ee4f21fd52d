"""Scoring a large array on a Dask cluster: graphjit.distributed.predict.

A compiled model runs in one process. For more rows than one process scores in time,
`graphjit.distributed.predict(model, *dask_arrays)` runs it block by block of rows on
a Dask cluster, here a LocalCluster of 2 worker processes on this machine, and the
same code runs on hundreds of workers (see the end). It needs the optional extra:

    pip install -e '.[distributed]'      # dask[array] and distributed
    python tutorials/08_distributed.py

What happens: the model is checked to be batch-wise (every output row depends only on
the same input row), its exported bytes (JSON + .npy, no pickled code) go to each
worker once and are imported there, and each block of rows becomes one task.
"""
import os
import tempfile

import numpy as np

import dask.array as da
from distributed import Client, LocalCluster

import graphjit as ms
import graphjit.distributed as gd
from graphjit import nn, ops

ROWS, FEATURES = 500_000, 16


def banner(text):
    print(f"\n=== {text} " + "=" * max(0, 70 - len(text)))


class Scorer(nn.Cell):
    """A small MLP with an If on the feature count and a loop whose trip count is read
    from the data (both the same for every block of rows: a graph If and Loop)."""

    def __init__(self):
        super().__init__()
        w1 = np.random.default_rng(0).standard_normal((FEATURES, 32)) / 4
        w2 = np.random.default_rng(3).standard_normal((32, 3))
        self.w1, self.w2 = ms.Tensor(w1.astype(np.float32)), ms.Tensor(w2.astype(np.float32))

    def construct(self, x):
        if x.shape[1] > 8:                      # known per block: the same branch for all
            x = x[:, :8] * 0.5 + x[:, 8:16] * 0.5
            x = ops.concat((x, x), 1)
        h = ops.relu(ops.matmul(x, self.w1))
        t = 0
        while t < x.shape[1] // 4:              # the trip count comes from the data
            h = ops.tanh(h) * 0.9 + 0.1
            t = t + 1
        return ops.softmax(ops.matmul(h, self.w2), -1), h.max(1)


class Standardize(nn.Cell):
    """Not batch-wise: it subtracts the mean over the batch, so each block would use its
    own mean. predict refuses it before anything runs."""

    def construct(self, x):
        return (x - x.mean(0)) / (x.max(0) - x.min(0) + 1.0)


def main():
    model = ms.compile(Scorer(), ms.TensorSpec((None, None), ms.float32))   # None: any rows

    banner("a local cluster of 2 worker processes")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        print(f"workers: {len(client.scheduler_info()['workers'])}")

        # A large array made on the workers, chunked along the rows only.
        x = da.random.default_rng(1).standard_normal((ROWS, FEATURES),
                                                     chunks=(62_500, FEATURES))
        x = x.astype(np.float32)
        probs, peak = gd.predict(model, x)            # lazy: nothing has run yet
        print("probs:", probs)                        # dtype and chunks declared up front
        print("peak: ", peak)

        banner("computing on the cluster")
        counts = da.bincount(probs.argmax(axis=1), minlength=3)
        counts, mean_peak = da.compute(counts, peak.mean())
        print(f"rows per predicted class: {counts.tolist()} (of {ROWS:,})")
        print(f"mean peak activation: {mean_peak:.4f}")

        # The blocks together give what one in-process call gives: check some rows.
        sample = x[:5000].compute()
        want = model.run_arrays([sample])[0]
        got = probs[:5000].compute()
        print("first 5000 rows equal one in-process call:",
              bool(np.allclose(got, want, rtol=1e-6, atol=1e-7)))

        banner("a model file instead of a CompiledModel")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "scorer.gjm")
            model.export(path)
            probs2, _ = gd.predict(path, x[:125_000])
            print("from the file:", probs2)
            print("first row:", np.round(probs2[0].compute(), 4))

    banner("a model that is not batch-wise is refused")
    bad = ms.compile(Standardize(), ms.TensorSpec((None, FEATURES), ms.float32))
    try:
        gd.predict(bad, da.zeros((1000, FEATURES), chunks=(250, FEATURES), dtype=np.float32))
    except gd.NotBatchwiseError as e:
        print(f"{type(e).__name__}: {e}")

    banner("pointing it at a real cluster")
    print("""Start a scheduler and workers where the data is (each worker needs graphjit
installed, with `pip install graphjit[distributed]`; no model code is shipped):

    dask scheduler                                  # on one machine: tcp://HOST:8786
    dask worker tcp://HOST:8786 --nthreads 1        # on each worker machine

then connect a client instead of starting a LocalCluster; predict uses it:

    client = Client("tcp://HOST:8786")
    x = da.from_zarr("s3://bucket/features.zarr")   # or any dask array, rows chunked
    probs, peak = gd.predict("scorer.gjm", x)
    probs.to_zarr("s3://bucket/scores.zarr")        # written by the workers""")


if __name__ == "__main__":
    main()
