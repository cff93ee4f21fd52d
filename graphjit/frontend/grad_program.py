"""The graphs of gradient functions (ms.grad, ms.value_and_grad, GradOperation): the
function's graph with the differentiated inputs and the weights as graph parameters,
differentiated by graphjit.autodiff.grad_graph; and a gradient function called inside
a construct being compiled, whose gradient graph is built from the function's source
and inlined. (A call in GRAPH_MODE from Python compiles it: graphjit.jit.grad.)

The weights are parameters, not constants, so a compiled gradient reads their data
when it runs: a training loop that updates them never recompiles.
"""
from __future__ import annotations

import inspect
import weakref
import types
from typing import Any, List

import numpy as np

from ..autodiff import grad_graph, inline
from ..context import get_context
from ..ir.errors import UnsupportedSyntaxError
from ..ir.graph import Graph
from ..ir.verifier import verify
from ..passes.pipeline import optimize
from ..ops.composite.base import _AllInputs
from ..ops.function.grad.grad_func import GradFunction, tensor_leaves
from ..common.tensor import TensorLike, TensorSpec, current_recorder
from .grad_reuse import fit_sens, reuse_primal, take_primal
from .templates import Out, TextOut, _param_name, _template
from .state import Compiler
from ..common.cell_hooks import REGISTRY as HOOKS, refuse_backward_hooks
from ..common import cell_bprop as _bprop
from ..ops._dispatch import apply
from .values import DynamicList, GraphContext, GraphTensor, active

__all__ = ["GradProgram", "build_grad_program", "call_grad_inline", "target_of"]


def target_of(fn):
    """(function, self object or None, owner of its compile cache, name) of what a
    gradient function differentiates."""
    from ..nn import Cell
    if isinstance(fn, GradFunction):
        return _call_gradient, _GradCall(fn), fn, "grad"
    if isinstance(fn, Cell):
        construct = type(fn).construct
        # an @ms.jit construct: its function (the gradient program compiles it anyway)
        construct = getattr(construct, "_graphjit_jit_of", construct)
        return construct, fn, fn, type(fn).__name__
    jit_target = getattr(type(fn), "_graphjit_target", None)
    if jit_target is not None:          # an @jit function, maybe bound
        f, obj = jit_target(fn)
        return f, obj, (obj if obj is not None else fn), f.__name__
    if isinstance(fn, types.MethodType):
        return fn.__func__, fn.__self__, fn.__self__, fn.__func__.__name__
    if isinstance(fn, types.FunctionType):
        return fn, None, fn, fn.__name__
    call = getattr(type(fn), "__call__", None)
    if isinstance(call, types.FunctionType):
        return call, fn, fn, type(fn).__name__
    raise TypeError(f"cannot differentiate {type(fn).__name__}: give a function or a Cell")


class _GradCall:
    """A gradient function as the object whose method a higher-order gradient builds."""

    def __init__(self, gf):
        self.gf = gf


def _call_gradient(self, *args, **kwargs):
    return self.gf(*args, **kwargs)


class _Hooked:
    """A Cell with forward hooks, differentiated: its call (hooks and construct) is
    built as a construct's call of a sub-Cell is (calls._call_hooked_cell). One per
    Cell (_HOOKED), holding it weakly, so that the graph's guards on it hold."""

    def __init__(self, cell):
        self._ref = weakref.ref(cell)

    @property
    def cell(self):
        return self._ref()


_HOOKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _hooked(cell) -> _Hooked:
    h = _HOOKED.get(cell)
    if h is None:
        h = _HOOKED[cell] = _Hooked(cell)
    return h


def _call_hooked(self, *args, **kwargs):
    return self.cell(*args, **kwargs)


