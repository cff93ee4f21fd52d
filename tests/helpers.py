"""The central test helper: run a program in PYNATIVE and GRAPH mode and compare
values, dtypes and shapes (AutoGraph's assertTransformedEquivalent)."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit import ops
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


def run_jit_twice(fn, *arrays):
    """fn run eagerly and under ms.jit twice on Tensors of `arrays` (the second call
    takes the entry's fast call): (eager, graph, again, the JitFunction), each result
    a list of numpy arrays, after checking that both graph calls give eager mode's
    bits and that no run wrote into an input. Leaves PYNATIVE_MODE set."""
    copies = [a.copy() for a in arrays]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        eager = fn(*[ms.Tensor(a) for a in arrays])
        ms.set_context(mode=ms.GRAPH_MODE)
        jf = ms.jit(fn)
        tensors = [ms.Tensor(a) for a in arrays]
        graph = jf(*tensors)
        again = jf(*tensors)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, c, t in zip(arrays, copies, tensors):
        assert a.tobytes() == c.tobytes() and t.asnumpy().tobytes() == c.tobytes()
    flat = lambda o: [x.asnumpy() for x in o] if isinstance(o, (tuple, list)) else [o.asnumpy()]  # noqa: E731
    e, g, g2 = flat(eager), flat(graph), flat(again)
    for a, b, c in zip(e, g, g2):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        assert c.tobytes() == a.tobytes()
    return e, g, g2, jf


def assert_same(make, *args, **kwargs):
    run_both(make, *args, **kwargs)


def T(x, dtype=None):
    return ms.Tensor(np.asarray(x), dtype=dtype)


def newton_sqrt(a):
    """Newton's square root in a data-dependent while (bench W4's program)."""
    x = a
    it = 0
    dmax = a.max()
    while it < 100 and dmax >= 1e-10:
        xn = 0.5 * (x + a / x)
        dmax = ops.abs(xn - x).max()
        x = xn
        it = it + 1
    return x
