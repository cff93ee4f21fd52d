"""The central test helper: run a program in PYNATIVE and GRAPH mode and compare
values, dtypes and shapes (AutoGraph's assertTransformedEquivalent)."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit.jit.api import JitFunction, compare_results


def run_both(make, *args, **kwargs):
    """make() returns a fresh Cell or function; it is run eagerly and as a graph on the
    same arguments. Returns (graph_result, eager_result) after checking they agree."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = make()(*args, **kwargs)
    ms.set_context(mode=ms.GRAPH_MODE)
    target = make()
    if not isinstance(target, ms.nn.Cell) and not isinstance(target, JitFunction):
        target = ms.jit(target)
    graph = target(*args, **kwargs)
    problem = compare_results(graph, eager)
    assert not problem, f"graph and eager disagree: {problem}\ngraph={graph!r}\neager={eager!r}"
    return graph, eager


def assert_same(make, *args, **kwargs):
    run_both(make, *args, **kwargs)


def T(x, dtype=None):
    return ms.Tensor(np.asarray(x), dtype=dtype)
