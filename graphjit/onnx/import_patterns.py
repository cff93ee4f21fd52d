"""Recognizing graphjit's own export patterns, so that graphjit -> ONNX -> graphjit
gives back the op (exporter.py's table: every node made for one graphjit node is
named `gj.Op.n` or `gj.Op.n/k`).

    ONNX (from the exporter):  gj.Rsqrt.14/0 = Sqrt(x); gj.Rsqrt.14/1 = Reciprocal(.)
    IR after the node-by-node translation:  Sqrt(x), Reciprocal(.)
    IR after recognition:                   Rsqrt(x)

A name is only a claim: the group is replaced by the named op only when its nodes
are, node for node, what the exporter writes for that op on inputs of those types
(op types, attributes, Constant values and wiring: `_same_structure`), and that
pattern is the op's own formula exactly: it is built of correctly rounded IEEE
operations (arithmetic, sqrt, fmod, floor, comparisons, casts, selects), which
give the same bits on every machine. Patterns holding a transcendental on floats
(Log1p's and Expm1's accurate formulas) only approximate numpy's kernel, so they
stay as they are. Nothing is decided by running values on the machine at hand, so
one file imports to the same IR everywhere, and a file whose names lie keeps
ONNX's meaning. Only pure elementwise ops without attributes are recognized; the
inputs are tried in each order.
"""
from __future__ import annotations

import functools
import itertools
import re
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..ir.graph import Value
from ..ir.types import TensorType
from ..ir.registry import get_op, has_op

__all__ = ["GROUP_NAME", "collapse_group", "pattern_of"]

GROUP_NAME = re.compile(r"gj\.([A-Za-z][A-Za-z0-9_]*)\.(\d+)(?:/\d+)?$")

# ONNX ops whose results are libm-style approximations (Pow: on floats; on integers it
# is exact): a pattern holding one of these for another op (Cos of an int32 is Cast
# and Cos, as graphjit computes it; Log1p holds a Log) computes a formula for the op, not
# graphjit's numpy kernel bit for bit (Log1p's Log-and-Div trick, Expm1's), and how
# far apart they are depends on the math library (numpy picks SIMD kernels by CPU).
_APPROXIMATE = frozenset({
    "Exp", "Log", "Tanh", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
    "Asinh", "Acosh", "Atanh", "Erf", "Sigmoid", "Softplus", "Softsign", "Pow", "Elu",
    "Selu", "Celu", "HardSigmoid", "Gelu", "Mish", "LogSoftmax", "Softmax"})


def collapse_group(graph, op: str, externals: List[Value], out: Value, nodes,
                   value_of) -> Optional[Value]:
    """A node `op(*externals)` (in some order) equal to `out`, or None.

    Args:
        op: the op the group's names claim.
        externals: the values the group reads from outside.
        out: the group's result.
        nodes: the group's NodeProtos, in the file's order.
        value_of: an ONNX name of the group's scope -> its Value (or None).
    """
    if not has_op(op) or not 1 <= len(externals) <= 2:
        return None
    opdef = get_op(op)
    if opdef.family != "elementwise" or opdef.attrs or opdef.effects is not None or \
            len(opdef.inputs) != len(externals) or opdef.variadic:
        return None
    if any(n.op_type in _APPROXIMATE and n.op_type.lower() != op.lower() and (
            n.op_type != "Pow" or _is_float(value_of(n.input[0]))) for n in nodes if n.input):
        return None     # e.g. Log1p's formula: Log and Div, not numpy's log1p
    for order in itertools.permutations(range(len(externals))):
        args = [externals[i] for i in order]
        try:
            types = opdef.infer_types([v.type for v in args], {}, None)
        except Exception:   # the op does not take these types
            continue
        if list(types) != [out.type]:
            continue
        pattern = _pattern(op, tuple(v.type for v in args))
        if pattern is not None and _same_structure(nodes, pattern, args, value_of):
            return graph.apply(op, *args)
    return None


def _is_float(v) -> bool:
    return isinstance(v, Value) and v.dtype.is_floating


@functools.lru_cache(maxsize=512)
def _pattern(op: str, types: tuple):
    return pattern_of(op, types)


