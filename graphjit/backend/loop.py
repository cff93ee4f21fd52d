"""The Loop driver: a `while` statement generated for one Loop node's port map.

For `Loop(%n, %go, %h0, %xs)` with a back edge h_next -> h, xs sliced on axis 0
and h_next concatenated on axis 0, the generated driver reads (names shortened):

    t = _trip_count(n)                     # -1 becomes sys.maxsize
    go = _truth(go0)
    h = h0                                 # back-edged parameter: its own variable
    t = min(t, xs.shape[0])                # a sliced input bounds the iterations
    acc = []; acc_append = acc.append
    i = 0
    while go and i < t:
        j = i + 1
        x_t = xs[i:j]                      # slice kept with size 1 on its axis
        ...the body's kernels, inline...
        acc_append(h_next)                 # concatenated output
        go = c                             # execution condition
        h = h_next                         # back edges, assigned all at once
        i = j
    h_last = h                             # zero iterations: the initial input
    hs = np.concatenate(acc, 0) if acc else <empty f32[0,3]>

Parts the port map makes unnecessary are left out: the condition test when it is
constantly true, the bound when there is no limit, the iteration counter's value
when the body never reads it.
"""
from __future__ import annotations

import sys

import numpy as np

from .kernels import is_one_element_bool
from .loop_ints import counter_line, plan_counters
from .loop_plan import plan_loop

__all__ = ["emit_loop", "trip_count", "slice_axis"]


def trip_count(x) -> int:
    """The trip count as a Python int; -1 (no limit) becomes sys.maxsize.

    Raises:
        ValueError: not one element, or negative other than -1.
    """
    a = np.asarray(x)
    if a.size != 1:
        raise ValueError(f"the Loop trip count must have one element, got shape {a.shape}")
    n = int(a.reshape(-1)[0])
    if n == -1:
        return sys.maxsize
    if n < 0:
        raise ValueError(f"the Loop trip count must be -1 (no limit) or at least 0, got {n}")
    return n


def slice_axis(x, axis: int) -> int:
    """A sliced input's axis made non-negative, for an input whose rank the graph
    does not know.

    Raises:
        ValueError: the input is a scalar or the axis is out of range.
    """
    r = np.ndim(x)
    if not -r <= axis < r or r == 0:
        raise ValueError(f"cannot slice a Loop input of shape {np.shape(x)} along axis {axis}")
    return axis % r


def _empty(t, axis):
    """A function making the value of a concatenated output after zero iterations:
    size 0 along the axis, the other dims as typed (an unknown one is 0)."""
    if t.shape is None:
        return None
    a = axis % len(t.shape)
    shape = tuple(0 if (k == a or d is None) else d for k, d in enumerate(t.shape))
    dtype = t.dtype.np
    return lambda: np.zeros(shape, dtype=dtype)


def _no_value(what: str):
    def fail():
        raise ValueError(what)
    return fail


def _is_true_const(v) -> bool:
    p = v.producer
    return p is not None and p.op == "Const" and bool(np.all(p.attrs["value"]))


def _is_const(v, value) -> bool:
    p = v.producer
    return (p is not None and p.op == "Const" and p.attrs["value"].size == 1 and
            p.attrs["value"].reshape(-1)[0].item() == value)


def _only_squeezed(p, ax: int, body) -> bool:
    """Whether a sliced body parameter is read only by Squeeze nodes of its axis."""
    if not p.users or any(r is p for r in body.results) or p.type.rank is None:
        return False
    for u in p.users:
        if u.op != "Squeeze" or u.inputs[0] is not p:
            return False
        a = u.attrs.get("axis")
        axes = (a,) if isinstance(a, (int, np.integer)) else tuple(a or ())
        if {int(k) % p.type.rank for k in axes} != {ax}:
            return False
    return True


def _rows_direct(em, node, body_prog, rows) -> dict:
    """For the stacks kept as lists (rows: body result index -> list variable), the
    body results that are ExpandDims(x, 0) of an x outliving the body run (a
    parameter or a result: never freed there): {result index: x}. The list takes x
    itself; the ExpandDims, read by nothing else, is not run (em.skip)."""
    a = node.attrs
    body = a["body"]
    other = {ri for ri, axis in a["output_map"] if axis is None} | \
        {ri for ri, _ in a["back_edges"]} | {a["condition_result"]}
    for (ri, axis), o in zip(a["output_map"], node.outputs):
        if axis is not None and id(o) not in em.lists:
            other.add(ri)
    direct = {}
    for ri in rows:
        r = body.results[ri]
        p = r.producer
        if p is None or p.op != "ExpandDims" or p.inputs[0].type.rank is None or \
                int(p.attrs["axis"]) % (p.inputs[0].type.rank + 1) != 0:
            continue
        x = body_prog.root(p.inputs[0])
        if not any(q is x for q in body.params) and \
                not any(body_prog.root(q) is x for q in body.results):
            continue
        direct[ri] = x
        if ri not in other and not r.users and \
                sum(1 for q in body.results if q is r) == 1:
            em.skip.add(id(p))
    return direct


