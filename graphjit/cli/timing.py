"""Time per call of a function: warmed up, then measured in batches of calls.

    t = time_per_call(lambda: model(x), seconds=0.3)
    t.best, t.median     # seconds per call
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

__all__ = ["Timing", "time_per_call", "format_seconds", "plural"]

_BATCH_SECONDS = 0.01     # a batch long enough for the clock, short enough to see noise


@dataclass
class Timing:
    """Seconds per call over batches of calls."""
    per_batch: List[float]
    calls: int
    seconds: float

    @property
    def best(self) -> float:
        return min(self.per_batch)

    @property
    def median(self) -> float:
        return statistics.median(self.per_batch)


def time_per_call(fn: Callable[[], object], seconds: float,
                  on_progress: Optional[Callable[[float], None]] = None) -> Timing:
    """Call fn for about `seconds` (after a warm-up call) and time it.

    The calls run in batches sized to take about 10 ms each (found first, by
    doubling); each batch gives one time per call. At least one batch runs, however
    slow fn is.

    Args:
        fn: what to time (its result is discarded).
        seconds: the time to spend measuring.
        on_progress: called with the elapsed seconds after each batch.
    """
    fn()                                   # warm-up: first-call work is not steady
    start = time.perf_counter()
    n, dt = 1, 0.0
    while True:                            # batch size: about _BATCH_SECONDS a batch
        dt = _run(fn, n)
        if dt >= _BATCH_SECONDS or time.perf_counter() - start >= seconds / 4:
            break
        n = max(n * 2, min(n * 100, int(n * _BATCH_SECONDS / max(dt, 1e-9))))
    per_batch: List[float] = [dt / n]
    calls = n
    while True:
        elapsed = time.perf_counter() - start
        if on_progress is not None:
            on_progress(elapsed)
        if elapsed >= seconds:
            break
        per_batch.append(_run(fn, n) / n)
        calls += n
    return Timing(per_batch, calls, time.perf_counter() - start)


def _run(fn, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - t0


def plural(n: int, word: str) -> str:
    """`1 batch`, `3 batches`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith(("s", "ch")) \
        else f"{n} {word}s"


def format_seconds(s: float) -> str:
    """`12.3 us`, `4.56 ms`, `1.20 s`."""
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"
