"""Removes what no result needs: unused nodes, If outputs and operands, and Loop
outputs, carried values, parameters and inputs that nothing reads.

    %n, %i = Loop(%t, %c, %x, %k) body=@b          %n = Loop(%t, %c, %x) body=@b
      subgraph b(%it, %n1, %k1) {                     subgraph b(%n1) {
        %2 = Add(%n1, %n1)                              %2 = Add(%n1, %n1)
        %3 = Add(%k1, 1)                  ->            %4 = Const(True)
        %4 = Const(True)                                return %4, %2
        return %4, %2, %3                             }
      }                                            (the carried %k, the iteration
    (%i unused)                                     number and %i are gone)

A node stays if it has effects (other than reading state) or may fail at run time
(common.removable). The graph's own parameters and results never change.
A back-edged Loop value stays while its output is used: after zero iterations
that output is the initial value.
"""
from __future__ import annotations

from typing import Dict, List, Set

from ..ir.graph import Graph, Node, Value
from .common import const_scalar, removable

__all__ = ["eliminate_dead_values", "drop_if_outputs", "drop_unused_if_operands",
           "shrink_loop"]


def eliminate_dead_values(graph: Graph) -> Graph:
    """Remove dead nodes, If/Loop ports and subgraph values from the graph (in place)."""
    _dce(graph)
    return graph


def _used(g: Graph, v: Value, results: Set[int]) -> bool:
    return bool(v.users) or id(v) in results


def _dce(g: Graph) -> None:
    results = {id(r) for r in g.results}
    dead: Dict[Node, None] = {}     # found dead, not yet erased (still listed as users)

    def flush():
        if dead:
            g.erase_nodes(dead)
            dead.clear()

    for node in list(reversed(g.nodes)):
        if node.op in ("If", "Loop"):
            flush()
            node = drop_if_outputs(g, node) if node.op == "If" else shrink_loop(g, node)
            if node.op == "If":
                _dce(node.attrs["then_graph"])
                _dce(node.attrs["else_graph"])
                drop_unused_if_operands(g, node)
            results = {id(r) for r in g.results}     # a new node's outputs took over
        if any(id(o) in results or any(u not in dead for u in o.users)
               for o in node.outputs) or not removable(node):
            continue
        dead[node] = None
    flush()


def drop_if_outputs(g: Graph, node: Node) -> Node:
    """The If without the outputs nothing reads (a new node in its place, or node
    itself when every output is used)."""
    results = {id(r) for r in g.results}
    keep = [k for k, o in enumerate(node.outputs) if _used(g, o, results)]
    if len(keep) == len(node.outputs):
        return node
    for key in ("then_graph", "else_graph"):
        sub = node.attrs[key]
        sub.set_results([sub.results[k] for k in keep])
    new = g.add_node("If", node.inputs, dict(node.attrs), loc=node.loc,
                     names=[node.outputs[k].name for k in keep], before=node)
    for k, o in zip(keep, new.outputs):
        g.replace_all_uses_with(node.outputs[k], o)
    g.erase_node(node)
    return new


def drop_unused_if_operands(g: Graph, node: Node) -> bool:
    """Drop the operands neither branch reads; returns whether any was."""
    then_g, else_g = node.attrs["then_graph"], node.attrs["else_graph"]
    unused = [k for k in range(len(node.inputs) - 1)
              if not _read(then_g, then_g.params[k]) and not _read(else_g, else_g.params[k])]
    if not unused:
        return False
    for sub in (then_g, else_g):
        for k in reversed(unused):
            sub.remove_param(sub.params[k])
    gone = set(unused)
    operands = [v for k, v in enumerate(node.inputs[1:]) if k not in gone]
    g.rewrite_node(node, "If", (node.inputs[0], *operands), node.attrs)
    return True


def _read(g: Graph, v: Value) -> bool:
    return bool(v.users) or any(r is v for r in g.results)


def _needed(body: Graph, result_indices) -> Set[int]:
    """ids of the body values the given results need (effects included)."""
    need = {id(body.results[i]) for i in result_indices}
    for n in reversed(body.nodes):
        if any(id(o) in need for o in n.outputs) or not removable(n):
            need.update(id(v) for v in n.inputs)
    return need