def pattern_of(op: str, types: Sequence[TensorType]):
    """The nodes the exporter writes for one node `op(in0, in1, ...)` with inputs of
    these types (no attributes): (nodes, input names, output name), or None when
    graphjit or ONNX has no such node. The importer matches groups against it."""
    from types import SimpleNamespace
    from ..ir.errors import GraphJitError
    from ..ir.graph import Graph
    from .exporter import _drop_unread_constants, _Exporter, _Scope
    g = Graph("pattern")
    params = [g.add_param(t, f"in{i}") for i, t in enumerate(types)]
    try:
        out = g.apply(op, *params)
    except Exception:   # graphjit has no such node for these types
        return None
    if isinstance(out, tuple):
        return None
    g.set_results([out])
    ex = _Exporter(SimpleNamespace(graph=g, name="pattern"))
    names = []
    for p in params:
        ex.names[id(p)] = ex.fresh(p.name)
        names.append(ex.names[id(p)])
    scope = _Scope()
    try:
        ex.translate(g, scope)
    except GraphJitError:
        return None
    if ex.problems or id(out) not in ex.names:
        return None
    _drop_unread_constants(scope.nodes, [ex.names[id(out)]])   # as build() does
    return tuple(scope.nodes), tuple(names), ex.names[id(out)]


def _same_structure(nodes, pattern, args, value_of) -> bool:
    """Whether the file's nodes are the exporter's pattern node for node: the same op
    types, attributes (Constant values included) and wiring, with the pattern's inputs
    read from args."""
    pnodes, pin, pout = pattern
    if len(nodes) != len(pnodes):
        return False
    mapping: Dict[str, str] = {}
    for n, p in zip(nodes, pnodes):
        if n.op_type != p.op_type or (n.domain or "") != (p.domain or "") or \
                len(n.input) != len(p.input) or len(n.output) != len(p.output):
            return False
        for x, y in zip(n.input, p.input):
            if y in pin:
                if value_of(x) is not args[pin.index(y)]:
                    return False
            elif (x == "") != (y == "") or (y and mapping.get(x) != y):
                return False
        if not _same_attributes(n, p):
            return False
        for x, y in zip(n.output, p.output):
            if (x == "") != (y == ""):
                return False
            if x:
                mapping[x] = y
    return bool(nodes[-1].output) and mapping.get(nodes[-1].output[0]) == pout


def _same_attributes(n, p) -> bool:
    import onnx
    from onnx import helper, numpy_helper
    a = sorted(n.attribute, key=lambda t: t.name)
    b = sorted(p.attribute, key=lambda t: t.name)
    if [(t.name, t.type) for t in a] != [(t.name, t.type) for t in b]:
        return False
    for x, y in zip(a, b):
        if x.type == onnx.AttributeProto.TENSOR:
            try:
                u, v = numpy_helper.to_array(x.t), numpy_helper.to_array(y.t)
            except Exception:   # a tensor the file cannot give: not the pattern
                return False
            if u.dtype != v.dtype or u.shape != v.shape or u.tobytes() != v.tobytes():
                return False
        elif x.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS,
                        onnx.AttributeProto.TENSORS, onnx.AttributeProto.SPARSE_TENSOR,
                        onnx.AttributeProto.SPARSE_TENSORS, onnx.AttributeProto.TYPE_PROTO,
                        onnx.AttributeProto.TYPE_PROTOS):
            return False    # elementwise patterns have none
        elif helper.get_attribute_value(x) != helper.get_attribute_value(y):
            return False
    return True


# -- Loops: sliced inputs and concatenated outputs --------------------------------------------
def fold_loop_ports(graph) -> None:
    """Give back graphjit's Loop port map where ONNX has only Loop's own (exact rewrites,
    checked on the IR, names play no part):

    - a concatenated output: ONNX stacks the body's result r along a new axis 0 (the
      importer's ExpandDims(r, 0) in the body) and a Reshape merging dims 0 and 1 after
      the Loop gives the concatenation of r along 0; the Loop then concatenates r;
    - a sliced input: an invariant x the body reads only as Gather(x, [iteration],
      axis) is x sliced along the axis, when the trip count is a constant at most x's
      length there (then no Gather is out of range; a trip count equal to the length
      becomes -1: the slices end the Loop there).
    """
    for node in list(graph.nodes):
        for sub in node.subgraphs():
            fold_loop_ports(sub)
        if node.op == "Loop":
            node = _fold_concatenated(graph, node)
            _fold_sliced(graph, node)


