"""Merges an If into an earlier If that decides its condition: one on the same
condition (MLIR's CombineIfs), or one that returns the condition, as a constant on at
least one path (the front-end's break and return flags: jump threading).

    %r, %v = If(%c, %x) then=@t else=@e          %r, %v, %w = If(%c, %x) then=@t else=@e
      subgraph t(%x1) { %1 = Const(True)            subgraph t(%x1) {
                        return %1, %x1 }              %1 = Const(True)
      subgraph e(%x2) { ..compute %f, %y..          return %1, %x1, %x1     (B's else, inlined)
                        return %f, %y }             }
    %w = If(%r, %v, %x) then=@bt else=@be   ->      subgraph e(%x2) {
      subgraph bt(%v1, %x3) { return %v1 }            ..compute %f, %y..
      subgraph be(%v2, %x4) { ..%x4..       }         %w2 = If(%f, %y, %x2) then=@bt else=@be
                                                      return %f, %y, %w2
                                                    }

The later If moves into each branch of the earlier one: inlined where its condition
is a constant there, nested where it is not (its skipped path is then copied, which
is allowed only for small subgraphs). It must read only values defined before the
earlier If or outputs of it, and moving it up must not reorder effects or failures.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from ..ir.graph import Graph, Node, Value
from .common import clone_graph, const_value, each_graph, graph_size, inline_graph, is_pure, \
    may_fail

__all__ = ["merge_ifs", "merge_into_previous"]

_MAX_COPY = 32      # nodes of a subgraph that may be copied to merge two Ifs


def merge_ifs(graph: Graph) -> Graph:
    """Merge every If that can be into the If before it that decides it."""
    def run(g: Graph) -> None:
        for node in list(g.nodes):
            if node.op == "If" and node.graph is g and node in g.nodes:
                merge_into_previous(g, node)
    each_graph(graph, run)
    return graph


def _bool_const(v: Value) -> Optional[bool]:
    a = const_value(v)
    if a is None or a.dtype != np.bool_ or a.size != 1:
        return None
    return bool(a.reshape(-1)[0])


def _decider(g: Graph, b: Node) -> Tuple[Optional[Node], Optional[int]]:
    """(the If that decides b's condition, the index of the output it is, or None
    when that If has the same condition)."""
    cond = b.inputs[0]
    p = cond.producer
    if p is not None and p.op == "If" and p.graph is g:
        return p, p.outputs.index(cond)
    i = g.nodes.index(b)
    for n in reversed(g.nodes[:i]):
        if n.op == "If" and n.inputs[0] is cond:
            return n, None
    return None, None


def merge_into_previous(g: Graph, b: Node) -> Optional[Node]:
    """Merge the If node b into the earlier If that decides it, if it can; returns
    the merged If node (or None)."""
    a, k = _decider(g, b)
    if a is None:
        return None
    pos = {n: i for i, n in enumerate(g.nodes)}
    ia, ib = pos[a], pos[b]
    a_outs = {id(o): j for j, o in enumerate(a.outputs)}
    for v in b.inputs[1:]:
        if id(v) not in a_outs and v.producer is not None and pos[v.producer] >= ia:
            return None
    branches = [a.attrs["then_graph"], a.attrs["else_graph"]]
    if k is None:
        decided = [True, False]
    else:
        decided = [_bool_const(x.results[k]) for x in branches]
        if decided == [None, None]:
            return None
    between = g.nodes[ia + 1:ib]
    if any(not is_pure(n) or may_fail(n) for n in between) and \
            not (is_pure(b) and not may_fail(b)):
        return None

    # which of b's subgraphs each branch takes, copying any taken twice
    subs = {True: b.attrs["then_graph"], False: b.attrs["else_graph"]}
    plan: List[Tuple[Optional[bool], Graph, Graph]] = []
    taken = set()

    def take(which: bool) -> Optional[Graph]:
        sub = subs[which]
        if which in taken:
            if graph_size(sub) > _MAX_COPY:
                return None
            return clone_graph(sub)
        taken.add(which)
        return sub

    # types must line up where a subgraph is inlined (values passed in are exact)
    for x, d in zip(branches, decided):
        if d is None:
            continue
        sub = subs[d]
        vals = [x.results[a_outs[id(v)]] if id(v) in a_outs else v for v in b.inputs[1:]]
        if any(p.type != v.type for p, v in zip(sub.params, vals)) or \
                any(r.type != o.type for r, o in zip(sub.results, b.outputs)):
            return None
    for d in decided:
        if d is None:
            t, e = take(True), take(False)
        else:
            t = take(d)
            e = t
        if t is None or e is None:
            return None
        plan.append((d, t, e))

    # b's operands inside a's branches: a's results, or new operands of a
    operand_of: Dict[int, int] = {}
    for i, v in enumerate(a.inputs[1:]):
        operand_of.setdefault(id(v), i)
    extra: List[Value] = []
    for v in b.inputs[1:]:
        if id(v) not in a_outs and id(v) not in operand_of:
            operand_of[id(v)] = len(a.inputs) - 1 + len(extra)
            extra.append(v)
            for x in branches:
                x.add_param(v.type, v.name)
    for x, (d, t, e) in zip(branches, plan):
        vals = [x.results[a_outs[id(v)]] if id(v) in a_outs else x.params[operand_of[id(v)]]
                for v in b.inputs[1:]]
        if d is None:
            inner = x.add_node("If", [x.results[k]] + vals, {"then_graph": t, "else_graph": e},
                               loc=b.loc, names=[o.name for o in b.outputs])
            outs = list(inner.outputs)
        else:
            outs = inline_graph(x, None, t, vals)
        x.set_results(list(x.results) + outs)
    merged = g.add_node("If", list(a.inputs) + extra,
                        {"then_graph": branches[0], "else_graph": branches[1]}, loc=a.loc,
                        names=[o.name for o in a.outputs] + [o.name for o in b.outputs],
                        before=a)
    for old, new in zip(list(a.outputs) + list(b.outputs), merged.outputs):
        g.replace_all_uses_with(old, new)
    g.erase_nodes([a, b])
    return merged