class GradProgram:
    """The gradient graph of one call signature and how to read its results.

    Attributes:
        graph: parameters: the tensor arguments (leaves, in order), the weights, then one
            sensitivity per differentiated output (sens_param); results: fn's results
            (n_results of them), then the gradient of each differentiated input leaf
            and of each weight.
        leaves: the tensor arguments, in the order of the parameters.
        t_diff, t_aux: templates (program.Out) of the differentiated output and of aux.
        sens_at: which leaves of the sensitivity the graph takes.
    """

    def __init__(self, graph, leaves, t_diff, t_aux, n_results, sens_at, compiler,
                 state_slots=()):
        self.graph, self.leaves = graph, leaves
        self.t_diff, self.t_aux = t_diff, t_aux
        self.n_results, self.sens_at = n_results, sens_at
        self.guards, self.records = compiler.guards, compiler.records
        self.warnings = compiler.warnings
        # the Parameters fn reads or updates besides the weights (state, as in
        # program.Program): (ref parameter index, Parameter, sources); the graph then
        # takes the state token and returns the last one as its last result of fn's
        self.state_slots = list(state_slots)
        self.returns_token = any(p.type.kind == "state" for p in graph.params)
        # the enclosing gradients' Parameters this graph takes after the weights (a
        # gradient built inside a function being differentiated)
        self.extra_weights: list = []


def build_grad_program(compiler: Compiler, build, gf: GradFunction, args, kwargs,
                       sens_types, leaf_types=None) -> GradProgram:
    """Build fn's graph for these arguments (eager Tensors, TensorSpecs or graph values;
    Python values are built in as constants) and differentiate it. `build(fn, args,
    kwargs, self_obj)` builds a user function into the current graph (with `compiler`);
    `leaf_types`, if given, are the types of the tensor arguments' parameters (as
    declared by input specs, with unknown dims)."""
    reread: set = set()
    while True:
        prog = _build_grad_program(compiler, build, gf, args, kwargs, sens_types, leaf_types,
                                   reread)
        # a weight the program updates (ops.assign, self.w = v) is read from its state:
        # built again so that every read sees the update before it (value_of)
        written = {id(w) for w in gf.weights or ()} & {k for k, _ in prog.ref_ids}
        if written <= reread:
            return prog
        reread |= written


