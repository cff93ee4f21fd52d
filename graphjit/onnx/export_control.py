"""If and Loop as ONNX If and Loop (see the table in exporter.py).

graphjit's subgraphs are closed: their parameters are bound to the If's operands
and the Loop's inputs. ONNX bodies read outer values by name, so each parameter
is mapped to the ONNX name of what it is bound to; a Loop's sliced inputs, its
iteration number and its last-value results need nodes of their own.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from ..ir import dtypes as D
from ..ir.control import loop_iteration_bound
from ..ir.types import TensorType
from .common import TO_ONNX
from .export_ops import OPS, _dynamic_shape, check_pattern
from .exporter import NoOnnxForm

_BOOL = TensorType(D.bool_, ())
_I64 = TensorType(D.int64, ())


def _outer(ex, v):
    """The ONNX name an outer value binds a parameter to (None: the state token)."""
    if v.type.kind == "state":
        return None
    return ex.name_of(v)


def _scalar_of(ex, name, t: TensorType):
    """A one-element value as a scalar (Reshape to [] unless it is one already)."""
    if t.shape == ():
        return name
    return ex.one("Reshape", [name, ex.i64([])])


def _if(ex, node):
    then_g, else_g = node.attrs["then_graph"], node.attrs["else_graph"]
    bound = [_outer(ex, v) for v in node.inputs[1:]]
    outs = [v for v in node.outputs if v.type.kind != "state"]
    if not outs and not (then_g.nodes or else_g.nodes):
        return [None] * len(node.outputs)
    op_n = ex.current

    def branch(g, label):
        def epilogue(results):
            pairs = [(r, v.type) for r, v in zip(results, g.results) if v.type.kind != "state"]
            if not pairs:       # ONNX If needs an output: a dummy (nothing reads it)
                pairs = [(ex.const(np.asarray(True)), _BOOL)]
            return pairs
        return ex.subgraph(g, bound, f"{g.name}_{label}_{op_n[1]}", epilogue=epilogue)

    then_b = branch(then_g, "then")
    else_b = branch(else_g, "else")
    names = [ex.fresh("t") for _ in outs] or [ex.fresh("unused")]
    cond = node.inputs[0]
    ex.emit("If", [ex.name_of(cond)], out=names, then_branch=then_b, else_branch=else_b)
    it = iter(names)
    return [None if v.type.kind == "state" else next(it) for v in node.outputs]


OPS["If"] = _if


def _loop(ex, node):
    a = node.attrs
    body = a["body"]
    P = body.params
    trip_v, cond_v = node.inputs[0], node.inputs[1]
    ins = node.inputs
    back = {ri: bp for ri, bp in a["back_edges"]}
    back_of_param = {bp: ri for ri, bp in a["back_edges"]}
    first = {bp: li for li, bp, axis in a["input_map"] if axis is None}
    sliced = {bp: (li, axis) for li, bp, axis in a["input_map"] if axis is not None}
    ci = a["current_iteration"]
    consts = [v.producer.attrs["value"] if v.producer is not None and v.producer.op == "Const"
              else None for v in ins]
    n_iter = loop_iteration_bound([v.type for v in ins], a, consts)

    # the carried values: (body param index or None, body result index, initial name, type)
    carried = []
    for ri, bp in a["back_edges"]:
        if P[bp].type.kind != "tensor":
            continue
        carried.append((bp, ri, ex.name_of(ins[first[bp]]), P[bp].type))
    last_only = []
    for ri, axis in a["output_map"]:
        if axis is None and ri not in back and ri not in last_only and \
                body.results[ri].type.kind == "tensor":
            last_only.append(ri)
    scans = []
    for ri, axis in a["output_map"]:
        if axis is not None and ri not in scans:
            if body.results[ri].type.rank is None:
                raise NoOnnxForm("a result concatenated along an axis has an unknown rank")
            scans.append(ri)

    # -- outer: the trip count and the condition
    trip = trip_v.type
    t = ex.name_of(trip_v)
    if consts[0] is not None and int(np.asarray(consts[0]).reshape(-1)[0]) == -1:
        m = None
    elif consts[0] is not None:
        m = ex.i64(int(np.asarray(consts[0]).reshape(-1)[0]))
    else:
        t64 = _scalar_of(ex, ex.one("Cast", [t], to=TensorProto.INT64), trip)
        check_pattern(ex, ex.one("GreaterOrEqual", [t64, ex.i64(-1)]),
                      "ValueError: the Loop trip count must be -1 (no limit) or at least 0")
        m = ex.one("Where", [ex.one("Equal", [t64, ex.i64(-1)]),
                             ex.i64(np.iinfo(np.int64).max), t64])
    for bp, (li, axis) in sliced.items():
        n = ex.one("Gather", [ex.one("Shape", [ex.name_of(ins[li])]), ex.i64(int(axis))],
                   axis=0)
        m = n if m is None else ex.one("Min", [m, n])
    cond = _scalar_of(ex, ex.name_of(cond_v), cond_v.type)
    initials = [c[2] for c in carried]
    for ri in last_only:    # a value no iteration gave yet: zeros of the result's type
        rt = body.results[ri].type
        shape = () if rt.shape is None else tuple(0 if d is None else d for d in rt.shape)
        initials.append(ex.const(np.zeros(shape, dtype=rt.dtype.np)))
    need_ran = bool(last_only) and not (n_iter is not None and n_iter > 0)
    # ONNX Loop needs an output: a Loop of checks alone carries a flag nothing reads
    dummy = not (carried or last_only or scans or need_ran)
    need_ran = need_ran or dummy
    if need_ran:
        initials.append(ex.const(np.asarray(False)))

    # -- the body
    op_n = ex.current
    iter_name = ex.fresh("iter")
    cond_in = ex.fresh("cond_in")
    carried_in = [ex.fresh(f"{P[c[0]].name or 'carried'}_in") for c in carried]
    last_in = [ex.fresh("last_in") for _ in last_only]
    ran_in = [ex.fresh("ran_in")] if need_ran else []
    body_inputs = [ex.value_info(iter_name, _I64), ex.value_info(cond_in, _BOOL)]
    body_inputs += [ex.value_info(nm, c[3]) for nm, c in zip(carried_in, carried)]
    body_inputs += [ex.value_info(nm, body.results[ri].type)
                    for nm, ri in zip(last_in, last_only)]
    body_inputs += [ex.value_info(nm, _BOOL) for nm in ran_in]
    bound = [None] * len(P)

    def prologue():
        carried_of = {c[0]: nm for c, nm in zip(carried, carried_in)}
        for i, p in enumerate(P):
            if i == ci:
                x = ex.one("Cast", [iter_name], to=TO_ONNX[p.type.dtype])
                if p.type.shape != ():
                    x = ex.one("Reshape", [x, ex.i64([1])])
                bound[i] = x
            elif i in carried_of:
                bound[i] = carried_of[i]
            elif i in sliced:
                li, axis = sliced[i]
                idx = ex.one("Unsqueeze", [iter_name, ex.i64([0])])
                bound[i] = ex.one("Gather", [ex.name_of(ins[li]), idx], axis=int(axis))
            elif i in first:
                bound[i] = _outer(ex, ins[first[i]])
            elif p.type.kind == "state" or i in back_of_param:
                bound[i] = None if p.type.kind == "state" else None
            else:
                raise NoOnnxForm(f"body parameter {i} is bound to nothing")

    def epilogue(results):
        cr = body.results[a["condition_result"]]
        out = [(_scalar_of(ex, results[a["condition_result"]], cr.type), _BOOL)]
        out += [(results[c[1]], c[3]) for c in carried]
        out += [(results[ri], body.results[ri].type) for ri in last_only]
        if need_ran:
            out.append((ex.const(np.asarray(True)), _BOOL))
        out += [(results[ri], body.results[ri].type) for ri in scans]
        return out

    g = ex.subgraph(body, lambda: bound, f"{body.name}_{op_n[1]}", inputs=body_inputs,
                    prologue=prologue, epilogue=epilogue)
    n_carried = len(carried) + len(last_only) + len(ran_in)
    outs = [ex.fresh("t") for _ in range(n_carried + len(scans))]
    ex.emit("Loop", ["" if m is None else m, cond] + initials, out=outs, body=g)
    finals = {c[1]: outs[k] for k, c in enumerate(carried)}
    for k, ri in enumerate(last_only):
        finals[ri] = outs[len(carried) + k]
    if need_ran and not dummy:
        check_pattern(ex, outs[n_carried - 1],
                      "UnboundLocalError: a Loop output has no value after zero iterations")
    scan_out = {ri: outs[n_carried + k] for k, ri in enumerate(scans)}
    result = []
    for v, (ri, axis) in zip(node.outputs, a["output_map"]):
        if v.type.kind != "tensor":
            result.append(None)
        elif axis is None:
            result.append(finals[ri])
        else:
            result.append(_concatenated(ex, scan_out[ri], body.results[ri].type.rank, axis))
    return result


def _concatenated(ex, s, rank, axis):
    """The scan output s (the results stacked along a new axis 0) as their
    concatenation along `axis`: Transpose the new axis next to it, merge the two."""
    a = int(axis) % rank
    t = s
    if a > 0:
        perm = list(range(1, a + 1)) + [0] + list(range(a + 1, rank + 1))
        t = ex.one("Transpose", [s], perm=perm)
    shp = _dynamic_shape(ex, t, [("keep", 0, a), ("prod", a, a + 2), ("keep", a + 2, rank + 1)])
    return ex.one("Reshape", [t, shp], allowzero=1)


OPS["Loop"] = _loop
