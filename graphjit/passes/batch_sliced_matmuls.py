"""Computes the matrix products of a tensor's slices with one fixed matrix as one
batched product, read back slice by slice (the input projection of an RNN).

In a Loop body, where x_t is a slice of the Loop's input along axis 0 and W is
invariant (an input without a back edge, or a body constant):

    %h = Loop(.., %xs, %w) body=@b                 %y = MatMul(%xs, %w)
      subgraph b(%s, %w1, ..) {                    %h = Loop(.., %xs, %w, %y) body=@b
        %x_t = Squeeze(%s) axis=0          ->        subgraph b(%s, %w1, .., %ys) {
        %1 = MatMul(%x_t, %w1)                         %1 = Squeeze(%ys) axis=0
    port_map { input %xs -> %s slice axis=0 }      port_map { .. input %y -> %ys slice axis=0 }

and likewise for Gather(%x, %iteration) axis=0 of an invariant %x (a `for` over a
range indexing a tensor). In straight-line code (an unrolled loop), the products
MatMul(Index(%x) index=(t,), %w) for most t of one %x and %w become one MatMul(%x, %w)
and an Index of it per t.

Bit for bit: numpy's matmul of [T, B, K] @ [K, N] runs the same [B, K] @ [K, N]
product (one BLAS call with the same shapes and strides) for each of the T slices
that a separate product of each slice runs; the slice itself must be a matrix (rank
>= 2). Reshaping to one [T * B, K] @ [K, N] product would be faster still but rounds
differently (BLAS blocks a taller matrix otherwise), as would a slice of rank 1
(matrix-vector products). tests/passes/test_batch_sliced_matmuls.py checks this
against the installed numpy. The Loop rewrite applies only to a Loop that runs to its
end (a constant true execution condition), so no product is computed in vain.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..ir.graph import Graph, Node, Value
from ..ir.types import TensorType, is_static
from .common import const_value, each_graph, make_const

__all__ = ["batch_sliced_matmuls"]

_MIN_SHARE = 0.5      # straight-line code: batch when at least this share of slices is used


def batch_sliced_matmuls(graph: Graph) -> Graph:
    """Apply the rewrites of the module docstring in the graph and its subgraphs."""
    def run(g: Graph) -> None:
        _straight_line(g)
        for node in list(g.nodes):
            if node.op == "Loop":
                _loop(g, node)
    each_graph(graph, run)
    return graph


def _plain_matmul(node: Node) -> bool:
    """A MatMul of two inputs of its own dtype, without transposes."""
    if node.op != "MatMul" or node.attrs["transpose_a"] or node.attrs["transpose_b"]:
        return False
    d = node.outputs[0].type.dtype
    return all(v.type.dtype is d for v in node.inputs)


def _batchable(x: Value, w: Value) -> bool:
    """x (the whole tensor, sliced along axis 0) has a static rank >= 3, so each slice
    is a matrix or a stack of them; w is a static matrix."""
    xs, ws = x.type.shape, w.type.shape
    return is_static(xs) and len(xs) >= 3 and xs[0] > 0 and is_static(ws) and len(ws) == 2


# -- straight-line code ---------------------------------------------------------------------
def _straight_line(g: Graph) -> None:
    groups: Dict[Tuple[int, int, int], List[Tuple[Node, int]]] = {}
    operands: Dict[Tuple[int, int, int], Tuple[Value, Value]] = {}
    for node in g.nodes:
        if not _plain_matmul(node):
            continue
        for side in (0, 1):
            s, w = node.inputs[side], node.inputs[1 - side]
            t = _index_of(s)
            if t is None:
                continue
            x = s.producer.inputs[0]
            if not _batchable(x, w):
                continue
            key = (id(x), id(w), side)
            groups.setdefault(key, []).append((node, t % x.type.shape[0]))
            operands[key] = (x, w)
            break
    for key, members in groups.items():
        x, w = operands[key]
        used = {t for _, t in members}
        if len(members) < 2 or len(used) < _MIN_SHARE * x.type.shape[0]:
            continue
        first = members[0][0]
        pair = (x, w) if key[2] == 0 else (w, x)
        y = g.add_node("MatMul", pair, loc=first.loc, before=first).outputs[0]
        for node, t in members:
            g.rewrite_node(node, "Index", (y,), {"index": (t,)})


def _index_of(s: Value) -> Optional[int]:
    """t when s is Index(x) index=(t,) with t an int, else None."""
    p = s.producer
    if p is None or p.op != "Index":
        return None
    index = p.attrs["index"]
    if len(index) != 1 or not isinstance(index[0], int) or isinstance(index[0], bool):
        return None
    return index[0]


# -- Loop bodies ---------------------------------------------------------------------------------
def _loop(g: Graph, loop: Node) -> None:
    a = loop.attrs
    body: Graph = a["body"]
    if const_value(body.results[a["condition_result"]]) is None or \
            not bool(const_value(body.results[a["condition_result"]]).all()):
        return
    back = {bp for _, bp in a["back_edges"]}
    invariant: Dict[int, Value] = {}        # id(body param) -> the Loop input
    sliced: Dict[int, Value] = {}
    for li, bp, axis in a["input_map"]:
        p = body.params[bp]
        if axis is None and bp not in back:
            invariant[id(p)] = loop.inputs[li]
        elif axis is not None and bp not in back:
            rank = loop.inputs[li].type.rank
            if rank and axis % rank == 0:
                sliced[id(p)] = loop.inputs[li]
    ci = a["current_iteration"]
    iteration = body.params[ci] if ci != -1 else None
    new_inputs: List[Value] = []
    input_map = list(a["input_map"])
    for node in list(body.nodes):
        if not _plain_matmul(node):
            continue
        for side in (0, 1):
            s, w = node.inputs[side], node.inputs[1 - side]
            outer_w = invariant.get(id(w))
            if outer_w is None and const_value(w) is not None:
                outer_w = w       # made outside below
            found = _sliced_source(s, sliced, invariant, iteration)
            if outer_w is None or found is None:
                continue
            x, how = found
            if not _batchable(x, w):
                continue
            if outer_w is w:
                outer_w = make_const(g, const_value(w), before=loop, loc=w.producer.loc)
            pair = (x, outer_w) if side == 0 else (outer_w, x)
            y = g.add_node("MatMul", pair, loc=node.loc, before=loop).outputs[0]
            li = len(loop.inputs) + len(new_inputs)
            new_inputs.append(y)
            if how == "slice":
                q = body.add_param(_sliced_type(y), node.outputs[0].name)
                input_map.append((li, len(body.params) - 1, 0))
                body.rewrite_node(node, "Squeeze", (q,), {"axis": 0})
            else:
                q = body.add_param(y.type, node.outputs[0].name)
                input_map.append((li, len(body.params) - 1, None))
                body.rewrite_node(node, "Gather", (q, iteration), {"axis": 0})
                if not s.users:
                    # the new Gather fails where this one would (same index, same
                    # length), so this one, which may fail, is no longer needed
                    body.erase_node(s.producer)
            break
    if new_inputs:
        attrs = dict(a)
        attrs["input_map"] = tuple(input_map)
        g.rewrite_node(loop, "Loop", list(loop.inputs) + new_inputs, attrs)


def _sliced_type(y: Value) -> TensorType:
    return TensorType(y.type.dtype, (1,) + tuple(y.type.shape[1:]))


def _sliced_source(s: Value, sliced: Dict[int, Value], invariant: Dict[int, Value],
                   iteration: Optional[Value]):
    """(the whole outer tensor, "slice" or "gather") when s is one slice of it along
    axis 0: Squeeze(p) axis=0 of a sliced parameter p, or Gather(p, iteration) axis=0
    of an invariant p."""
    n = s.producer
    if n is None:
        return None
    if n.op == "Squeeze" and n.attrs["axis"] in (0, (0,)) and id(n.inputs[0]) in sliced:
        return sliced[id(n.inputs[0])], "slice"
    if n.op == "Gather" and n.attrs["axis"] == 0 and iteration is not None and \
            n.inputs[1] is iteration and id(n.inputs[0]) in invariant and \
            iteration.type.shape == ():
        return invariant[id(n.inputs[0])], "gather"
    return None
