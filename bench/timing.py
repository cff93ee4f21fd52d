"""The one timing rule every benchmark here uses: CPU time per call, best of a few runs."""
from __future__ import annotations

import time


def cpu_time_per_call(fn, budget=0.2, repeat=5) -> float:
    """Best of `repeat` CPU-time measurements, each of enough calls to fill `budget`."""
    fn()
    t = time.process_time()
    n = 0
    while True:
        fn()
        n += 1
        if time.process_time() - t >= budget / 4 or n >= 10_000:
            break
    number = max(1, int(n * budget / 4 / max(time.process_time() - t, 1e-9)))
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t) / number)
    return best

