"""Splitting a graph into a forward program and a backward program.

    fwd(params)                       -> results..., residuals...
    bwd(captures..., g..., a_in...)   -> adjoint of each source

`fwd` is the graph itself, plus the values its gradient reads (residuals) as extra
results; `bwd` runs the registry's rules over the nodes in reverse. Its parameters
are described by `roles`: ("param", k) is fwd parameter k, ("result", j) residual j,
("g", i) the adjoint of result i, ("a_in", s) the adjoint source s has already
gathered (threaded through, so sums associate as on the eager tape). A forward value
reaches bwd only when a rule reads it (GraphNode.x / .y), so each level of If and
Loop saves only what the gradients inside it need; constants are copied, never
saved. If and Loop nodes are split recursively (graphjit.autodiff.control).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from ..ir.grad import GradBuilder, GradNode
from ..ir.graph import Graph, Node, Value
from ..ir.registry import NOT_DIFFERENTIABLE, get_op
from ..ir.types import TensorType, is_static
from .activity import Activity
from .eager import EagerBuilder
from .graphs import clone_graph
from .tape import missing_gradient

__all__ = ["Linearized", "linearize", "GraphBuilder", "CONTROL", "fold_constants"]

_EAGER = EagerBuilder()
# ops recomputed rather than saved per Loop iteration (views of their one input)
_VIEWS = frozenset({"Squeeze", "ExpandDims", "Reshape", "Flatten", "Transpose", "Identity",
                    "Index", "Cast"})
_NEVER_FOLD = frozenset({"If", "Loop"})

# op name -> (forward(lin, node, pos) -> piece, backward(lin, node, piece, gs)): how If
# and Loop split (graphjit.autodiff.control fills it in)
CONTROL: Dict[str, tuple] = {}


def fold_constants(op: str, inputs, attrs) -> Optional[np.ndarray]:
    """The value of op over constant inputs when it is small (16 elements at most),
    computed now by the kernel eager mode runs (so it is the value a node would
    compute); None if the inputs are not all constants or the result is large."""
    if not inputs or op in _NEVER_FOLD or not all(
            v.producer is not None and v.producer.op == "Const" for v in inputs):
        return None
    opdef = get_op(op)
    if opdef.effects is not None:        # runs when the graph runs (a check, a draw)
        return None
    attrs = opdef.normalize_attrs(dict(attrs))
    arrays = [v.producer.attrs["value"] for v in inputs]
    types = opdef.infer_types([v.type for v in inputs], attrs, arrays)
    if len(types) != 1 or not is_static(types[0].shape) or int(np.prod(types[0].shape)) > 16:
        return None
    return np.asarray(_EAGER.apply(op, *arrays, **attrs), dtype=types[0].dtype.np)


class GraphBuilder(GradBuilder):
    """Adds the backward nodes to a graph (at the forward node's source location)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.loc = None
        self._consts: Dict[tuple, Value] = {}

    def apply(self, op: str, *inputs, **attrs):
        folded = self._fold(op, inputs, attrs)
        if folded is not None:
            return folded
        node = self.graph.add_node(op, inputs, attrs, loc=self.loc)
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    def _fold(self, op, inputs, attrs):
        out = fold_constants(op, inputs, attrs)
        return None if out is None else self.const(out)

    def const(self, value) -> Value:
        arr = np.array(value)
        arr.flags.writeable = False
        key = None
        if arr.size <= 16:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            hit = self._consts.get(key)
            if hit is not None:
                return hit
        v = self.graph.add_node("Const", (), {"value": arr}).outputs[0]
        if key is not None:
            self._consts[key] = v
        return v

    def type(self, v: Value) -> TensorType:
        return v.type

    def known(self, v: Value):
        p = v.producer
        return p.attrs["value"] if p is not None and p.op == "Const" else None


class _Node(GradNode):
    """A forward node as a rule sees it: inputs and outputs captured on demand."""

    def __init__(self, lin: "_Linearizer", node: Node, gs):
        super().__init__(lin.b, node.op, node.attrs, [v.type for v in node.inputs],
                         [o.type for o in node.outputs], gs,
                         [lin.act.is_varied(v) for v in node.inputs])
        self.lin, self.node = lin, node

    def x(self, i: int):
        return self.lin.read(self.node.inputs[i])

    def y(self, i: int = 0):
        return self.lin.read(self.node.outputs[i])

    def same_input(self, i: int, j: int) -> bool:
        return self.node.inputs[i] is self.node.inputs[j]


class Linearized:
    """The two programs of a split graph (see the module docstring)."""

    def __init__(self, fwd: Graph, bwd: Graph, n_results: int, residuals: List[Value],
                 roles: List[tuple], n_sources: int):
        self.fwd, self.bwd = fwd, bwd
        self.n_results = n_results
        self.residuals = residuals
        self.roles = roles
        self.n_sources = n_sources


def linearize(src: Graph, act: Activity, sources: Sequence[Value],
              useful_results: Sequence[int], threaded: Sequence[int] = (),
              remat: bool = False) -> Linearized:
    """Split `src` (see the module docstring).

    Args:
        src: the graph; it is not changed (its nodes are copied).
        act: activity analysis of src (forward from the sources, backward from the
            useful results).
        sources: values of src (parameters, or any value of a top-level graph) whose
            adjoints bwd returns, in order.
        useful_results: indices of src's results that receive an adjoint (one "g"
            parameter each).
        threaded: indices into `sources` whose adjoint gathered so far is passed in
            (an "a_in" parameter each); bwd adds to it.
        remat: recompute views (Squeeze, ExpandDims, Reshape...) of the values bwd
            reads instead of saving them (a Loop body saves each residual per
            iteration, so a view of a parameter costs less recomputed).

    Raises:
        MissingGradientError: a gradient flows through an op that declares none.
    """
    lin = _Linearizer(src, act, list(sources), list(useful_results), set(threaded))
    lin.remat = remat
    lin.forward()
    lin.backward()
    return Linearized(lin.fwd, lin.bwd, len(src.results), lin.residuals, lin.roles,
                      len(lin.sources))


class _Linearizer:
    def __init__(self, src, act, sources, useful_results, threaded):
        self.src, self.act = src, act
        self.sources, self.useful_results, self.threaded = sources, useful_results, threaded
        self.fwd = Graph(src.name)
        self.fmap: Dict[int, Value] = {}
        for p in src.params:
            self.fmap[id(p)] = self.fwd.add_param(p.type, p.name)
        self.bwd = Graph(f"{src.name}_grad")
        self.b = GraphBuilder(self.bwd)
        self.roles: List[tuple] = []
        self.residuals: List[Value] = []
        self._captured: Dict[int, Value] = {}
        self.adj: Dict[int, Value] = {}
        self.pieces: Dict[int, object] = {}
        self.last_use: Dict[int, float] = {}
        self.remat = False

    # -- reading forward values in the backward program ---------------------------------------
    def capture(self, fv: Value) -> Value:
        """The bwd value standing for fwd value fv."""
        hit = self._captured.get(id(fv))
        if hit is not None:
            return hit
        p = fv.producer
        if p is not None and p.op == "Const":
            v = self.b.const(p.attrs["value"])
        elif self.remat and p is not None and p.op in _VIEWS and len(p.inputs) == 1:
            v = self.bwd.add_node(p.op, [self.capture(p.inputs[0])], p.attrs,
                                  loc=p.loc).outputs[0]
        elif p is None:
            v = self.bwd.add_param(fv.type, fv.name)
            self.roles.append(("param", fv.index))
        else:
            v = self.bwd.add_param(fv.type, fv.name)
            self.roles.append(("result", len(self.residuals)))
            self.residuals.append(fv)
        self._captured[id(fv)] = v
        return v

    def read(self, v: Value) -> Value:
        """The bwd value standing for src value v."""
        return self.capture(self.fmap[id(v)])

    def zeros_of(self, v: Value) -> Value:
        """Zeros shaped like src value v."""
        t = v.type
        if t.shape is not None and is_static(t.shape):
            return self.b.zeros(t)
        return self.b.apply("ZerosLike", self.read(v))

    def accumulate(self, v: Value, g: Value) -> None:
        if g.type.dtype is not v.type.dtype:
            raise RuntimeError(f"internal error: a gradient of dtype {g.type.dtype} reached a "
                               f"value of dtype {v.type.dtype}")
        cur = self.adj.get(id(v))
        self.adj[id(v)] = g if cur is None else self.b.add(cur, g)

    def will_have_adjoint(self, v: Value, pos: int) -> bool:
        """Whether v has gathered an adjoint when the backward pass reaches node pos."""
        return self.last_use.get(id(v), -1) > pos

    # -- the two passes -------------------------------------------------------------------------
    def _active(self, node: Node) -> bool:
        return any(self.act.is_useful(o) for o in node.outputs)

    def forward(self) -> None:
        act = self.act
        for pos, node in enumerate(self.src.nodes):
            if self._active(node):
                for v in node.inputs:
                    if act.is_varied(v):
                        self.last_use[id(v)] = pos
        for i in self.useful_results:
            self.last_use[id(self.src.results[i])] = float("inf")
        for k in self.threaded:
            self.last_use[id(self.sources[k])] = float("inf")
        for pos, node in enumerate(self.src.nodes):
            if node.op in CONTROL and self._active(node):
                self.pieces[id(node)] = CONTROL[node.op][0](self, node, pos)
                continue
            attrs = {k: clone_graph(v) if isinstance(v, Graph) else v
                     for k, v in node.attrs.items()}
            new = self.fwd.add_node(node.op, [self.fmap[id(v)] for v in node.inputs], attrs,
                                    loc=node.loc, names=[o.name for o in node.outputs])
            for o, n in zip(node.outputs, new.outputs):
                self.fmap[id(o)] = n

    def backward(self) -> None:
        act, src = self.act, self.src
        for k in sorted(self.threaded):
            s = self.sources[k]
            self.adj[id(s)] = self.bwd.add_param(s.type, f"d_{s.name}" if s.name else None)
            self.roles.append(("a_in", k))
        for i in self.useful_results:
            r = src.results[i]
            g = self.bwd.add_param(r.type, f"d_{r.name}" if r.name else None)
            self.roles.append(("g", i))
            if act.is_varied(r):
                self.accumulate(r, g)
        for node in reversed(src.nodes):
            if not self._active(node):
                continue
            gs = [self.adj.get(id(o)) for o in node.outputs]
            if all(g is None for g in gs):
                continue
            self.b.loc = node.loc
            if node.op in CONTROL:
                CONTROL[node.op][1](self, node, self.pieces[id(node)], gs)
                continue
            rule = get_op(node.op).grad
            if rule is NOT_DIFFERENTIABLE:     # a source made here (a Const, say)
                continue
            if rule is None:
                raise missing_gradient(node.op, node.loc)
            grads = rule(self.b, _Node(self, node, gs))
            for v, g in zip(node.inputs, grads):
                if g is not None and act.is_varied(v):
                    self.accumulate(v, g)
        self.b.loc = None
        results = []
        for s in self.sources:
            a = self.adj.get(id(s))
            results.append(a if a is not None else self.zeros_of(s))
        self.bwd.set_results(results)
        self.fwd.set_results([self.fmap[id(r)] for r in src.results] + self.residuals)

