"""Values, nodes and graphs: flat SSA with closed subgraphs for If and Loop.

    g = Graph("f")
    x = g.add_param(TensorType(float32, (2, 3)), "x")
    y = g.apply("Add", x, x)
    g.set_results([y])
    print(g)
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy as np

from .errors import GraphVerificationError, GraphJitError
from .registry import get_op
from .types import TensorType
from . import dtypes as _dt

__all__ = ["Value", "Node", "Graph"]


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
        self.users: List[Node] = []

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

    def __repr__(self) -> str:
        return f"<Node {self.op}>"


class Graph:
    """A function in SSA form: typed parameters, an ordered list of nodes, results."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self.params: List[Value] = []
        self.nodes: List[Node] = []
        self.results: List[Value] = []

    # -- building -------------------------------------------------------------------
    def add_param(self, type: TensorType, name: Optional[str] = None) -> Value:
        if not isinstance(type, TensorType):
            raise TypeError(f"a graph parameter needs a TensorType, got {type!r}")
        v = Value(type, self, None, len(self.params), name)
        self.params.append(v)
        return v

    def add_node(self, op: str, inputs: Sequence[Value], attrs: Optional[Dict[str, Any]] = None,
                 loc=None, names: Sequence[Optional[str]] = ()) -> Node:
        """Append a node; its output types come from the op's inference function.

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
        consts = None
        if opdef.infer_takes_consts:
            consts = [v.producer.attrs["value"] if v.producer is not None and
                      v.producer.op == "Const" else None for v in inputs]
        try:
            out_types = opdef.infer_types([v.type for v in inputs], attrs, consts)
        except GraphJitError as e:
            if e.loc is None and loc is not None:
                e.loc = loc
            raise
        node = Node(op, inputs, attrs, out_types, self, loc, names)
        self.nodes.append(node)
        for v in node.inputs:
            v.users.append(node)
        return node

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
        the dropped nodes leave the users lists of their inputs."""
        dropped = self.nodes[n:]
        del self.nodes[n:]
        gone = {id(node) for node in dropped}
        for node in dropped:
            for v in node.inputs:
                v.users = [u for u in v.users if id(u) not in gone]

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

    def __str__(self) -> str:
        from .printer import format_graph
        return format_graph(self)

    def __repr__(self) -> str:
        return (f"<Graph {self.name}: {len(self.params)} params, {len(self.nodes)} nodes, "
                f"{len(self.results)} results>")
