"""The text form of graphs: compact, stable and typed, the main debugging tool.

    graph construct(%x: f32[2,3], %c: bool[]) {
      %0: f32[2,3] = Add(%x, %x)                      # net.py:14
      return %0
    }
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from .dtypes import DType
from .types import TensorType

__all__ = ["format_graph", "Namer"]

_COMMENT_COL = 52


class Namer:
    """Gives every value one name, unique in the printed text, never reused."""

    def __init__(self):
        self.names: Dict[int, str] = {}
        self.taken = set()
        self.counter = 0

    def __call__(self, v) -> str:
        key = id(v)
        if key in self.names:
            return self.names[key]
        if v.name:
            base = v.name
            name = base
            i = 1
            while name in self.taken:
                name = f"{base}_{i}"
                i += 1
        else:
            while str(self.counter) in self.taken:
                self.counter += 1
            name = str(self.counter)
            self.counter += 1
        self.taken.add(name)
        self.names[key] = name
        return name

    def graph_name(self, g) -> str:
        key = ("graph", id(g))
        if key in self.names:
            return self.names[key]
        base = g.name or "graph"
        name, i = base, 1
        while ("g:" + name) in self.taken:
            name = f"{base}_{i}"
            i += 1
        self.taken.add("g:" + name)
        self.names[key] = name
        return name


def _fmt_attr(v, namer: Namer) -> str:
    from .graph import Graph
    if isinstance(v, Graph):
        return "@" + namer.graph_name(v)
    if isinstance(v, DType):
        return v.name
    if isinstance(v, TensorType):
        return str(v)
    if isinstance(v, np.ndarray):
        if v.size <= 8:
            body = np.array2string(v, separator=",", threshold=8).replace("\n", "")
            return f"{body}:{v.dtype.name}" if v.ndim else f"{v.item()!r}:{v.dtype.name}"
        return f"<{v.dtype.name}{list(v.shape)}>"
    if isinstance(v, tuple):
        return "(" + ",".join(_fmt_attr(x, namer) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ",".join(_fmt_attr(x, namer) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_fmt_attr(x, namer)}" for k, x in v.items()) + "}"
    return repr(v)


def _node_attrs(node, namer: Namer) -> str:
    if node.op == "Const":
        return ""
    if node.op == "If":
        return (f"then=@{namer.graph_name(node.attrs['then_graph'])} "
                f"else=@{namer.graph_name(node.attrs['else_graph'])}")
    if node.op == "Loop":
        return f"body=@{namer.graph_name(node.attrs['body'])}"
    return " ".join(f"{k}={_fmt_attr(v, namer)}" for k, v in node.attrs.items())


def _port_map_lines(node, namer: Namer, indent: str) -> List[str]:
    """The Loop's port map, one line per entry, in the body's value names:

        port_map {
          current_iteration %i
          execution_condition %c
          input %h0 -> %h              (invariant, or a back edge's first value)
          input %xs -> %x_t slice axis=0
          back_edge %h_next -> %h
          output %h_last <- %h_next    (the last iteration's value)
          output %ys <- %y concat axis=0
        }
    """
    a, body = node.attrs, node.attrs["body"]

    def pick(seq, i, label):
        ok = isinstance(i, int) and 0 <= i < len(seq)
        return f"%{namer(seq[i])}" if ok else f"<{label} {i!r}>"

    def axis_text(axis, verb):
        return "" if axis is None else f" {verb} axis={axis}"

    inner = indent + "  "
    out = [f"{indent}port_map {{"]
    if a["current_iteration"] != -1:
        out.append(f"{inner}current_iteration {pick(body.params, a['current_iteration'], 'param')}")
    out.append(f"{inner}execution_condition "
               f"{pick(body.results, a['condition_result'], 'result')}")
    for li, bp, axis in a["input_map"]:
        out.append(f"{inner}input {pick(node.inputs, li, 'input')} -> "
                   f"{pick(body.params, bp, 'param')}{axis_text(axis, 'slice')}")
    for ri, bp in a["back_edges"]:
        out.append(f"{inner}back_edge {pick(body.results, ri, 'result')} -> "
                   f"{pick(body.params, bp, 'param')}")
    for k, (ri, axis) in enumerate(a["output_map"]):
        out.append(f"{inner}output {pick(node.outputs, k, 'output')} <- "
                   f"{pick(body.results, ri, 'result')}{axis_text(axis, 'concat')}")
    out.append(f"{indent}}}")
    return out


def _lines(g, namer: Namer, indent: str, keyword: str) -> List[str]:
    params = ", ".join(f"%{namer(p)}: {p.type}" for p in g.params)
    out = [f"{indent}{keyword} {namer.graph_name(g)}({params}) {{"]
    inner = indent + "  "
    for node in g.nodes:
        outs = ", ".join(f"%{namer(o)}: {o.type}" for o in node.outputs)
        args = ", ".join(f"%{namer(i)}" for i in node.inputs)
        attrs = _node_attrs(node, namer)
        if node.op == "Const":
            args = _fmt_attr(node.attrs["value"], namer)
        text = (f"{outs} = " if outs else "") + f"{node.op}({args})" + (
            f" {attrs}" if attrs else "")
        text = inner + text
        if node.loc is not None:
            text = text.ljust(_COMMENT_COL) + f"  # {node.loc.short()}"
        out.append(text)
        for sub in node.subgraphs():
            out.extend(_lines(sub, namer, inner + "  ", "subgraph"))
        if node.op == "Loop" and "body" in node.attrs:
            out.extend(_port_map_lines(node, namer, inner + "  "))
    out.append(f"{inner}return" + "".join((", " if k else " ") + f"%{namer(r)}"
                                          for k, r in enumerate(g.results)))
    out.append(indent + "}")
    return out


def format_graph(g) -> str:
    """The graph as text; subgraphs are printed nested under the node that owns them,
    a Loop's port map after its body."""
    return "\n".join(_lines(g, Namer(), "", "graph"))
