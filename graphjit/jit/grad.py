"""Gradient functions called in GRAPH_MODE: compiled once per input signature (the
gradient graph of frontend.grad_program, planned by the backend) and cached on the
function or Cell differentiated. Installed as context.compiler.call_grad.

A call whose arguments are plain Tensors and constants takes a fast path, as a Cell
call does: its (dtype, shape) signature finds the compiled entry directly, and the
weights' current arrays are passed in (they are graph inputs, never constants). The
entry that ran last also gets a generated call (jit.grad_entry) that
GradFunction.__call__ tries first, with nothing generic in between."""
from __future__ import annotations

import time

import numpy as np

from ..backend.executor import compile_graph
from ..context import get_context
from ..frontend.builder import build_function
from ..frontend.grad_program import assemble, build_grad_program, target_of
from ..frontend.state import Compiler
from ..ir.uniformity import check_collectives
from ..ir.verifier import verify
from ..passes.pipeline import optimize
from ..ops.composite.base import _AllInputs
from ..ops.function.grad.grad_func import GradFunction, tensor_leaves
from ..common.tensor import Tensor
from .bindings import StateBinding
from .cache import CacheEntry, _arg_names, _cache_for, _fast_key, _fill, _signature, _unwrap
from .entry import make_guard_check
from .grad_entry import make_grad_call
from ..frontend.templates import Out

__all__ = ["call_grad"]


class _Memo:
    """What a gradient function's calls share: its compile cache and call details."""

    def __init__(self, gf: GradFunction):
        fn, self_obj, owner, _ = target_of(gf.fn)
        self.fn, self.self_obj = fn, self_obj
        self.weights = list(gf.weights or ())
        self.cache = _cache_for(owner, ("grad", _unwrap(fn), gf.config(),
                                        tuple(id(w) for w in self.weights)))
        self.names = _arg_names(fn, self_obj is not None)
        self.specs = getattr(gf.fn, "input_signature", None) or \
            getattr(gf.fn, "_input_specs", None)


def _memo(gf: GradFunction) -> _Memo:
    m = gf.__dict__.get("_graphjit_memo")
    if m is None:
        m = gf._graphjit_memo = _Memo(gf)
    return m


def _install(gf, m: _Memo, entry, args) -> None:
    """Make the entry's fast call (jit.grad_entry) the one gf's calls try first. It is
    made once per entry: the entry's cache is that of one function, configuration and
    list of weights, so every gradient function reaching it (`ms.grad(net, None, w)`
    made anew at each step, say) shares it."""
    call = entry.grad_call
    if call is None:
        call = entry.grad_call = make_grad_call(entry, gf, m.weights, args) or False
    gf._graphjit_fast = call or None


def call_grad(gf: GradFunction, args, kwargs):
    """Run a gradient function in GRAPH_MODE (its __call__ raises the errors)."""
    own = not isinstance(gf, _AllInputs)
    if not own:
        gf = gf.bind_positions(args, kwargs)
    m = _memo(gf)
    fast = None
    if not kwargs and not gf.sens_param and not get_context("check_equivalence"):
        fast = _fast_key(args)
        if fast is not None:
            e = m.cache.fast.get(fast[0])
            if e is not None:
                check = e.fast_call
                if check is None:      # the guards written out (Parameters' types included)
                    check = e.fast_call = make_guard_check(e) if e.guards else bool
                if check() and (e.state is None or e.state.resolve() is not None):
                    if own and m.specs is None:
                        _install(gf, m, e, args)
                    return _run(gf, e, args, fast[1] + [w._data for w in m.weights], None)
    args, kwargs, sens = gf.split_sens(args, kwargs)
    gf.check_positions(args)
    sens_leaves = tensor_leaves(sens) if sens is not None else []
    key, tensors = _signature(m.names, args, kwargs, m.specs, aliasing=False)
    key = key + (tuple((t.dtype.name, tuple(t.shape)) for t in sens_leaves),)
    cache = m.cache
    with cache.lock:
        entry = next((e for e in cache.entries.get(key, ()) if e.guards_hold()), None)
        if entry is None:
            t0 = time.perf_counter()
            compiler = Compiler(max_unroll=get_context("max_unroll"),
                                max_depth=min(int(get_context("max_call_depth")), 400))
            prog = build_grad_program(
                compiler, lambda f, a, k, obj: build_function(compiler, f, a, k, self_obj=obj),
                gf, args, kwargs, [t.type for t in sens_leaves], [t for _, _, t in tensors])
            verify(prog.graph)
            prog.graph = optimize(prog.graph, get_context("optimize_graphs"),
                                  get_context("dump_passes"))
            check_collectives(prog.graph)
            state = StateBinding(prog.graph, prog.state_slots) if any(
                not p.type.is_tensor for p in prog.graph.params) else None
            entry = CacheEntry(key, prog.graph, compile_graph(prog.graph), prog,
                               compiler.guards, compiler.records, compiler.warnings,
                               "first call" if not cache.order else "new signature",
                               time.perf_counter() - t0, state=state,
                               attr_writes=list(compiler.attr_writes))
            cache.entries.setdefault(key, []).append(entry)
            cache.order.append(entry)
        if fast is not None and m.specs is None:
            cache.fast[fast[0]] = entry
            if own:
                _install(gf, m, entry, args)
    arrays = []
    for path, x, _ in tensors:
        if x is None:
            raise ValueError(f"argument {path} is a Tensor without data; pass real data")
        arrays.append(x._need_data())
    arrays += [w._need_data() for w in m.weights]
    prog = entry.template
    for i in prog.sens_at:
        s = sens_leaves[i]
        want = [p for p in prog.graph.params if p.type.is_tensor][len(arrays)].type.dtype.np
        arrays.append(np.asarray(s._need_data() if isinstance(s, Tensor) else s, dtype=want))
    return _run(gf, entry, args, arrays, sens)


def _run(gf, entry, args, arrays, sens):
    if entry.state is not None:     # fn reads or updates Parameters besides the weights
        variables = entry.state.resolve()
        if variables is None:
            raise RuntimeError("a Parameter the gradient function reads was replaced by "
                               "another thread while this call started; call again")
        arrays = entry.state.arguments(arrays, variables)
    outs = entry.plan(*arrays)
    for ref, attr, value in entry.attr_writes:     # `self.attr = constant`, every call
        obj = ref()
        if obj is not None:
            setattr(obj, attr, value)
    prog = entry.template
    n = prog.n_results
    wrap = Tensor._wrap
    t = prog.t_diff
    if gf.positions is None and gf.weights is not None and not gf.has_aux and \
            prog.t_aux is None and type(t) is Out and not t.weak and not t.is_list:
        # the common step (the loss and the weights' gradients), without assemble()
        grads = tuple([wrap(o) for o in outs[n:]])
        if gf.single_weight:
            grads = grads[0]
        return (wrap(outs[t.i]), grads) if gf.get_value else grads
    return assemble(gf, args, prog, outs[:n], [wrap(o) for o in outs[n:]], _fill)
