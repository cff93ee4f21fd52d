"""How If and Loop differentiate: both split their subgraphs (linearize) and run the
backward halves under the same control flow.

If: each branch splits into fwd and bwd. The forward If returns, besides its own
results, the residuals of both branches (a branch returns a zero view for the
other branch's). The backward is an If on the same condition over the branches'
bwd programs:

    %y, %r_then, %r_else = If(%c, %x) then=@fwd_then else=@fwd_else
    ...
    %dx = If(%c, %r_then, %r_else, %dy) then=@bwd_then else=@bwd_else

Loop: the body splits into fwd and bwd. The forward Loop also counts its iterations
and emits, per iteration, the residuals the body's gradient reads (stacked along a
new axis 0). The backward is a Loop of that many iterations over the residual
stacks reversed; it carries the adjoints of the back-edged values (starting from
the adjoints of the Loop's last-value outputs), the sums for the invariant inputs,
and slices the adjoints of concatenated outputs in reverse; the adjoints of sliced
inputs come out stacked, are reversed, and padded with zeros for the slices an
early stop never reached. Trip counts known only at run time, `break`, `continue`
and early `return` are carried flags and conditions, so nothing more is needed.
"""
from __future__ import annotations

from typing import List

import numpy as np

from ..ir import dtypes as dt
from ..ir.builders import loop as build_loop
from ..ir.defs.shape import encode_index
from ..ir.defs.shape_grad import at_axis
from ..ir.errors import UnsupportedSyntaxError
from ..ir.graph import Graph
from ..ir.types import TensorType
from .activity import loop_roles
from .graphs import inline, placeholder
from .linearize import CONTROL, linearize

__all__ = ["if_forward", "if_backward", "loop_forward", "loop_backward"]

_REVERSE = slice(None, None, -1)


def _sum(b, parts):
    out = None
    for p in parts:
        out = p if out is None else b.add(out, p)
    return out


# -- If ------------------------------------------------------------------------------------------
class _IfPiece:
    """What if_forward built, for if_backward: the new If, the branches' splits, the
    operands with adjoints and the outputs with adjoints."""

    def __init__(self, new, lins, act_ops, useful_outs, threaded, n_out, n_res_then):
        self.new, self.lins, self.act_ops = new, lins, act_ops
        self.useful_outs, self.threaded = useful_outs, threaded
        self.n_out, self.n_res_then = n_out, n_res_then


def if_forward(lin, node, pos) -> _IfPiece:
    act = lin.act
    cond, operands = node.inputs[0], node.inputs[1:]
    branches = (node.attrs["then_graph"], node.attrs["else_graph"])
    n_out = len(node.outputs)
    useful_outs = [k for k, o in enumerate(node.outputs) if act.is_useful(o)]
    act_ops = [k for k, v in enumerate(operands) if act.is_useful(v)]
    seen, threaded = set(), []
    for j, k in enumerate(act_ops):
        v = operands[k]
        if id(v) not in seen and lin.will_have_adjoint(v, pos):
            threaded.append(j)
        seen.add(id(v))
    lins = [linearize(br, act, [br.params[k] for k in act_ops], useful_outs, threaded)
            for br in branches]
    res_types = [[v.type for v in l.residuals] for l in lins]

    def wrap(bi):
        br, l = branches[bi], lins[bi]
        g = Graph(br.name)
        ps = [g.add_param(p.type, p.name) for p in br.params]
        vals = inline(g, l.fwd, ps)
        outs, res = vals[:n_out], vals[n_out:]
        other = [placeholder(g, t) for t in res_types[1 - bi]]
        g.set_results(outs + (res + other if bi == 0 else other + res))
        return g

    names = [o.name for o in node.outputs] + ["saved"] * (len(res_types[0]) + len(res_types[1]))
    new = lin.fwd.add_node("If", [lin.fmap[id(cond)]] + [lin.fmap[id(v)] for v in operands],
                           {"then_graph": wrap(0), "else_graph": wrap(1)}, loc=node.loc,
                           names=names)
    for o, n in zip(node.outputs, new.outputs):
        lin.fmap[id(o)] = n
    return _IfPiece(new, lins, act_ops, useful_outs, threaded, n_out, len(res_types[0]))