def _fold_concatenated(g, loop):
    a = loop.attrs
    body = a["body"]
    results = list(body.results)
    out_map = list(a["output_map"])
    changed = []
    for k, (ri, axis) in enumerate(out_map):
        o = loop.outputs[k]
        r = results[ri]
        p = r.producer
        if axis != 0 or p is None or p.op != "ExpandDims" or p.attrs["axis"] != 0 or \
                len(r.users) or sum(x is r for x in results) != 1 or len(o.users) != 1:
            continue
        user = next(iter(o.users))
        if user.op != "Reshape" or any(x is o for x in g.results) or o.shape is None or \
                len(o.shape) < 2 or None in o.shape[:2]:
            continue
        if tuple(user.attrs["shape"]) != (o.shape[0] * o.shape[1],) + tuple(o.shape[2:]):
            continue
        changed.append((k, ri, p.inputs[0], user))
    if not changed:
        return loop
    for k, ri, inner, user in changed:
        results[ri] = inner
    body.set_results(results)
    with g.inserting_before(loop):
        new = g.add_node("Loop", loop.inputs, dict(a), loc=loop.loc,
                         names=[o.name for o in loop.outputs])
    reshaped = {k: user for k, _, _, user in changed}
    for k, (old, fresh) in enumerate(zip(loop.outputs, new.outputs)):
        if k in reshaped:
            user = reshaped[k]
            if fresh.type != user.outputs[0].type:
                raise AssertionError("a merged concatenation keeps its type")
            fresh.name = user.outputs[0].name
            g.replace_all_uses_with(user.outputs[0], fresh)
            g.erase_node(user)
        else:
            g.replace_all_uses_with(old, fresh)
    g.erase_node(loop)
    for _, _, inner, _ in changed:       # the ExpandDims the results no longer read
        for n in list(body.nodes):
            if n.op == "ExpandDims" and not n.outputs[0].users and \
                    all(r is not n.outputs[0] for r in body.results):
                body.erase_node(n)
    return new


def _fold_sliced(g, loop) -> None:
    import numpy as np
    from ..ir.control import sliced_type
    a = loop.attrs
    body = a["body"]
    ci = a["current_iteration"]
    trip = loop.inputs[0].producer
    if ci == -1 or trip is None or trip.op != "Const":
        return
    t = int(np.asarray(trip.attrs["value"]).reshape(-1)[0])
    it = body.params[ci]
    backed = {bp for _, bp in a["back_edges"]}
    input_map = list(a["input_map"])
    lengths = []
    for e, (li, bp, axis) in enumerate(input_map):
        if axis is not None or bp in backed:
            continue
        p = body.params[bp]
        x = loop.inputs[li]
        users = list(p.users)
        if not users or any(r is p for r in body.results) or p.shape is None:
            continue
        ax = set()
        for u in users:
            idx = u.inputs[1] if u.op == "Gather" and len(u.inputs) == 2 else None
            if idx is None or u.inputs[0] is not p or idx.producer is None or \
                    idx.producer.op != "ExpandDims" or idx.producer.inputs[0] is not it or \
                    idx.producer.attrs["axis"] not in (0, -1) or idx.shape != (1,):
                break
            ax.add(u.attrs["axis"] % len(p.shape))
        else:
            if len(ax) != 1:
                continue
            axis = ax.pop()
            n = p.shape[axis]
            if n is None or not 0 <= t <= n or x.type != p.type:
                continue
            p.type = sliced_type(p.type, axis)
            for u in users:
                body.replace_all_uses_with(u.outputs[0], p)
                body.erase_node(u)
            input_map[e] = (li, bp, axis)
            lengths.append(n)
    if not lengths:
        return
    loop.attrs = dict(a, input_map=tuple(input_map))
    if all(n == t for n in lengths) and len(trip.outputs[0].users) == 1:
        trip.attrs = dict(trip.attrs, value=np.array(-1, dtype=trip.attrs["value"].dtype))
        cond = loop.inputs[1].producer
        if cond is not None and cond.op == "Const":     # the front-end's order: -1, True
            g.nodes.remove(trip)
            g.nodes.insert(g.nodes.index(cond), trip)
    for n in list(body.nodes):
        if n.op == "ExpandDims" and n.inputs[0] is it and not n.outputs[0].users:
            body.erase_node(n)


