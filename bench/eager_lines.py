"""Where an eager (PYNATIVE) run of X4 (gather + append in a data-dependent while) spends
its time, statement by statement, against the same statement over numpy: the profile
behind bench/run.py's eager column for the loop workloads.

    python bench/eager_lines.py

Each statement of GatherWalk.construct is timed on its own (CPU time per call, best of
several repeats, bench/timing.py) with the values it meets inside the loop, and
multiplied by the number of times one call runs it.
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
from workloads import all_workloads   # noqa: E402


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    w = next(w for w in all_workloads() if w.key == "X4")
    table_n, idx_n, limit_n = w.arrays
    table, idx, limit = (ms.Tensor(a) for a in w.arrays)
    net = w.make_net()
    trips = len(net(table, idx, limit))
    acc, acc_n = table[3] * 1, table_n[3] * 1
    row, row_n = ops.gather(table, idx[5], 0), table_n[idx_n[5]]
    outs, outs_n = [acc] * trips, [acc_n] * trips
    k, k_n = idx[5], idx_n[5]
    total, total_n = acc.sum(), acc_n.sum()
    below, below_n = total < limit, total_n < limit_n
    lines = [   # (statement, runs per call, eager, numpy)
        ("acc = table[0] * 0", 1, lambda: table[0] * 0, lambda: table_n[0] * 0),
        ("acc.sum()", trips + 1, lambda: acc.sum(), lambda: acc_n.sum()),
        ("... < limit", trips + 1, lambda: total < limit, lambda: total_n < limit_n),
        ("bool(...)", trips + 1, lambda: bool(below), lambda: bool(below_n)),
        ("idx[i]", trips, lambda: idx[5], lambda: idx_n[5]),
        ("ops.gather(table, k, 0)", trips, lambda: ops.gather(table, k, 0),
         lambda: table_n[k_n]),
        ("acc + row", trips, lambda: acc + row, lambda: acc_n + row_n),
        ("ops.stack(outs)", 1, lambda: ops.stack(outs), lambda: np.stack(outs_n)),
    ]
    print(f"X4, {trips} trips; CPU time per call of construct, statement by statement\n")
    print(f"{'statement':<32}{'runs':>6}{'numpy':>10}{'eager':>10}{'extra':>10}")
    tn = te = 0.0
    for text, runs, eager, reference in lines:
        n = cpu_time_per_call(reference, 0.05, 5) * runs
        e = cpu_time_per_call(eager, 0.05, 5) * runs
        tn, te = tn + n, te + e
        print(f"{text:<32}{runs:>6}{n * 1e6:>8.1f}us{e * 1e6:>8.1f}us{(e - n) * 1e6:>8.1f}us")
    whole_n = cpu_time_per_call(lambda: w.numpy_fn(*w.arrays), 0.2, 5)
    whole_e = cpu_time_per_call(lambda: net(table, idx, limit), 0.2, 5)
    print(f"{'sum of the statements':<38}{tn * 1e6:>8.1f}us{te * 1e6:>8.1f}us")
    print(f"{'the whole call':<38}{whole_n * 1e6:>8.1f}us{whole_e * 1e6:>8.1f}us"
          f"   ratio {whole_e / whole_n:.2f}x")


if __name__ == "__main__":
    main()