def _length(loop: Node, li: int, axis: int):
    shape = loop.inputs[li].type.shape
    return None if shape is None else shape[axis % len(shape)]


def _needed_slices(loop: Node, need: Set[int]) -> Set[int]:
    """The sliced body parameters to keep: those read, and those whose length may be
    what ends the Loop (an unread slice may go when a kept bound is no longer: the
    constant trip count or the static length of another kept slice)."""
    body = loop.attrs["body"]
    entries = [(li, bp, axis) for li, bp, axis in loop.attrs["input_map"] if axis is not None]
    keep = {bp for _, bp, _ in entries if id(body.params[bp]) in need}
    trip = const_scalar(loop.inputs[0])
    bounds = [trip] if trip is not None and trip >= 0 else []
    bounds += [_length(loop, li, axis) for li, bp, axis in entries if bp in keep]
    bounds = [b for b in bounds if b is not None]
    for li, bp, axis in entries:
        if bp in keep:
            continue
        n = _length(loop, li, axis)
        if n is None or not bounds or min(bounds) > n:
            keep.add(bp)
            if n is not None:
                bounds.append(n)
    return keep


def shrink_loop(g: Graph, node: Node) -> Node:
    """The Loop without unused outputs, carried values nothing reads, unread invariant
    parameters and an unread iteration number; the body loses what only they needed.
    Returns the Loop node (a new one if its outputs changed)."""
    a = node.attrs
    body: Graph = a["body"]
    results = {id(r) for r in g.results}
    used_out = [k for k, o in enumerate(node.outputs) if _used(g, o, results)]
    out_map = [tuple(a["output_map"][k]) for k in used_out]
    all_back = [tuple(e) for e in a["back_edges"]]
    last_value = {ri for ri, axis in out_map if axis is None}
    live = {a["condition_result"]} | {ri for ri, _ in out_map}
    while True:
        need = _needed(body, live)
        # (from all back edges each time: a carried value found needed in a later round,
        # through a value it feeds, keeps its back edge)
        back = [(ri, bp) for ri, bp in all_back
                if id(body.params[bp]) in need or ri in last_value]
        more = {ri for ri, _ in back} - live
        if not more:
            break
        live |= more
    back_params = {bp for _, bp in back}
    sliced = _needed_slices(node, need)
    ci = a["current_iteration"]
    keep_param = [i for i, p in enumerate(body.params)
                  if id(p) in need or i in back_params or i in sliced]

    # the body: fewer results, then its dead nodes, then its unread parameters
    res_order = sorted(live)
    res_index = {ri: k for k, ri in enumerate(res_order)}
    changed = len(res_order) != len(body.results) or len(keep_param) != len(body.params) or \
        len(back) != len(a["back_edges"]) or len(used_out) != len(node.outputs)
    if not changed:
        _dce(body)
        return node
    body.set_results([body.results[ri] for ri in res_order])
    _dce(body)
    gone = [p for i, p in enumerate(body.params) if i not in set(keep_param)]
    for p in gone:
        body.remove_param(p)
    par_index = {old: new for new, old in enumerate(keep_param)}
    input_map = [(li, par_index[bp], axis) for li, bp, axis in a["input_map"]
                 if bp in par_index]
    kept_inputs = sorted({li for li, _, _ in input_map})
    in_index = {old: new for new, old in enumerate([0, 1] + kept_inputs)}
    attrs = dict(a)
    attrs.update(
        input_map=tuple((in_index[li], bp, axis) for li, bp, axis in input_map),
        output_map=tuple((res_index[ri], axis) for ri, axis in out_map),
        back_edges=tuple((res_index[ri], par_index[bp]) for ri, bp in back),
        condition_result=res_index[a["condition_result"]],
        current_iteration=par_index.get(ci, -1) if ci != -1 else -1)
    inputs = [node.inputs[0], node.inputs[1]] + [node.inputs[li] for li in kept_inputs]
    if len(used_out) == len(node.outputs):
        g.rewrite_node(node, "Loop", inputs, attrs)
        return node
    new = g.add_node("Loop", inputs, attrs, loc=node.loc,
                     names=[node.outputs[k].name for k in used_out], before=node)
    for k, o in zip(used_out, new.outputs):
        g.replace_all_uses_with(node.outputs[k], o)
    g.erase_node(node)
    return new