def _build_grad_program(compiler, build, gf, args, kwargs, sens_types, leaf_types, reread):
    fn, self_obj, _, name = target_of(gf.fn)
    graph = Graph(name)
    ctx = GraphContext(graph)
    leaves: List[Any] = []
    try:
        names = list(inspect.signature(fn).parameters)[1 if self_obj is not None else 0:]
    except (TypeError, ValueError):
        names = []
    from ..nn import Cell
    if isinstance(gf.fn, Cell):
        # the Cell's forward hooks run around its construct (common.cell_hooks), as eagerly
        compiler.guard_attr(HOOKS, "version", HOOKS.version)
        if gf.fn.__dict__.get("_graphjit_hooks"):
            refuse_backward_hooks(gf.fn)
            fn, self_obj = _call_hooked, _hooked(gf.fn)

    def sub(x, path):
        if isinstance(x, (TensorLike, TensorSpec)):
            t = x.type if leaf_types is None else leaf_types[len(leaves)]
            leaves.append(x)
            return GraphTensor(graph.add_param(t, _param_name(path)),
                               getattr(x, "weak", False))
        if isinstance(x, DynamicList):
            raise UnsupportedSyntaxError(
                "a list of run-time length passed to a gradient function",
                hint="pass ops.stack(lst) instead")
        if isinstance(x, tuple):
            return tuple(sub(v, f"{path}[{i}]") for i, v in enumerate(x))
        if isinstance(x, list):
            return [sub(v, f"{path}[{i}]") for i, v in enumerate(x)]
        if isinstance(x, dict):
            return {k: sub(v, f"{path}[{k!r}]") for k, v in x.items()}
        return x

    gargs, counts = [], []
    for i, a in enumerate(args):
        before = len(leaves)
        gargs.append(sub(a, names[i] if i < len(names) else f"args[{i}]"))
        counts.append(len(leaves) - before)
    gkwargs = {k: sub(kwargs[k], k) for k in sorted(kwargs)}
    if current_recorder() is None:      # the caller's lists and dicts: changing them is
        for a in [*gargs, *gkwargs.values()]:       # refused in a gradient program
            compiler.note_passed_in(a)
    weights = list(gf.weights or ())
    ctx.reread = reread
    w_params = []
    for k, w in enumerate(weights):
        p = graph.add_param(w.type, _param_name(w.name or f"weight{k}"))
        ctx.bound[id(w)] = p
        w_params.append(len(graph.params) - 1)
    # a gradient built inside another gradient's function: the Parameters the enclosing
    # gradients differentiate are inputs of this graph too (not state it reads), so that
    # the enclosing gradient flows through this one's dependence on them
    enclosing = getattr(compiler, "grad_weights", [])
    extra = []
    for w in enclosing:
        if all(w is not v for v in weights + extra):
            extra.append(w)
    for w in extra:
        ctx.bound[id(w)] = graph.add_param(w.type, _param_name(w.name or "weight"))
    unguarded = compiler.unguarded
    compiler.unguarded = unguarded | {id(w) for w in weights + extra}
    compiler.grad_depth = getattr(compiler, "grad_depth", 0) + 1
    compiler.grad_weights = enclosing + weights
    try:
        with ctx:
            out = build(fn, gargs, gkwargs, self_obj)
            if isinstance(gf.fn, Cell) and fn is type(gf.fn).construct and \
                    _bprop.has_bprop(gf.fn):     # its gradient is its bprop's
                out = _bprop.wrap_outputs(gf.fn, list(gargs) + [gkwargs[k] for k in gkwargs],
                                          out, apply, lambda v: isinstance(v, TensorLike))
            diff, aux = gf.split_output(out)
            results: list = []
            t_diff = _template(diff, results, ctx)
            n_diff = len(results)
            t_aux = _template(aux, results, ctx) if aux is not None else None
            if ctx.token_param is not None:
                results.append(ctx.token)     # fn updates state: the last token
            graph.set_results(results)
    finally:
        compiler.unguarded = unguarded
        compiler.grad_depth -= 1
        compiler.grad_weights = enclosing
    verify(graph)
    # the forward graph optimized first: conditions the passes prove constant make the
    # Loops' iteration counts, and so the types of what they save, known before the
    # gradient is built around them
    graph = optimize(graph, get_context("optimize_graphs"), get_context("dump_passes"))
    offsets = np.cumsum([0] + counts)
    wrt = [j for p in gf.positions or () for j in range(offsets[p], offsets[p + 1])]
    wrt += w_params
    outputs = [i for i in range(n_diff) if graph.results[i].type.dtype.is_differentiable]
    sens_at = []
    if gf.sens_param:
        if len(sens_types) != n_diff:
            raise ValueError(f"sens_param: the sensitivity holds {len(sens_types)} tensor(s) "
                             f"but the function returns {n_diff}")
        sens_at = outputs
    joint = grad_graph(graph, wrt, outputs, sens="param" if gf.sens_param else "ones",
                       name=f"{name}_grad")
    slots = [(graph.params.index(v), p, compiler.state_sources.get(id(p), []))
             for p, v in ctx.refs.values()]
    prog = GradProgram(joint, leaves, t_diff, t_aux, len(results), sens_at, compiler, slots)
    prog.forward = (graph, wrt, outputs)     # the undifferentiated graph (grad_reuse)
    prog.extra_weights = extra
    prog.ref_ids = [(k, p) for k, (p, _) in ctx.refs.items()]
    return prog


def assemble(gf: GradFunction, args, prog: GradProgram, results, grads, fill):
    """gf's return value from the gradient graph's outputs; `fill(template, results)`
    puts results into the structure fn returned."""
    value = fill(prog.t_diff, results)
    aux = fill(prog.t_aux, results) if prog.t_aux is not None else None
    out = value if aux is None else (value,) + tuple(aux)
    it = iter(grads)
    pos = [_map_tensors(args[p], lambda t: next(it)) for p in gf.positions or ()]
    ws = [next(it) for _ in gf.weights or ()]
    return gf.assemble(args, pos, ws, out, aux)


