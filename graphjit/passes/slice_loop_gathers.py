"""Turns a Loop body's Gather of an invariant tensor at the iteration number into a
sliced Loop input: each iteration then reads a view of its slice instead of running
a gather (what the front-end makes of `for t in range(T): ... x[t] ...`).

    %y = Loop(200, true, %x) body=@b               %y = Loop(200, true, %x) body=@b
      subgraph b(%i, %x1: f32[200,16]) {    ->       subgraph b(%s: f32[1,16]) {
        %1 = Gather(%x1, %i) axis=0                    %1 = Squeeze(%s) axis=0
    port_map { input %x -> %x1 }                   port_map { input %x -> %s slice axis=0 }

Only where the Loop surely stops before the iteration number passes the tensor's
length (a constant trip count, or another sliced input, no longer than it): there a
Gather never fails, and a sliced input adds no bound of its own. The values are the
same elements.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..ir.graph import Graph, Node, Value
from ..ir.types import TensorType
from .common import const_scalar, each_graph

__all__ = ["slice_loop_gathers"]


def slice_loop_gathers(graph: Graph) -> Graph:
    """Apply the rewrite of the module docstring to every Loop."""
    def run(g: Graph) -> None:
        for node in list(g.nodes):
            if node.op == "Loop":
                _loop(g, node)
    each_graph(graph, run)
    return graph


def _bound(loop: Node) -> Optional[int]:
    """A number of iterations the Loop never exceeds, known at build time."""
    bounds = []
    trip = const_scalar(loop.inputs[0])
    if trip is not None and trip >= 0:
        bounds.append(int(trip))
    for li, _, axis in loop.attrs["input_map"]:
        if axis is not None:
            shape = loop.inputs[li].type.shape
            if shape is not None and shape[axis % len(shape)] is not None:
                bounds.append(shape[axis % len(shape)])
    return min(bounds) if bounds else None


def _loop(g: Graph, loop: Node) -> None:
    a = loop.attrs
    body: Graph = a["body"]
    ci = a["current_iteration"]
    bound = _bound(loop)
    if ci == -1 or bound is None:
        return
    iteration = body.params[ci]
    if iteration.type.shape != ():
        return
    back = {bp for _, bp in a["back_edges"]}
    invariant: Dict[int, Value] = {}
    for li, bp, axis in a["input_map"]:
        if axis is None and bp not in back:
            invariant[id(body.params[bp])] = loop.inputs[li]
    sliced: Dict[int, Value] = {}            # id(outer tensor) -> its new slice parameter
    new_inputs: List[Value] = []
    input_map = list(a["input_map"])
    for node in list(body.nodes):
        if node.op != "Gather" or node.inputs[1] is not iteration or \
                id(node.inputs[0]) not in invariant:
            continue
        x = invariant[id(node.inputs[0])]
        shape = x.type.shape
        if shape is None or not shape or node.attrs["axis"] % len(shape) != 0 or \
                shape[0] is None or shape[0] < bound:
            continue
        q = sliced.get(id(x))
        if q is None:
            q = body.add_param(TensorType(x.type.dtype, (1,) + tuple(shape[1:])),
                               f"{x.name}_t" if x.name else None)
            input_map.append((len(loop.inputs) + len(new_inputs), len(body.params) - 1, 0))
            new_inputs.append(x)
            sliced[id(x)] = q
        body.rewrite_node(node, "Squeeze", (q,), {"axis": 0})
    if new_inputs:
        attrs = dict(a)
        attrs["input_map"] = tuple(input_map)
        g.rewrite_node(loop, "Loop", list(loop.inputs) + new_inputs, attrs)
