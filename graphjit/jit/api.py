"""Compiling Cells and functions: jit, jit_class, explain, Cell calls in graph mode and
what compiled models are made of. The cache is in cache.py, the explain report and
checked equivalence in explain.py.

Errors leave graphjit through one frame, the public entry point the user called
(Cell.__call__, a @jit function, explain, compile): it raises them through
tracebacks.user_facing; the functions below it let them through."""
from __future__ import annotations

import functools
from typing import Any, Dict

from ..autodiff import current_tape
from ..context import compiler as _compiler
from ..ir.errors import UnsupportedSyntaxError
from ..ir.types import format_shape
from ..nn import Cell
from ..common.tensor import current_recorder
from ..ops.function.grad.grad_func import GradFunction
from ..tracebacks import user_facing
from .cache import (CacheEntry, _arg_names, _cache_for, _call_fast, _desc, _is_tensor_key,
                    apply_writes,
                    _remember_fast, _signature, _unwrap, cache_of, get_entry)
from .entry import MISS
from .explain import Report, compare_results, run_checked as _run_checked

__all__ = ["jit", "jit_class", "explain", "call_compiled", "cache_of", "compile_for_model",
           "JitFunction", "Report", "compare_results", "CacheEntry"]


# -- public entry points ------------------------------------------------------------------------------
def _building() -> bool:
    return current_recorder() is not None


def call_compiled(cell, args, kwargs):
    """Cell.__call__ in graph mode (installed as context.compiler.call_cell; the Cell's
    __call__ raises its errors)."""
    fn = type(cell).construct
    caches = cell.__dict__.get("_graphjit_caches")
    if caches is not None and not kwargs:     # the last entry's own call (jit.entry)
        c = caches.get(fn)
        if c is not None and c.last is not None:
            out = c.last(args)
            if out is not MISS:
                return apply_writes(out, args, kwargs)
    if _building():
        raise UnsupportedSyntaxError("a Cell was called on graph values outside the builder")
    if current_tape() is not None:
        # a PYNATIVE gradient is being taken: the tape records eager ops (same meaning)
        return type(cell).construct(cell, *args, **kwargs)
    cache = _cache_for(cell, fn)
    hit, out = _call_fast(cache, args, kwargs)
    if hit:
        return apply_writes(out, args, kwargs)
    entry, tensors = get_entry(cell, fn, cell, args, kwargs, cell._input_specs,
                               type(cell).__name__)
    _remember_fast(cache, args, kwargs, entry)
    return _run_checked(entry, tensors, lambda: _unwrap(fn)(cell, *args, **kwargs),
                        args, kwargs)


class JitFunction:
    """A function compiled per input signature whatever the mode (`@ms.jit`)."""

    def __init__(self, fn, input_signature=None):
        # updated=(): copying fn's __dict__ would let a callable object's own `fn` (a
        # gradient function's) replace the function this compiles
        functools.update_wrapper(self, fn, updated=())
        self.fn = fn
        self._graphjit_jit_of = fn
        self.input_signature = input_signature

    def _owner_key(self):
        return self

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return _BoundJit(self, obj)

    def __call__(self, *args, **kwargs):
        try:
            return _call_jit(self, None, args, kwargs)
        except Exception as e:   # raised from here: the one graphjit frame users see
            raise user_facing(e)

    def _graphjit_target(self):
        """(function, self or None): what the front-end builds when construct calls this."""
        return self.fn, None

    def compile_cache(self):
        return cache_of(self, self.fn)


class _JitGrad(GradFunction):
    """@jit of a gradient function: its gradient program is compiled whatever the mode
    (a GradFunction runs eagerly in PYNATIVE_MODE); inside a construct it is built inline
    like any gradient function."""

    def __init__(self, gf: GradFunction):     # the same function, positions and weights
        self.__dict__.update(gf.__dict__)

    def __call__(self, *args, **kwargs):
        try:
            return _compiler.call_grad(self, args, kwargs)
        except Exception as e:   # raised from here: the one graphjit frame users see
            raise user_facing(e)


class _BoundJit:
    def __init__(self, jf: JitFunction, obj):
        self.jf, self.obj = jf, obj
        self.__func__ = jf.fn
        self.__self__ = obj

    def __call__(self, *args, **kwargs):
        try:
            return _call_jit(self.jf, self.obj, args, kwargs)
        except Exception as e:   # raised from here: the one graphjit frame users see
            raise user_facing(e)

    def _graphjit_target(self):
        return self.jf.fn, self.obj


