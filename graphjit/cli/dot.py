"""A graph as Graphviz `dot` text: what `graphjit draw` renders.

Each node is a box labelled with its op, its type and the user's source line; a
constant input is written into the label of the node that reads it (`Add(., 1.0)`).
An `If` is a diamond over two clusters, its branches; a `Loop` is a header over one
cluster, its body, with the port map on the edges: `slice axis=0` into the body,
`back edge` from a body result to the parameter it feeds next time, `concat axis=0`
(the stacked outputs) or `last` out of it, `condition` back to the header. Given the
lowered program, fused elementwise kernels of several nodes are outlined (dashed
blue clusters) and each node is filled by its kernel's kind.

    text = to_dot(model.graph, model.lowered)
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from ..backend.lowering import EXTERN, FUSED, Program
from ..ir.graph import Graph, Node, Value
from ..ir.printer import Namer
from ..ir.registry import REQUIRED, get_op, has_op

__all__ = ["to_dot"]

_FILL = {FUSED: "#dbe9f6", EXTERN: "#ffffff", None: "#f2f2f2"}
_MAX_ATTR = 28          # longer attribute texts are left out of labels


def _quote(text: str) -> str:
    """A dot string: quotes and backslashes escaped, newlines as centred breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(**kw) -> str:
    parts = [f"{k}={v if k in ('lhead', 'ltail') else _quote(str(v))}"
             for k, v in kw.items() if v is not None]
    return f" [{', '.join(parts)}]" if parts else ""


def _const_text(a: np.ndarray) -> str:
    if a.size == 1:
        v = str(a.reshape(-1)[0])     # numpy's shortest text for the dtype: 0.9, not 0.899...
        return v if a.ndim == 0 else f"[{v}]" if a.ndim == 1 else f"{v} {list(a.shape)}"
    if a.size <= 4:
        return np.array2string(a, separator=",").replace("\n", "")
    return f"<{a.dtype.name}{list(a.shape)}>"


def _attr_text(v) -> Optional[str]:
    if isinstance(v, Graph):
        return None
    if isinstance(v, np.ndarray):
        return _const_text(v)
    text = str(v) if not isinstance(v, (str, tuple, list)) else repr(v).replace(" ", "")
    return text if len(text) <= _MAX_ATTR else None


def _node_attr_lines(node: Node) -> List[str]:
    """`axis=0 keep_dims=True`: attributes that differ from the op's defaults."""
    defaults = get_op(node.op).attrs if has_op(node.op) else {}
    parts = []
    for k, v in node.attrs.items():
        d = defaults.get(k, REQUIRED)
        try:
            same = d is not REQUIRED and type(d) is type(v) and bool(d == v)
        except Exception:   # an attribute whose == is not a truth value (an array)
            same = False
        if same:
            continue
        text = _attr_text(v)
        if text is not None:
            parts.append(f"{k}={text}")
    return [" ".join(parts)] if parts else []


def _const_of(v: Value) -> Optional[np.ndarray]:
    p = v.producer
    return p.attrs["value"] if p is not None and p.op == "Const" else None


def _layer_groups(g: Graph) -> Dict[int, List[Node]]:
    """Runs of consecutive nodes made by graphjit's own layers for one line of the
    user's (a location in graphjit's files whose chain starts at that line): node id
    -> its run."""
    out: Dict[int, List[Node]] = {}
    run: List[Node] = []
    key = None

    def close():
        for n in run:
            out[id(n)] = list(run)
    for node in g.nodes:
        if node.op == "Const":
            continue
        loc = node.loc
        k = None
        if loc is not None and loc.caller is not None and loc.in_library:
            user = loc.user()
            if not user.in_library:
                k = (user.file, user.line, user.col)
        if k is None or k != key:
            close()
            run = []
        key = k
        if k is not None:
            run.append(node)
    close()
    return out


def _loc_text(node: Node) -> Optional[str]:
    return node.loc.short() if node.loc is not None else None


