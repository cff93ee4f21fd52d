"""Data-parallel training over MPI: steps per second of one TrainOneStepCell step (GRAPH
mode) at 1, 2 and 4 processes on this machine, and the share of the step spent in the
gradients' all-reduce, with gradients fused into buckets (one message per bucket) and
without (one message per Parameter).

    python bench/data_parallel.py                 # launches mpirun itself
    python bench/data_parallel.py --steps 40 --batch 1024

The model is an MLP of 8 Dense layers (16 Parameters, ~70k weights); the global batch is
fixed and split across the processes (strong scaling), so N processes each compute
1/N of the rows. BLAS is held to one thread per process. On a 2-core machine 4
processes are oversubscribed: expect no gain past 2. "all-reduce share" is the time a
process spends in the collectives (waiting for the others included) over its step
time, on rank 0; "speed-up" is steps/s against 1 process of the same variant.
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_HERE))

import argparse      # noqa: E402
import json          # noqa: E402
import shutil        # noqa: E402
import subprocess    # noqa: E402
import time          # noqa: E402

import numpy as np   # noqa: E402

MPI_ARGS = ["--oversubscribe", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo",
            "--mca", "oob_tcp_if_include", "lo"]


def worker(args):
    import graphjit as ms
    from graphjit import nn
    from graphjit.communication import get_group_size, get_rank, init
    from graphjit.ir.defs.collective import WORLD_GROUP, communicator

    init()
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True, comm_fusion_threshold=args.threshold)
    ms.set_seed(0)
    widths = [32] + [96] * 7 + [10]
    net = nn.SequentialCell([nn.Dense(a, b, activation="relu") for a, b in
                             zip(widths[:-2], widths[1:-1])] + [nn.Dense(widths[-2], 10)])
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(rank)
    local = args.batch // size
    x = ms.Tensor(rng.standard_normal((local, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, local).astype(np.int32))
    for _ in range(3):
        step(x, y)
    world = communicator(WORLD_GROUP)
    best = None
    for _ in range(args.repeat):
        c0, m0 = getattr(world, "seconds", 0.0), getattr(world, "issued", 0)
        t0 = time.perf_counter()
        for _ in range(args.steps):
            step(x, y)
        dt = time.perf_counter() - t0
        comm_s = getattr(world, "seconds", 0.0) - c0
        msgs = (getattr(world, "issued", 0) - m0) / args.steps
        if best is None or dt < best[0]:
            best = (dt, comm_s, msgs)
    dt, comm_s, msgs = best
    if rank == 0:
        print("RESULT " + json.dumps({"size": size, "steps_per_s": args.steps / dt,
                                      "comm_share": comm_s / dt, "messages": msgs,
                                      "buckets": len(step.grad_reducer.buckets)}), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--threshold", type=int, default=25 * 1024 * 1024)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=512)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        sys.exit("bench/data_parallel.py needs mpirun (apt-get install openmpi-bin) and mpi4py")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    rows = []
    for name, threshold in (("buckets", 25 * 1024 * 1024), ("per-Parameter", 0)):
        for n in (1, 2, 4):
            cmd = [mpirun, "-n", str(n)] + MPI_ARGS + [
                sys.executable, os.path.abspath(__file__), "--worker", "--threshold",
                str(threshold), "--steps", str(args.steps), "--repeat", str(args.repeat),
                "--batch", str(args.batch)]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
            line = next((l for l in p.stdout.splitlines() if l.startswith("RESULT ")), None)
            if p.returncode != 0 or line is None:
                sys.exit(f"mpirun -n {n} failed:\n{p.stdout}\n{p.stderr}")
            rows.append((name, json.loads(line[len("RESULT "):])))
    print(f"global batch {args.batch}, {args.steps} steps (best of {args.repeat}), GRAPH mode")
    print(f"{'variant':<14}{'processes':>10}{'steps/s':>10}{'speed-up':>10}"
          f"{'all-reduce share':>18}{'messages/step':>15}")
    base = {}
    for name, r in rows:
        base.setdefault(name, r["steps_per_s"])
        print(f"{name:<14}{r['size']:>10}{r['steps_per_s']:>10.1f}"
              f"{r['steps_per_s'] / base[name]:>10.2f}{100 * r['comm_share']:>17.1f}%"
              f"{r['messages']:>15.0f}")
    by = {(name, r["size"]): r for name, r in rows}
    for n in (2, 4):
        a, b = by["buckets", n], by["per-Parameter", n]
        print(f"{n} processes: buckets take {a['steps_per_s'] / b['steps_per_s']:.2f}x the "
              f"steps/s of one message per Parameter ({a['messages']:.0f} vs "
              f"{b['messages']:.0f} all-reduces per step)")


if __name__ == "__main__":
    main()
