"""What the passes share: constant values, purity and failure tests, walking subgraphs,
and the graph edits that move nodes between a graph and its subgraphs."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

import numpy as np

from ..ir.graph import Graph, Node, Value
from ..ir.registry import get_op
from ..ir.types import TensorType, is_static, num_elements

__all__ = ["const_value", "const_scalar", "is_pure", "removable", "may_fail", "each_graph",
           "make_const", "inline_graph", "clone_graph", "graph_size", "Stats"]


def const_value(v: Value) -> Optional[np.ndarray]:
    """The array of a value a Const node makes, else None."""
    p = v.producer
    if p is not None and p.op == "Const":
        return p.attrs["value"]
    return None


def const_scalar(v: Value):
    """The one element of a one-element constant as a Python number, else None."""
    a = const_value(v)
    if a is None or a.size != 1:
        return None
    return a.reshape(-1)[0].item()


def is_pure(node: Node) -> bool:
    """Neither the node nor anything in its subgraphs has effects: a pass may merge it
    with an equal node or move it."""
    return not node.effects()


def removable(node: Node) -> bool:
    """The node may be dropped when nothing uses its outputs: it is pure or only reads
    state, and it cannot fail at run time (a dropped failure would change what the
    program does)."""
    return not (node.effects() - {"read"}) and not may_fail(node)


# ops that cannot fail on inputs of static shapes other than by the shapes, which the
# inference function checked (reductions of empty tensors are refused there too)
_SAFE_FAMILIES = ("elementwise", "reduction", "shape", "creation")
_SAFE_EXTERN = frozenset({"MatMul", "Softmax", "LogSoftmax", "OneHot", "CumSum", "CumProd"})
# ops whose failure depends on the data (an index out of range)
_DATA_CHECKED = frozenset({"Gather", "BooleanMask", "IndexUpdate"})


def may_fail(node: Node) -> bool:
    """Whether running the node can raise on some input data (conservative: an op of a
    user, an unknown dim, data-dependent indexing, a Loop whose trip count is not a
    constant, anything with effects)."""
    if node.effects():
        return True
    if node.op == "If":
        return any(may_fail(n) for g in node.subgraphs() for n in g.nodes) or \
            not _static(node.inputs[0].type)
    if node.op == "Loop":
        trip = const_scalar(node.inputs[0])
        if trip is None or trip < -1 or not all(_static(v.type) for v in node.inputs):
            return True
        return any(may_fail(n) for n in node.attrs["body"].nodes)
    opdef = get_op(node.op)
    if node.op in _DATA_CHECKED:
        return True
    if opdef.family not in _SAFE_FAMILIES and node.op not in _SAFE_EXTERN:
        return True
    return not all(_static(v.type) for v in node.inputs + node.outputs)


def _static(t: TensorType) -> bool:
    return is_static(t.shape)


def each_graph(graph: Graph, fn: Callable[[Graph], None]) -> None:
    """Call fn on every subgraph (innermost first) and then on graph itself."""
    for node in list(graph.nodes):
        for sub in node.subgraphs():
            each_graph(sub, fn)
    fn(graph)


def make_const(graph: Graph, arr: np.ndarray, before: Optional[Node] = None,
               loc=None) -> Value:
    """A new Const holding arr (shared if it is a read-only array, else a read-only
    copy), inserted before `before` (else appended)."""
    if not (isinstance(arr, np.ndarray) and not arr.flags.writeable):
        arr = np.array(arr)
        arr.flags.writeable = False
    return graph.add_node("Const", (), {"value": arr}, loc=loc, before=before).outputs[0]


def inline_graph(outer: Graph, at: Optional[Node], sub: Graph,
                 operands: List[Value]) -> List[Value]:
    """Move the nodes of `sub` into `outer` just before the node `at` (None: at the
    end), with sub's parameters replaced by `operands` (values of outer); returns sub's
    results as values of outer. `sub` is left empty."""
    mapping: Dict[int, Value] = {id(p): v for p, v in zip(sub.params, operands)}
    pos = len(outer.nodes) if at is None else outer.nodes.index(at)
    moved = sub.nodes
    sub.nodes = []
    for node in moved:
        for v in node.inputs:
            v.users.pop(node, None)
        node.inputs = tuple(mapping.get(id(v), v) for v in node.inputs)
        node.graph = outer
        for o in node.outputs:
            o.graph = outer
        for v in node.inputs:
            v.users[node] = None
    outer.nodes[pos:pos] = moved
    return [mapping.get(id(r), r) for r in sub.results]


def clone_graph(g: Graph) -> Graph:
    """A copy of g with new values and nodes (subgraphs copied too; arrays shared)."""
    new = Graph(g.name)
    m: Dict[int, Value] = {id(p): new.add_param(p.type, p.name) for p in g.params}
    for node in g.nodes:
        attrs = {k: clone_graph(v) if isinstance(v, Graph) else v
                 for k, v in node.attrs.items()}
        copy = new.add_node(node.op, [m[id(v)] for v in node.inputs], attrs, loc=node.loc,
                            names=[o.name for o in node.outputs])
        for o, c in zip(node.outputs, copy.outputs):
            m[id(o)] = c
    new.set_results([m[id(r)] for r in g.results])
    return new


def graph_size(g: Graph) -> int:
    """The number of nodes of g, its subgraphs included."""
    return sum(1 for _ in g.walk())


class Stats:
    """Node counts of a graph and its subgraphs, by op: what the pipeline reports."""

    def __init__(self, graph: Graph):
        self.by_op: Dict[str, int] = {}
        for n in graph.walk():
            self.by_op[n.op] = self.by_op.get(n.op, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.by_op.values())

    def __str__(self) -> str:
        parts = sorted(self.by_op.items(), key=lambda kv: (-kv[1], kv[0]))
        return f"{self.total} nodes (" + ", ".join(f"{k} {v}" for k, v in parts) + ")"
