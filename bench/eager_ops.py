"""Single eager (PYNATIVE) operations against the same numpy expression: where an eager
program's time goes per op (bench/run.py's eager column is a sum of these).

    python bench/eager_ops.py

CPU time per call (bench/timing.py), best of several repeats; "extra" is the eager op's
time minus numpy's, the cost of graphjit's dispatch and Tensor.
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402
from graphjit import ops   # noqa: E402

from timing import cpu_time_per_call   # noqa: E402


def cases():
    rng = np.random.default_rng(0)
    i0, i1 = np.array(0, np.int32), np.array(1, np.int32)
    v = rng.uniform(1, 100, 1024)
    h = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    xs = rng.standard_normal((200, 16, 64)).astype(np.float32)
    table = rng.uniform(0, 1, (64, 128)).astype(np.float32)
    idx = rng.integers(0, 64, 400).astype(np.int32)
    acc = table[3]
    lim = np.array(2000.0, np.float32)
    rows = [acc] * 32
    T = ms.Tensor
    ti0, ti1, tv, th, tw, txs = T(i0), T(i1), T(v), T(h), T(w), T(xs)
    ttable, tidx, tacc, tlim = T(table), T(idx), T(acc), T(lim)
    trows = [tacc] * 32
    k, tk = idx[3], tidx[3]
    c, tc = i0 < i1, ti0 < ti1
    return [
        ("int32 0-d t + t", lambda: ti0 + ti1, lambda: i0 + i1),
        ("int32 0-d t + 1", lambda: ti0 + 1, lambda: i0 + np.int32(1)),
        ("int32 0-d t < t", lambda: ti0 < ti1, lambda: i0 < i1),
        ("bool(t) of a 0-d bool", lambda: bool(tc), lambda: bool(c)),
        ("f64[1024] t / t", lambda: tv / tv, lambda: v / v),
        ("f64[1024] 0.5 * t", lambda: 0.5 * tv, lambda: 0.5 * v),
        ("ops.abs(f64[1024])", lambda: ops.abs(tv), lambda: np.abs(v)),
        ("f64[1024].max()", lambda: tv.max(), lambda: np.max(v)),
        ("f32[128].sum()", lambda: tacc.sum(), lambda: acc.sum()),
        ("f32 0-d t < t", lambda: tlim < tlim, lambda: lim < lim),
        ("ops.matmul(f32[16,64], [64,64])", lambda: ops.matmul(th, tw), lambda: h @ w),
        ("ops.tanh(f32[16,64])", lambda: ops.tanh(th), lambda: np.tanh(h)),
        ("x[t] of f32[200,16,64]", lambda: txs[7], lambda: xs[7]),
        ("x[i] of int32[400]", lambda: tidx[3], lambda: idx[3]),
        ("ops.gather(f32[64,128], 0-d, 0)", lambda: ops.gather(ttable, tk, 0),
         lambda: table[k]),
        ("ops.stack(32 x f32[128])", lambda: ops.stack(trows), lambda: np.stack(rows)),
        ("ms.Tensor(f32[128])", lambda: ms.Tensor(acc), lambda: np.array(acc)),
    ]


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    print(f"graphjit {ms.__version__}, numpy {np.__version__}; CPU time per call\n")
    print(f"{'operation':<36}{'numpy':>10}{'eager':>10}{'extra':>10}{'ratio':>8}")
    for name, eager, reference in cases():
        n = cpu_time_per_call(reference, 0.1, 5)
        e = cpu_time_per_call(eager, 0.1, 5)
        print(f"{name:<36}{n * 1e9:>8.0f}ns{e * 1e9:>8.0f}ns{(e - n) * 1e9:>8.0f}ns"
              f"{e / n:>7.2f}x", flush=True)


if __name__ == "__main__":
    main()