def fold_stacks(graph) -> None:
    """Concat(ExpandDims(x1, a), ..., axis=a) is Stack(x1, ..., axis=a) (exact: the
    inputs of one type each get a new dim of size 1 there): graphjit's Stack again."""
    for node in list(graph.nodes):
        for sub in node.subgraphs():
            fold_stacks(sub)
        if node.op != "Concat" or not node.inputs:
            continue
        prods = [v.producer for v in node.inputs]
        if any(p is None or p.op != "ExpandDims" for p in prods):
            continue
        out_rank = node.outputs[0].type.rank
        if out_rank is None:
            continue
        axes = {p.attrs["axis"] % out_rank for p in prods}
        xs = [p.inputs[0] for p in prods]
        if len(axes) != 1 or node.attrs["axis"] % out_rank not in axes or \
                len({x.type for x in xs}) != 1:
            continue
        if any(set(v.users) != {node} or any(r is v for r in graph.results)
               for v in node.inputs):
            continue
        axis = prods[0].attrs["axis"]
        try:
            graph.rewrite_node(node, "Stack", xs, {"axis": axis})
        except Exception:       # a type the rewrite would change: keep the Concat
            continue
        for p in dict.fromkeys(prods):
            if not p.outputs[0].users:
                graph.erase_node(p)


_FULL = ("slice", None, None, None)


def fold_indexes(graph) -> None:
    """Gather(x, c, axis) of a constant scalar c inside x's known dim is Index(x, [:, ..,
    c]) (exact: both count a negative c from the end), and an Index of an Index made of
    full slices and ints is one Index: graphjit's basic indexing again."""
    import numpy as np
    for node in list(graph.nodes):
        for sub in node.subgraphs():
            fold_indexes(sub)
        if node.op == "Gather" and node.inputs[1].producer is not None and \
                node.inputs[1].producer.op == "Const":
            x, c = node.inputs[0], np.asarray(node.inputs[1].producer.attrs["value"])
            if c.shape != () or c.dtype.kind not in "iu" or x.shape is None:
                continue
            a = node.attrs["axis"] % max(len(x.shape), 1)
            d = x.shape[a] if x.shape else None
            if d is None or not -d <= int(c) < d:
                continue
            try:
                graph.rewrite_node(node, "Index", [x], {"index": (_FULL,) * a + (int(c),)})
            except Exception:       # a type the rewrite would change: keep the Gather
                continue
        if node.op == "Index":
            inner = node.inputs[0].producer
            if inner is None or inner.op != "Index" or set(inner.outputs[0].users) != {node} \
                    or any(r is inner.outputs[0] for r in graph.results):
                continue
            merged = _compose(inner.attrs["index"], node.attrs["index"])
            if merged is None:
                continue
            try:
                graph.rewrite_node(node, "Index", [inner.inputs[0]], {"index": merged})
            except Exception:
                continue
            graph.erase_node(inner)


def _compose(k1, k2):
    """The key of x[k1][k2] when k1 holds only full slices and ints and k2 only full
    slices and ints (else None)."""
    if any(not (e == _FULL or _is_int(e)) for e in k1 + k2):
        return None
    out = list(k1)
    free = [i for i, e in enumerate(out) if e == _FULL]
    extra = []
    for j, e in enumerate(k2):
        if j < len(free):
            out[free[j]] = e
        else:
            extra.append(e)
    out += extra
    while out and out[-1] == _FULL:
        out.pop()
    return tuple(out)


def _is_int(e) -> bool:
    return isinstance(e, int) and not isinstance(e, bool)