def emit_loop(em, kernel, ins, depth: int) -> None:
    """Emit the driver of a Loop kernel (and its lowered body, inline) into the Emitter
    `em`; `ins` are the variables holding the node's inputs, by position."""
    node = kernel.node
    a = node.attrs
    body = a["body"]
    d = depth
    back = [tuple(e) for e in a["back_edges"]]
    back_params = {bp for _, bp in back}
    ci = a["current_iteration"]
    cond_res = body.results[a["condition_result"]]
    plan = plan_loop(kernel, ins, {em.name(v) for v in kernel.reusable})
    counters = plan_counters(kernel, kernel.bodies["body"])
    as_int = {id(c.param) for c in counters}
    # (a stack kept as the list of its rows for the Loops reading it stays one)
    plan.stacked = [st for st in plan.stacked if id(node.outputs[st.output]) not in em.lists]
    stacked = {st.output: st for st in plan.stacked}
    for st in plan.stacked:
        em.into[id(st.value)] = em.name(st.view)     # y written into x[i] itself
        em.skip.add(id(st.expand))
    for m in plan.buffers:
        buf = em.fresh("buf")
        em.line(d, f"{buf} = np.empty({m.type.shape!r}, "
                   f"{em.glob(m.type.dtype.np, '_dtype')})", node)
        em.into[id(m)] = buf
        em.pinned.add(buf)
        em.bind(m, buf)

    # the bound and the first condition
    sliced = [(bp, li, axis) for li, bp, axis in a["input_map"] if axis is not None]
    unlimited = _is_const(node.inputs[0], -1)
    n = None
    if not (unlimited and not sliced):
        n = em.fresh("n")
        em.line(d, f"{n} = {em.glob(trip_count, '_trip_count')}({ins[0]})", node)
    body_always_true = _is_true_const(cond_res)
    check_go = not (body_always_true and _is_true_const(node.inputs[1]))
    go = em.fresh("go")
    if check_go:
        em.line(d, f"{go} = {em.cond_expr(node.inputs[1], ins[1])}", node)

    # parameters: invariant ones are the outer variables; back-edged ones get their own
    for li, bp, axis in a["input_map"]:
        if axis is not None:
            continue
        p = body.params[bp]
        if bp in back_params:
            em.bind(p, em.fresh("p"))
            init = f"int({ins[li]})" if id(p) in as_int else ins[li]   # loop_ints
            em.line(d, f"{em.name(p)} = {init}", node)
        else:
            em.bind(p, ins[li])
    i, j = em.fresh("i"), em.fresh("j")
    slicers = []
    for bp, li, axis in sliced:
        x, rank = ins[li], node.inputs[li].type.rank
        p = body.params[bp]
        em.bind(p, em.fresh("s"))
        if rank is not None:
            ax = axis % rank
            # a stack kept as the list of its rows (backend.stacks): len() of it
            bound = f"len({x})" if id(node.inputs[li]) in em.lists else f"{x}.shape[{ax}]"
            em.line(d, f"{n} = min({n}, {bound})", node)
            if _only_squeezed(p, ax, body):
                # read only through Squeeze on its axis: those are `x[i]` (one index
                # instead of a slice and an index; kernels._squeeze writes it)
                em.sliced[id(p)] = (x, i, ax)
            else:
                slicers.append(f"{em.name(p)} = {x}[{':, ' * ax}{i}:{j}]")
        else:
            pre = em.fresh("pre")
            em.line(d, f"{pre} = (slice(None),) * {em.glob(slice_axis, '_slice_axis')}"
                       f"({x}, {axis})", node)
            em.line(d, f"{n} = min({n}, {x}.shape[len({pre})])", node)
            slicers.append(f"{em.name(p)} = {x}[{pre} + (slice({i}, {j}),)]")
    iteration = None
    if ci != -1:
        p = body.params[ci]
        em.bind(p, em.fresh("it"))
        if p.users or any(r is p for r in body.results):
            t = p.type
            make = t.dtype.np.type if t.shape == () else (
                lambda k, _dt=t.dtype.np: np.full((1,), k, dtype=_dt))
            iteration = f"{em.name(p)} = {em.glob(make, '_iteration')}({i})"

    # concatenated outputs collect one value per iteration
    # (a stack kept as a list collects the rows themselves: backend.stacks)
    accs, rows = {}, {}
    for k, ((ri, axis), o) in enumerate(zip(a["output_map"], node.outputs)):
        into = rows if id(o) in em.lists else accs
        if axis is not None and ri not in into and k not in stacked:
            acc = em.fresh("rows" if into is rows else "acc")
            into[ri] = acc
            em.line(d, f"{acc} = []; {acc}_append = {acc}.append", node)

    # the counter is kept only where something reads it
    back_of = dict(back)
    checked = [ri for ri, axis in a["output_map"] if axis is None and ri not in back_of]
    count = n is not None or slicers or iteration is not None or checked
    # the condition computed in the body is written straight into `go`
    body_prog = kernel.bodies["body"]
    if not body_always_true and is_one_element_bool(cond_res.type):
        root = body_prog.root(cond_res)
        if root.producer is not None and root.producer.op != "Const":
            em.bind(root, go)

    for v, p in plan.alternating:
        shape, dtype = v.type.shape, em.glob(v.type.dtype.np, '_dtype')
        bufs = em.fresh("buf"), em.fresh("buf")
        em.line(d, f"{bufs[0]} = np.empty({shape!r}, {dtype}); "
                   f"{bufs[1]} = np.empty({shape!r}, {dtype})", node)
        x = em.fresh("v")
        em.bind(v, x)
        em.into[id(v)] = x
        em.before[id(v)] = f"{x} = {bufs[1]} if {em.name(p)} is {bufs[0]} else {bufs[0]}"
    for c in counters:                 # Python-int counters (backend.loop_ints)
        for cn, kind, op, const, pos in c.nodes:
            em.instead[id(cn)] = counter_line(em, cn, kind, op, const, pos)
    # the loop
    if count:
        em.line(d, f"{i} = 0", node)
    test = [go] if check_go else []
    if n is not None:
        test.append(f"{i} < {n}")
    em.line(d, f"while {' and '.join(test) or 'True'}:", node)
    inner = d + 1
    if slicers:
        em.line(inner, f"{j} = {i} + 1", node)
    for s in slicers:
        em.line(inner, s, node)
    if iteration is not None:
        em.line(inner, iteration, node)
    direct = _rows_direct(em, node, body_prog, rows)
    results = em.program_body(body_prog, inner)
    for ri, acc in accs.items():
        em.line(inner, f"{acc}_append({results[ri]})", node)
    for ri, acc in rows.items():
        row = em.name(direct[ri]) if ri in direct else f"{results[ri]}[0]"
        em.line(inner, f"{acc}_append({row})", node)
    # a result read after the loop must survive the back edges' assignment
    back_vars = {em.name(body.params[bp]) for bp in back_params}
    last = {}
    for ri in checked:
        if ri not in last:
            r = results[ri]
            if r in back_vars:
                last[ri] = em.fresh("last")
                em.line(inner, f"{last[ri]} = {r}", node)
            else:
                last[ri] = r
    if not body_always_true:
        cond = em.cond_expr(cond_res)
        if cond != go:
            em.line(inner, f"{go} = {cond}", node)
    em.assign(inner, [em.name(body.params[bp]) for _, bp in back],
              [results[ri] for ri, _ in back], node)
    if count:
        em.line(inner, f"{i} = {j}" if slicers else f"{i} += 1", node)

    # the outputs (the last value of a row written in place: a copy, its own memory)
    taken = set()
    in_place = {id(st.value) for st in plan.stacked}
    for k, ((ri, axis), o) in enumerate(zip(a["output_map"], node.outputs)):
        copy = ".copy()" if axis is None and \
            id(body_prog.root(body.results[ri])) in in_place else ""
        if axis is not None and id(o) in em.lists:
            em.line(d, f"{em.name(o)} = {rows[ri]}", node)
        elif k in stacked:           # the sliced input's buffer, filled in place
            x = ins[stacked[k].source]
            em.line(d, f"{em.name(o)} = {x} if {i} == {x}.shape[0] else {x}[:{i}]", node)
        elif axis is not None:
            out = em.name(o)
            empty = _empty(o.type, axis)
            fallback = em.glob(empty if empty is not None else _no_value(
                f"the Loop ran zero times and output {k} (body result {ri}, concatenated "
                f"along axis {axis}) has an unknown rank, so its empty value is unknown"),
                "_empty") + "()"
            em.line(d, f"{out} = np.concatenate({accs[ri]}, {axis}) if {accs[ri]} "
                       f"else {fallback}", node)
        elif ri in back_of:        # the parameter's variable holds the last value
            p = em.name(body.params[back_of[ri]])
            if p in taken or copy:   # each output a variable of its own (each is freed)
                em.line(d, f"{em.name(o)} = {p}{copy}", node)
            else:
                taken.add(p)
                em.bind(o, p)
        else:
            fail = em.glob(_no_value(
                f"the Loop ran zero times, so output {k} (the last value of body result "
                f"{ri}, neither carried by a back edge nor concatenated) has no value"), "_fail")
            em.line(d, f"if not {i}: {fail}()", node)
            em.line(d, f"{em.name(o)} = {last[ri]}{copy}", node)
