"""Folds nodes whose inputs are all constants into Const nodes, running the op's own
kernel so the value is the one the graph would compute.

    %a: f32[] = Const(2.0:float32)              %b: f32[] = Const(3.0:float32)
    %b: f32[] = Add(%a, %a)             ->      %c: f32[3] = Mul(%x, %b)
    %c: f32[3] = Mul(%x, %b)

Only pure ops of the elementwise, reduction, shape and creation families fold (an
extern op, a user's op or one with effects runs when the graph runs), only when the
result is small (at most FOLD_LIMIT elements: no giant constants), and only when the
kernel succeeds: an op that fails on its constants fails when the graph runs, as in
eager mode.
"""
from __future__ import annotations

import numpy as np

from ..ir.graph import Graph, Node
from ..ir.registry import get_op
from ..ir.types import num_elements
from .common import each_graph

__all__ = ["fold_constants", "fold_node", "FOLD_LIMIT"]

FOLD_LIMIT = 1 << 16          # elements of the largest constant folding may make
_FAMILIES = ("elementwise", "reduction", "shape", "creation")


def fold_constants(graph: Graph) -> Graph:
    """Replace every foldable node (see the module docstring) by a Const, in the graph
    and its subgraphs."""
    def run(g: Graph) -> None:
        for node in list(g.nodes):
            fold_node(g, node)
    each_graph(graph, run)
    return graph


def fold_node(g: Graph, node: Node) -> bool:
    """Turn node into a Const if it folds; returns whether it did."""
    if node.op == "Const" or len(node.outputs) != 1:
        return False
    for v in node.inputs:            # the cheap test first: most nodes fail it
        p = v.producer
        if p is None or p.op != "Const":
            return False
    opdef = get_op(node.op)
    if opdef.family not in _FAMILIES or opdef.effects is not None:
        return False
    out = node.outputs[0].type
    n = num_elements(out.shape)
    if n is None or n > FOLD_LIMIT:
        return False
    arrays = [v.producer.attrs["value"] for v in node.inputs]
    try:
        kernel = opdef.make_kernel([v.type for v in node.inputs], [out], node.attrs)
        with np.errstate(all="ignore"):
            value = np.array(kernel(*arrays), dtype=out.dtype.np)
    except Exception:       # it fails when the graph runs, where eager mode fails too
        return False
    if value.shape != tuple(out.shape):
        return False
    value.flags.writeable = False
    g.rewrite_node(node, "Const", (), {"value": value})
    return True
