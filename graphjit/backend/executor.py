"""Runs graphs: each graph becomes one Python function generated once from its plan.

The plan binds every node to a kernel chosen for its exact input and output types
(OpDef.make_kernel) and gives every value a local variable; a Const is a global
holding its array, and ops that one numpy expression computes identically (same-
dtype arithmetic and comparisons, Squeeze/ExpandDims as views, MatMul as `@`) are
written as that expression, so numpy scalars stay on numpy's fast path. If and
Loop are not calls: their subgraphs are generated inline, If as an `if`/`else`
statement and Loop as a `while` statement specialised to its port map
(graphjit.backend.loop), so an iteration runs the body's kernels and a few
assignments. For `Loop(%n, true, x * 2)` with a body `tanh(h + 1)`:

    def run(v0, v1):
        v3 = v1 * c2                # Mul(%x, 2.0)
        n5 = _trip_count6(v0)       # the Loop's driver
        p8 = v3                     #   the back-edged parameter's first value
        i9 = 0
        while i9 < n5:
            v12 = p8 + c11          #   the body, inline
            v14 = k13(v12)          #   Tanh
            p8 = v14                #   the back edge
            i9 += 1
        v16 = p8                    #   the last value
        return (v16,)

Nothing is looked up or rebuilt per call or per iteration.
"""
from __future__ import annotations

import itertools
import linecache
import traceback
from typing import Callable, Dict, List, Optional

import numpy as np

from ..ir.errors import GraphJitError, GraphRuntimeError
from ..ir.graph import Graph, Node
from ..ir.registry import get_op
from ..ir.types import num_elements

__all__ = ["compile_graph", "CompiledGraph", "make_node_kernel"]

_counter = itertools.count()


class CompiledGraph:
    """A graph turned into a callable: `cg(*arrays) -> tuple of arrays`.

    Attributes:
        graph: the IR graph.
        fn: the generated function (no error wrapping, no errstate).
        source: its Python source, for reading and debugging.
    """

    def __init__(self, graph: Graph):
        self.graph = graph
        self.fn, self.source, self._nodes = generate(graph)

    def __call__(self, *args):
        try:
            with np.errstate(all="ignore"):
                return self.fn(*args)
        except (GraphJitError, AssertionError):
            raise
        except Exception as e:
            raise self._wrap(e) from e

    def _wrap(self, e: Exception) -> GraphRuntimeError:
        node = None
        fname = self.fn.__code__.co_filename
        for frame, lineno in traceback.walk_tb(e.__traceback__):
            if frame.f_code.co_filename == fname:
                node = self._nodes.get(lineno, node)
        cls = runtime_error_class(type(e))
        if node is None:
            return cls(f"graph '{self.graph.name}' failed: {type(e).__name__}: {e}")
        return cls(
            f"{node.op} failed while the graph ran: {type(e).__name__}: {e}", loc=node.loc,
            detail="inputs: " + ", ".join(str(v.type) for v in node.inputs),
            names=getattr(e, "_graphjit_names", ()), hint=getattr(e, "_graphjit_hint", ""))


_RUNTIME_CLASSES = {}


def runtime_error_class(original: type) -> type:
    """GraphRuntimeError that is also the class eager mode raises for the same data
    (`except IndexError` catches an index out of range in both modes)."""
    cls = _RUNTIME_CLASSES.get(original)
    if cls is None:
        cls = GraphRuntimeError
        if original.__module__ == "builtins" and issubclass(original, Exception) and \
                not issubclass(original, (OSError, UnicodeError, RuntimeError)):
            try:
                cls = type(f"GraphRuntimeError", (GraphRuntimeError, original),
                           {"__str__": GraphRuntimeError.__str__,
                            "__module__": GraphRuntimeError.__module__})
                cls("probe")
            except TypeError:
                cls = GraphRuntimeError
        _RUNTIME_CLASSES[original] = cls
    return cls


def truth(c, what: str = "condition") -> bool:
    """The value of a one-element condition.

    Raises:
        ValueError: c does not have exactly one element.
    """
    a = np.asarray(c)
    if a.size != 1:
        raise ValueError(f"the {what} must have exactly one element, got shape {a.shape}")
    return bool(a.reshape(-1)[0])


