"""Lowering: a graph's nodes grouped into kernels with kernel boxes, as in the GE seed.

Walking the graph in order, every value gets a box:
- realized: a buffer (a graph parameter, a constant, the result of a kernel);
- pending: a pointwise expression not computed yet (an elementwise node, with the
  pending boxes of its inputs that it absorbed);
- extern: the output of a node that runs its own kernel (the original node).
An elementwise node loads each input from its producer's box: a pending box is
absorbed (its nodes join this one's), anything else is read as a buffer. A box is
realized, and becomes a fused kernel, where its value has several users, is a
result of the graph, feeds a node that is not fusable (an extern op, If, Loop) or
feeds a node of another shape. For the seed's chain

    %c = Conv2D(%x, %w);  %a = Abs(%c);  %e = Exp(%a);  %y = Conv2D(%e, %w)

the program is extern(Conv2D), fused(Abs, Exp), extern(Conv2D): Abs's box stays
pending, Exp absorbs it, and the second Conv2D realizes Exp's box. The IR graph is
kept as it is; If and Loop bodies are lowered into programs of their own.

The program also carries the memory plan: after which kernel each value is dead
(the executor frees it there), and which buffers a kernel may overwrite (inputs
that die at it and that the program allocated itself: never a graph input, a
constant, or what an alias or a view may share).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..ir.graph import Graph, Node, Value
from ..ir.printer import Namer, _fmt_attr, _node_attrs
from ..ir.registry import get_op
from .recipes import Recipe, recipe_for

__all__ = ["Kernel", "Program", "lower", "lower_bodies", "result_is_fresh", "FUSED",
           "EXTERN", "CONTROL", "producers", "loaders", "keep_no_reference"]

FUSED, EXTERN, CONTROL = "fused", "extern", "control"

# ops whose kernel returns a new array (rank >= 1) that nothing else refers to;
# other extern results may be views of their inputs or of constants
_FRESH_FAMILIES = {"reduction"}
_FRESH_OPS = {"MatMul"}


@dataclass(eq=False)
class Kernel:
    """One step of a lowered program.

    Attributes:
        kind: FUSED (elementwise nodes run together), EXTERN (one node, its own
            kernel) or CONTROL (an If or Loop, its bodies lowered).
        nodes: the nodes it runs, in graph order (one unless fused).
        loads: the values it reads, in order of first use.
        stores: the values it writes (a fused kernel: the last node's output).
        recipes: for a fused kernel, each node's Recipe.
        args: for a fused kernel, each node's inputs with aliases replaced by the
            values they name (the loads and the kernel's own intermediate values).
        bodies: for If/Loop, the lowered subgraph of each graph attribute.
        frees: values dead after this kernel (none of them a constant).
        reusable: loads dying at this kernel whose buffers the program allocated,
            so the kernel may write its result into one of them (for a Loop: loads
            nothing else holds, whose buffer its body may overwrite, see
            backend.loop_plan).
    """
    kind: str
    nodes: Tuple[Node, ...]
    loads: Tuple[Value, ...]
    stores: Tuple[Value, ...]
    recipes: Tuple[Recipe, ...] = ()
    args: Tuple[Tuple[Value, ...], ...] = ()
    bodies: Dict[str, "Program"] = field(default_factory=dict)
    frees: List[Value] = field(default_factory=list)
    reusable: Tuple[Value, ...] = ()

    @property
    def node(self) -> Node:
        """The last node (the only one of an extern or control kernel)."""
        return self.nodes[-1]

    @property
    def label(self) -> str:
        """`fused(Abs, Exp)`, `extern(MatMul)`, `If` or `Loop`."""
        if self.kind == FUSED:
            return f"fused({', '.join(n.op for n in self.nodes)})"
        if self.kind == EXTERN:
            return f"extern({self.node.op})"
        return self.node.op


class Program:
    """A lowered graph: its kernels in order, constants, aliases and memory plan.

    Attributes:
        graph: the graph it was lowered from (unchanged).
        kernels: the kernels, in the order they run.
        consts: the Const nodes (their values are bound once, never freed).
        entry_frees: parameters nothing reads (freed on entry).
        top: whether this is a whole graph (its parameters are its own to free)
            rather than an If/Loop body (whose parameters belong to the outer code).
    """

    def __init__(self, graph: Graph, top: bool):
        self.graph = graph
        self.top = top
        self.kernels: List[Kernel] = []
        self.consts: List[Node] = []
        self.entry_frees: List[Value] = []
        self.aliases: List[Value] = []          # outputs of Identity and same-dtype casts
        self._alias: Dict[int, Value] = {}

    def root(self, v: Value) -> Value:
        """The value whose buffer v is: v itself, or what an Identity (or a cast to
        the same dtype) of it names."""
        while id(v) in self._alias:
            v = self._alias[id(v)]
        return v

    def is_alias(self, v: Value) -> bool:
        return id(v) in self._alias

    def summary(self) -> List[str]:
        """The kernels' labels, in order: ['extern(MatMul)', 'fused(Abs, Exp)', ...]."""
        return [k.label for k in self.kernels]

    def walk(self):
        """Every kernel, those of If/Loop bodies included, depth first."""
        for k in self.kernels:
            yield k
            for body in k.bodies.values():
                yield from body.walk()

    def __str__(self) -> str:
        namer = Namer()
        _name_like_printer(self.graph, namer)
        return "\n".join(_program_lines(self, namer, "", "lowered"))

    def __repr__(self) -> str:
        return f"<Program {self.graph.name}: {', '.join(self.summary())}>"


# -- lowering ---------------------------------------------------------------------------------
class _Box:
    """A pending pointwise expression: nodes (in graph order) and the values it loads."""

    def __init__(self):
        self.nodes: List[Node] = []
        self.loads: Dict[int, Value] = {}     # in order of first use
        self.inner = set()                    # ids of the values its nodes compute

    def absorb(self, other: "_Box") -> None:
        self.nodes.extend(other.nodes)
        self.inner |= other.inner
        for v in other.loads.values():
            self.load(v)

    def load(self, v: Value) -> None:
        if id(v) not in self.inner:
            self.loads.setdefault(id(v), v)


def _user_nodes(v: Value) -> List[Node]:
    """The distinct nodes reading v (a node reading it twice counts once)."""
    seen = {}
    for u in v.users:
        seen.setdefault(id(u), u)
    return list(seen.values())


class _Lowering:
    def __init__(self, graph: Graph, top: bool):
        self.graph = graph
        self.program = Program(graph, top)
        self.recipes: Dict[int, Optional[Recipe]] = {}
        self.results = {id(r) for r in graph.results}
        self.order = {id(n): i for i, n in enumerate(graph.nodes)}

    def recipe(self, node: Node) -> Optional[Recipe]:
        key = id(node)
        if key not in self.recipes:
            fusable = get_op(node.op).family == "elementwise" and not _is_alias(node)
            self.recipes[key] = recipe_for(node) if fusable else None
        return self.recipes[key]

    def stays_pending(self, v: Value) -> bool:
        """Whether v's box may stay pending: its only user fuses it, at its shape."""
        if id(v) in self.results:
            return False
        users = _user_nodes(v)
        if len(users) != 1:
            return False
        user = users[0]
        return (self.recipe(user) is not None and
                user.outputs[0].type.shape == v.type.shape)

    def run(self) -> Program:
        prog = self.program
        pending: Dict[int, _Box] = {}
        for node in self.graph.nodes:
            if node.op == "Const":
                prog.consts.append(node)
            elif _is_alias(node):
                prog._alias[id(node.outputs[0])] = node.inputs[0]
                prog.aliases.append(node.outputs[0])
            elif self.recipe(node) is not None:
                # the largest absorbed box is extended in place (a long chain is linear)
                absorbed = [pending.pop(id(v)) for v in dict.fromkeys(node.inputs)
                            if id(v) in pending]
                absorbed.sort(key=lambda b: -len(b.nodes))
                box = absorbed[0] if absorbed else _Box()
                for b in absorbed[1:]:
                    box.absorb(b)
                for v in node.inputs:
                    box.load(prog.root(v))
                box.nodes.append(node)
                box.inner.add(id(node.outputs[0]))
                out = node.outputs[0]
                if self.stays_pending(out):
                    pending[id(out)] = box
                else:
                    box.nodes.sort(key=lambda n: self.order[id(n)])
                    prog.kernels.append(Kernel(
                        FUSED, tuple(box.nodes), tuple(box.loads.values()), (out,),
                        recipes=tuple(self.recipes[id(n)] for n in box.nodes),
                        args=tuple(tuple(prog.root(v) for v in n.inputs)
                                   for n in box.nodes)))
            elif node.op in ("If", "Loop"):
                prog.kernels.append(Kernel(
                    CONTROL, (node,), _roots(prog, node.inputs), node.outputs,
                    bodies=lower_bodies(node)))
            else:
                prog.kernels.append(Kernel(EXTERN, (node,), _roots(prog, node.inputs),
                                           node.outputs))
        assert not pending, "a pending box outlived its only user"
        _plan_memory(prog)
        return prog


def _is_alias(node: Node) -> bool:
    """Identity (and StopGradient), and a Cast to the dtype it already has: the output
    is the input."""
    if node.op in ("Identity", "StopGradient"):
        return len(node.inputs) == 1 and len(node.outputs) == 1
    return (node.op == "Cast" and len(node.outputs) == 1 and
            node.inputs[0].type.dtype is node.outputs[0].type.dtype)


def _roots(prog: Program, values) -> Tuple[Value, ...]:
    out = []
    for v in values:
        r = prog.root(v)
        if all(u is not r for u in out):
            out.append(r)
    return tuple(out)


def lower(graph: Graph, top: bool = True) -> Program:
    """Lower a graph (and its If/Loop bodies) into a program of kernels.

    Args:
        graph: a verified graph; it is not changed.
        top: False for an If/Loop body, whose parameters the program must not free.

    Returns:
        The Program.
    """
    return _Lowering(graph, top).run()


def lower_bodies(node: Node) -> Dict[str, Program]:
    """The lowered subgraphs of an If or Loop node, by attribute name."""
    return {k: lower(g, top=False) for k, g in node.attrs.items() if isinstance(g, Graph)}


# -- the memory plan -------------------------------------------------------------------------
def _is_fresh(kernel: Kernel, v: Value) -> bool:
    """Whether kernel gives v a new array of its own (never a numpy scalar or a view)."""
    if v.type.shape is None or len(v.type.shape) == 0:
        return False
    if kernel.kind == FUSED:
        return True
    if kernel.kind == EXTERN:
        op = kernel.node.op
        return op in _FRESH_OPS or get_op(op).family in _FRESH_FAMILIES
    return False


def result_is_fresh(kernel: Kernel, v: Value) -> bool:
    """Whether the kernel returns v as a new array or numpy scalar that nothing else
    holds (a fused kernel's result, a reduction's, a matrix product's)."""
    if kernel.kind == FUSED:
        return True
    return kernel.kind == EXTERN and (kernel.node.op in _FRESH_OPS or
                                      get_op(kernel.node.op).family in _FRESH_FAMILIES)


def keep_no_reference(readers) -> bool:
    """Whether these kernels keep no reference to what they read (each returns only
    results of its own: a fused kernel, a reduction, a matrix product...)."""
    return all(r.kind == FUSED or (r.kind == EXTERN and all(
        result_is_fresh(r, s) for s in r.stores)) for r in readers)


def producers(prog: Program) -> Dict[int, Kernel]:
    """id of each value a kernel of prog stores -> that kernel."""
    return {id(v): k for k in prog.kernels for v in k.stores}


def loaders(prog: Program) -> Dict[int, List[Kernel]]:
    """id of each value kernels of prog load -> those kernels, in order."""
    out: Dict[int, List[Kernel]] = {}
    for k in prog.kernels:
        for v in k.loads:
            out.setdefault(id(v), []).append(k)
    return out


def _keeps_no_reference(k: Kernel) -> bool:
    """Whether nothing k returns can share memory with what it loads (an If or Loop
    may return its inputs; a shape op, a view of them)."""
    return k.kind == FUSED or (k.kind == EXTERN and all(_is_fresh(k, o) for o in k.stores))


def _plan_memory(prog: Program) -> None:
    """Fill in each kernel's frees and reusable loads.

    A value's last use is the last kernel loading it (its aliases' uses count as its
    own); a result of the graph is used at the end and never freed here. A value
    nothing reads is freed right after the kernel that made it. A buffer may be
    overwritten by the kernel where its value dies if the program allocated it
    (a fused kernel's or a fresh extern's result) and no kernel that may return a
    view of it, or it itself (If, Loop), has read it.
    """
    end = len(prog.kernels)
    last: Dict[int, int] = {}
    for i, k in enumerate(prog.kernels):
        for v in k.loads:
            last[id(v)] = i
    for r in prog.graph.results:
        last[id(prog.root(r))] = end
    consts = {id(n.outputs[0]) for n in prog.consts}
    holders: Dict[int, int] = {}      # value -> kernels that may keep a reference to it
    for k in prog.kernels:
        if not _keeps_no_reference(k):
            for v in k.loads:
                holders[id(v)] = holders.get(id(v), 0) + 1
    fresh, made = set(), set()
    for i, k in enumerate(prog.kernels):
        for v in k.stores:
            if _is_fresh(k, v):
                made.add(id(v))
                if id(v) not in holders:
                    fresh.add(id(v))
            j = last.get(id(v))
            if j is None:
                k.frees.append(v)
            elif j < end:
                prog.kernels[j].frees.append(v)
    if prog.top:
        for p in prog.graph.params:
            j = last.get(id(p))
            if j is None:
                prog.entry_frees.append(p)
            elif j < end:
                prog.kernels[j].frees.append(p)
    for i, k in enumerate(prog.kernels):
        k.frees = [v for v in k.frees if id(v) not in consts]
        if k.kind == FUSED:
            k.reusable = tuple(v for v in k.loads
                               if id(v) in fresh and last.get(id(v)) == i)
        elif k.kind == CONTROL and k.node.op == "Loop":
            # a new array only this Loop holds, dying at it: the body may write into it
            k.reusable = tuple(v for v in k.loads if id(v) in made and
                               holders.get(id(v)) == 1 and last.get(id(v)) == i)


# -- printing ---------------------------------------------------------------------------------
_COMMENT_COL = 60


def _name_like_printer(g: Graph, namer: Namer) -> None:
    """Name every value in the order format_graph does, so that the lowered program
    and `print(graph)` call each value by one name."""
    for p in g.params:
        namer(p)
    for node in g.nodes:
        for o in node.outputs:
            namer(o)
        for sub in node.subgraphs():
            namer.graph_name(sub)
            _name_like_printer(sub, namer)


def _arg(prog: Program, v: Value, namer: Namer) -> str:
    p = v.producer
    if p is not None and p.op == "Const":
        return _fmt_attr(p.attrs["value"], namer)
    return f"%{namer(v)}"


def _with_loc(text: str, node: Node) -> str:
    if node.loc is None:
        return text
    return text.ljust(_COMMENT_COL) + f"  # {node.loc.short()}"


def _node_text(prog: Program, node: Node, namer: Namer) -> str:
    args = ", ".join(_arg(prog, v, namer) for v in node.inputs)
    attrs = _node_attrs(node, namer) if node.op not in ("If", "Loop") else ""
    return f"{node.op}({args})" + (f" {attrs}" if attrs else "")


def _program_lines(prog: Program, namer: Namer, indent: str, keyword: str) -> List[str]:
    g = prog.graph
    params = ", ".join(f"%{namer(p)}: {p.type}" for p in g.params)
    out = [f"{indent}{keyword} {namer.graph_name(g)}({params}) {{"]
    inner = indent + "  "
    if prog.entry_frees:
        out.append(inner + "free " + ", ".join(f"%{namer(v)}" for v in prog.entry_frees))
    aliases = [n for n in g.nodes if _is_alias(n)]
    for n in aliases:
        out.append(_with_loc(f"{inner}%{namer(n.outputs[0])} = alias "
                             f"%{namer(prog.root(n.outputs[0]))}  ({n.op})", n))
    for k in prog.kernels:
        outs = ", ".join(f"%{namer(o)}: {o.type}" for o in k.stores)
        target = f"{outs} = " if outs else ""
        if k.kind == FUSED and len(k.nodes) == 1:
            out.append(_with_loc(f"{inner}{target}fused {_node_text(prog, k.node, namer)}",
                                 k.node))
        elif k.kind == FUSED:
            loads = ", ".join(_arg(prog, v, namer) for v in k.loads)
            reuse = ""
            if k.reusable:
                reuse = "  may reuse " + ", ".join(f"%{namer(v)}" for v in k.reusable)
            out.append(f"{inner}{target}fused({loads}) {{{reuse}")
            for n in k.nodes:
                out.append(_with_loc(f"{inner}  %{namer(n.outputs[0])} = "
                                     f"{_node_text(prog, n, namer)}", n))
            out.append(f"{inner}}}")
        else:
            word = "extern " if k.kind == EXTERN else ""
            out.append(_with_loc(f"{inner}{target}{word}{_node_text(prog, k.node, namer)}",
                                 k.node))
            for name, body in k.bodies.items():
                out.extend(_program_lines(body, namer, inner + "  ", name))
        if k.frees:
            out.append(inner + "free " + ", ".join(f"%{namer(v)}" for v in k.frees))
    out.append(f"{inner}return" + "".join((", " if i else " ") + _arg(prog, r, namer)
                                          for i, r in enumerate(g.results)))
    out.append(indent + "}")
    return out
