"""Where bench/run.py's W5 (an `if` between two MLPs) spends numpy's time: the branch's
matrix products alone, against the whole hand-written numpy branch, in one process (one
thread). Graph mode must call the same BLAS (eager mode's bits), so the products'
share of numpy's time is the lowest ratio graph mode can reach.

    python bench/gemm_floor.py
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np   # noqa: E402

from timing import cpu_time_per_call   # noqa: E402
from workloads import all_workloads   # noqa: E402


def main():
    w = next(w for w in all_workloads() if w.key == "W5")
    (x,) = w.arrays
    branch = "relu" if x.sum() > 0 else "tanh"
    # the weights the taken branch multiplies by, from the reference's closure
    free = dict(zip(w.numpy_fn.__code__.co_freevars,
                    (c.cell_contents for c in w.numpy_fn.__closure__)))
    mats = [free[n] for n in (("a1", "a2", "a3") if branch == "relu" else ("b1", "b2"))]
    total = cpu_time_per_call(lambda: w.numpy_fn(x))
    h, parts = x, []
    for m in mats:
        out = np.empty((h.shape[0], m.shape[1]), np.float32)
        parts.append(cpu_time_per_call(lambda h=h, m=m, out=out: np.matmul(h, m, out=out)))
        h = np.tanh(h @ m) if branch == "tanh" else np.maximum(h @ m, 0)
    gemm = sum(parts)
    print(f"W5 ({branch} branch): numpy {total * 1e6:.1f}us; its matrix products "
          + " + ".join(f"{p * 1e6:.1f}us" for p in parts)
          + f" = {gemm * 1e6:.1f}us, {gemm / total:.2f} of numpy's time (graph mode's floor)")


if __name__ == "__main__":
    main()
