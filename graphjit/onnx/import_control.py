"""ONNX If, Loop and Scan -> graphjit If and Loop with closed subgraphs.

    ONNX Loop(M, cond, v...) body(iter, cond_in, v...) -> (cond_out, v..., scan...)
    IR:  Loop(M, cond, [cond,] v..., outer...) body(i, [cond_in,] v..., outer...)
         results (cond_out, v..., ExpandDims(scan, 0)...); the scans concatenated
         along axis 0 (graphjit's Loop concatenates, ONNX stacks along a new axis)

The iteration and cond_in parameters are made only when the body reads them.
Scan becomes a Loop without a trip count whose scan inputs are sliced inputs
(each slice squeezed to the per-iteration shape ONNX's body takes). Scan of opset 8
has a batch axis 0 on every input and output: each row (the batch size known while
building) is such a Loop, the rows stacked.
"""
from __future__ import annotations

from typing import List

import numpy as np

from ..ir import dtypes as D
from ..ir.builders import ITERATION_TYPE
from ..ir.control import sliced_type
from ..ir.errors import GraphJitError
from ..ir.join import join_types
from ..ir.types import TensorType
from .import_ops import NodeCx

__all__ = ["CONTROL"]

_MAX_REBUILDS = 8


def _flag(cx: NodeCx, v, what: str):
    """A one-element bool (or int64 count) value as a scalar."""
    if v.shape is not None and len(v.shape) > 1:
        if any(d not in (1, None) for d in v.shape):
            raise cx.where.damaged(f"the {what} must hold one element, got {v.type}")
        return cx.emit("Reshape", v, shape=())
    return v


def _widen(old: TensorType, new: TensorType, cx: NodeCx, what: str) -> TensorType:
    """The type a carried parameter needs to hold both its entry and its exit value."""
    if old.dtype is not new.dtype:
        raise cx.where.damaged(f"{what} enters the body as {old.dtype} and leaves it as "
                               f"{new.dtype}")
    try:
        return join_types(old, new)
    except GraphJitError:
        return TensorType(old.dtype, None)    # ONNX lets a carried value change its rank


def _reads(tr, gp, name: str) -> bool:
    """Whether a body's nodes (nested bodies included) or outputs read `name`."""
    import onnx
    for n in gp.node:
        if name in n.input:
            return True
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH and name in tr.free_names(a.g):
                return True
    return any(o.name == name for o in gp.output)


def _check_declared_dtypes(cx, gp, types, what):
    from .import_read import value_type
    for vi, t in zip(gp.input, types):
        if vi.HasField("type") and vi.type.WhichOneof("value") == "tensor_type" and \
                vi.type.tensor_type.elem_type:
            declared = value_type(vi, cx.where / what)
            if declared.dtype is not t.dtype:
                raise cx.where.damaged(f"{what} input '{vi.name}' is declared "
                                       f"{declared.dtype}, but the node passes {t.dtype}")


# -- If -------------------------------------------------------------------------------------------
def _if(cx: NodeCx):
    cond = _flag(cx, cx.x(0), "condition")
    then_gp, else_gp = cx.attrs.graph("then_branch"), cx.attrs.graph("else_branch")
    for gp, label in ((then_gp, "then_branch"), (else_gp, "else_branch")):
        if len(gp.input):
            raise cx.where.damaged(f"the {label} graph takes inputs; If branches take none")
        if len(gp.output) != len(cx.node.output):
            raise cx.where.damaged(f"the {label} graph gives {len(gp.output)} outputs for the "
                                   f"node's {len(cx.node.output)}")
    from .import_ops import evaluate
    known = evaluate(cond)
    if known is not None and known.size == 1:
        # a condition computed from constants and static shapes: the branch it takes, as
        # nodes of this graph (the other may not even type-check with these shapes)
        taken = "then_branch" if bool(known.reshape(-1)[0]) else "else_branch"
        outs = cx.inline_graph(then_gp if taken == "then_branch" else else_gp, [],
                               cx.where / taken)
        return [cx.emit("Identity", v) if v.producer is None or v.producer.op == "Const" or
                any(v is o for o in cx.scope.names.values()) else v for v in outs]
    tr = cx.tr
    free = list(dict.fromkeys(tr.free_names(then_gp) + tr.free_names(else_gp)))
    # both branches take the same operands: every outer value either branch reads
    then_g, _, passed = tr.body(cx.scope, then_gp, cx.where / "then_branch", "then", (), free)
    else_g, _, _ = tr.body(cx.scope, else_gp, cx.where / "else_branch", "else", (), free)
    if not then_g.results:
        raise cx.where.damaged("an If must give at least one output")
    node = cx.g.add_node("If", [cond] + passed, {"then_graph": then_g, "else_graph": else_g})
    return list(node.outputs)


