"""Reverse-mode differentiation as a graph-to-graph transform.

    g = grad_graph(f, wrt=[0, 2])          # f(x, w, b) -> loss

    graph f_grad(%x, %w, %b) {
      ...f's nodes (If and Loop also saving what their gradients read)...
      ...the backward nodes (If and Loop over the saved values, in reverse)...
      return %loss, %d_x, %d_b
    }

The result is an ordinary graph: it prints, verifies, runs on the backend and
exports like any other. Sources may be parameters (by index) or any value of the
graph (a Const a Parameter was baked into, say). Integer values are differentiated
like real ones, in their own dtype (MindSpore's convention); a bool source gets
zeros. Every op on the way declares its gradient in the registry
(graphjit.ir.grad); one that does not is a MissingGradientError at its line.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Union

import numpy as np

from ..ir.graph import Graph, Value
from .activity import Activity
from ..passes.eliminate_dead_values import eliminate_dead_values
from .graphs import inline
from .linearize import fold_constants, linearize
from . import control  # noqa: F401  (registers how If and Loop split)

__all__ = ["grad_graph", "split_grad", "default_sens"]


def default_sens(graph: Graph, v: Value) -> Value:
    """The default sensitivity of a result: ones of its type (a constant when small)."""
    t = v.type
    if t.shape is not None and all(d is not None for d in t.shape) and \
            int(np.prod(t.shape)) <= 16:
        arr = np.ones(t.shape, dtype=t.dtype.np)
        arr.flags.writeable = False
        return graph.apply("Const", value=arr)
    return graph.apply("OnesLike", v)


def split_grad(graph: Graph, sources: Sequence[Value], outputs: Sequence[int]):
    """graph split into its forward program (results and residuals) and its backward
    program (graphjit.autodiff.linearize.Linearized), for the sources and the results at
    `outputs`: what grad_graph joins, for a caller that places the halves itself."""
    act = Activity()
    act.forward(graph, sources)
    act.backward(graph, outputs)
    return linearize(graph, act, sources, outputs)


def grad_graph(graph: Graph, wrt: Sequence[Union[int, Value]],
               outputs: Optional[Sequence[int]] = None, *, sens: str = "ones",
               keep_results: bool = True, name: Optional[str] = None) -> Graph:
    """The graph computing `graph`'s results and the gradients of some of them.

    Args:
        graph: the forward graph (left unchanged).
        wrt: the sources: parameter indices or values of `graph`.
        outputs: indices of the results to differentiate (default: every result
            that is not bool); the gradient is that of their sum weighted by `sens`.
        sens: "ones" (each differentiated result weighted by ones, MindSpore's default
            sensitivity) or "param" (one extra parameter per differentiated result,
            after graph's parameters, holding its weight: sens_param=True).
        keep_results: put graph's results first in the new graph's results.
        name: the new graph's name (default: graph's name + "_grad").

    Returns:
        A graph with graph's parameters (and the sens parameters), returning graph's
        results (if keep_results) and then the gradient of each source.

    Raises:
        MissingGradientError: a gradient flows through an op declaring none.
    """
    sources: List[Value] = []
    for w in wrt:
        if isinstance(w, Value):
            if w.graph is not graph:
                raise ValueError(f"grad_graph: {w!r} is not a value of graph '{graph.name}'")
            sources.append(w)
        else:
            sources.append(graph.params[w])
    if outputs is None:
        outputs = [i for i, r in enumerate(graph.results) if r.type.dtype.is_differentiable]
    outputs = [i for i in outputs if graph.results[i].type.dtype.is_differentiable]
    if sens not in ("ones", "param"):
        raise ValueError(f"grad_graph: sens must be 'ones' or 'param', got {sens!r}")
    lin = split_grad(graph, sources, outputs)

    out = Graph(name or f"{graph.name}_grad")
    params = [out.add_param(p.type, p.name) for p in graph.params]
    sens_params = {}
    if sens == "param":
        for i in outputs:
            r = graph.results[i]
            sens_params[i] = out.add_param(r.type, f"sens_{r.name}" if r.name else "sens")
    vals = inline(out, lin.fwd, params)
    results, residuals = vals[:lin.n_results], vals[lin.n_results:]
    args = []
    for kind, k in lin.roles:
        if kind == "param":
            args.append(params[k])
        elif kind == "result":
            args.append(residuals[k])
        elif kind == "g":
            args.append(sens_params[k] if sens == "param" else default_sens(out, results[k]))
        else:   # pragma: no cover - the top level threads nothing
            raise AssertionError(kind)
    grads = inline(out, lin.bwd, args, fold=fold_constants)
    out.set_results((list(results) if keep_results else []) + list(grads))
    return eliminate_dead_values(out)
