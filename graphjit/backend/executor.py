"""Runs graphs: each graph becomes a Python function generated once from its plan.

The plan binds every node to a kernel chosen for its exact input and output types
(OpDef.make_kernel), gives every value a local variable, and If and Loop run their
subgraphs as nested plans. Nothing is looked up or rebuilt per call or per
iteration.
"""
from __future__ import annotations

import itertools
import sys
import traceback
from typing import Callable, Dict, List, Sequence

import numpy as np

from ..ir.errors import GraphJitError, GraphRuntimeError
from ..ir.graph import Graph
from ..ir.registry import get_op

__all__ = ["compile_graph", "CompiledGraph"]

_counter = itertools.count()


class CompiledGraph:
    """A graph turned into a callable: `cg(*arrays) -> tuple of arrays`."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.fn, self.source, self._nodes = _generate(graph)
        self._first_line = 2  # the generated def is line 1

    def __call__(self, *args):
        try:
            with np.errstate(all="ignore"):
                return self.fn(*args)
        except (GraphJitError, AssertionError):
            raise
        except Exception as e:
            raise self._wrap(e) from e

    def _wrap(self, e: Exception) -> GraphRuntimeError:
        node = None
        tb = e.__traceback__
        fname = self.fn.__code__.co_filename
        for frame, lineno in traceback.walk_tb(tb):
            if frame.f_code.co_filename == fname:
                node = self._nodes.get(lineno, node)
        if node is None:
            return GraphRuntimeError(f"graph '{self.graph.name}' failed: "
                                     f"{type(e).__name__}: {e}")
        return GraphRuntimeError(
            f"{node.op} failed while the graph ran: {type(e).__name__}: {e}", loc=node.loc,
            detail="inputs: " + ", ".join(str(v.type) for v in node.inputs))


def _generate(graph: Graph):
    names: Dict[int, str] = {}
    env: Dict[str, object] = {"np": np}
    lines: List[str] = []
    nodes_by_line: Dict[int, object] = {}

    def name_of(v) -> str:
        n = names.get(id(v))
        if n is None:
            n = names[id(v)] = f"v{len(names)}"
        return n

    params = [name_of(p) for p in graph.params]
    for i, node in enumerate(graph.nodes):
        kname = f"k{i}"
        env[kname] = make_node_kernel(node)
        args = ", ".join(name_of(v) for v in node.inputs)
        outs = [name_of(o) for o in node.outputs]
        if not outs:
            lines.append(f"    {kname}({args})")
        else:
            if get_op(node.op).family == "control" or len(outs) != 1:
                target = ", ".join(outs) + ","
            else:
                target = outs[0]
            lines.append(f"    {target} = {kname}({args})")
        nodes_by_line[len(lines) + 1] = node
    results = ", ".join(name_of(r) for r in graph.results)
    lines.append(f"    return ({results}{',' if len(graph.results) == 1 else ''})")
    src = f"def run({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    filename = f"<graphjit:{graph.name}:{next(_counter)}>"
    code = compile(src, filename, "exec")
    exec(code, env)
    import linecache
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    return env["run"], src, nodes_by_line


def make_node_kernel(node) -> Callable:
    """The callable that runs one node (nested plans for If and Loop)."""
    if node.op == "If":
        return _if_kernel(node)
    if node.op == "Loop":
        from .loop import loop_kernel
        return loop_kernel(node)
    opdef = get_op(node.op)
    return opdef.make_kernel([v.type for v in node.inputs], [o.type for o in node.outputs],
                             node.attrs)


def _truth(c) -> bool:
    a = np.asarray(c)
    if a.size != 1:
        raise ValueError(f"a condition must have exactly one element, got shape {a.shape}")
    return bool(a.reshape(-1)[0])


def _if_kernel(node) -> Callable:
    then_fn = compile_graph(node.attrs["then_graph"]).fn
    else_fn = compile_graph(node.attrs["else_graph"]).fn
    out_dtypes = [o.type.dtype.np for o in node.outputs]

    def run_if(c, *operands):
        return (then_fn if _truth(c) else else_fn)(*operands)
    del out_dtypes
    return run_if


def compile_graph(graph: Graph) -> CompiledGraph:
    """Build the executable form of a graph (and, inside it, of its subgraphs)."""
    return CompiledGraph(graph)
