"""Merges nodes that compute the same thing: one op on the same inputs with equal
attributes (as torch.fx's CSE pass, without its deny list: effects say what stays).
Two nodes whose outputs are both results of their graph stay apart (eager mode
returns two arrays, not one a caller could write through twice).

    %a = Sub(%x, %mu)                     %a = Sub(%x, %mu)
    %b = Sub(%x, %mu)           ->        %c = Mul(%a, %a)
    %c = Mul(%a, %b)

Attributes compare by value: numbers with their type (1, 1.0 and True differ, and so
do 0.0 and -0.0), arrays by dtype, shape and bytes, subgraphs by structure (the same
ops on the same positions). A node with effects is never merged. Operand order
counts: Add(a, b) and Add(b, a) can differ in the payload of a NaN.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..ir.graph import Graph, Node
from ..ir.registry import get_op
from .common import each_graph

__all__ = ["eliminate_common_subexpressions", "attrs_key", "graph_key"]

_INLINE_BYTES = 4096     # constants up to this size are keyed by their bytes


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Merge equal nodes in the graph and in each subgraph (each graph on its own:
    subgraphs are closed)."""
    keys: Dict[Any, Any] = {}          # subgraph keys, made once (inner graphs go first)
    impure: Dict[Graph, bool] = {}
    each_graph(graph, lambda g: _cse(g, keys, impure))
    return graph


def _has_effects(node: Node, impure: Dict[Graph, bool]) -> bool:
    if get_op(node.op).effects is not None:
        return True
    for sub in node.subgraphs():
        if sub not in impure:
            impure[sub] = any(_has_effects(n, impure) for n in sub.nodes)
        if impure[sub]:
            return True
    return False


def _cse(g: Graph, keys: Dict[Any, Any], impure: Dict[Graph, bool]) -> None:
    # (op, inputs) -> the first node with them, or {attribute key: node} once two
    # have them: attribute keys (subgraph structures, constant bytes) are made only
    # for nodes that may be equal
    seen: Dict[tuple, Any] = {}
    big: Dict[tuple, List[Node]] = {}      # large constants by (dtype, shape)
    dead: List[Node] = []
    results = {id(r) for r in g.results}
    for node in g.nodes:
        if _has_effects(node, impure):
            continue
        if node.op == "Const" and node.attrs["value"].nbytes > _INLINE_BYTES:
            first = _same_big_const(node, big)
        else:
            prefix = (node.op, tuple(map(id, node.inputs)))
            entry = seen.get(prefix)
            if entry is None:
                seen[prefix] = node
                continue
            if not isinstance(entry, dict):
                entry = seen[prefix] = {attrs_key(entry.attrs, keys): entry}
            first = entry.setdefault(attrs_key(node.attrs, keys), node)
        if first is node or [o.type for o in first.outputs] != [o.type for o in node.outputs]:
            continue
        if any(id(o) in results for o in node.outputs) and \
                any(id(o) in results for o in first.outputs):
            continue      # two results would be one array (they are two in eager mode)
        for old, new in zip(node.outputs, first.outputs):
            g.replace_all_uses_with(old, new)
        dead.append(node)
    g.erase_nodes(dead)


def _same_big_const(node: Node, big: Dict[tuple, List[Node]]) -> Node:
    """An earlier Const with the same bits as node's (else node, remembered)."""
    a = node.attrs["value"]
    group = big.setdefault((a.dtype.str, a.shape), [])
    for other in group:
        if _same_bits(a, other.attrs["value"]):
            return other
    group.append(node)
    return node


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a is b:
        return True
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def attrs_key(attrs: Dict[str, Any], memo: Optional[Dict[Any, Any]] = None) -> tuple:
    """A hashable key equal for attribute dicts that mean the same (memo: the keys of
    subgraphs made so far, to be passed again for keys comparable with these)."""
    memo = {} if memo is None else memo
    return tuple((k, _key(v, memo)) for k, v in attrs.items())


def _key(v, memo) -> Any:
    if isinstance(v, Graph):
        key = memo.get(v)
        if key is None:
            # a small token per distinct structure, so that keys of nested graphs are
            # hashed once, not again at every level
            tokens = memo.setdefault("tokens", {})
            key = memo[v] = ("graph", tokens.setdefault(graph_key(v, memo), len(tokens)))
        return key
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, np.ascontiguousarray(v).tobytes())
    if isinstance(v, (float, np.floating)):
        return (type(v).__name__, float(v).hex())
    if isinstance(v, (bool, int, str, bytes, type(None), np.integer, np.bool_)):
        return (type(v).__name__, v)
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(_key(x, memo) for x in v)
    if isinstance(v, dict):
        return ("dict",) + tuple((k, _key(x, memo)) for k, x in v.items())
    if isinstance(v, slice):
        return ("slice", _key(v.start, memo), _key(v.stop, memo), _key(v.step, memo))
    try:
        hash(v)               # DType, TensorType, slices...: their own equality
        return ("obj", type(v).__name__, v)
    except TypeError:
        return ("id", id(v))


def graph_key(g: Graph, memo: Optional[Dict[Any, Any]] = None) -> Tuple:
    """A hashable key equal for graphs with the same structure: parameter types, and
    per node its op, which earlier values it reads, its attributes and output types."""
    where: Dict[int, tuple] = {id(p): ("param", i) for i, p in enumerate(g.params)}
    items: list = [tuple(p.type for p in g.params)]
    for n, node in enumerate(g.nodes):
        items.append((node.op, tuple(where[id(v)] for v in node.inputs),
                      attrs_key(node.attrs, memo), tuple(o.type for o in node.outputs)))
        for j, o in enumerate(node.outputs):
            where[id(o)] = (n, j)
    items.append(tuple(where[id(r)] for r in g.results))
    return tuple(items)