# -- Loop -----------------------------------------------------------------------------------------
def _loop(cx: NodeCx):
    body = cx.attrs.graph("body")
    n_carried = len(cx.names) - 2
    if n_carried < 0:
        raise cx.where.damaged("a Loop takes at least two inputs (M and cond, either may be "
                               "empty)")
    if len(body.input) != 2 + n_carried:
        raise cx.where.damaged(f"the body takes {len(body.input)} inputs; a Loop with "
                               f"{n_carried} carried value(s) needs 2 + {n_carried}")
    n_scan = len(body.output) - 1 - n_carried
    if n_scan < 0:
        raise cx.where.damaged(f"the body gives {len(body.output)} outputs; a Loop with "
                               f"{n_carried} carried value(s) needs at least {1 + n_carried}")
    if len(cx.node.output) > n_carried + n_scan:
        raise cx.where.damaged(f"the node has {len(cx.node.output)} outputs, the body makes "
                               f"{n_carried + n_scan}")
    # a trip count or condition computed from constants and static shapes is a Const:
    # graphjit then knows the iteration count, and the stacked outputs' dims
    from .import_ops import evaluate

    def folded(v):
        c = evaluate(v)
        return v if c is None or v.producer.op == "Const" else cx.array(c)
    trip = cx.opt(0)
    trip = _unused_const(cx, -1, D.int64) if trip is None else \
        folded(_flag(cx, trip, "trip count M"))
    if trip.dtype is not D.int64:
        raise cx.where.damaged(f"the trip count M must be int64, got {trip.type}")
    cond = cx.opt(1)
    cond = _unused_const(cx, True, D.bool_) if cond is None else \
        folded(_flag(cx, cond, "condition"))
    carried = [cx.x(2 + k) for k in range(n_carried)]
    names = [i.name for i in body.input]
    tr = cx.tr
    uses_iter = _reads(tr, body, names[0])
    uses_cond = _reads(tr, body, names[1])
    _check_declared_dtypes(cx, body, [TensorType(D.int64, ()), cond.type] +
                           [v.type for v in carried], "the body")
    types = ([cond.type] if uses_cond else []) + [v.type for v in carried]
    for _ in range(_MAX_REBUILDS):
        params = [(names[0], ITERATION_TYPE)] if uses_iter else []
        if uses_cond:
            params.append((names[1], types[0]))
        params += list(zip(names[2:], types[1 if uses_cond else 0:]))
        g, formal, passed = tr.body(cx.scope, body, cx.where / "body", "body", params)
        res = list(g.results)
        cond_out = res[0]
        if not cond_out.dtype.is_bool:
            raise cx.where.damaged(f"the body's condition output is {cond_out.type}, not bool")
        exits = ([cond_out] if uses_cond else []) + res[1:1 + n_carried]
        new = [_widen(t, v.type, cx, f"carried value {k}") for k, (t, v) in
               enumerate(zip(types, exits))]
        if new == types:
            break
        types = new
    else:
        raise cx.where.damaged("the carried values' types do not settle")
    with g.inserting_before(None):
        scans = [g.apply("ExpandDims", v, axis=0) for v in res[1 + n_carried:]]
    g.set_results(res[:1 + n_carried] + scans)
    first = 1 if uses_iter else 0
    inputs = [trip, cond] + ([cond] if uses_cond else []) + carried + passed
    k0 = 1 if uses_cond else 0
    input_map = [(2 + j, first + j, None) for j in range(k0 + n_carried + len(passed))]
    back = ([(0, first)] if uses_cond else []) + \
        [(1 + k, first + k0 + k) for k in range(n_carried)]
    output_map = [(1 + k, None) for k in range(n_carried)] + \
        [(1 + n_carried + j, 0) for j in range(n_scan)]
    node = cx.g.add_node("Loop", inputs, {
        "body": g, "input_map": tuple(input_map), "output_map": tuple(output_map),
        "back_edges": tuple(back), "current_iteration": 0 if uses_iter else -1,
        "condition_result": 0})
    return list(node.outputs)


