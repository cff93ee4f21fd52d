"""Moves the nodes of a Loop body that compute the same value in every iteration out
of the Loop, in front of it; the body reads the value through a new invariant input.

    %y = Loop(%n, %c, %h, %w) body=@b              %2 = Transpose(%w)
      subgraph b(%h1, %w1) {                       %y = Loop(%n, %c, %h, %2) body=@b
        %2 = Transpose(%w1)             ->           subgraph b(%h1, %t) {
        %3 = MatMul(%h1, %2)                           %3 = MatMul(%h1, %t)
        ...                                            ...

Invariant: a body parameter bound to an un-sliced input without a back edge (or
with one from the parameter itself), a body constant, or the output of a node
already moved. Never moved: nodes with effects, If and Loop nodes, and, unless the
Loop surely runs at least once, nodes that may fail at run time (a moved node runs even when the Loop runs zero times, and must
not raise where the program would not have).
"""
from __future__ import annotations

from typing import Dict, List

from ..ir.graph import Graph, Node, Value
from .common import const_scalar, const_value, each_graph, make_const, may_fail

__all__ = ["hoist_loop_invariants", "runs_at_least_once"]


def hoist_loop_invariants(graph: Graph) -> Graph:
    """Hoist invariant nodes out of every Loop (inner Loops first, so a value can move
    out through several levels)."""
    def run(g: Graph) -> None:
        for node in list(g.nodes):
            if node.op == "Loop":
                _hoist(g, node)
    each_graph(graph, run)
    return graph


def runs_at_least_once(loop: Node) -> bool:
    """The Loop surely runs its body at least once: its first condition is a true
    constant, its trip count a constant other than 0, and every sliced input has a
    known, non-zero length along its axis."""
    trip, cond = const_scalar(loop.inputs[0]), const_scalar(loop.inputs[1])
    if cond is not True or trip is None or not (trip == -1 or trip >= 1):
        return False
    for li, _, axis in loop.attrs["input_map"]:
        if axis is not None:
            shape = loop.inputs[li].type.shape
            if shape is None or not shape[axis % len(shape)]:
                return False
    return True


def _hoist(g: Graph, loop: Node) -> None:
    a = loop.attrs
    body: Graph = a["body"]
    # a parameter whose back edge feeds it itself (a gradient's cotangent that every
    # iteration passes on unchanged) keeps its first value: invariant too
    back_params = {bp for ri, bp in a["back_edges"]
                   if body.results[ri] is not body.params[bp]}
    outer: Dict[int, Value] = {}                 # id(body value) -> the value outside
    for li, bp, axis in a["input_map"]:
        if axis is None and bp not in back_params:
            outer[id(body.params[bp])] = loop.inputs[li]
    safe = runs_at_least_once(loop)
    moved: List[Node] = []
    for node in body.nodes:
        if node.op in ("Const", "If", "Loop") or node.effects():
            continue
        if not all(id(v) in outer or const_value(v) is not None for v in node.inputs):
            continue
        if not safe and may_fail(node):
            continue
        inputs = [outer[id(v)] if id(v) in outer else
                  _outer_const(g, loop, v, outer) for v in node.inputs]
        copy = g.add_node(node.op, inputs, dict(node.attrs), loc=node.loc,
                          names=[o.name for o in node.outputs], before=loop)
        for o, c in zip(node.outputs, copy.outputs):
            outer[id(o)] = c
        moved.append(node)
    if not moved:
        return
    gone = set(moved)
    results = {id(r) for r in body.results}
    new_inputs, input_map = [], list(a["input_map"])
    for node in moved:
        for o in node.outputs:
            if id(o) in results or any(u not in gone for u in o.users):
                p = body.add_param(o.type, o.name)
                body.replace_all_uses_with(o, p)
                input_map.append((len(loop.inputs) + len(new_inputs), len(body.params) - 1,
                                  None))
                new_inputs.append(outer[id(o)])
    body.erase_nodes(moved)
    attrs = dict(a)
    attrs["input_map"] = tuple(input_map)
    g.rewrite_node(loop, "Loop", list(loop.inputs) + new_inputs, attrs)


def _outer_const(g: Graph, loop: Node, v: Value, outer: Dict[int, Value]) -> Value:
    c = make_const(g, const_value(v), before=loop, loc=v.producer.loc)
    outer[id(v)] = c
    return c
