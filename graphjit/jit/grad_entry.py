"""The per-call fast path of a gradient step in GRAPH_MODE: one Python function
generated per cache entry of a gradient function, as jit.entry's for a Cell call.

For `ms.value_and_grad(net, None, weights)` of an MLP over (x, y) the function is

    def call(args):
        if len(args) != 2 or _context['mode'] != _graph or _context['check_equivalence']:
            return None
        a0, a1 = args
        if type(a0) is not _Tensor or a0._dtype is not _d0: return None
        x0 = a0._data
        if x0 is None or x0.shape != (64, 32): return None
        ...                                       # a1 alike, then the guards
        w0 = _w0._data                            # the weights' current arrays
        if w0 is None: return None
        ...
        tok = _fp.set(_ignored)
        try:
            outs = _run(x0, x1, w0, w1, w2, w3)   # the generated plan
        except ...                                # as jit.entry: the user's raise, or wrapped
        finally:
            _fp.reset(tok)
        return (_t(outs[0]), (_t(outs[1]), _t(outs[2]), _t(outs[3]), _t(outs[4])))

where `_t(o)` is written out inline (a Tensor over o). It returns None (a gradient
function never returns None) for anything it does not take; GradFunction.__call__
then takes the general path (jit.grad.call_grad), which handles or reports it.
"""
from __future__ import annotations

import itertools

from ..context import GRAPH_MODE
from ..frontend.program import Out
from .entry import _guard_lines, argument_lines, base_env, run_lines, tensor_lines

__all__ = ["make_grad_call"]

_counter = itertools.count()


def make_grad_call(entry, gf, weights, args):
    """The fast call of a gradient function's cache entry for calls like `args`
    (positional Tensors with data and plain constants), or None where such calls
    cannot take one (sens_param, positions, an output other than the loss, a tuple of
    tensors beside it (has_aux) and the weights' gradients)."""
    prog = entry.template
    t = prog.t_diff
    aux = prog.t_aux
    if gf.sens_param or gf.positions is not None or gf.weights is None or prog.sens_at or \
            type(t) is not Out or t.weak or t.is_list or \
            getattr(gf.fn, "input_signature", None) or getattr(gf.fn, "_input_specs", None):
        return None
    if gf.has_aux != (aux is not None) or (aux is not None and not (type(aux) is tuple and all(
            type(u) is Out and not u.weak and not u.is_list for u in aux))):
        return None                     # aux other than a tuple of tensors: the general path
    key = entry.key
    n = len(args)
    if len(key) != n + 1 or key[n] != ():      # the arguments' keys, then the sens'
        return None
    env = base_env(entry)
    env["_graph"] = GRAPH_MODE
    lines = ["def call(args):",
             f"    if len(args) != {n} or _context['mode'] != _graph or "
             f"_context['check_equivalence']:",
             "        return None"]
    checked = argument_lines(args, key, env, "None", sequences=False)
    if checked is None:
        return None
    arrays = checked[1]
    lines += checked[0]
    lines += [ln.replace("return MISS", "return None") for ln in _guard_lines(entry, env)]
    for j, w in enumerate(weights):
        env[f"_w{j}"] = w
        lines += [f"    w{j} = _w{j}._data", f"    if w{j} is None: return None"]
        arrays.append(f"w{j}")
    lines += run_lines(entry, env, arrays, "None")
    n_aux = len(aux) if aux is not None else 0
    outs = [t.i] + list(range(prog.n_results, prog.n_results + len(weights))) + \
        [u.i for u in aux or ()]
    names = [f"r{k}" for k in range(len(outs))]
    for i, name in zip(outs, names):
        lines += tensor_lines(i, name)
    grad_names = names[1:len(names) - n_aux]
    grads = grad_names[0] if gf.single_weight else \
        "(" + "".join(f"{r}, " for r in grad_names) + ")"
    aux_names = "".join(f"{r}, " for r in names[len(names) - n_aux:])
    if aux is None:
        lines.append(f"    return ({names[0]}, {grads})" if gf.get_value else
                     f"    return {grads}")
    elif gf.get_value:                  # ((value, *aux), grads), as GradFunction.assemble
        lines.append(f"    return (({names[0]}, {aux_names}), {grads})")
    else:                               # (grads, aux)
        lines.append(f"    return ({grads}, ({aux_names}))")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<graphjit-grad-entry-{next(_counter)}>", "exec"), env)
    fn = env["call"]
    fn.source = source
    return fn
