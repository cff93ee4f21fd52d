"""One forward for `loss = net(x)` followed by `grad(net, weights)(x, sens)` in a
construct being compiled (TrainOneStep-style code), as MindSpore runs it.

    loss = self.network(*inputs)                              # the primal call
    sens = ops.ones_like(loss) * scale
    grads = self.grad(self.network, self.weights)(*inputs, sens)

Built naively, the gradient runs the network a second time: state it updates
(BatchNorm's moving statistics) is updated twice and random draws (Dropout) differ
from the loss's. A call of a Cell marked with set_grad() is therefore recorded
(record_primal); when a gradient of that Cell follows on the very same arguments with
no state operation in between, its forward half (graphjit.autodiff.split_grad) takes
the primal call's place: the primal's nodes are erased, its outputs and final state
token become the forward half's, and the backward half is appended at the gradient's
call. Anything that does not fit (another graph, an effect in between, a value of the
primal read elsewhere) keeps the naive build.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..autodiff.graphs import inline
from ..autodiff.linearize import fold_constants
from ..autodiff.transform import default_sens, split_grad
from ..ir.types import is_static
from .templates import Out
from .values import GraphTensor, active

__all__ = ["record_primal", "take_primal", "reuse_primal"]


class _Primal:
    __slots__ = ("cell", "args", "kwargs", "graph", "nodes", "state_before", "token_after",
                 "out")

    def __init__(self, cell, args, kwargs, graph, nodes, state_before, token_after, out):
        self.cell, self.args, self.kwargs = cell, args, kwargs
        self.graph, self.nodes = graph, nodes
        self.state_before, self.token_after, self.out = state_before, token_after, out


def record_primal(cell, args, kwargs, build):
    """Build a call of a Cell marked with set_grad() (build()), remembering where its
    nodes are for a gradient of it that may follow."""
    ctx = active()
    graph = ctx.graph
    if graph._insert_before is not None:
        return build()
    n0 = len(graph.nodes)
    state = ctx.save_state()
    out = build()
    ctx.primal_call = _Primal(cell, tuple(args), dict(kwargs), graph, graph.nodes[n0:],
                              state, ctx.token, out)
    return out


def _same(a, b) -> bool:
    if isinstance(a, GraphTensor) and isinstance(b, GraphTensor):
        return a.value is b.value
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return a is b


def take_primal(ctx, gf, args, kwargs) -> Optional[_Primal]:
    """The recorded primal call this gradient call may reuse (consumed), or None."""
    rec = getattr(ctx, "primal_call", None)
    ctx.primal_call = None
    if rec is None or rec.cell is not gf.fn or gf.has_aux or rec.graph is not ctx.graph:
        return None
    if not _same(tuple(args), rec.args) or rec.kwargs.keys() != kwargs.keys() or \
            not all(_same(kwargs[k], rec.kwargs[k]) for k in kwargs):
        return None
    if not rec.nodes:
        return None
    if ctx.token is not rec.token_after and _writes_weights_since(ctx, rec):
        # as eager mode (grad_func._take_forward): a weight updated since the call
        # makes the gradient run the forward again; other updates in between do not
        return None
    return rec


def _writes_weights_since(ctx, rec) -> bool:
    """Whether a node after the primal call updates (or may update, in an If or Loop) a
    trainable Parameter of its Cell."""
    known = ctx.root().refs            # a weight this graph never touched has no ref
    refs = {id(ctx.ref_of(p)) for p in rec.cell.trainable_params() if id(p) in known}
    graph = rec.graph
    last = graph.nodes.index(rec.nodes[-1])
    for node in graph.nodes[last + 1:]:
        if node.op != "Load" and any(id(v) in refs for v in node.inputs):
            return True
    return False


def _pairs(template, out, acc):
    """(template index, primal GraphTensor) for each output leaf; False on a mismatch."""
    if isinstance(template, Out):
        if not isinstance(out, GraphTensor) or template.is_list:
            return False
        acc.append((template.i, out))
        return True
    if isinstance(template, (tuple, list)):
        return isinstance(out, (tuple, list)) and len(out) == len(template) and \
            all(_pairs(t, o, acc) for t, o in zip(template, out))
    if isinstance(template, dict):
        return isinstance(out, dict) and out.keys() == template.keys() and \
            all(_pairs(template[k], out[k], acc) for k in template)
    return not isinstance(out, GraphTensor)


def reuse_primal(b, ctx, gf, prog, rec: _Primal, args, sens_leaves):
    """(results, grads) as GraphTensors with the primal call replaced by the forward
    half of the gradient (see the module docstring); None to build naively."""
    graph = ctx.graph
    region = set(rec.nodes)
    if not region <= set(graph.nodes):          # a node of the call was dropped since
        return None
    pairs = []
    if not _pairs(prog.t_diff, rec.out, pairs):
        return None
    escaping = {id(t.value) for _, t in pairs}
    if rec.token_after is not None:
        escaping.add(id(rec.token_after))
    for node in rec.nodes:                  # only the outputs are read after the call
        if node.op == "Const":              # (its constants stay: they may be shared)
            continue
        for o in node.outputs:
            if id(o) not in escaping and any(u not in region for u in o.users):
                return None
    fwd_graph, wrt, outputs = prog.forward
    lin = split_grad(fwd_graph, [fwd_graph.params[i] for i in wrt], outputs)
    last = graph.nodes.index(rec.nodes[-1])
    anchor = graph.nodes[last + 1] if last + 1 < len(graph.nodes) else None

    saved_now = ctx.save_state()
    ctx.restore_state(rec.state_before)
    try:
        with graph.inserting_before(anchor):
            inputs = [ctx.value_of(x) for x in prog.leaves]
            for w in gf.weights or ():
                v = ctx.value_of(w)
                if v.producer is not None and v.producer.op == "Const":
                    b.c.guard_attr(w, "_data", w._data)
                inputs.append(v)
            refs = {i: p for i, p, _ in prog.state_slots}
            tensors = iter(inputs)
            fwd_inputs = [ctx.ref_of(refs[k]) if prm.type.kind == "ref" else
                          ctx.current_token() if prm.type.kind == "state" else next(tensors)
                          for k, prm in enumerate(fwd_graph.params)]
            vals = inline(graph, lin.fwd, fwd_inputs)
    except Exception:
        ctx.restore_state(saved_now)
        raise
    results, residuals = vals[:lin.n_results], vals[lin.n_results:]
    fn_results = results[:prog.n_results]
    new_token = fn_results[prog.n_results - 1] if prog.returns_token else ctx.token
    for i, t in pairs:
        if t.value.type != fn_results[i].type:
            raise RuntimeError("internal error: the gradient's forward half and the primal "
                               "call give different types")
    for i, t in pairs:
        graph.replace_all_uses_with(t.value, fn_results[i])
        t.value = fn_results[i]
    if rec.token_after is not None and rec.token_after is not new_token:
        if rec.token_after.producer in region:
            graph.replace_all_uses_with(rec.token_after, new_token)
    # the call's constants stay: the builder shares a Const among equal values, so one
    # made in the call may be read after it (a sensitivity [1.0] equal to a constant
    # of the network); an unread one is dropped with the dead code
    graph.erase_nodes([n for n in rec.nodes if n.op != "Const"])
    # the token after the program's updates since the call (they now follow the
    # forward half), or the forward half's own when none came between
    now = saved_now[0]
    ctx.restore_state((new_token if now is rec.token_after else now, ctx.token_param, True, {}))

    sens_vals = []
    tensor_params = [p for p in prog.graph.params if p.type.is_tensor]
    n_in = len(inputs)
    for j, i in enumerate(prog.sens_at):
        sens_vals.append(fit_sens(graph, ctx.value_of(sens_leaves[i]),
                                  tensor_params[n_in + j].type))
    args_b = []
    for kind, k in lin.roles:
        if kind == "param":
            args_b.append(fwd_inputs[k])
        elif kind == "result":
            args_b.append(residuals[k])
        elif kind == "g":
            args_b.append(sens_vals[outputs.index(k)] if gf.sens_param else
                          default_sens(graph, results[k]))
        else:   # pragma: no cover - the top level threads nothing
            raise AssertionError(kind)
    grads = inline(graph, lin.bwd, args_b, fold=fold_constants)
    return ([GraphTensor(v) for v in fn_results], [GraphTensor(v) for v in grads])


def fit_sens(graph, v, want):
    """The sensitivity value v made the type `want` of the output it weights: cast to its
    dtype and, as eager mode does (grad_func._seeds), reshaped when it has the output's
    size in another shape (a [1] sens for a scalar loss) or else broadcast to it (a
    scalar loss scale for a [1] loss, as MindSpore's loss-scale cells pass)."""
    if v.type.dtype is not want.dtype:
        v = graph.add_node("Cast", (v,), {"dtype": want.dtype}).outputs[0]
    have, shape = v.type.shape, want.shape
    if have != shape and have is not None and shape is not None and is_static(have) \
            and is_static(shape):
        op = "Reshape" if int(np.prod(have, dtype=np.int64)) == \
            int(np.prod(shape, dtype=np.int64)) else "BroadcastTo"
        v = graph.add_node(op, (v,), {"shape": tuple(shape)}).outputs[0]
    return v
