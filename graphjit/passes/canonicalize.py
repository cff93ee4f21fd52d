"""Canonicalizes what the front-end emits: the If nodes of break/continue/return flags,
their negations and their constants.

The rules, applied until none does (with constant folding and the algebraic
simplifications as in MLIR's canonicalizer):
- equal constants are one Const (per graph);
- LogicalNot(LogicalNot(b)) is b;
- If(LogicalNot(c)) then A else B is If(c) then B else A;
- inside an If's branches an operand that is the condition (or its negation) is a
  constant: true in the then branch, false in the else branch (MLIR's condition
  propagation);
- an If on a constant condition is its branch, inlined;
- an If on the condition of an earlier If, or on a flag an earlier If returns as a
  constant on some path, moves into that If's branches (merge_ifs);
- an If output whose branches return true and false is the condition (false and
  true: its negation); one whose branches return equal constants is that constant;
  one both branches pass through from one operand is that operand;
- If outputs, operands and If nodes that nothing needs are dropped.

    %r, %v = If(%c, %x) then=@t else=@e        %v = If(%c, %x) then=@t else=@e
      subgraph t(%x1) {                           subgraph t(%x1) {
        %1 = Const(True)                ->          return %x1
        return %1, %x1                            }
      }                                           subgraph e(%x2) {
      subgraph e(%x2) {                             %2 = Const([0,0,0])
        %2 = Const(False)                           return %2
        %3 = Const([0,0,0])                       }
        return %2, %3                          (uses of %r read %c)
      }
"""
from __future__ import annotations

from typing import Dict, Optional, Set

import numpy as np

from ..ir.graph import Graph, Node, Value
from .common import const_value, inline_graph, make_const, removable
from .eliminate_dead_values import drop_if_outputs, drop_unused_if_operands
from .fold_constants import fold_node
from .merge_ifs import merge_into_previous
from .simplify_algebra import simplify_node

__all__ = ["canonicalize"]

_MAX_ROUNDS = 8


def canonicalize(graph: Graph) -> Graph:
    """Apply the rules of the module docstring to the graph and its subgraphs."""
    _Canonicalizer().graph(graph)
    return graph


class _Canonicalizer:
    """Runs the rules over each graph in one forward sweep (a node's users come after
    it, so they see its rewrites in the same sweep), again only after a rule that
    moves nodes (inlining, merging); a subgraph at its fixed point is not visited
    again until a rule changes it from outside."""

    def __init__(self):
        self.clean: Set[Graph] = set()

    def dirty(self, *graphs: Graph) -> None:
        self.clean.difference_update(graphs)

    def graph(self, g: Graph) -> None:
        """Canonicalize g and, through its If/Loop nodes, their subgraphs."""
        if g in self.clean:
            return
        for _ in range(_MAX_ROUNDS):
            again = False
            consts: Dict[tuple, Value] = {}
            for node in list(g.nodes):
                if node.graph is not g:          # moved or erased by an earlier rule
                    continue
                again |= self.node(g, node, consts)
            dead = _dead_nodes(g)
            if dead:
                g.erase_nodes(dead)
            if not again:
                break
        self.clean.add(g)

    def node(self, g: Graph, node: Node, consts: Dict[tuple, Value]) -> bool:
        """Apply the rules to one node; returns whether the graph needs another sweep
        (nodes were moved or made before this one)."""
        if node.op == "Const":
            _dedupe_const(g, node, consts)
            return False
        if node.op == "If":
            return self.if_node(g, node)
        if node.op == "Loop":
            self.graph(node.attrs["body"])
            return False
        if any(o.users for o in node.outputs) or _has_result(g, node):
            fold_node(g, node) or simplify_node(g, node)
        return False

    def if_node(self, g: Graph, node: Node) -> bool:
        cond = node.inputs[0]
        p = cond.producer
        if p is not None and p.op == "LogicalNot" and p.inputs[0].type == cond.type:
            a = node.attrs
            g.rewrite_node(node, "If", (p.inputs[0],) + node.inputs[1:],
                           {"then_graph": a["else_graph"], "else_graph": a["then_graph"]})
            cond = node.inputs[0]
        merged = merge_into_previous(g, node)
        if merged is not None:
            self.dirty(merged.attrs["then_graph"], merged.attrs["else_graph"])
            return True
        then_g, else_g = node.attrs["then_graph"], node.attrs["else_graph"]
        if _propagate_condition(node):
            self.dirty(then_g, else_g)
        self.graph(then_g)
        self.graph(else_g)
        c = const_value(cond)
        if c is not None and _inline_taken(g, node, bool(c.reshape(-1)[0])):
            return True
        again = _fold_outputs(g, node)
        new = drop_if_outputs(g, node)
        if new is not node:
            for sub in (then_g, else_g):
                sub.erase_nodes(_dead_nodes(sub))
        if not new.outputs and removable(new):
            g.erase_nodes([new])
        else:
            drop_unused_if_operands(g, new)
        return again