def _call_jit(jf: JitFunction, self_obj, args, kwargs):
    if _building():
        raise UnsupportedSyntaxError("a @jit function was called on graph values outside "
                                     "the builder")
    if current_tape() is not None:
        # a PYNATIVE gradient is being taken: the tape records eager ops (same meaning)
        return jf.fn(*((self_obj,) if self_obj is not None else ()), *args, **kwargs)
    owner = jf if self_obj is None else self_obj
    name = getattr(jf.fn, "__name__", "function")
    specs = jf.input_signature
    cache = _cache_for(owner, jf.fn)
    hit, out = _call_fast(cache, args, kwargs)
    if hit:
        return apply_writes(out, args, kwargs)
    entry, tensors = get_entry(owner, jf.fn, self_obj, args, kwargs, specs, name)
    _remember_fast(cache, args, kwargs, entry)
    return _run_checked(entry, tensors, lambda: jf.fn(*((self_obj,) if self_obj is not None
                                                       else ()), *args, **kwargs),
                        args, kwargs)


def jit(function=None, *, fn=None, mode="PSJit", input_signature=None, hash_args=None,
        jit_config=None, compile_once=False, capture_mode="ast", jit_level=None, dynamic=0,
        fullgraph=False, backend=None, **kwargs):
    """Compile a function (or method) per input signature whatever the mode; on a Cell
    subclass, make every instance compile its construct whatever the mode.

    MindSpore's compile knobs (jit_config: a JitConfig, jit_level, capture_mode,
    dynamic, fullgraph, backend, hash_args, compile_once, mode) are accepted and change
    nothing in what graphjit compiles or computes.

    Raises:
        TypeError: jit_config is neither None nor a JitConfig.
    """
    if jit_config is not None:
        from ..common.jit_config import JitConfig
        if not isinstance(jit_config, JitConfig):
            raise TypeError(f"For 'jit', the argument 'jit_config' must be a JitConfig or "
                            f"None, but got {type(jit_config).__name__}.")
    def wrap(fn):
        if isinstance(fn, type):
            if issubclass(fn, Cell):
                fn._force_jit = True
                return fn
            raise TypeError("@jit on a class needs an nn.Cell subclass; use @jit_class for "
                            "plain classes")
        if isinstance(fn, JitFunction):
            return fn
        if isinstance(fn, GradFunction):      # ms.jit(ms.grad(f)): the gradient program
            return _JitGrad(fn)
        if not callable(fn):
            raise TypeError(f"@jit needs a function, got {type(fn).__name__}")
        sig = input_signature
        if sig is not None and not isinstance(sig, (tuple, list)):
            sig = (sig,)
        return JitFunction(fn, sig)
    function = function if function is not None else fn
    return wrap if function is None else wrap(function)


def jit_class(cls):
    """Mark a plain class whose instances construct may create and use."""
    if not isinstance(cls, type):
        raise TypeError("@jit_class decorates a class")
    if issubclass(cls, Cell):       # MindSpore refuses it when the Cell is made or called
        message = (f"@jit_class (ms_class) is for plain classes, but '{cls.__name__}' is an "
                   f"nn.Cell: a Cell is compiled as it is, drop the decorator")

        def refused(self, *args, **kwargs):
            raise TypeError(message)
        cls.__init__ = refused
        return cls
    cls._graphjit_jit_class = True
    return cls


# -- explain ------------------------------------------------------------------------------------------
def explain(net_or_function, *inputs, library: bool = False):
    """Compile (or reuse) the program for these inputs and report each control-flow
    decision and every compile-cache entry.

    Args:
        library: also list the decisions inside graphjit's built-in layers one by one
            (by default a layer's ifs that its settings decide are left out, and a
            layer with tensor-dependent control flow is one entry at the user's line).
    """
    try:
        report = _explain(net_or_function, inputs)
        report.library = library
        return report
    except Exception as e:   # raised from here: the one graphjit frame users see
        raise user_facing(e)