def _unused_const(cx: NodeCx, value, dtype):
    """A scalar Const for an empty M or cond: an unused one of that value where the file
    has it (graphjit's exporter leaves the -1 or True it made an empty input from, so the
    round trip keeps the node order), else a new one."""
    want = np.asarray(value, dtype=dtype.np)
    for n in cx.g.nodes:
        if n.op == "Const" and not n.outputs[0].users and n.outputs[0].type.shape == () and \
                n.attrs["value"].dtype == want.dtype and n.attrs["value"] == want:
            return n.outputs[0]
    return cx.array(want)


# -- Scan -----------------------------------------------------------------------------------------
def _scan(cx: NodeCx):
    if cx.opset < 9:
        return _scan8(cx)
    body = cx.attrs.graph("body")
    m = cx.attrs.int("num_scan_inputs")
    xs = cx.xs()
    n = len(xs) - m
    if m < 1 or n < 0:
        raise cx.where.damaged(f"num_scan_inputs={m} does not fit the node's {len(xs)} inputs")
    if len(body.input) != n + m:
        raise cx.where.damaged(f"the body takes {len(body.input)} inputs; the Scan passes "
                               f"{n} state and {m} scan values")
    k = len(body.output) - n
    if k < 0 or len(cx.node.output) != n + k:
        raise cx.where.damaged(f"the body gives {len(body.output)} outputs and the node has "
                               f"{len(cx.node.output)}; both must be {n} states + the scans")
    in_axes = cx.attrs.ints("scan_input_axes", (0,) * m)
    in_dirs = cx.attrs.ints("scan_input_directions", (0,) * m)
    out_axes = cx.attrs.ints("scan_output_axes", (0,) * k)
    out_dirs = cx.attrs.ints("scan_output_directions", (0,) * k)
    if len(in_axes) != m or len(in_dirs) != m or len(out_axes) != k or len(out_dirs) != k:
        raise cx.where.damaged("the scan axes and directions need one entry per scan value")
    return _scan_core(cx, body, xs[:n], xs[n:], in_axes, in_dirs, out_axes, out_dirs)


_MAX_SCAN8_BATCH = 64


def _scan8(cx: NodeCx):
    """Scan of opsets 8: inputs (sequence_lens, states..., scans...) with a batch axis 0
    on every input and output (the scan axis is 1), `directions` per scan input. Each
    batch row is the opset-9 Scan of that row (the rows are built one by one, so the
    batch size must be known while building), the results stacked along axis 0."""
    body = cx.attrs.graph("body")
    m = cx.attrs.int("num_scan_inputs")
    xs = [cx.x(i) for i in range(1, len(cx.names)) if cx.has(i)]
    n = len(xs) - m
    if m < 1 or n < 0 or len(xs) != len(cx.names) - 1:
        raise cx.where.damaged(f"num_scan_inputs={m} does not fit the node's "
                               f"{len(cx.names) - 1} inputs after sequence_lens")
    if len(body.input) != n + m:
        raise cx.where.damaged(f"the body takes {len(body.input)} inputs; the Scan passes "
                               f"{n} state and {m} scan values")
    k = len(body.output) - n
    if k < 0 or len(cx.node.output) != n + k:
        raise cx.where.damaged(f"the body gives {len(body.output)} outputs and the node has "
                               f"{len(cx.node.output)}; both must be {n} states + the scans")
    dirs = cx.attrs.ints("directions", (0,) * m)
    if len(dirs) != m:
        raise cx.where.damaged("directions needs one entry per scan input")
    batch = set()
    for v in xs:
        if v.shape is None or not v.shape:
            raise cx.where.damaged("every Scan-8 input has a batch axis 0")
        batch.add(v.shape[0])
    if len(batch) != 1 or None in batch:
        raise cx.refuse("Scan before opset 9: the batch size (axis 0 of every input) must be "
                        "one number known while building", hint="give the inputs a static "
                        "batch dim, or use Scan of opset 9 or later")
    (b,) = batch
    if b > _MAX_SCAN8_BATCH:
        raise cx.refuse(f"Scan before opset 9 with a batch of {b} rows (at most "
                        f"{_MAX_SCAN8_BATCH}: each row is built on its own)")
    if cx.has(0):
        lens = cx.ints(0, "sequence_lens")
        full = {v.shape[1] for v in xs[n:] if v.shape is not None and len(v.shape) > 1}
        if len(full) != 1 or None in full or any(x != next(iter(full)) for x in lens):
            raise cx.refuse("Scan before opset 9 with sequence_lens shorter than the "
                            "sequences is not supported")
    if b == 0:
        raise cx.refuse("Scan before opset 9 over an empty batch")
    rows = []
    for r in range(b):
        at = cx.array(r, D.int64)
        row = [cx.emit("Gather", v, at, axis=0) for v in xs]
        rows.append(_scan_core(cx, body, row[:n], row[n:], (0,) * m, dirs, (0,) * k,
                               (0,) * k))
    return [cx.emit("Stack", *[out[j] for out in rows], axis=0) for j in range(n + k)]