def _dead_nodes(g: Graph):
    """The nodes nothing reads that may go (MLIR's trivially dead ops), latest first
    so that a chain of them goes at once."""
    results = {id(r) for r in g.results}
    dead = {}
    for n in reversed(g.nodes):
        if all(id(o) not in results and all(u in dead for u in o.users)
               for o in n.outputs) and removable(n):
            dead[n] = None
    return list(dead)


def _has_result(g: Graph, n: Node) -> bool:
    return any(r is o for o in n.outputs for r in g.results)


def const_key(arr: np.ndarray) -> Optional[tuple]:
    """A key equal for two constants exactly when they have one dtype, one shape and
    the same bytes (so -0.0 and 0.0 differ); None for large ones, merged by
    eliminate_common_subexpressions instead."""
    if arr.size > 256:
        return None
    return (arr.dtype.str, arr.shape, np.ascontiguousarray(arr).tobytes())


def _dedupe_const(g: Graph, node: Node, consts: Dict[tuple, Value]) -> bool:
    key = const_key(node.attrs["value"])
    if key is None:
        return False
    first = consts.get(key)
    out = node.outputs[0]
    if first is None:
        consts[key] = out
        return False
    g.replace_all_uses_with(out, first)
    return True


# -- If ---------------------------------------------------------------------------------
def _known_operands(node: Node) -> Dict[int, bool]:
    """{operand position: its value in the then branch} for operands that are the
    condition or its negation (in the else branch each is the opposite)."""
    cond = node.inputs[0]
    neg_of_cond = cond.producer.inputs[0] if (
        cond.producer is not None and cond.producer.op == "LogicalNot") else None
    known = {}
    for k, v in enumerate(node.inputs[1:]):
        if v is cond:
            known[k] = True
        elif v is neg_of_cond or (v.producer is not None and v.producer.op == "LogicalNot"
                                  and v.producer.inputs[0] is cond):
            known[k] = False
    return known


def _propagate_condition(node: Node) -> bool:
    changed = False
    for k, then_value in _known_operands(node).items():
        for g, value in ((node.attrs["then_graph"], then_value),
                         (node.attrs["else_graph"], not then_value)):
            p = g.params[k]
            shape = p.type.shape
            if not p.type.dtype.is_bool or not (p.users or any(r is p for r in g.results)) \
                    or shape is None or any(d is None for d in shape):
                continue      # (the negation of an int is a bool; the int is no constant)
            first = g.nodes[0] if g.nodes else None
            c = make_const(g, np.full(shape, value, dtype=np.bool_), before=first)
            g.replace_all_uses_with(p, c)
            changed = True
    return changed


def _inline_taken(g: Graph, node: Node, taken: bool) -> bool:
    """Replace an If on a constant by the nodes of the branch it takes, when the
    types line up exactly (a branch typed more precisely than the If is kept)."""
    sub = node.attrs["then_graph" if taken else "else_graph"]
    operands = list(node.inputs[1:])
    if any(p.type != v.type for p, v in zip(sub.params, operands)) or \
            any(r.type != o.type for r, o in zip(sub.results, node.outputs)):
        return False
    results = inline_graph(g, node, sub, operands)
    for o, r in zip(node.outputs, results):
        g.replace_all_uses_with(o, r)
    g.erase_nodes([node])
    return True


def _fold_outputs(g: Graph, node: Node) -> bool:
    """Point the uses of If outputs that do not depend on the branch elsewhere;
    returns whether it made a node (a negation of the condition, before the If)."""
    then_g, else_g = node.attrs["then_graph"], node.attrs["else_graph"]
    cond = node.inputs[0]
    made = False
    for k, o in enumerate(node.outputs):
        if not (o.users or any(r is o for r in g.results)):
            continue
        a, b = then_g.results[k], else_g.results[k]
        new = _same_either_way(g, node, o, a, b, then_g, else_g)
        if new is None:
            ca, cb = const_value(a), const_value(b)
            if ca is not None and cb is not None and ca.dtype == cb.dtype == np.bool_ \
                    and ca.size == 1 and cb.size == 1 and o.type == cond.type:
                x, y = bool(ca.reshape(-1)[0]), bool(cb.reshape(-1)[0])
                if x and not y:
                    new = cond
                elif y and not x:
                    new = g.add_node("LogicalNot", (cond,), loc=node.loc,
                                     before=node).outputs[0]
                    made = True
        if new is not None and new.type == o.type:
            g.replace_all_uses_with(o, new)
    return made


def _same_either_way(g: Graph, node: Node, o: Value, a: Value, b: Value, then_g: Graph,
                     else_g: Graph) -> Optional[Value]:
    """The value of g that the If's output o is whichever branch runs: one operand
    both branches pass through, or one constant (made anew in g)."""
    ia = _param_index(then_g, a)
    if ia is not None and ia == _param_index(else_g, b):
        return node.inputs[1 + ia]
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None and const_key(ca) is not None and \
            const_key(ca) == const_key(cb) and a.type == o.type:
        return make_const(g, ca, before=node, loc=a.producer.loc)
    return None


def _param_index(g: Graph, v: Value) -> Optional[int]:
    if v.producer is not None:
        return None
    return next((i for i, p in enumerate(g.params) if p is v), None)