class _Writer:
    def __init__(self, graph: Graph, program: Optional[Program], expand_layers: bool = False):
        self.graph = graph
        self.expand_layers = expand_layers
        self.pending: List[Tuple[str, Value, str]] = []   # edges into layer boxes
        self.out: List[str] = []
        self.edges: List[str] = []
        self.count = 0
        self.source: Dict[int, Tuple[str, Optional[str]]] = {}   # value -> (dot id, tail label)
        self.kind: Dict[int, str] = {}          # node -> FUSED or EXTERN
        self.kernel_of: Dict[int, int] = {}     # node -> index of its multi-node fused kernel
        self.kernels: List = []
        self.clusters = {"if": 0, "loop": 0, "fused": 0}
        if program is not None:
            for k in program.walk():
                if k.kind in (FUSED, EXTERN):
                    for n in k.nodes:
                        self.kind[id(n)] = k.kind
                if k.kind == FUSED and len(k.nodes) > 1:
                    for n in k.nodes:
                        self.kernel_of[id(n)] = len(self.kernels)
                    self.kernels.append(k)
        self.lowered = program is not None
        self.namer = Namer()
        _name_like_printer(graph, self.namer)

    def user_name(self, v: Value) -> str:
        """The user's name of a value (`x`), else its printed name."""
        return v.name if v.name else self.name(v)

    def name(self, v: Value) -> str:
        """The value's name in `print(graph)`: `%out_2`."""
        return "%" + self.namer(v)

    def new_id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, indent: str, text: str) -> None:
        self.out.append(indent + text)

    # -- values ---------------------------------------------------------------------------------
    def src(self, v: Value, indent: str) -> Tuple[str, Optional[str]]:
        """The dot node an edge carrying v starts at (a constant gets a node of its own
        where it is first needed as an edge)."""
        got = self.source.get(id(v))
        if got is not None:
            return got
        a = _const_of(v)
        if a is None:
            raise ValueError(f"the value {v!r} has no producer drawn before its use")
        nid = self.new_id("c")
        self.emit(indent, f"{nid}{_attrs(label=_const_text(a), shape='plaintext')};")
        self.source[id(v)] = (nid, None)
        return self.source[id(v)]

    def edge(self, indent: str, v: Value, head: str, label: Optional[str] = None,
             **style) -> None:
        tail, port = self.src(v, indent)
        text = label if label is not None else port
        self.link(tail, head, label=text, **style)

    def link(self, tail: str, head: str, **style) -> None:
        """An edge, written after every node: an edge inside a cluster's block would
        pull both its ends into the cluster."""
        self.edges.append(f"{tail} -> {head}{_attrs(**style)};")

    def value_node(self, indent: str, v: Value, label: str, **style) -> str:
        nid = self.new_id("v")
        self.emit(indent, f"{nid}{_attrs(label=label, **style)};")
        self.source[id(v)] = (nid, None)
        return nid

    # -- graphs ---------------------------------------------------------------------------------
    def body(self, g: Graph, indent: str, param_labels: Dict[int, str],
             skip_results=()) -> str:
        """A subgraph's parameters and nodes; returns an invisible anchor inside it that
        edges into the cluster point at. Constant results (but those in skip_results)
        get their nodes inside it."""
        anchor = self.new_id("a")
        self.emit(indent, f"{anchor} [shape=point, style=invis, width=0];")
        for i, p in enumerate(g.params):
            name = param_labels.get(i, self.name(p))
            self.value_node(indent, p, f"{name}\n{p.type}", shape="ellipse",
                            style="dashed", fontsize="9")
        self.nodes(g, indent)
        # the anchor is above the body's first values: an edge into it puts the whole
        # cluster below the If or Loop that runs it
        for p in g.params:
            self.link(anchor, self.source[id(p)][0], style="invis")
        for node in g.nodes:      # nodes that read only constants start the body too
            if node.op == "Const" or not node.outputs or \
                    any(_const_of(v) is None for v in node.inputs):
                continue
            self.link(anchor, self.source[id(node.outputs[0])][0], style="invis")
        for i, r in enumerate(g.results):
            if _const_of(r) is not None and i not in skip_results:
                self.src(r, indent)
        return anchor

    def nodes(self, g: Graph, indent: str) -> None:
        """The graph's nodes in order; a fused kernel of several nodes is drawn as a
        cluster where its last node is: its nodes may read values made between them
        (`Exp(x)`, then `MatMul`, then `Add` of both), and only its last node's value
        is read outside it. The nodes built from graphjit's own layers for one line of
        the user's are one box named by that line (unless expand_layers)."""
        groups = {} if self.expand_layers else _layer_groups(g)
        drawn = set()
        for node in g.nodes:
            if node.op == "Const":
                continue
            grp = groups.get(id(node))
            if grp is not None:
                if id(grp[0]) not in drawn:
                    drawn.add(id(grp[0]))
                    self.layer_box(grp, indent)
                continue
            k = self.kernel_of.get(id(node))
            if k is None:
                self.node(node, indent)
                continue
            kernel = self.kernels[k]
            mine = [n for n in kernel.nodes if id(n) not in groups]
            if node is not mine[-1]:
                continue
            if len(mine) == 1:
                self.node(node, indent)
                continue
            self.clusters["fused"] += 1
            self.emit(indent, f"subgraph cluster_fused_{self.clusters['fused']} {{")
            inner = indent + "  "
            ops = ", ".join(n.op for n in kernel.nodes)
            self.emit(inner, f"label={_quote(f'fused kernel: {ops}')}; style=dashed; "
                             f"color=\"#2b6cb0\"; fontcolor=\"#2b6cb0\"; fontsize=9;")
            for n in mine:
                self.node(n, inner)
            self.emit(indent, "}")
        if not self.expand_layers:
            pending, self.pending = self.pending, []
            done = set()
            for box, v, _ in pending:
                tail, port = self.src(v, indent)
                if (tail, box) not in done:     # two values of one box: one edge
                    done.add((tail, box))
                    self.link(tail, box, label=port)

    def layer_box(self, group: List[Node], indent: str) -> None:
        """One box for the nodes graphjit's layers made for one line of the user's: the
        values it reads come in, the values it makes go out (edges drawn after every
        node of the graph: a fused kernel may draw a producer later)."""
        user = group[0].loc.user()
        nid = self.new_id("layer")
        text = user.text.strip()
        if len(text) > 48:
            text = text[:45] + "..."
        ops_ = sorted({n.op for n in group})
        what = ", ".join(ops_[:4]) + (", ..." if len(ops_) > 4 else "")
        label = (f"{text}\n{user.short()}: graphjit layer code, {len(group)} node"
                 f"{'s' if len(group) != 1 else ''} ({what})")
        self.emit(indent, f"{nid}{_attrs(label=label, shape='box3d', style='filled', fillcolor='#edf2f7')};")
        inside = {id(n) for n in group}
        seen = set()
        for n in group:
            for v in n.inputs:
                p = v.producer
                if (p is not None and id(p) in inside) or _const_of(v) is not None or \
                        id(v) in seen:
                    continue
                seen.add(id(v))
                self.pending.append((nid, v, ""))
            for o in n.outputs:
                self.source[id(o)] = (nid, None)

    def node(self, node: Node, indent: str) -> None:
        if node.op == "If":
            return self.if_node(node, indent)
        if node.op == "Loop":
            return self.loop_node(node, indent)
        nid = self.new_id("n")
        consts = [_const_of(v) for v in node.inputs]
        if any(c is not None for c in consts):
            head = f"{node.op}(" + ", ".join("." if c is None else _const_text(c)
                                            for c in consts) + ")"
        else:
            head = node.op
        lines = [head] + _node_attr_lines(node)
        lines.append(", ".join(str(o.type) for o in node.outputs) or "no outputs")
        if node.loc is not None:
            lines.append(node.loc.short())
        kind = self.kind.get(id(node))
        style = "rounded,filled" if self.lowered or kind else "rounded"
        if self.lowered and kind is None:
            style = "rounded,filled,dashed"    # an alias (Identity): no kernel of its own
        self.emit(indent, f"{nid}{_attrs(label=chr(10).join(lines), shape='box', style=style, fillcolor=_FILL.get(kind) if self.lowered else None)};")
        for v, c in zip(node.inputs, consts):
            if c is None:
                self.edge(indent, v, nid)
        for i, o in enumerate(node.outputs):
            self.source[id(o)] = (nid, f"out {i}" if len(node.outputs) > 1 else None)

    def outputs(self, node: Node, indent: str) -> List[str]:
        return [self.value_node(indent, o, f"{self.name(o)}\n{o.type}",
                                shape="ellipse", fontsize="9")
                for o in node.outputs]

    def if_node(self, node: Node, indent: str) -> None:
        self.clusters["if"] += 1
        k = self.clusters["if"]
        nid = self.new_id("if")
        where = _loc_text(node)
        self.emit(indent, f"{nid}{_attrs(label='If' + (chr(10) + where if where else ''), shape='diamond', style='filled', fillcolor='#fff4d6')};")
        self.edge(indent, node.inputs[0], nid, "condition")
        anchors = {}
        for attr, word in (("then_graph", "then"), ("else_graph", "else")):
            g = node.attrs[attr]
            self.emit(indent, f"subgraph cluster_if{k}_{word} {{")
            inner = indent + "  "
            self.emit(inner, f"label={_quote(word + ' branch' + (f' (if at {where})' if where else ''))}; "
                             f"style=rounded; color=\"#b7791f\";")
            anchors[word] = self.body(g, inner, {})
            self.emit(indent, "}")
            for i, p in enumerate(g.params):
                self.edge(indent, node.inputs[1 + i], self.source[id(p)][0])
        self.link(nid, anchors["then"], label="true", lhead=f"cluster_if{k}_then", style="dotted")
        self.link(nid, anchors["else"], label="false", lhead=f"cluster_if{k}_else",
                  style="dotted")
        outs = self.outputs(node, indent)
        for attr, word in (("then_graph", "then"), ("else_graph", "else")):
            g = node.attrs[attr]
            for r, out in zip(g.results, outs):
                self.edge(indent, r, out, word)

    def loop_node(self, node: Node, indent: str) -> None:
        a, body = node.attrs, node.attrs["body"]
        self.clusters["loop"] += 1
        k = self.clusters["loop"]
        nid = self.new_id("loop")
        where = _loc_text(node)
        trip, cond = node.inputs[0], node.inputs[1]
        lines = ["Loop"]
        tc = _const_of(trip)
        sliced = [(li, axis) for li, _, axis in a["input_map"] if axis is not None]
        if sliced:      # `for row in x`: as many iterations as x has rows
            li, axis = sliced[0]
            of = self.user_name(node.inputs[li])
            lines.append(f"one iteration per row of {of}" if axis == 0 else
                         f"one iteration per slice of {of} along axis {axis}")
        if tc is not None:
            n = int(tc.reshape(-1)[0])
            if n >= 0 or not sliced:
                lines.append("no trip count" if n < 0 else f"at most {n} trips" if sliced
                             else f"{n} trips")
        c0 = _const_of(cond)
        if c0 is not None and not bool(c0.reshape(-1)[0]):
            lines.append("first condition false: no trips")
        ci = a["condition_result"]
        body_cond = _const_of(body.results[ci]) if 0 <= ci < len(body.results) else None
        if body_cond is not None and not (sliced and bool(body_cond.reshape(-1)[0])):
            lines.append("condition always true" if bool(body_cond.reshape(-1)[0]) else
                         "stops after one trip")
        if where:
            lines.append(where)
        self.emit(indent, f"{nid}{_attrs(label=chr(10).join(lines), shape='hexagon', style='filled', fillcolor='#e6f4ea')};")
        if tc is None:
            self.edge(indent, trip, nid, "trip count")
        if c0 is None:
            self.edge(indent, cond, nid, "first condition")
        labels = {}
        if a["current_iteration"] != -1:
            it = body.params[a["current_iteration"]]
            labels[a["current_iteration"]] = f"{self.name(it)} (iteration)"
        back_targets = {bp for _, bp in a["back_edges"]}
        self.emit(indent, f"subgraph cluster_loop{k}_body {{")
        inner = indent + "  "
        self.emit(inner, f"label={_quote('Loop body' + (f' (loop at {where})' if where else ''))}; "
                         f"style=rounded; color=\"#2f855a\";")
        anchor = self.body(body, inner, labels, {ci} if body_cond is not None else ())
        self.emit(indent, "}")
        self.link(nid, anchor, label="each iteration", lhead=f"cluster_loop{k}_body",
                  style="dotted")
        for li, bp, axis in a["input_map"]:
            label = (f"slice axis={axis}" if axis is not None else
                     "initial" if bp in back_targets else None)
            self.edge(indent, node.inputs[li], self.source[id(body.params[bp])][0], label,
                      style="bold" if axis is not None else None)
        for ri, bp in a["back_edges"]:
            self.edge(indent, body.results[ri], self.source[id(body.params[bp])][0],
                      "back edge", style="dashed", color="#c53030", fontcolor="#c53030",
                      constraint="false")
        if body_cond is None and 0 <= ci < len(body.results):
            self.edge(indent, body.results[ci], nid, "condition", style="dashed",
                      color="#2f855a", fontcolor="#2f855a", constraint="false")
        outs = self.outputs(node, indent)
        for out, (ri, axis) in zip(outs, a["output_map"]):
            label = f"concat axis={axis}" if axis is not None else "last"
            self.edge(indent, body.results[ri], out, label)

    def write(self, title: str) -> str:
        self.emit("", "digraph graphjit {")
        ind = "  "
        self.emit(ind, f"label={_quote(title)}; labelloc=t; fontname=Helvetica; compound=true;")
        self.emit(ind, "node [fontname=Helvetica, fontsize=10];")
        self.emit(ind, "edge [fontname=Helvetica, fontsize=9];")
        for i, p in enumerate(self.graph.params):
            if p.type.kind == "state":     # no input of the user's: the order of state
                self.value_node(ind, p, "state\n(orders Parameter reads and writes)",
                                shape="note", style="dashed", fontsize="9")
                continue
            self.value_node(ind, p, f"{self.name(p)}\n{p.type}", shape="invhouse", style="filled",
                            fillcolor="#fefcbf")
        self.nodes(self.graph, ind)
        k = 0
        for r in self.graph.results:
            out = self.new_id("out")
            if r.type.kind == "state":     # not an output the user gets: a note
                from .targets import updated_parameters
                names = updated_parameters(self.graph)
                if not names:       # the Parameters are only read
                    continue
                label = "note: updates " + ", ".join(names)
                self.emit(ind, f"{out}{_attrs(label=label, shape='note', style='dashed', fontsize='9')};")
                self.edge(ind, r, out, style="dashed")
                continue
            self.emit(ind, f"{out}{_attrs(label=f'output {k}' + chr(10) + str(r.type), shape='house', style='filled', fillcolor='#fefcbf')};")
            self.edge(ind, r, out)
            k += 1
        self.out.extend(ind + e for e in self.edges)
        self.emit("", "}")
        return "\n".join(self.out) + "\n"