def if_backward(lin, node, piece: _IfPiece, gs) -> None:
    b = lin.b
    cond, operands = node.inputs[0], node.inputs[1:]
    ins: List = []
    cap_idx = []
    for bi, l in enumerate(piece.lins):
        base = piece.n_out + (0 if bi == 0 else piece.n_res_then)
        idx = []
        for kind, k in l.roles:
            if kind == "param":
                v = lin.read(operands[k])
            elif kind == "result":
                v = lin.capture(piece.new.outputs[base + k])
            else:
                continue
            idx.append(len(ins))
            ins.append(v)
        cap_idx.append(idx)
    g_idx = {}
    for k in piece.useful_outs:
        g_idx[k] = len(ins)
        ins.append(gs[k] if gs[k] is not None else lin.zeros_of(node.outputs[k]))
    a_idx = {}
    for j in piece.threaded:
        v = operands[piece.act_ops[j]]
        cur = lin.adj.pop(id(v), None)
        a_idx[j] = len(ins)
        ins.append(cur if cur is not None else lin.zeros_of(v))

    def wrap(bi):
        br, l = (node.attrs["then_graph"], node.attrs["else_graph"])[bi], piece.lins[bi]
        g = Graph(f"{br.name}_grad")
        ps = [g.add_param(v.type, v.name) for v in ins]
        caps = iter(cap_idx[bi])
        args = []
        for kind, k in l.roles:
            if kind in ("param", "result"):
                args.append(ps[next(caps)])
            elif kind == "g":
                args.append(ps[g_idx[k]])
            else:
                args.append(ps[a_idx[k]])
        g.set_results(inline(g, l.bwd, args))
        return g

    out = b.graph.add_node("If", [lin.read(cond)] + ins,
                           {"then_graph": wrap(0), "else_graph": wrap(1)}, loc=node.loc,
                           names=[f"d_{operands[k].name}" if operands[k].name else None
                                  for k in piece.act_ops]).outputs
    for j, k in enumerate(piece.act_ops):
        lin.accumulate(operands[k], out[j])


# -- Loop ----------------------------------------------------------------------------------------
class _LoopPiece:
    """What loop_forward decided and built, for loop_backward: the body's split (lb),
    which body parameters get carried adjoints, sums (accs) or stacked adjoints (sl),
    the outputs seeding the backward, and where each saved value is."""


def loop_forward(lin, node, pos) -> _LoopPiece:
    act = lin.act
    a = node.attrs
    body = a["body"]
    back, back_param, init, sliced, inv = loop_roles(node)
    vp, up, ur = act.loops[id(node)]
    outs = list(zip(a["output_map"], node.outputs))
    useful = [k for k, (_, o) in enumerate(outs) if act.is_useful(o)]
    last_outs = {k: outs[k][0][0] for k in useful if outs[k][0][1] is None}
    concat_outs = {k: outs[k][0] for k in useful if outs[k][0][1] is not None}
    carried = sorted(bp for bp in back_param if bp in vp and (
        bp in up or any(back.get(ri) == bp for ri in last_outs.values())))
    accs = sorted(bp for bp in inv if bp in up)
    sl = sorted(bp for bp in sliced if bp in up)
    seeds = [k for k, ri in last_outs.items() if back.get(ri) not in carried]
    wanted = {back_param[bp] for bp in carried} | {ri for ri, _ in concat_outs.values()} | \
        {last_outs[k] for k in seeds}
    r_g = sorted(ri for ri in wanted if act.is_varied(body.results[ri]))
    for k, (ri, axis) in concat_outs.items():
        t = body.results[ri].type
        if t.shape is not None and t.shape[axis] != 1:
            raise UnsupportedSyntaxError(
                f"differentiating a Loop output concatenated from per-iteration values of "
                f"type {t} (size {t.shape[axis]} along axis {axis}); graphjit differentiates "
                f"outputs stacked one slice per iteration", loc=node.loc,
                hint="append one item per iteration and stack the list (ops.stack)")
    sources = sorted(set(carried) | set(accs) | set(sl))
    threaded = [sources.index(bp) for bp in accs]
    lb = linearize(body, act, [body.params[bp] for bp in sources], r_g, threaded,
                   remat=True)

    # the forward body: the original results, an iteration counter, the residual stacks
    n_res, n_par = len(body.results), len(body.params)
    nb = Graph(body.name)
    ps = [nb.add_param(p.type, p.name) for p in body.params]
    count = nb.add_param(TensorType(dt.int64, ()), "count")
    vals = inline(nb, lb.fwd, ps)
    extra = vals[n_res:]
    one = nb.apply("Const", value=_const(1, np.int64))
    saves, stack_of, saved = [], {}, []
    for role in lb.roles:
        kind, k = role
        if kind == "param" and k in sliced and _first_axis(node, sliced[k]):
            # a slice of an input: read back from the input itself, no copy saved
            stack_of[role] = len(saves)
            saves.append((body.params[k].type, None, sliced[k][0]))
        elif kind == "result" or (kind == "param" and k not in inv):
            v = extra[k] if kind == "result" else ps[k]
            stack_of[role] = len(saves)
            saved.extend(_save(nb, v, node))
            saves.append((v.type, len(saved), None))
    nb.set_results(vals[:n_res] + [nb.apply("Add", count, one)] + saved)
    attrs = {"body": nb,
             "input_map": tuple(a["input_map"]) + ((len(node.inputs), n_par, None),),
             "output_map": tuple(a["output_map"]) + ((n_res, None),) +
             tuple((n_res + 1 + m, 0) for m in range(len(saved))),
             "back_edges": tuple(a["back_edges"]) + ((n_res, n_par),),
             "current_iteration": a["current_iteration"],
             "condition_result": a["condition_result"]}
    zero = lin.fwd.apply("Const", value=_const(0, np.int64))
    names = [o.name for o in node.outputs] + ["iterations"] + ["saved"] * len(saved)
    new = lin.fwd.add_node("Loop", [lin.fmap[id(v)] for v in node.inputs] + [zero], attrs,
                           loc=node.loc, names=names)
    for o, n in zip(node.outputs, new.outputs):
        lin.fmap[id(o)] = n
    p = _LoopPiece()
    p.lb, p.carried, p.accs, p.sl, p.seeds = lb, carried, accs, sl, seeds
    p.last_outs, p.concat_outs, p.r_g, p.sources = last_outs, concat_outs, r_g, sources
    p.stack_of, p.count = stack_of, new.outputs[len(node.outputs)]
    outs = new.outputs[len(node.outputs) + 1:]
    p.saves = [(t, outs[start - (1 if _static(t) else 2):start] if li is None else li)
               for t, start, li in saves]
    p.roles = (back, back_param, init, sliced, inv)
    return p