# numpy ufuncs that a Python operator computes identically when both inputs have one
# dtype of the given kinds (b bool, i/u int, f float); on numpy scalars the operator
# takes numpy's scalar fast path, ~15x quicker than calling the ufunc
_OPERATORS = {
    np.add: ("+", "iuf"), np.subtract: ("-", "iuf"), np.multiply: ("*", "iuf"),
    np.true_divide: ("/", "f"),
    np.less: ("<", "biuf"), np.less_equal: ("<=", "biuf"), np.greater: (">", "biuf"),
    np.greater_equal: (">=", "biuf"), np.equal: ("==", "biuf"),
    np.not_equal: ("!=", "biuf"),
    np.logical_and: ("&", "b"), np.logical_or: ("|", "b"), np.logical_xor: ("^", "b"),
}


def _operator(kernel, node) -> Optional[str]:
    try:
        op, kinds = _OPERATORS[kernel]
    except (KeyError, TypeError):
        return None
    if len(node.inputs) != 2 or len(node.outputs) != 1:
        return None
    a, b = (v.type.dtype for v in node.inputs)
    return op if a is b and a.kind in kinds else None


def _index_text(rank: int, picks) -> str:
    """The text of an index over `rank` dims with `picks` {dim: text} (others `:`)."""
    last = max(picks)
    return ", ".join(picks.get(k, ":") for k in range(last + 1))


def _inline_squeeze(node, x):
    t, o = node.inputs[0].type, node.outputs[0].type
    axis = node.attrs.get("axis")
    if t.rank is None or o.rank in (None, 0) or axis is None or axis == ():
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = {int(a) % t.rank for a in axes}
    if any(t.shape[a] != 1 for a in axes):
        return None   # np.squeeze checks an unknown dim at run time; x[0] would not
    return f"{x}[{_index_text(t.rank, {a: '0' for a in axes})}]"


def _inline_expand_dims(node, x):
    t = node.inputs[0].type
    if t.rank is None:
        return None
    a = int(node.attrs["axis"]) % (t.rank + 1)
    return f"{x}[{_index_text(t.rank + 1, {a: 'None'})}]"


def _inline_matmul(node, x, y):
    (a, b), o = (v.type for v in node.inputs), node.outputs[0].type
    if node.attrs.get("transpose_a") or node.attrs.get("transpose_b"):
        return None
    if a.dtype is not o.dtype or b.dtype is not o.dtype or not a.rank or not b.rank:
        return None
    return f"{x} @ {y}"


# ops that a numpy expression computes identically (a view for the shape ops),
# without a call: the frontend's sliced and concatenated loop values are
# Squeeze(slice, 0) and ExpandDims(value, 0)
_INLINE = {"Squeeze": _inline_squeeze, "ExpandDims": _inline_expand_dims,
           "MatMul": _inline_matmul}


def _const_value(arr):
    """A Const's runtime value: 0-d arrays become numpy scalars, as numpy's own
    kernels return them, so scalar arithmetic stays on numpy's fast path."""
    return arr[()] if isinstance(arr, np.ndarray) and arr.ndim == 0 else arr


def is_one_element_bool(t) -> bool:
    """A value of this type can be tested with a plain `if v:` (numpy agrees)."""
    return t.dtype.is_bool and t.shape is not None and num_elements(t.shape) == 1


