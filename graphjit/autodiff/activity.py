"""Which values take part in a gradient: activity analysis, through If and Loop.

A value is *varied* when it is not bool and depends on a source through ops
that carry gradients; it is *useful* when it is varied and a differentiated result
depends on it. Only nodes with a useful output get a backward step, so an op
without a gradient is an error only where a gradient would flow through it, and
bool and shape computations (conditions, flags) never need one. Integer values are
varied like real ones: MindSpore differentiates them through the same rules.
Through a Loop both are fixed points over the back edges (a carried value is varied
when its first value or its next value is).
"""
from __future__ import annotations

from typing import Dict, Iterable, Set

from ..ir.graph import Graph, Node, Value
from ..ir.registry import NOT_DIFFERENTIABLE, get_op

__all__ = ["Activity", "loop_roles"]


def _float(v: Value) -> bool:
    return v.type.dtype.is_differentiable


def loop_roles(node: Node):
    """(back: result -> param, back_param: param -> result, init: param -> loop input,
    sliced: param -> (loop input, axis), invariant: param -> loop input)."""
    a = node.attrs
    back = {ri: bp for ri, bp in a["back_edges"]}
    back_param = {bp: ri for ri, bp in a["back_edges"]}
    init, sliced, inv = {}, {}, {}
    for li, bp, axis in a["input_map"]:
        if axis is not None:
            sliced[bp] = (li, axis)
        elif bp in back_param:
            init[bp] = li
        else:
            inv[bp] = li
    return back, back_param, init, sliced, inv


class Activity:
    """The varied and useful values of a graph and its subgraphs (by id)."""

    def __init__(self):
        self.varied: Set[int] = set()
        self.useful: Set[int] = set()
        # per Loop node: (varied body params, useful body params, useful body results)
        self.loops: Dict[int, tuple] = {}

    def is_varied(self, v: Value) -> bool:
        return id(v) in self.varied

    def is_useful(self, v: Value) -> bool:
        return id(v) in self.useful

    # -- forward: varied -------------------------------------------------------------------
    def forward(self, g: Graph, sources: Iterable[Value]) -> None:
        for v in sources:
            if _float(v):
                self.varied.add(id(v))
        for node in g.nodes:
            if not any(id(v) in self.varied for v in node.inputs):
                continue
            if node.op == "If":
                self._if_forward(node)
            elif node.op == "Loop":
                self._loop_forward(node)
            elif get_op(node.op).grad is not NOT_DIFFERENTIABLE:
                for o in node.outputs:
                    if _float(o):
                        self.varied.add(id(o))

    def _if_forward(self, node: Node) -> None:
        operands = node.inputs[1:]
        branches = (node.attrs["then_graph"], node.attrs["else_graph"])
        for br in branches:
            self.forward(br, [p for p, v in zip(br.params, operands) if id(v) in self.varied])
        for k, o in enumerate(node.outputs):
            if _float(o) and any(id(br.results[k]) in self.varied for br in branches):
                self.varied.add(id(o))

    def _loop_forward(self, node: Node) -> None:
        body = node.attrs["body"]
        back, back_param, init, sliced, inv = loop_roles(node)
        vp = {bp for li, bp, axis in node.attrs["input_map"]
              if id(node.inputs[li]) in self.varied}
        while True:
            self.forward(body, [body.params[bp] for bp in vp])
            more = {bp for ri, bp in back.items() if id(body.results[ri]) in self.varied}
            if more <= vp:
                break
            vp |= more
        for k, ((ri, axis), o) in enumerate(zip(node.attrs["output_map"], node.outputs)):
            if not _float(o):
                continue
            first = axis is None and ri in back and back[ri] in init and \
                id(node.inputs[init[back[ri]]]) in self.varied
            if id(body.results[ri]) in self.varied or first:
                self.varied.add(id(o))
        self.loops[id(node)] = (vp, set(), set())

    # -- backward: useful --------------------------------------------------------------------
    def backward(self, g: Graph, useful_results: Iterable[int]) -> Set[int]:
        """Mark useful values given the useful results of g; returns g's useful params."""
        for i in useful_results:
            r = g.results[i]
            if id(r) in self.varied:
                self.useful.add(id(r))
        for node in reversed(g.nodes):
            if not any(id(o) in self.useful for o in node.outputs):
                continue
            if node.op == "If":
                self._if_backward(node)
            elif node.op == "Loop":
                self._loop_backward(node)
            else:
                for v in node.inputs:
                    if id(v) in self.varied:
                        self.useful.add(id(v))
        return {i for i, p in enumerate(g.params) if id(p) in self.useful}

    def _if_backward(self, node: Node) -> None:
        outs = [k for k, o in enumerate(node.outputs) if id(o) in self.useful]
        operands = node.inputs[1:]
        for br in (node.attrs["then_graph"], node.attrs["else_graph"]):
            for k in self.backward(br, outs):
                if id(operands[k]) in self.varied:
                    self.useful.add(id(operands[k]))

    def _loop_backward(self, node: Node) -> None:
        body = node.attrs["body"]
        back, back_param, init, sliced, inv = loop_roles(node)
        vp = self.loops[id(node)][0]
        ur = {ri for (ri, axis), o in zip(node.attrs["output_map"], node.outputs)
              if id(o) in self.useful}
        while True:
            up = self.backward(body, ur)
            more = {back_param[bp] for bp in up if bp in back_param}
            if more <= ur:
                break
            ur |= more
        for li, bp, axis in node.attrs["input_map"]:
            if bp in up and id(node.inputs[li]) in self.varied:
                self.useful.add(id(node.inputs[li]))
        # a last value read after zero iterations is the first value itself
        for (ri, axis), o in zip(node.attrs["output_map"], node.outputs):
            if axis is None and id(o) in self.useful and ri in back and back[ri] in init:
                v = node.inputs[init[back[ri]]]
                if id(v) in self.varied:
                    self.useful.add(id(v))
        self.loops[id(node)] = (vp, up & vp, ur)