def _name_like_printer(g: Graph, namer: Namer) -> None:
    """Name every value in the order `print(graph)` does, so that the picture and the
    printed IR call each value by one name."""
    for p in g.params:
        namer(p)
    for node in g.nodes:
        for o in node.outputs:
            namer(o)
        for sub in node.subgraphs():
            namer.graph_name(sub)
            _name_like_printer(sub, namer)


def to_dot(graph: Graph, program: Optional[Program] = None, title: Optional[str] = None,
           expand_layers: bool = False) -> str:
    """The graph as dot text.

    Args:
        graph: the IR graph (If/Loop bodies are drawn nested).
        program: its lowered program, to outline fused kernels; None draws the
            graph alone.
        title: the picture's caption (the graph's name by default).
        expand_layers: draw each node graphjit's built-in layers made; by default the
            nodes of the layers one line of the user's calls are one box named by
            that line.

    Returns:
        The text of a `digraph`: one cluster per If branch (`cluster_ifK_then`,
        `cluster_ifK_else`), per Loop body (`cluster_loopK_body`) and per fused
        kernel of several nodes (`cluster_fused_K`).
    """
    w = _Writer(graph, program, expand_layers)
    caption = title or graph.name or "graph"
    if program is not None:
        kinds = [k for k in program.walk() if k.kind in (FUSED, EXTERN)]
        fused = sum(1 for k in kinds if k.kind == FUSED)
        caption += (f"\n{len(kinds)} kernels: {fused} fused (blue), {len(kinds) - fused} "
                    f"extern (white); dashed blue: a fused kernel of several nodes")
    return w.write(caption)
