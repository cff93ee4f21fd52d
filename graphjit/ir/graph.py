"""Values, nodes and graphs: flat SSA with closed subgraphs for If and Loop.

    g = Graph("f")
    x = g.add_param(TensorType(float32, (2, 3)), "x")
    y = g.apply("Add", x, x)
    g.set_results([y])
    print(g)

Each value knows its users (an ordered set, as torch.fx's `Node.users`), so passes
edit a graph through `set_inputs`, `replace_all_uses_with`, `rewrite_node` and
`erase_node` and never keep use lists by hand.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence

import numpy as np

from .errors import GraphVerificationError, GraphJitError
from .registry import get_op
from .types import TensorType
from . import dtypes as _dt

__all__ = ["Value", "Node", "Graph"]

_PURE: FrozenSet[str] = frozenset()


class Value:
    """An SSA value: a graph parameter or one output of a node."""

    __slots__ = ("type", "graph", "producer", "index", "name", "users")

    def __init__(self, type: TensorType, graph: "Graph", producer: Optional["Node"] = None,
                 index: int = 0, name: Optional[str] = None):
        self.type = type
        self.graph = graph
        self.producer = producer
        self.index = index
        self.name = name
        # the nodes reading this value, in the order they started to (a dict used as an
        # ordered set: a node reading the value twice, as Add(x, x), is listed once)
        self.users: Dict[Node, None] = {}

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def shape(self):
        return self.type.shape

    def __repr__(self) -> str:
        return f"<Value {self.name or '?'}: {self.type}>"


class Node:
    """One operation: `op` names a registry entry; `inputs` is a flat tuple of Values;
    `attrs` holds plain data (numbers, strings, tuples, dtypes, numpy arrays, Graphs)."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "loc", "graph")

    def __init__(self, op: str, inputs: Sequence[Value], attrs: Dict[str, Any],
                 output_types: Sequence[TensorType], graph: "Graph", loc=None,
                 names: Sequence[Optional[str]] = ()):
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.graph = graph
        self.loc = loc
        names = list(names) + [None] * (len(output_types) - len(names))
        self.outputs = tuple(Value(t, graph, self, i, n)
                             for i, (t, n) in enumerate(zip(output_types, names)))

    @property
    def output(self) -> Value:
        if len(self.outputs) != 1:
            raise GraphJitError(f"node {self.op} has {len(self.outputs)} outputs, not one")
        return self.outputs[0]

    def subgraphs(self) -> List["Graph"]:
        return [v for v in self.attrs.values() if isinstance(v, Graph)]

    def effects(self) -> FrozenSet[str]:
        """What running this node does besides computing its outputs: its op's
        `effects` (see OpDef), and for If and Loop those of every node in their
        subgraphs. Empty for a pure node, which a pass may remove when unused,
        merge with an equal one, or move."""
        own = get_op(self.op).effects
        subs = self.subgraphs()
        if not subs:
            return _PURE if own is None else frozenset((own,))
        found = {own} if own else set()
        for sub in subs:
            for n in sub.nodes:
                found |= n.effects()
        return frozenset(found)

    def __repr__(self) -> str:
        return f"<Node {self.op}>"