def _first_axis(node, slicing) -> bool:
    li, axis = slicing
    rank = node.inputs[li].type.rank
    return axis == 0 or (rank is not None and axis % rank == 0)


def _static(t) -> bool:
    return t.shape is not None and all(d is not None for d in t.shape)


def _save(nb, v, node):
    """The body results that save v once per iteration: v itself (stacked along a new
    axis 0), or, for a shape that may change between iterations, v flattened (joined
    into one 1-D value) and v's shape (stacked)."""
    if _static(v.type):
        return [nb.apply("ExpandDims", v, axis=0)]
    if v.type.shape is None:
        raise UnsupportedSyntaxError(
            f"differentiating a Loop whose gradient needs a value of unknown rank ({v.type}) "
            f"from each iteration", loc=node.loc,
            hint="give the loop's inputs a known rank")
    return [nb.apply("Reshape", v, shape=(-1,)),
            nb.apply("ExpandDims", nb.apply("Shape", v), axis=0)]


def _const(v, dtype):
    arr = np.asarray(v, dtype=dtype)
    arr.flags.writeable = False
    return arr


def loop_backward(lin, node, p: _LoopPiece, gs) -> None:
    b = lin.b
    body = node.attrs["body"]
    back, back_param, init, sliced, inv = p.roles
    carried = []
    for bp in p.carried:
        parts = [gs[k] for k, ri in p.last_outs.items()
                 if back.get(ri) == bp and gs[k] is not None]
        carried.append(_sum(b, parts) if parts else lin.zeros_of(node.inputs[init[bp]]))
    for bp in p.accs:
        v = node.inputs[inv[bp]]
        cur = lin.adj.pop(id(v), None)
        carried.append(cur if cur is not None else lin.zeros_of(v))
    for k in p.seeds:
        carried.append(gs[k] if gs[k] is not None else lin.zeros_of(node.outputs[k]))
    rev = encode_index((_REVERSE,))
    xs, flats, offsets = [], [], []
    n_iter = lin.capture(p.count)
    for t, outs in p.saves:
        if isinstance(outs, int):      # the slices of a Loop input that the loop reached
            reached = b.apply("SliceRows", lin.read(node.inputs[outs]),
                              b.scalar(0, dt.int64), n_iter)
            xs.append((b.apply("Index", reached, index=rev), 0))
            continue
        xs.append((b.apply("Index", lin.capture(outs[-1]), index=rev), 0))
        if len(outs) == 2:      # a flat save: read back from the end, one piece per step
            flat = lin.capture(outs[0])
            flats.append(flat)
            offsets.append(b.apply("Index", b.apply("Shape", flat), index=(0,)))
    n_saves = len(xs)
    concat = list(p.concat_outs.items())
    for k, (ri, axis) in concat:
        g = gs[k] if gs[k] is not None else lin.zeros_of(node.outputs[k])
        xs.append((b.apply("Index", g, index=at_axis(axis, _REVERSE)), axis))
    inv_roles = [k for kind, k in p.lb.roles if kind == "param" and k in inv]
    invariant = [lin.read(node.inputs[inv[k]]) for k in inv_roles] + flats
    n_c, n_a, n_s = len(p.carried), len(p.accs), len(p.seeds)
    carried += offsets

    def step(bb, i, cs, ss, ivs):
        c_adj, accs, seeds = cs[:n_c], cs[n_c:n_c + n_a], cs[n_c + n_a:n_c + n_a + n_s]
        offs, flat_ps = list(cs[n_c + n_a + n_s:]), ivs[len(inv_roles):]
        saved, next_offs = [], []
        for (t, outs), s in zip(p.saves, ss[:n_saves]):
            if isinstance(outs, int):      # a slice as the forward Loop saw it
                saved.append(s)
                continue
            s = bb.apply("Squeeze", s, axis=0)
            if len(outs) == 1:
                saved.append(s)
                continue
            j = len(next_offs)
            start = bb.apply("Sub", offs[j], bb.apply("ReduceProd", s, axis=None,
                                                      keep_dims=False))
            piece = bb.apply("SliceRows", flat_ps[j], start, offs[j])
            saved.append(bb.apply("ReshapeDynamic", piece, s, shape_hint=t.shape))
            next_offs.append(start)
        ybar = ss[n_saves:]

        def g_of(ri):
            parts = []
            bp = back.get(ri)
            if bp in p.carried:
                parts.append(c_adj[p.carried.index(bp)])
            parts += [ybar[j] for j, (k, (r, _)) in enumerate(concat) if r == ri]
            parts += [seeds[j] for j, k in enumerate(p.seeds) if p.last_outs[k] == ri]
            out = None
            for q in parts:
                out = q if out is None else bb.apply("Add", out, q)
            return out

        args = []
        for role in p.lb.roles:
            kind, k = role
            if kind == "result" or (kind == "param" and k not in inv):
                args.append(saved[p.stack_of[role]])
            elif kind == "param":
                args.append(ivs[inv_roles.index(k)])
            elif kind == "g":
                args.append(g_of(k))
            else:
                args.append(accs[p.accs.index(p.sources[k])])
        outs = inline(bb, p.lb.bwd, args)
        adj = {bp: outs[j] for j, bp in enumerate(p.sources)}
        nxt = [adj[bp] for bp in p.carried] + [adj[bp] for bp in p.accs] + \
            [bb.apply("ZerosLike", s) for s in seeds] + next_offs
        return True, nxt, [(adj[bp], sliced[bp][1]) for bp in p.sl]

    res = build_loop(b.graph, step, trip_count=n_iter, condition=True,
                     carried=carried, sliced=xs, invariant=invariant, iteration_type=None,
                     name=f"{body.name}_grad", loc=node.loc)
    finals, stacked = res[:len(carried)], res[len(carried):]   # offsets end at 0
    for bp, d in zip(p.carried, finals[:n_c]):
        v = node.inputs[init[bp]]
        if lin.act.is_varied(v):
            lin.accumulate(v, d)
    for bp, d in zip(p.accs, finals[n_c:n_c + n_a]):
        lin.accumulate(node.inputs[inv[bp]], d)
    for bp, d in zip(p.sl, stacked):
        li, axis = sliced[bp]
        v = node.inputs[li]
        d = b.apply("Index", d, index=at_axis(axis, _REVERSE))
        lin.accumulate(v, b.apply("PadLike", d, lin.read(v), axis=axis))


CONTROL["If"] = (if_forward, if_backward)
CONTROL["Loop"] = (loop_forward, loop_backward)