def _explain(net_or_function, inputs):
    if isinstance(net_or_function, Cell):
        get_entry(net_or_function, type(net_or_function).construct, net_or_function,
                  list(inputs), {}, net_or_function._input_specs,
                  type(net_or_function).__name__)
        entries = cache_of(net_or_function)
    else:
        jf = net_or_function if isinstance(net_or_function, JitFunction) else None
        fn = _unwrap(net_or_function)
        owner = jf or _explain_owner(fn)
        get_entry(owner, fn, None, list(inputs), {}, None, getattr(fn, "__name__", "fn"))
        entries = cache_of(owner, fn)
    key, _ = _signature(_arg_names(
        type(net_or_function).construct if isinstance(net_or_function, Cell) else
        _unwrap(net_or_function), isinstance(net_or_function, Cell)), list(inputs), {}, None)
    current = max((i for i, e in enumerate(entries) if e.key == key), default=-1)
    return Report(entries, current)


_EXPLAIN_OWNERS: Dict[Any, Any] = {}


def _explain_owner(fn):
    o = _EXPLAIN_OWNERS.get(fn)
    if o is None:
        o = _EXPLAIN_OWNERS[fn] = _ModelOwner(fn)
    return o


# -- compiled models ------------------------------------------------------------------------------------
def compile_for_model(target, example_inputs, name=None):
    """The graph, name, runner and cache entry of a model compiled from a Cell or
    function for these example inputs (compiled_model.compile makes the CompiledModel;
    it runs the entry's plan)."""
    if isinstance(target, Cell):
        if target.__dict__.get("_graphjit_hooks"):
            raise UnsupportedSyntaxError(
                f"Cell '{type(target).__name__}' has forward hooks (register_forward_pre_hook"
                f" / register_forward_hook); a compiled model holds its construct only, and "
                f"would run without them",
                hint="take the hooks off first (handle.remove()), or wrap the Cell in "
                     "another Cell whose construct calls it (a sub-Cell's hooks are built "
                     "into the graph)")
        fn, self_obj, owner = type(target).construct, target, target
        specs = target._input_specs
        label = name or type(target).__name__
    else:
        jf = target if isinstance(target, JitFunction) else None
        fn, self_obj = (_unwrap(target), None)
        owner = jf or _ModelOwner(fn)
        specs = None
        label = name or getattr(fn, "__name__", "model")
    entry, example = get_entry(owner, fn, self_obj, list(example_inputs), {}, specs, label)
    example_params = [p for _, p in example.params]

    def runner(*inputs):
        key, tensors = _signature(_arg_names(fn, self_obj is not None), list(inputs), {},
                                  None)
        _check_matches(entry, tensors, key)
        if len(key) != len(entry.key) or any(
                a != b for a, b in zip(key, entry.key) if not (_is_tensor_key(a) and
                                                               _is_tensor_key(b))):
            raise TypeError(f"the model was compiled for the non-tensor arguments "
                            f"{_constants(entry.key)}, got {_constants(key)}; compile it "
                            f"again for other values")
        return entry.run(tensors)

    def variables():
        """The Parameters the model reads, found again at each run (those passed as
        arguments: the example's)."""
        found = entry.state.resolve(example_params)
        if found is None:
            raise RuntimeError(f"a Parameter the compiled model '{label}' reads was replaced "
                               f"by one of another type, or is gone; compile it again")
        return found
    return entry.graph, label, runner, entry, (variables if entry.state is not None
                                               else None)


def _constants(key) -> str:
    return ", ".join(_desc(k) for k in key if not _is_tensor_key(k)) or "(none)"


class _ModelOwner:
    def __init__(self, fn):
        self.fn = fn


def _check_matches(entry, tensors, key):
    params = entry.graph.params if entry.state is None else \
        entry.state.tensor_params(entry.graph)
    if len(tensors) != len(params):
        raise TypeError(f"the model takes {len(params)} tensor input(s), got {len(tensors)}")
    for (path, x, t), p in zip(tensors, params):
        want = p.type
        if t.dtype is not want.dtype:
            raise TypeError(f"input {path} must be {want.dtype}, got {t.dtype}")
        if want.shape is not None and (t.shape is None or len(t.shape) != len(want.shape) or any(
                d is not None and d != s for d, s in zip(want.shape, t.shape))):
            raise ValueError(f"input {path} must have shape {format_shape(want.shape)}, got "
                             f"{format_shape(t.shape)}")