class Graph:
    """A function in SSA form: typed parameters, an ordered list of nodes, results."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self.params: List[Value] = []
        self.nodes: List[Node] = []
        self.results: List[Value] = []
        self._insert_before: Optional[Node] = None

    # -- building -------------------------------------------------------------------
    def add_param(self, type: TensorType, name: Optional[str] = None) -> Value:
        if not isinstance(type, TensorType):
            raise TypeError(f"a graph parameter needs a TensorType, got {type!r}")
        v = Value(type, self, None, len(self.params), name)
        self.params.append(v)
        return v

    def add_node(self, op: str, inputs: Sequence[Value], attrs: Optional[Dict[str, Any]] = None,
                 loc=None, names: Sequence[Optional[str]] = (),
                 before: Optional[Node] = None) -> Node:
        """Append a node (or insert it before the node `before`, or at the place
        `inserting_before` set); its output types come from the op's inference function.

        Raises:
            OpNotFoundError, MissingInferenceError, ShapeInferenceError (from the registry);
            GraphVerificationError: an input is not a value of this graph.
        """
        opdef = get_op(op)
        for v in inputs:
            if not isinstance(v, Value):
                raise GraphVerificationError(
                    f"input of {op} must be a Value of graph '{self.name}', got {v!r}")
            if v.graph is not self:
                raise GraphVerificationError(
                    f"input {v!r} of {op} belongs to graph '{v.graph.name}', not '{self.name}'; "
                    f"subgraphs are closed: pass outer values in as explicit inputs")
        attrs = opdef.normalize_attrs(dict(attrs or {}))
        out_types = self._infer(opdef, inputs, attrs, loc)
        node = Node(op, inputs, attrs, out_types, self, loc, names)
        anchor = before if before is not None else self._insert_before
        if anchor is None:
            self.nodes.append(node)
        else:
            self.nodes.insert(self._position(anchor), node)
        for v in node.inputs:
            v.users[node] = None
        return node

    @staticmethod
    def _infer(opdef, inputs: Sequence[Value], attrs, loc):
        consts = None
        if opdef.infer_takes_consts:
            consts = [v.producer.attrs["value"] if v.producer is not None and
                      v.producer.op == "Const" else None for v in inputs]
        try:
            return opdef.infer_types([v.type for v in inputs], attrs, consts)
        except GraphJitError as e:
            if e.loc is None and loc is not None:
                e.loc = loc
            raise

    def _position(self, node: Node) -> int:
        if node.graph is not self:
            raise GraphVerificationError(f"{node!r} is not a node of graph '{self.name}'")
        try:
            return self.nodes.index(node)
        except ValueError:
            raise GraphVerificationError(
                f"{node!r} is not in graph '{self.name}' (it was erased)") from None

    @contextmanager
    def inserting_before(self, node: Optional[Node]) -> Iterator[None]:
        """Within the block, add_node and apply insert before `node` (None: append),
        as torch.fx's `Graph.inserting_before`."""
        saved = self._insert_before
        self._insert_before = node
        try:
            yield
        finally:
            self._insert_before = saved

    def apply(self, op: str, *inputs: Value, loc=None, name: Optional[str] = None, **attrs):
        """Add a node and return its output (or the tuple of its outputs)."""
        node = self.add_node(op, inputs, attrs, loc=loc, names=[name] if name else ())
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    def const(self, value, dtype=None, loc=None, name: Optional[str] = None) -> Value:
        """A Const node holding a numpy array."""
        arr = np.asarray(value, dtype=None if dtype is None else _dt.as_dtype(dtype).np)
        if arr.dtype == np.float64 and dtype is None and not isinstance(value, np.ndarray):
            arr = arr.astype(np.float32)
        return self.apply("Const", value=arr, loc=loc, name=name)

    def set_results(self, values: Iterable[Value]) -> None:
        values = list(values)
        for v in values:
            if not isinstance(v, Value) or v.graph is not self:
                raise GraphVerificationError(
                    f"result {v!r} is not a value of graph '{self.name}'")
        self.results = values

    def truncate(self, n: int) -> None:
        """Drop every node after the first n (a builder abandoning what it tried);
        the dropped nodes leave the users of their inputs."""
        dropped = self.nodes[n:]
        del self.nodes[n:]
        for node in dropped:
            for v in node.inputs:
                v.users.pop(node, None)

    # -- editing (for passes) ---------------------------------------------------------
    def set_inputs(self, node: Node, inputs: Sequence[Value]) -> None:
        """Make `node` read `inputs` instead of what it read; the users of the old and
        new inputs follow. The caller keeps the node's output types valid (`verify`
        checks them).

        Raises:
            GraphVerificationError: the node or an input is not of this graph.
        """
        if node.graph is not self:
            raise GraphVerificationError(f"{node!r} is not a node of graph '{self.name}'")
        inputs = tuple(inputs)
        for v in inputs:
            if not isinstance(v, Value) or v.graph is not self:
                raise GraphVerificationError(
                    f"input {v!r} of {node.op} is not a value of graph '{self.name}'")
        for v in node.inputs:
            v.users.pop(node, None)
        node.inputs = inputs
        for v in inputs:
            v.users[node] = None

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        """Make every node and result reading `old` read `new` instead.

        Raises:
            GraphVerificationError: the values are not of this graph, or their types
                differ (the users' inferred types would no longer hold).
        """
        if old is new:
            return
        for v in (old, new):
            if not isinstance(v, Value) or v.graph is not self:
                raise GraphVerificationError(f"{v!r} is not a value of graph '{self.name}'")
        if old.type != new.type:
            raise GraphVerificationError(
                f"cannot replace {old!r} with {new!r}: their types differ")
        for user in list(old.users):
            user.inputs = tuple(new if v is old else v for v in user.inputs)
            new.users[user] = None
        old.users.clear()
        self.results = [new if r is old else r for r in self.results]

    def erase_node(self, node: Node) -> None:
        """Remove a node whose outputs nothing reads.

        Raises:
            GraphVerificationError: an output still has users or is a result of the
                graph, or the node is not in this graph.
        """
        for o in node.outputs:
            if o.users:
                raise GraphVerificationError(
                    f"cannot erase {node.op}: its output {o!r} is still read by "
                    f"{', '.join(u.op for u in o.users)}")
            if any(r is o for r in self.results):
                raise GraphVerificationError(
                    f"cannot erase {node.op}: its output {o!r} is a result of '{self.name}'")
        del self.nodes[self._position(node)]
        for v in node.inputs:
            v.users.pop(node, None)

    def erase_nodes(self, nodes: Iterable[Node]) -> None:
        """Remove several nodes at once (in one sweep of the node list); together they
        may read each other's outputs, but nothing else may.

        Raises:
            GraphVerificationError: an output is read by a node not erased with it or is
                a result of the graph, or a node is not in this graph.
        """
        gone = {node: None for node in nodes}
        if not gone:
            return
        results = {id(r) for r in self.results}
        for node in gone:
            if node.graph is not self:
                raise GraphVerificationError(f"{node!r} is not a node of graph '{self.name}'")
            for o in node.outputs:
                if id(o) in results:
                    raise GraphVerificationError(
                        f"cannot erase {node.op}: its output {o!r} is a result of "
                        f"'{self.name}'")
                if any(u not in gone for u in o.users):
                    raise GraphVerificationError(
                        f"cannot erase {node.op}: its output {o!r} is still read by " +
                        ", ".join(u.op for u in o.users if u not in gone))
        kept = [n for n in self.nodes if n not in gone]
        if len(kept) != len(self.nodes) - len(gone):
            raise GraphVerificationError(f"a node to erase is not in graph '{self.name}'")
        self.nodes = kept
        for node in gone:
            for v in node.inputs:
                v.users.pop(node, None)

    def remove_param(self, param: Value) -> None:
        """Remove a parameter nothing reads (the caller fixes whoever binds it: the
        If's operands, the Loop's port map); later parameters move up one place.

        Raises:
            GraphVerificationError: it is not a parameter of this graph, or is read.
        """
        if not any(p is param for p in self.params):
            raise GraphVerificationError(f"{param!r} is not a parameter of '{self.name}'")
        if param.users or any(r is param for r in self.results):
            raise GraphVerificationError(
                f"cannot remove parameter {param!r} of '{self.name}': it is still read")
        self.params = [p for p in self.params if p is not param]
        for i, p in enumerate(self.params):
            p.index = i

    def rewrite_node(self, node: Node, op: str, inputs: Sequence[Value],
                     attrs: Optional[Dict[str, Any]] = None) -> Node:
        """Make `node` compute op(inputs) in place: it keeps its position, its output
        values (so its users need no change) and its source location.

        Raises:
            GraphVerificationError: an input is not of this graph, or the new op's
                inferred output types differ from the node's.
            (and the registry's errors for an unknown op or bad attributes)
        """
        opdef = get_op(op)
        inputs = tuple(inputs)
        for v in inputs:
            if not isinstance(v, Value) or v.graph is not self:
                raise GraphVerificationError(
                    f"input {v!r} of {op} is not a value of graph '{self.name}'")
        attrs = opdef.normalize_attrs(dict(attrs or {}))
        types = self._infer(opdef, inputs, attrs, node.loc)
        if list(types) != [o.type for o in node.outputs]:
            raise GraphVerificationError(
                f"cannot rewrite {node.op} as {op}: it would give "
                f"{[str(t) for t in types]} instead of {[str(o.type) for o in node.outputs]}")
        node.op = op
        node.attrs = attrs
        self.set_inputs(node, inputs)
        return node

    # -- reading --------------------------------------------------------------------
    @property
    def param_types(self) -> List[TensorType]:
        return [p.type for p in self.params]

    @property
    def result_types(self) -> List[TensorType]:
        return [r.type for r in self.results]

    def walk(self) -> Iterable[Node]:
        """Every node, subgraphs included, depth first."""
        for n in self.nodes:
            yield n
            for sub in n.subgraphs():
                yield from sub.walk()

    def has_effects(self) -> bool:
        """Whether running the graph does something besides computing its results
        (prints, asserts, run-time checks, state updates): see Node.effects."""
        return any(n.effects() for n in self.nodes)

    def __str__(self) -> str:
        from .printer import format_graph
        return format_graph(self)

    def __repr__(self) -> str:
        return (f"<Graph {self.name}: {len(self.params)} params, {len(self.nodes)} nodes, "
                f"{len(self.results)} results>")
