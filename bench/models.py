"""The sweep's models (tests/models/zoo.py), timed in GRAPH and PYNATIVE mode: the first
call (graph: building and compiling included), the first training step (graph: the
gradient program compiled too) and a steady call (median of repeats); then the ratio
PYNATIVE / GRAPH of the steady calls.

    python bench/models.py [name ...]
"""
from __future__ import annotations

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
sys.path.insert(0, os.path.join(HERE, ".."))

import graphjit as ms  # noqa: E402
from zoo import ZOO  # noqa: E402


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(spec, mode, repeats=5):
    """(first call, first training step, steady call), seconds."""
    ms.set_context(mode=mode)
    net = spec.make()
    net.set_train(False)
    target = spec.forward(net) if spec.forward else net
    first = _timed(lambda: target(*spec.inputs))
    steady = statistics.median(_timed(lambda: target(*spec.inputs)) for _ in range(repeats))
    train_net = (spec.make_train or spec.make)()
    train_net.set_train(True)
    step = spec.train(train_net)
    step.set_train(True)
    first_step = _timed(lambda: step(*spec.batch))
    return first, first_step, steady


def main(names):
    rows = []
    for name in names:
        g = measure(ZOO[name], ms.GRAPH_MODE)
        e = measure(ZOO[name], ms.PYNATIVE_MODE)
        rows.append((name, g, e))
    ms_ = lambda s: f"{s * 1e3:9.1f}"   # noqa: E731
    print(f"{'model':18s} {'graph: first':>12s} {'1st step':>9s} {'steady':>9s}   "
          f"{'eager: first':>12s} {'1st step':>9s} {'steady':>9s}   {'eager/graph':>11s}")
    print(f"{'':18s} {'(ms)':>12s} {'(ms)':>9s} {'(ms)':>9s}   {'(ms)':>12s} {'(ms)':>9s} "
          f"{'(ms)':>9s}   {'steady':>11s}")
    for name, g, e in rows:
        print(f"{name:18s} {ms_(g[0]):>12s} {ms_(g[1])} {ms_(g[2])}   {ms_(e[0]):>12s} "
              f"{ms_(e[1])} {ms_(e[2])}   {e[2] / g[2]:11.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or sorted(ZOO))
