"""Copying graphs: a graph's nodes inlined into another (its parameters bound to
values there), and deep copies of subgraphs (a Graph object is the subgraph of one
node only)."""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from ..ir.graph import Graph, Value
from ..ir.types import TensorType

__all__ = ["inline", "clone_graph", "placeholder"]


def _copy_attrs(attrs):
    return {k: clone_graph(v) if isinstance(v, Graph) else v for k, v in attrs.items()}


def inline(dst: Graph, src: Graph, args: Sequence[Value], fold=None) -> List[Value]:
    """Copy the nodes of `src` to the end of `dst`, its parameters bound to `args`
    (values of dst); returns the values of src's results in dst. Output types are
    inferred again, so they follow the arguments' types. `fold(op, inputs, attrs)`,
    if given, may return the value of a node as an array: it becomes a Const."""
    if len(args) != len(src.params):
        raise ValueError(f"inline: graph '{src.name}' takes {len(src.params)} values, "
                         f"got {len(args)}")
    env = {id(p): a for p, a in zip(src.params, args)}
    for node in src.nodes:
        inputs = [env[id(v)] for v in node.inputs]
        value = fold(node.op, inputs, node.attrs) if fold is not None and \
            len(node.outputs) == 1 and node.op != "Const" else None
        if value is not None:
            value.flags.writeable = False
            new = dst.add_node("Const", (), {"value": value}, loc=node.loc)
        else:
            new = dst.add_node(node.op, inputs, _copy_attrs(node.attrs), loc=node.loc,
                               names=[o.name for o in node.outputs])
        for o, n in zip(node.outputs, new.outputs):
            env[id(o)] = n
    return [env[id(r)] for r in src.results]


def clone_graph(g: Graph) -> Graph:
    """A deep copy of g (subgraphs included) with the same parameter types."""
    new = Graph(g.name)
    params = [new.add_param(p.type, p.name) for p in g.params]
    new.set_results(inline(new, g, params))
    return new


def placeholder(graph: Graph, t: TensorType) -> Value:
    """A value whose type joins with t (ShapeJoin): what a branch returns for a value
    only the other branch computes. A zero broadcast (a view, nothing allocated) to
    t's shape with 0 for each unknown dim; a scalar for an unknown rank."""
    zero = np.zeros((), dtype=t.dtype.np)
    zero.flags.writeable = False
    v = graph.apply("Const", value=zero)
    if t.shape is None or t.shape == ():
        return v
    return graph.apply("BroadcastTo", v, shape=tuple(0 if d is None else d for d in t.shape))

