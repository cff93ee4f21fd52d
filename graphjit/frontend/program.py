"""One call's graph: a parameter per tensor argument, the function body built into the
graph, its results, and the template that puts result arrays back into the structure
the function returned. The compile cache (graphjit.jit) verifies and plans it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List

from .calls import _is_internal
from ..ir.graph import Graph
from ..common.tensor import Tensor, TensorSpec
from .builder import build_function
from .state import Compiler
from .attributes import restore_attrs
from .templates import ArgRef, Out, WithWrites, _param_name, _template, contents_key
from .values import GraphContext, GraphTensor

__all__ = ["Program", "Out", "build_program"]


@dataclass
class Program:
    """What the front-end builds for one input signature."""

    graph: Graph
    template: Any         # the returned structure, with an Out for each graph result
    guards: List[tuple]   # (weakref to object, attribute, kind, value) the graph folded in
    records: List[Any]    # control-flow decisions (control_flow.Record), for explain
    warnings: List[str]
    # (ref parameter index, Parameter, sources) of each Parameter the graph reads or
    # updates (see Compiler.state_sources); the graph then also takes the state token
    # and returns the last one after its results
    state_slots: List[tuple] = field(default_factory=list)
    # (weakref to object, attribute, value): `obj.attr = constant` statements of the
    # program, done again after every run (eager mode does them at every call)
    attr_writes: List[tuple] = field(default_factory=list)


def build_program(fn, self_obj, args, kwargs, tensors, arg_names, name, *, max_unroll: int,
                  max_depth: int, param_args=()) -> Program:
    """Build the graph of fn called with args and kwargs.

    Args:
        fn: the user's function (a Cell's construct with self_obj the Cell).
        tensors: (path, tensor or None, TensorType) of each tensor argument, in the
            order calls pass their arrays: one graph parameter each.
        arg_names: the names of fn's positional parameters (after self).
        name: the graph's name.
        param_args: (path, Parameter) of each Parameter argument: state, bound at each
            call to the Parameter passed there.

    Returns:
        The Program (not verified).

    Raises:
        the build errors of graphjit (ShapeJoinError, ...) at the user's line.
    """
    compiler = Compiler(max_unroll=max_unroll, max_depth=max_depth)
    graph = Graph(name)
    ctx = GraphContext(graph)
    tmap = {path: GraphTensor(graph.add_param(t, _param_name(path))) for path, _, t in tensors}
    for path, first in getattr(tensors, "aliases", {}).items():
        tmap[path] = tmap[first]        # the same Tensor passed again: the same value
    for k, (path, p) in enumerate(param_args):
        compiler.note_state_source(p, ("arg", k))
        ctx.note_ref_name(p, path)
    with ctx:
        gargs = [_to_graph(a, arg_names[i] if i < len(arg_names) else f"args[{i}]", tmap, graph)
                 for i, a in enumerate(args)]
        gkwargs = {k: _to_graph(v, k, tmap, graph) for k, v in kwargs.items()}
        for a in [*gargs, *gkwargs.values()]:
            compiler.note_passed_in(a)
        compiler.ext_ok = True      # lists and dicts from outside may change (ext_writes)
        try:
            try:
                if self_obj is None and _is_internal(fn):
                    # ms.jit(ops.sin): graphjit's own function, called on graph values
                    # as a construct calling it would (its source is not the program)
                    out = fn(*gargs, **gkwargs)
                else:
                    out = build_function(compiler, fn, gargs, gkwargs, self_obj=self_obj)
            finally:
                restore_attrs(compiler)     # `self.t = x` (a tensor value): set after runs
            results: list = []
            passed = {id(obj): path for path, obj in _container_paths(gargs, gkwargs)}
            template = _template(out, results, ctx, compiler.return_loc, compiler.external,
                                 passed, compiler.ext_writes)
            refs = _has_ref(template)
            if compiler.arg_writes or compiler.attr_values or refs or compiler.ext_writes:
                writes = []
                for path, obj in _container_paths(gargs, gkwargs):
                    if id(obj) in compiler.arg_writes:
                        now = dict(obj) if type(obj) is dict else list(obj)
                        writes.append((path, _template(now, results, ctx,
                                                       compiler.return_loc)))
                attrs = [(ref, attr, _template(v, results, ctx, compiler.return_loc))
                         for ref, attr, v in compiler.attr_values]
                ext = [(obj, _template(dict(obj) if type(obj) is dict else list(obj),
                                       results, ctx, compiler.return_loc))
                       for obj, _ in compiler.ext_writes.values()]
                template = WithWrites(template, writes, attrs, refs, ext)
        finally:
            _restore_ext(compiler)
        if ctx.token_param is not None:
            results.append(ctx.token)     # the last token: every update stays in the graph
        graph.set_results(results)
    slots = [(graph.params.index(v), p, compiler.state_sources.get(id(p), []))
             for p, v in ctx.refs.values()]
    # a Parameter the graph binds through an attribute is checked by the binding at
    # each call: its type guard would check it twice
    bound = {(src[1], src[2]) for _, _, sources in slots for src in sources
             if src[0] == "attr"}
    guards = [g for g in compiler.guards if not (g[2] == "param" and (g[0], g[1]) in bound)]
    return Program(graph, template, guards, compiler.records, compiler.warnings, slots,
                   compiler.attr_writes)


def _restore_ext(compiler) -> None:
    """The lists and dicts from outside the build changed get back their contents (the
    run gives them their final contents, at every call, as eager Python changes them);
    the graph is guarded by those contents (jit.cache: a "contents" guard)."""
    changed = {id(obj) for obj, _ in compiler.ext_writes.values()}
    if changed:     # read before the change: the contents guard below covers them
        compiler.guards[:] = [g for g in compiler.guards if not (
            (g[2] == "held" and g[3][0] in changed) or
            (g[2] == "contents" and id(g[0]()) in changed))]
    for obj, before in compiler.ext_writes.values():
        if type(obj) is dict:
            obj.clear()
            obj.update(before)
        else:
            obj[:] = before
        compiler.guards.append(((lambda o: lambda: o)(obj), None, "contents",
                                contents_key(obj)))


def _has_ref(t) -> bool:
    if type(t) is ArgRef:
        return True
    if type(t) in (list, tuple):
        return any(_has_ref(v) for v in t)
    if type(t) is dict:
        return any(_has_ref(v) for v in t.values())
    return False


def _container_paths(gargs, gkwargs):
    """(path, list or dict) of every list and dict in the arguments: the path the
    argument's index (or keyword) and the keys down to it."""
    todo = [((i,), a) for i, a in enumerate(gargs)] + [((k,), v) for k, v in gkwargs.items()]
    while todo:
        path, x = todo.pop()
        if type(x) in (list, dict):
            yield path, x
        if type(x) in (list, tuple):
            todo.extend((path + (i,), v) for i, v in enumerate(x))
        elif type(x) is dict:
            todo.extend((path + (k,), v) for k, v in x.items())


def _to_graph(x, path, tensor_map, graph):
    """x with each tensor leaf replaced by its graph parameter (found by path)."""
    if isinstance(x, Tensor) or isinstance(x, TensorSpec):
        return tensor_map.get(path, x)
    if isinstance(x, tuple):
        return tuple(_to_graph(v, f"{path}[{i}]", tensor_map, graph) for i, v in enumerate(x))
    if isinstance(x, list):
        return [_to_graph(v, f"{path}[{i}]", tensor_map, graph) for i, v in enumerate(x)]
    if isinstance(x, dict):
        return {k: _to_graph(v, f"{path}[{k!r}]", tensor_map, graph) for k, v in x.items()}
    return x
