"""Every speed workload in one command: graph mode (a Cell call), a compiled model
(`ms.compile`) and PYNATIVE_MODE against the same computation hand-written in numpy,
measured in the same process.

    python bench/run.py                 # all workloads
    python bench/run.py W3 X1           # some of them
    python bench/run.py --quick         # fewer repeats (noisier)
    python bench/run.py --numba         # also graph mode and the compiled model with
                                        # set_context(numba_kernels=True)

Ratios are CPU time (time.process_time) against numpy, best of several repeats, with
BLAS held to one thread; lower is better. "compile" is the wall time of the first call
of a fresh Cell: build, passes, lowering and one run. Before anything is timed, each
mode's result is checked: graph mode and the compiled model against eager mode bit for
bit, and eager mode against numpy (to the workload's tolerance). The memory table is the
peak of extra memory numpy allocates over three calls (tracemalloc).
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse      # noqa: E402
import time          # noqa: E402
import tracemalloc   # noqa: E402

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402

from workloads import all_workloads   # noqa: E402
from timing import cpu_time_per_call   # noqa: E402




def as_numpy(out):
    if isinstance(out, (tuple, list)):
        return [as_numpy(o) for o in out]
    return out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)


def same_bits(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def close(a, b, rtol) -> bool:
    if isinstance(a, list):
        return all(close(x, y, rtol) for x, y in zip(a, b))
    return a.shape == np.shape(b) and np.allclose(a, b, rtol=rtol, atol=rtol)


def peak_extra_memory(fn, calls=3) -> int:
    """Peak bytes allocated above the starting point over `calls` calls (results dropped)."""
    fn()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(calls):
        fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def measure_numba(w, row, tensors, eager, budget, repeat):
    """Graph mode and the compiled model again with the numba tier on (same checks)."""
    ms.set_context(mode=ms.GRAPH_MODE, numba_kernels=True)
    try:
        net = w.make_net()
        t = time.perf_counter()
        out = as_numpy(net(*tensors))
        row["nb_compile"] = time.perf_counter() - t
        if not same_bits(out, eager):
            raise SystemExit(f"{w.key}: graph mode with numba kernels differs from eager mode")
        model = ms.compile(w.make_net(), *tensors)
        if not same_bits(as_numpy(model(*tensors)), eager):
            raise SystemExit(f"{w.key}: the compiled model with numba kernels differs from "
                             f"eager mode")
        row["nb_graph"] = cpu_time_per_call(lambda: net(*tensors), budget, repeat)
        row["nb_compiled"] = cpu_time_per_call(lambda: model(*tensors), budget, repeat)
    finally:
        ms.set_context(numba_kernels=False)


def measure(w, budget, repeat, numba=False):
    arrays = [np.array(a, copy=True) for a in w.arrays]
    tensors = [ms.Tensor(a) for a in arrays]
    row = {"key": w.key, "title": w.title}

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_net = w.make_net()
    eager = as_numpy(eager_net(*tensors))
    reference = w.numpy_fn(*arrays)
    if not close(eager, as_numpy(reference), w.rtol):
        raise SystemExit(f"{w.key}: eager mode does not match numpy")

    ms.set_context(mode=ms.GRAPH_MODE)
    net = w.make_net()
    t = time.perf_counter()
    out = as_numpy(net(*tensors))
    row["compile"] = time.perf_counter() - t
    if not same_bits(out, eager):
        raise SystemExit(f"{w.key}: graph mode differs from eager mode")
    model = ms.compile(w.make_net(), *tensors)
    if not same_bits(as_numpy(model(*tensors)), eager):
        raise SystemExit(f"{w.key}: the compiled model differs from eager mode")

    row["numpy"] = cpu_time_per_call(lambda: w.numpy_fn(*arrays), budget, repeat)
    row["graph"] = cpu_time_per_call(lambda: net(*tensors), budget, repeat)
    row["compiled"] = cpu_time_per_call(lambda: model(*tensors), budget, repeat)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    row["eager"] = cpu_time_per_call(lambda: eager_net(*tensors), budget, max(2, repeat // 2))
    ms.set_context(mode=ms.GRAPH_MODE)
    if numba:
        measure_numba(w, row, tensors, eager, budget, repeat)
    if w.key in ("W3", "X1"):
        row["mem_numpy"] = peak_extra_memory(lambda: w.numpy_fn(*arrays))
        row["mem_graph"] = peak_extra_memory(lambda: net(*tensors))
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="workload keys (W1 ... X4); all by default")
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--numba", action="store_true",
                    help="also measure with set_context(numba_kernels=True) (extra 'numba')")
    args = ap.parse_args(argv)
    budget, repeat = (0.05, 3) if args.quick else (0.2, 5)
    chosen = [w for w in all_workloads() if not args.only or w.key in args.only]
    print(f"graphjit {ms.__version__}, numpy {np.__version__}; CPU-time ratios against "
          f"hand-written numpy (lower is better)\n")
    if args.numba:
        t = time.perf_counter()
        ms.set_context(numba_kernels=True)      # imports numba, warms its compiler up
        print(f"set_context(numba_kernels=True): {(time.perf_counter() - t) * 1e3:.0f} ms "
              f"(numba columns: nb graph, nb compiled, nb compile)\n")
        ms.set_context(numba_kernels=False)
    print(f"{'':4}{'workload':<44}{'numpy':>10}{'graph':>8}{'compiled':>10}{'eager':>8}"
          f"{'compile':>10}" + (f"{'nb graph':>10}{'nb compiled':>13}{'nb compile':>12}"
                                if args.numba else ""))
    rows = []
    for w in chosen:
        r = measure(w, budget, repeat, args.numba)
        rows.append(r)
        n = r["numpy"]
        extra = ""
        if args.numba:
            extra = (f"{r['nb_graph'] / n:>9.2f}x{r['nb_compiled'] / n:>12.2f}x"
                     f"{r['nb_compile'] * 1e3:>10.1f}ms")
        print(f"{r['key']:<4}{r['title']:<44}{n * 1e6:>8.1f}us{r['graph'] / n:>7.2f}x"
              f"{r['compiled'] / n:>9.2f}x{r['eager'] / n:>7.2f}x{r['compile'] * 1e3:>8.1f}ms"
              + extra, flush=True)
    mem = [r for r in rows if "mem_numpy" in r]
    if mem:
        print("\npeak extra memory over three calls (MiB): numpy, graph mode, ratio")
        for r in mem:
            a, b = r["mem_numpy"] / 2**20, r["mem_graph"] / 2**20
            print(f"{r['key']:<4}{r['title']:<44}{a:>8.1f}{b:>8.1f}{b / a:>7.2f}x")


if __name__ == "__main__":
    main()
