"""Compiling Cells and functions: jit, jit_class, Cell calls in graph mode and compiled
models. The cache is in cache.py, the explain report and checked equivalence in
explain.py."""
from __future__ import annotations

import functools

from ..context import get_context
from ..ir.errors import GraphJitError, UnsupportedSyntaxError
from ..ir.types import format_shape
from .cache import (CacheEntry, _arg_names, _cache_for, _call_fast, _desc, _is_tensor_key,
                    _remember_fast, _signature, _unwrap, cache_of, get_entry)
from .explain import Report, compare_results, explain, run_checked as _run_checked
from .values import _stack

__all__ = ["jit", "jit_class", "explain", "call_compiled", "cache_of", "compile_for_model",
           "JitFunction", "Report", "compare_results", "CacheEntry"]


# -- public entry points ------------------------------------------------------------------------------
def _user_facing(e: BaseException) -> BaseException:
    """The exception with graphjit's own frames removed from its traceback (as JAX
    filters tracebacks), unless set_context(show_internal_frames=True). Errors of our
    own making (a bug) keep their frames: they are not the user's to read."""
    if get_context("show_internal_frames"):
        return e
    internal = isinstance(e, (KeyError, AttributeError, IndexError, AssertionError)) and \
        not getattr(e, "_graphjit_noted", False) and not isinstance(e, GraphJitError)
    if internal:
        return e
    import types
    tb = e.__traceback__
    kept = []
    while tb is not None:
        if not _is_graphjit_file(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    new_tb = None
    for t in reversed(kept):
        new_tb = types.TracebackType(new_tb, t.tb_frame, t.tb_lasti, t.tb_lineno)
    e.__suppress_context__ = True
    return e.with_traceback(new_tb)


def _is_graphjit_file(path: str) -> bool:
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.abspath(path).startswith(root + os.sep)


def _building() -> bool:
    return bool(_stack())


def call_compiled(cell, args, kwargs):
    """Cell.__call__ in graph mode."""
    if _building():
        raise UnsupportedSyntaxError("a Cell was called on graph values outside the builder")
    fn = type(cell).construct
    cache = _cache_for(cell, fn)
    try:
        hit, out = _call_fast(cache, args, kwargs)
        if hit:
            return out
        entry, tensors = get_entry(cell, fn, cell, args, kwargs, cell._input_specs,
                                   type(cell).__name__)
        _remember_fast(cache, args, kwargs, entry)
        return _run_checked(entry, tensors, lambda: _unwrap(fn)(cell, *args, **kwargs))
    except Exception as e:
        raise _user_facing(e)


class JitFunction:
    """A function compiled per input signature whatever the mode (`@ms.jit`)."""

    def __init__(self, fn, input_signature=None):
        self.fn = fn
        self._graphjit_jit_of = fn
        self.input_signature = input_signature
        functools.update_wrapper(self, fn)

    def _owner_key(self):
        return self

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return _BoundJit(self, obj)

    def __call__(self, *args, **kwargs):
        return _call_jit(self, None, args, kwargs)

    def compile_cache(self):
        return cache_of(self, self.fn)


class _BoundJit:
    def __init__(self, jf: JitFunction, obj):
        self.jf, self.obj = jf, obj
        self.__func__ = jf.fn
        self.__self__ = obj

    def __call__(self, *args, **kwargs):
        return _call_jit(self.jf, self.obj, args, kwargs)


def _call_jit(jf: JitFunction, self_obj, args, kwargs):
    if _building():
        raise UnsupportedSyntaxError("a @jit function was called on graph values outside "
                                     "the builder")
    owner = jf if self_obj is None else self_obj
    name = getattr(jf.fn, "__name__", "function")
    specs = jf.input_signature
    cache = _cache_for(owner, jf.fn)
    try:
        hit, out = _call_fast(cache, args, kwargs)
        if hit:
            return out
        entry, tensors = get_entry(owner, jf.fn, self_obj, args, kwargs, specs, name)
        _remember_fast(cache, args, kwargs, entry)
        return _run_checked(entry, tensors, lambda: jf.fn(*((self_obj,) if self_obj is not None
                                                           else ()), *args, **kwargs))
    except Exception as e:
        raise _user_facing(e)


def jit(function=None, *, fn=None, mode="PSJit", input_signature=None, hash_args=None,
        jit_config=None, compile_once=False, capture_mode="ast", jit_level=None, dynamic=0,
        fullgraph=False, backend=None, **kwargs):
    """Compile a function (or method) per input signature whatever the mode; on a Cell
    subclass, make every instance compile its construct whatever the mode."""
    def wrap(fn):
        from ..nn import Cell
        if isinstance(fn, type):
            if issubclass(fn, Cell):
                fn._force_jit = True
                return fn
            raise TypeError("@jit on a class needs an nn.Cell subclass; use @jit_class for "
                            "plain classes")
        if isinstance(fn, JitFunction):
            return fn
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
    cls._graphjit_jit_class = True
    return cls


# -- compiled models ------------------------------------------------------------------------------------
def compile_for_model(target, example_inputs, name=None):
    from ..backend.compiled_model import CompiledModel
    from ..nn import Cell
    if isinstance(target, Cell):
        fn, self_obj, owner = type(target).construct, target, target
        specs = target._input_specs
        label = name or type(target).__name__
    else:
        jf = target if isinstance(target, JitFunction) else None
        fn, self_obj = (_unwrap(target), None)
        owner = jf or _ModelOwner(fn)
        specs = None
        label = name or getattr(fn, "__name__", "model")
    try:
        entry, _ = get_entry(owner, fn, self_obj, list(example_inputs), {}, specs, label)
    except Exception as e:
        raise _user_facing(e)

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
    return CompiledModel(entry.graph, name=label, runner=runner, source=target)


def _constants(key) -> str:
    return ", ".join(_desc(k) for k in key if not _is_tensor_key(k)) or "(none)"


class _ModelOwner:
    def __init__(self, fn):
        self.fn = fn


def _check_matches(entry, tensors, key):
    params = entry.graph.params
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
