"""Recognizing graphjit's own export patterns, so that graphjit -> ONNX -> graphjit
gives back the op (exporter.py's table: every node made for one graphjit node is
named `gj.Op.n` or `gj.Op.n/k`).

    ONNX (from the exporter):  gj.Rsqrt.14/0 = Sqrt(x); gj.Rsqrt.14/1 = Reciprocal(.)
    IR after the node-by-node translation:  Sqrt(x), Reciprocal(.)
    IR after recognition:                   Rsqrt(x)

A name is only a claim: the group is replaced by the named op only when both give
identical values (dtype, NaN and signed zeros included) on probe inputs covering
each input dtype's special values, so a file whose names lie keeps ONNX's meaning.
Only pure elementwise ops without attributes are recognized (their meaning is
pointwise, so probes decide it); the inputs are tried in each order.
"""
from __future__ import annotations

import itertools
import re
from typing import Dict, List, Optional

import numpy as np

from ..ir.graph import Value
from ..ir.registry import get_op, has_op
from .import_ops import evaluate

__all__ = ["GROUP_NAME", "collapse_group"]

GROUP_NAME = re.compile(r"gj\.([A-Za-z][A-Za-z0-9_]*)\.(\d+)(?:/\d+)?$")

_FLOAT_PROBES = [-np.inf, -1e5, -3.5, -2.0, -1.0, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.5, 1.0,
                 2.0, 2.5, 3.0, 7.25, 1e5, np.inf, np.nan]
_INT_PROBES = [-7, -3, -2, -1, 0, 1, 2, 3, 5, 8]
_BOOL_PROBES = [False, True]


def _probes(dtype) -> np.ndarray:
    if dtype.is_bool:
        vals = _BOOL_PROBES
    elif dtype.is_integer:
        info = np.iinfo(dtype.np)
        vals = [v for v in _INT_PROBES if info.min <= v <= info.max] + [info.min, info.max]
    else:
        vals = _FLOAT_PROBES
    return np.array(vals, dtype=dtype.np)


def _inputs_of(values: List[Value]) -> List[np.ndarray]:
    """One probe array per input, all of one length (the cartesian product)."""
    grids = np.meshgrid(*[_probes(v.dtype) for v in values], indexing="ij")
    return [g.reshape(-1) for g in grids]


def collapse_group(graph, op: str, externals: List[Value], out: Value) -> Optional[Value]:
    """A node `op(*externals)` (in some order) equal to `out`, or None."""
    if not has_op(op) or not 1 <= len(externals) <= 2:
        return None
    opdef = get_op(op)
    if opdef.family != "elementwise" or opdef.attrs or opdef.effects is not None or \
            len(opdef.inputs) != len(externals) or opdef.variadic:
        return None
    probes = _inputs_of(externals)
    env: Dict[int, np.ndarray] = {id(v): p for v, p in zip(externals, probes)}
    with np.errstate(all="ignore"):
        want = evaluate(out, env)
    if want is None:
        return None
    for order in itertools.permutations(range(len(externals))):
        args = [externals[i] for i in order]
        try:
            types = opdef.infer_types([v.type for v in args], {}, None)
        except Exception:   # the op does not take these types
            continue
        if list(types) != [out.type]:
            continue
        kernel = opdef.make_kernel([v.type for v in args], types, {})
        try:
            with np.errstate(all="ignore"):
                got = np.asarray(kernel(*[env[id(v)] for v in args]))
        except Exception:   # the op fails on a probe the pattern takes: not the same op
            continue
        if got.dtype == want.dtype and got.shape == want.shape and _identical(got, want):
            return graph.apply(op, *args)
    return None


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True) and
                    np.array_equal(np.signbit(a), np.signbit(b)))
    return bool(np.array_equal(a, b))


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