def _map_tensors(x, fn):
    if isinstance(x, (TensorLike, TensorSpec)):
        return fn(x)
    if isinstance(x, tuple):
        return tuple(_map_tensors(v, fn) for v in x)
    if isinstance(x, list):
        return [_map_tensors(v, fn) for v in x]
    if isinstance(x, dict):
        return {k: _map_tensors(v, fn) for k, v in x.items()}
    return x


def call_grad_inline(b, gf: GradFunction, args, kwargs, node):
    """A GradFunction called from the function being built: its gradient graph is built
    from fn's source and inlined into the graph being built."""
    if isinstance(gf, _AllInputs):
        gf = gf.bind_positions(args, kwargs)
    args, kwargs, sens = gf.split_sens(args, kwargs)
    gf.check_positions(args)
    outer = active()
    sens_leaves = tensor_leaves(sens) if sens is not None else []
    primal = take_primal(outer, gf, args, kwargs)
    prog = build_grad_program(
        b.c, lambda f, a, k, obj: b.build_call(f, a, k, self_obj=obj), gf, args, kwargs,
        [t.type for t in sens_leaves])
    if primal is not None and not prog.extra_weights:
        reused = reuse_primal(b, outer, gf, prog, primal, args, sens_leaves)
        if reused is not None:
            results, grads = reused
            return assemble(gf, args, prog, results, grads, _fill_graph)
    inputs = [outer.value_of(x) for x in prog.leaves]
    for w in gf.weights or ():
        v = outer.value_of(w)
        if v.producer is not None and v.producer.op == "Const":
            # the weight is baked into this graph as a constant: rebuild when it gets new
            # data (a weight the graph reads when it runs needs no guard)
            b.c.guard_attr(w, "_data", w._data)
        inputs.append(v)
    for w in prog.extra_weights:
        inputs.append(outer.value_of(w))
    tensor_params = [p for p in prog.graph.params if p.type.is_tensor]
    for i in prog.sens_at:
        inputs.append(fit_sens(outer.graph, outer.value_of(sens_leaves[i]),
                               tensor_params[len(inputs)].type))
    # the Parameters fn reads or updates (besides the weights) are this graph's, and its
    # updates join this graph's order: after the reads above
    refs = {i: p for i, p, _ in prog.state_slots}
    tensors = iter(inputs)
    inputs = [outer.ref_of(refs[k]) if prm.type.kind == "ref" else
              outer.current_token() if prm.type.kind == "state" else next(tensors)
              for k, prm in enumerate(prog.graph.params)]
    outs = inline(outer.graph, prog.graph, inputs)
    if prog.returns_token:
        outer.set_token(outs[prog.n_results - 1], wrote=True)
    results = [GraphTensor(v) for v in outs[:prog.n_results]]
    grads = [GraphTensor(v) for v in outs[prog.n_results:]]
    return assemble(gf, args, prog, results, grads, _fill_graph)


def _fill_graph(t, vals):
    """A template filled with graph values."""
    if isinstance(t, TextOut):
        raise UnsupportedSyntaxError(
            "a gradient function returning a string made from tensor values",
            hint="return the tensors")
    if isinstance(t, Out):
        if t.is_list:
            raise UnsupportedSyntaxError(
                "a gradient function returning a list of run-time length",
                hint="return ops.stack(lst)")
        return GraphTensor(vals[t.i].value, t.weak)
    if isinstance(t, tuple):
        return tuple(_fill_graph(v, vals) for v in t)
    if isinstance(t, list):
        return [_fill_graph(v, vals) for v in t]
    if isinstance(t, dict):
        return {k: _fill_graph(v, vals) for k, v in t.items()}
    return t