def _scan_core(cx: NodeCx, body, states, scanned, in_axes, in_dirs, out_axes, out_dirs):
    """The Loop of a Scan of opset 9 or later (see _scan); returns its outputs."""
    n, m, k = len(states), len(scanned), len(out_axes)
    from .import_nn import _norm, _rank, _slice_along
    sliced: List = []
    axes: List[int] = []
    for v, a, direction in zip(scanned, in_axes, in_dirs):
        a = _norm(cx, a, _rank(cx, v, "scan input"), "scan input axis")
        axes.append(a)
        sliced.append(_slice_along(cx, v, a, None, None, -1) if direction else v)
    _check_declared_dtypes(cx, body, [v.type for v in states + scanned], "the body")
    names = [i.name for i in body.input]
    types = [v.type for v in states]
    tr = cx.tr
    def squeeze(g, formal):
        return {name: g.apply("Squeeze", p, axis=a) for name, p, a in
                zip(names[n:], formal[n:], axes)}

    for _ in range(_MAX_REBUILDS):
        params = list(zip(names[:n], types))
        params += [(None, sliced_type(v.type, a)) for v, a in zip(sliced, axes)]
        g, formal, passed = tr.body(cx.scope, body, cx.where / "body", "body", params,
                                    prelude=squeeze)
        res = list(g.results)
        new = [_widen(t, r.type, cx, f"state {j}") for j, (t, r) in
               enumerate(zip(types, res[:n]))]
        if new == types:
            break
        types = new
    else:
        raise cx.where.damaged("the state values' types do not settle")
    outs_axes = []
    scans = []
    for j, (r, a) in enumerate(zip(res[n:], out_axes)):
        rank = None if r.shape is None else len(r.shape) + 1
        if rank is None:
            raise cx.refuse("a scan output's rank must be known while building")
        a = _norm(cx, a, rank, "scan output axis")
        outs_axes.append(a)
        with g.inserting_before(None):
            scans.append(g.apply("ExpandDims", r, axis=a))
    with g.inserting_before(None):
        true = g.apply("Const", value=np.array(True))
    g.set_results([true] + res[:n] + scans)
    inputs = [cx.array(-1, D.int64), cx.array(True)] + states + sliced + passed
    input_map = [(2 + j, j, None) for j in range(n)] + \
        [(2 + n + j, n + j, a) for j, a in enumerate(axes)] + \
        [(2 + n + m + j, n + m + j, None) for j in range(len(passed))]
    node = cx.g.add_node("Loop", inputs, {
        "body": g, "input_map": tuple(input_map),
        "output_map": tuple([(1 + j, None) for j in range(n)] +
                            [(1 + n + j, a) for j, a in enumerate(outs_axes)]),
        "back_edges": tuple((1 + j, j) for j in range(n)), "current_iteration": -1,
        "condition_result": 0})
    outs = list(node.outputs)
    for j, (a, direction) in enumerate(zip(outs_axes, out_dirs)):
        if direction:
            outs[n + j] = _slice_along(cx, outs[n + j], a, None, None, -1)
    return outs


CONTROL = {"If": _if, "Loop": _loop, "Scan": _scan}
