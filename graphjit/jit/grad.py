"""Gradient functions called in GRAPH_MODE: compiled once per input signature (the
gradient graph of frontend.grad_program, planned by the backend) and cached on the
function or Cell differentiated. Installed as context.compiler.call_grad."""
from __future__ import annotations

import time

import numpy as np

from ..backend.executor import compile_graph
from ..context import get_context
from ..frontend.builder import build_function
from ..frontend.grad_program import assemble, build_grad_program, target_of
from ..frontend.state import Compiler
from ..ir.verifier import verify
from ..ops.gradients import GradFunction, _AllInputs, tensor_leaves
from ..tensor import Tensor
from .cache import CacheEntry, _arg_names, _cache_for, _fill, _signature, _unwrap

__all__ = ["call_grad"]


def call_grad(gf: GradFunction, args, kwargs):
    """Run a gradient function in GRAPH_MODE (its __call__ raises the errors)."""
    if isinstance(gf, _AllInputs):
        gf = gf.bind_positions(args, kwargs)
    args, kwargs, sens = gf.split_sens(args, kwargs)
    gf.check_positions(args)
    fn, self_obj, owner, name = target_of(gf.fn)
    weights = list(gf.weights or ())
    cache = _cache_for(owner, ("grad", _unwrap(fn), gf.config(),
                               tuple(id(w) for w in weights)))
    sens_leaves = tensor_leaves(sens) if sens is not None else []
    specs = getattr(gf.fn, "input_signature", None) or getattr(gf.fn, "_input_specs", None)
    key, tensors = _signature(_arg_names(fn, self_obj is not None), args, kwargs, specs)
    key = key + (tuple((t.dtype.name, tuple(t.shape)) for t in sens_leaves),)
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
            entry = CacheEntry(key, prog.graph, compile_graph(prog.graph), prog,
                               compiler.guards, compiler.records, compiler.warnings,
                               "first call" if not cache.order else "new signature",
                               time.perf_counter() - t0)
            cache.entries.setdefault(key, []).append(entry)
            cache.order.append(entry)
    prog = entry.template
    arrays = []
    for path, x, _ in tensors:
        if x is None:
            raise ValueError(f"argument {path} is a Tensor without data; pass real data")
        arrays.append(x._need_data())
    arrays += [w._need_data() for w in weights]
    for i in prog.sens_at:
        s = sens_leaves[i]
        want = prog.graph.params[len(arrays)].type.dtype.np
        arrays.append(np.asarray(s._need_data() if isinstance(s, Tensor) else s, dtype=want))
    outs = entry.plan(*arrays)
    n = prog.n_results
    return assemble(gf, args, prog, outs[:n], [Tensor._wrap(np.asarray(o)) for o in outs[n:]],
                    _fill)