class Emitter:
    """Writes the Python source of one generated function.

    Every value gets a local variable (or, for a Const, a global holding the
    array); kernels and constants live in `env`, the function's globals; `nodes`
    maps line numbers of the source to the node each line runs, for errors.
    """

    def __init__(self):
        self.env: Dict[str, object] = {"np": np, "_truth": truth,
                                       "_numpy_value": (np.ndarray, np.generic)}
        self.lines: List[str] = []
        self.names: Dict[int, str] = {}
        self.nodes: Dict[int, object] = {}
        self._ids = itertools.count()

    def fresh(self, prefix: str = "v") -> str:
        return f"{prefix}{next(self._ids)}"

    def bind(self, value, name: str) -> None:
        self.names[id(value)] = name

    def name(self, value) -> str:
        n = self.names.get(id(value))
        if n is None:
            n = self.names[id(value)] = self.fresh()
        return n

    def glob(self, obj, prefix: str) -> str:
        n = self.fresh(prefix)
        self.env[n] = obj
        return n

    def line(self, depth: int, text: str, node=None) -> None:
        self.lines.append("    " * depth + text)
        if node is not None:
            self.nodes[len(self.lines) + 1] = node   # the def is line 1

    def cond_expr(self, value) -> str:
        """An expression whose truth is the condition's (checked to be one element)."""
        v = self.name(value)
        return v if is_one_element_bool(value.type) else f"_truth({v})"

    def graph_body(self, graph: Graph, depth: int) -> List[str]:
        """Emit the nodes of `graph` (its params must be bound); returns the names
        of its results."""
        for node in graph.nodes:
            self.node(node, depth)
        return [self.name(r) for r in graph.results]

    def node(self, node, depth: int) -> None:
        if node.op == "Const":
            self.bind(node.outputs[0], self.glob(_const_value(node.attrs["value"]), "c"))
        elif node.op == "Identity":
            self.bind(node.outputs[0], self.name(node.inputs[0]))
        elif node.op == "If":
            self.if_node(node, depth)
        elif node.op == "Loop":
            from .loop import emit_loop
            emit_loop(self, node, depth)
        else:
            inline = _INLINE.get(node.op)
            if inline is not None and len(node.outputs) == 1:
                expr = inline(node, *(self.name(v) for v in node.inputs))
                if expr is not None:
                    self.line(depth, f"{self.name(node.outputs[0])} = {expr}", node)
                    return
            kernel = make_node_kernel(node)
            op = _operator(kernel, node)
            if op is not None:
                x, y = (self.name(v) for v in node.inputs)
                self.line(depth, f"{self.name(node.outputs[0])} = {x} {op} {y}", node)
                return
            k = self.glob(kernel, "k")
            args = ", ".join(self.name(v) for v in node.inputs)
            outs = [self.name(o) for o in node.outputs]
            target = "" if not outs else (outs[0] if len(outs) == 1 else
                                          ", ".join(outs) + ",") + " = "
            self.line(depth, f"{target}{k}({args})", node)

    def if_node(self, node, depth: int) -> None:
        cond, operands = node.inputs[0], node.inputs[1:]
        outs = [self.name(o) for o in node.outputs]
        self.line(depth, f"if {self.cond_expr(cond)}:", node)
        for key in ("then_graph", "else_graph"):
            if key == "else_graph":
                self.line(depth, "else:", node)
            g = node.attrs[key]
            for p, v in zip(g.params, operands):
                self.bind(p, self.name(v))
            n_lines = len(self.lines)
            results = self.graph_body(g, depth + 1)
            self.assign(depth + 1, outs, results, node)
            if len(self.lines) == n_lines:
                self.line(depth + 1, "pass")

    def assign(self, depth: int, targets: List[str], sources: List[str], node=None) -> None:
        """targets = sources, all at once (a back edge may swap two values)."""
        pairs = [(t, s) for t, s in zip(targets, sources) if t != s]
        if pairs:
            self.line(depth, ", ".join(t for t, _ in pairs) + " = " +
                      ", ".join(s for _, s in pairs), node)

    def function(self, params: List[str], results: List[str], label: str):
        """Compile the emitted lines as `def run(params): ...; return (results,)`."""
        ret = ", ".join(results) + ("," if len(results) == 1 else "")
        src = (f"def run({', '.join(params)}):\n" + "\n".join(self.lines) +
               ("\n" if self.lines else "") + f"    return ({ret})\n")
        filename = f"<graphjit:{label}:{next(_counter)}>"
        code = compile(src, filename, "exec")
        exec(code, self.env)
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        return self.env["run"], src


def generate(graph: Graph):
    """(function, source, {line: node}) for a graph."""
    em = Emitter()
    params = []
    for p in graph.params:
        params.append(em.fresh())
        em.bind(p, params[-1])
        # inline operators on Python numbers would compute in Python's types
        em.line(1, f"if not isinstance({params[-1]}, _numpy_value): {params[-1]} = "
                   f"np.asarray({params[-1]}, {em.glob(p.type.dtype.np, '_dtype')})")
    results = em.graph_body(graph, 1)
    fn, src = em.function(params, results, graph.name)
    return fn, src, em.nodes


def make_node_kernel(node) -> Callable:
    """The callable that runs one node. For If and Loop it is a generated function
    running the subgraphs inline; it returns the tuple of the node's outputs."""
    if node.op in ("If", "Loop"):
        # a stand-in node whose inputs are one parameter per position, so the kernel
        # takes its arguments positionally even where the node reads a value twice
        g = Graph(node.op)
        params = [g.add_param(v.type, v.name) for v in node.inputs]
        proxy = Node(node.op, params, node.attrs, [o.type for o in node.outputs], g,
                     node.loc)
        em = Emitter()
        names = []
        for p in params:
            names.append(em.fresh("a"))
            em.bind(p, names[-1])
        em.node(proxy, 1)
        fn, _ = em.function(names, [em.name(o) for o in proxy.outputs], node.op)
        return fn
    opdef = get_op(node.op)
    return opdef.make_kernel([v.type for v in node.inputs], [o.type for o in node.outputs],
                             node.attrs)


def compile_graph(graph: Graph) -> CompiledGraph:
    """Build the executable form of a graph (and, inside it, of its subgraphs)."""
    return CompiledGraph(graph)
