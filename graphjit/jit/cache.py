"""The compile cache: input signatures, one compiled entry per signature, the
per-call fast path, and why each compilation happened."""
from __future__ import annotations

import functools
import math
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..backend.executor import compile_graph
from ..context import _context, get_context
from ..frontend.program import Out, build_program
from ..frontend.templates import ArgRef, Same, TextOut, WithWrites, contents_key
from .bindings import StateBinding
from .entry import MISS, make_call
from ..ir.dtypes import as_dtype
from ..ir.graph import Graph
from ..ir.text import decode
from ..ir.types import TensorType, format_shape
from ..ir.uniformity import check_collectives
from ..ir.verifier import verify
from ..nn import Cell
from ..passes import optimize
from ..common.parameter import Parameter
from ..common.tensor import Tensor, TensorSpec

__all__ = ["CacheEntry", "cache_of", "get_entry", "build_entry", "signature"]


# -- input signatures ------------------------------------------------------------------------------
def _spec_type(spec) -> Optional[TensorType]:
    if isinstance(spec, TensorSpec):
        return spec.type
    if isinstance(spec, Tensor) and not spec.has_data:
        return spec.type
    return None


class _Leaves(list):
    """The tensor leaves of a call's arguments, (path, tensor or None, graph type) each;
    `params` holds (path, Parameter) of its Parameter leaves (state, bound by
    reference); `aliases` maps the path of a Tensor passed again (the same object in a
    second place) to the path of its first place, which is its only leaf: the graph sees
    one value there, as Python sees one object (`a is b`, `a in [a, c]`)."""

    def __init__(self, aliasing=True):
        super().__init__()
        self.params: List[tuple] = []
        self.aliases: Dict[str, str] = {}
        self._first: Optional[Dict[int, str]] = {} if aliasing else None


def _flatten(x, path, tensors: list, specs=None):
    """The cache-key part for x; appends tensor leaves (with their graph types)."""
    if isinstance(x, Parameter) and hasattr(tensors, "params"):
        t = x.type
        tensors.params.append((path, x))
        return ("P", t.dtype.name, t.shape)
    if isinstance(x, Tensor):
        if not x.has_data:
            t = x.type
            tensors.append((path, None, t))
            return ("T", t.dtype.name, t.shape)
        first = tensors._first if hasattr(tensors, "_first") else None
        if first is not None:
            seen = first.get(id(x))
            if seen is not None:
                tensors.aliases[path] = seen
                return ("A", seen)
            first[id(x)] = path
        t = x.type
        st = _spec_type(specs) if specs is not None else None
        if st is not None:
            _check_spec(path, x, st)
            t = st
        tensors.append((path, x, t))
        return ("T", t.dtype.name, t.shape)
    if isinstance(x, TensorSpec):
        tensors.append((path, None, x.type))
        return ("T", x.dtype.name, x.shape)
    if isinstance(x, np.ndarray):
        raise TypeError(f"argument {path} is a numpy array; wrap it in ms.Tensor(...)")
    if isinstance(x, (tuple, list)):
        sub = [_flatten(v, f"{path}[{i}]", tensors,
                        specs[i] if isinstance(specs, (tuple, list)) and i < len(specs)
                        else None) for i, v in enumerate(x)]
        return (type(x).__name__, tuple(sub))
    if isinstance(x, dict):
        # insertion order, the order _to_graph makes the graph's parameters in
        return ("dict", tuple((k, _flatten(v, f"{path}[{k!r}]", tensors))
                              for k, v in x.items()))
    if isinstance(x, (bool, int, float, str, bytes, type(None), np.generic)):
        if isinstance(x, (float, np.floating)):
            if x == 0 and math.copysign(1.0, x) < 0:
                return ("C", type(x).__name__, x, "negative zero")  # == 0.0, folds otherwise
            if x != x:      # one NaN for all: each NaN is unequal to every other (and
                return ("C", type(x).__name__, math.nan)   # hashes by id), a new graph a call
        return ("C", type(x).__name__, x)
    try:
        hash(x)
        return ("O", type(x).__name__, id(x))
    except TypeError:
        return ("O", type(x).__name__, id(x))


def _check_spec(path, x: Tensor, st: TensorType):
    if x.dtype is not st.dtype:
        raise TypeError(f"argument {path} must be {st.dtype} as declared by set_inputs, got "
                        f"{x.dtype}")
    if st.shape is not None:
        s = tuple(x.shape)
        if len(s) != len(st.shape) or any(d is not None and d != a for d, a in
                                          zip(st.shape, s)):
            raise ValueError(f"argument {path} has shape {s}, but set_inputs declared "
                             f"{format_shape(st.shape)}")


def _signature(arg_names, args, kwargs, specs, aliasing=True):
    tensors = _Leaves(aliasing)
    key = []
    for i, a in enumerate(args):
        name = arg_names[i] if i < len(arg_names) else f"args[{i}]"
        spec = specs[i] if specs is not None and i < len(specs) else None
        key.append(_flatten(a, name, tensors, spec))
    for k in sorted(kwargs):
        key.append((k, _flatten(kwargs[k], k, tensors)))
    return tuple(key), tensors


# -- cache entries --------------------------------------------------------------------------------
@dataclass
class CacheEntry:
    """One compiled graph of a Cell or function, for one input signature."""

    key: tuple
    graph: Graph
    plan: Any
    template: Any
    guards: List[tuple]
    records: List[Any]
    warnings: List[str]
    reason: str
    compile_seconds: float
    arg_desc: List[Tuple[str, str]] = field(default_factory=list)
    checked: bool = False
    state: Optional[StateBinding] = None   # the Parameters the graph reads and updates
    attr_writes: List[tuple] = field(default_factory=list)   # Program.attr_writes
    # jit.entry.make_call's function (False: calls cannot take one); for a gradient
    # step's entry, its guard check (jit.grad)
    fast_call: Any = None
    # a gradient step's entry: its generated call (jit.grad_entry; False: none)
    grad_call: Any = None

    def guards_hold(self, arg_params=None, state=True) -> bool:
        """Whether every attribute the graph depends on is as it was, and (state) its
        Parameters can be bound (arg_params: the call's Parameter arguments, if known)."""
        for ref, attr, kind, value in self.guards:
            obj = ref()
            if obj is None:
                return False
            if kind == "contents":      # a list or dict from outside the program changes
                if contents_key(obj) != value:
                    return False
                continue
            try:
                cur = getattr(obj, attr)
            except AttributeError:
                return False
            if kind == "value":
                if type(cur) is not type(value) or cur != value:
                    return False
            elif kind == "tensor":
                if id(cur) != value[0] or id(getattr(cur, "_data", None)) != value[1] or \
                        getattr(cur, "_writes", 0) != value[2] or \
                        len(value) > 3 and cur._data.tobytes() != value[3]:
                    return False
            elif kind == "param":
                if not isinstance(cur, Parameter) or cur._dtype is not value[0] or \
                        cur._data.shape != value[1]:
                    return False
            elif kind == "params":
                if type(cur) is not value[0] or len(cur) != len(value[1]) or not all(
                        isinstance(p, Parameter) and p._dtype is t[0] and p._data.shape == t[1]
                        for p, t in zip(cur, value[1])):
                    return False
            elif kind == "held":
                if id(cur) != value[0] or contents_key(cur) != value[1]:
                    return False
            elif kind == "cells":
                if id(cur) != value[0] or _cell_ids(cur) != value[1]:
                    return False
            elif id(cur) != value:
                return False
        return not state or self.state is None or self.state.resolve(arg_params) is not None

    def run(self, tensors):
        arrays = []
        for path, x, t in tensors:
            if x is None:
                raise ValueError(f"argument {path} is a Tensor without data; pass real data")
            arrays.append(x._need_data())
        return self.run_arrays(arrays, [p for _, p in getattr(tensors, "params", ())])

    def run_arrays(self, arrays, arg_params=(), variables=None):
        if self.state is None:
            outs = self.plan(*arrays)
        else:
            if variables is None:
                variables = self.state.resolve(arg_params)
            if variables is None:
                raise RuntimeError("a Parameter the compiled graph reads was replaced by "
                                   "another thread while this call started; call again")
            outs = self.plan(*self.state.arguments(arrays, variables))
        for ref, attr, value in self.attr_writes:     # `self.attr = constant`, every call
            obj = ref()
            if obj is not None:
                setattr(obj, attr, value)
        t = self.template
        if type(t) is Out and not t.weak and not t.is_list:
            return Tensor._wrap(outs[t.i])
        return _fill(t, outs)


class _Cache:
    def __init__(self):
        self.entries: Dict[tuple, List[CacheEntry]] = {}
        self.order: List[CacheEntry] = []
        self.lock = threading.RLock()
        # concrete (dtype, shape)/constant signature -> entry: the per-call fast path
        self.fast: Dict[tuple, CacheEntry] = {}
        # the fast call (entry.make_call) of the entry that ran last, tried first
        self.last = None


_FAST_CONSTANTS = (int, float, bool, str, type(None))


def _fast_key(args):
    """A cheap key for calls whose arguments are data-carrying Tensors, plain
    constants and tuples or lists of such Tensors; None if any argument needs the full
    signature."""
    key = []
    arrays = []
    for a in args:
        ta = type(a)
        if ta is Tensor:
            d = a._data
            if d is None:
                return None
            key.append((a._dtype, d.shape))
            arrays.append(d)
        elif ta is float and not (a and a == a):
            if a != a:          # a NaN: unequal to itself, it would add a key a call
                return None
            # -0.0 == 0.0 but folds to another graph (x / -0.0 is -inf)
            key.append((ta, a, math.copysign(1.0, a)))
        elif ta in _FAST_CONSTANTS:
            key.append((ta, a))
        elif ta is tuple or ta is list:     # of data-carrying Tensors (an optimizer's grads)
            sub = []
            for t in a:
                if type(t) is not Tensor or t._data is None:
                    return None
                sub.append((t._dtype, t._data.shape))
                arrays.append(t._data)
            key.append((ta, tuple(sub)))
        else:
            return None
    if len(arrays) > 1 and len({id(a) for a in arrays}) != len(arrays):
        return None             # a Tensor (or its array) passed twice: the signature says how
    return tuple(key), arrays


def _call_fast(cache: _Cache, args, kwargs):
    """(hit, result): the cached entry run directly when the signature is known."""
    if kwargs:
        return False, None
    last = cache.last
    if last is not None:
        out = last(args)
        if out is not MISS:
            return True, out
    if _context["check_equivalence"]:
        return False, None
    fk = _fast_key(args)
    if fk is None:
        return False, None
    e = cache.fast.get(fk[0])
    if e is None or (e.guards and not e.guards_hold(state=False)):
        return False, None
    variables = None
    if e.state is not None:      # bound once per call: the check is the binding
        variables = e.state.resolve()
        if variables is None:
            return False, None
    if e.fast_call:
        cache.last = e.fast_call
    return True, e.run_arrays(fk[1], variables=variables)


def _remember_fast(cache: _Cache, args, kwargs, entry):
    if not kwargs:
        fk = _fast_key(args)
        if fk is not None:
            cache.fast[fk[0]] = entry
            if entry.fast_call is None:
                entry.fast_call = make_call(entry, args, _fill) or False
            cache.last = entry.fast_call or None


# owner (a Cell, a JitFunction...) -> {function: its cache}; dies with the owner
_CACHES: "weakref.WeakKeyDictionary[Any, Dict[Any, _Cache]]" = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def _cache_for(owner, fn) -> _Cache:
    per_owner = getattr(owner, "__dict__", {}).get("_graphjit_caches")
    if per_owner is not None:
        c = per_owner.get(fn)
        if c is not None:
            return c
    with _CACHES_LOCK:
        per_owner = _CACHES.get(owner)
        if per_owner is None:
            per_owner = _CACHES[owner] = {}
        c = per_owner.get(_unwrap(fn))
        if c is None:
            c = per_owner[_unwrap(fn)] = _Cache()
            per_owner[fn] = c
            try:   # a direct reference for the fast path (dies with the owner)
                object.__setattr__(owner, "_graphjit_caches", per_owner)
            except (AttributeError, TypeError):
                pass
        return c


def cache_of(owner, fn=None) -> List[CacheEntry]:
    """The compiled entries of a Cell (its construct, or fn) or of a jit function,
    oldest first."""
    if fn is None:
        fn = type(owner).construct if isinstance(owner, Cell) else owner
    with _CACHES_LOCK:
        c = _CACHES.get(owner, {}).get(_unwrap(fn))
    return list(c.order) if c is not None else []


# -- outputs ---------------------------------------------------------------------------------------
_PY = {"b": bool, "i": int, "u": int, "f": float}


class Filled:
    """A run's result and the contents its WithWrites gives the caller's containers."""

    __slots__ = ("main", "writes", "attrs", "refs", "ext")

    def __init__(self, main, writes, attrs=(), refs=False, ext=()):
        self.main, self.writes, self.attrs, self.refs = main, writes, attrs, refs
        self.ext = ext


class _Caller:
    """A filled ArgRef: the caller's container at `path` goes in its place
    (apply_writes)."""

    __slots__ = ("path",)

    def __init__(self, path):
        self.path = path


def _arg_at(path, args, kwargs):
    first = path[0]
    obj = args[first] if isinstance(first, int) else kwargs[first]
    for k in path[1:]:
        obj = obj[k]
    return obj


def _put_callers(x, args, kwargs):
    if type(x) is _Caller:
        return _arg_at(x.path, args, kwargs)
    if type(x) is tuple:
        return tuple(_put_callers(v, args, kwargs) for v in x)
    if type(x) is list:
        return [_put_callers(v, args, kwargs) for v in x]
    if type(x) is dict:
        return {k: _put_callers(v, args, kwargs) for k, v in x.items()}
    return x


def apply_writes(out, args, kwargs):
    """The result to hand back: a Filled's caller containers get their new contents
    (in place, as eager Python changed them), and its main result is returned."""
    if type(out) is not Filled:
        return out
    for path, contents in out.writes:
        obj = _arg_at(path, args, kwargs)
        if type(obj) is dict:
            obj.clear()
            obj.update(contents)
        else:
            obj[:] = contents
    for obj, contents in out.ext:       # a global's, a closure's, an attribute's
        if type(obj) is dict:
            obj.clear()
            obj.update(contents)
        else:
            obj[:] = contents
    for ref, attr, value in out.attrs:      # `self.t = x`: the run's value of x
        obj = ref()
        if obj is not None:
            setattr(obj, attr, value)
    if out.refs:        # the caller's own lists and dicts, returned as they are
        return _put_callers(out.main, args, kwargs)
    return out.main


def _fill(t, outs):
    if type(t) is WithWrites:
        return Filled(_fill(t.main, outs), [(p, _fill(c, outs)) for p, c in t.writes],
                      [(ref, a, _fill(c, outs)) for ref, a, c in t.attrs], t.refs,
                      [(obj, _fill(c, outs)) for obj, c in t.ext])
    if type(t) is ArgRef:
        return _Caller(t.path)
    if isinstance(t, TextOut):      # a string made from tensor values, as eager made it
        return decode(t.tree, outs[t.first:t.first + len(t.dtypes)], t.dtypes)
    if isinstance(t, Out):
        a = outs[t.i]
        if t.is_list:
            a = np.asarray(a)
            return [Tensor._wrap(a[i]) for i in range(a.shape[0])]
        if t.weak:
            return _PY[t.kind](np.asarray(a).reshape(-1)[0])
        return Tensor._wrap(np.asarray(a))
    if isinstance(t, Same):
        return t.obj
    if isinstance(t, tuple):
        return tuple(_fill(v, outs) for v in t)
    if isinstance(t, list):
        return [_fill(v, outs) for v in t]
    if isinstance(t, dict):
        return {k: _fill(v, outs) for k, v in t.items()}
    if type(t) is Tensor and t._data is not None:
        # a tensor the build computed (ops.ones(x.shape)...): a new one each call, as
        # eager mode makes, or writing to one call's result would change the next's
        return Tensor._wrap(t._data.copy())
    return t


# -- building ----------------------------------------------------------------------------------------
def _unwrap(fn):
    """The user's function under any number of @jit wrappers."""
    while getattr(fn, "_graphjit_jit_of", None) is not None:
        fn = fn._graphjit_jit_of
    return fn


@functools.lru_cache(maxsize=1024)
def _arg_names(fn, skip_self: bool):
    import inspect
    try:
        names = list(inspect.signature(_unwrap(fn)).parameters)
    except (TypeError, ValueError):
        return []
    return names[1:] if skip_self else names


def build_entry(fn, self_obj, args, kwargs, key, tensors, name, reason) -> CacheEntry:
    """Build, verify and plan the graph of fn for one input signature."""
    t0 = time.perf_counter()
    names = _arg_names(fn, self_obj is not None)
    program = build_program(_unwrap(fn), self_obj, args, kwargs, tensors, names, name,
                            max_unroll=get_context("max_unroll"),
                            max_depth=min(int(get_context("max_call_depth")), 400),
                            param_args=getattr(tensors, "params", ()))
    graph = program.graph
    verify(graph)
    graph = optimize(graph, get_context("optimize_graphs"), get_context("dump_passes"))
    check_collectives(graph)
    plan = compile_graph(graph)
    for w in program.warnings:
        import warnings as _w
        _w.warn(f"graphjit: {w}", RuntimeWarning, stacklevel=4)
    state = StateBinding(graph, program.state_slots) if any(
        p.type.kind != "tensor" for p in graph.params) else None
    return CacheEntry(key, graph, plan, program.template, program.guards, program.records,
                      program.warnings, reason, time.perf_counter() - t0,
                      _describe_signature(key, names, len(args)), state=state,
                      attr_writes=program.attr_writes)


def _diff_reason(entries: List[CacheEntry], key, names) -> str:
    """Why key needs a new graph: what differs from the closest cached signature."""
    if not entries:
        return "first call"
    best = None
    for e in entries:
        if len(e.key) != len(key):
            continue
        diffs = []
        for i, (a, b) in enumerate(zip(e.key, key)):
            if a == b:
                continue
            label = names[i] if i < len(names) else f"argument {i}"
            what = ""
            if _is_tensor_key(a) and _is_tensor_key(b):
                what = " dtype" if a[1] != b[1] else " shape"
            elif a[0] == b[0] == "C":
                what = " value"
            diffs.append(f"{label} changed{what}: {_desc(a)} -> {_desc(b)}")
        if best is None or len(diffs) < len(best):
            best = diffs
    if best is None:
        return f"the number of arguments changed: {len(entries[-1].key)} -> {len(key)}"
    return "; ".join(best)


def _describe_signature(key, names, n_positional) -> List[Tuple[str, str]]:
    """(argument, what it was) for every argument: tensor types and Python values."""
    out = []
    for i, k in enumerate(key):
        if i < n_positional:
            out.append((names[i] if i < len(names) else f"args[{i}]", _desc(k)))
        else:                       # keyword arguments: (name, key)
            out.append((k[0], _desc(k[1])))
    return out


def _is_tensor_key(k) -> bool:
    return isinstance(k, tuple) and bool(k) and k[0] == "T"


def _desc(k) -> str:
    if _is_tensor_key(k):
        return str(TensorType(as_dtype(k[1]), k[2]))
    if isinstance(k, tuple) and k and k[0] == "C":
        return f"{k[1]} {k[2]!r}"
    return repr(k)


def _cell_ids(cell) -> tuple:
    """The identities of a Cell's sub-Cells, in order (what a "cells" guard holds)."""
    cells = getattr(cell, "__dict__", {}).get("_cells")
    return tuple(id(c) for c in cells.values()) if cells else ()


def _guard_reason(entries: List[CacheEntry]) -> str:
    for e in entries:
        for ref, attr, kind, value in e.guards:
            obj = ref()
            if kind == "contents":
                if contents_key(obj) != value:
                    return (f"the {type(obj).__name__} the function changes (from outside "
                            f"it) holds other items")
                continue
            cur = getattr(obj, attr, "<missing>")
            if kind == "value" and (type(cur) is not type(value) or cur != value):
                return f"attribute {type(obj).__name__}.{attr} changed: {value!r} -> {cur!r}"
            if kind == "held" and (id(cur) != value[0] or contents_key(cur) != value[1]):
                return f"the {type(cur).__name__} {type(obj).__name__}.{attr} holds other items"
            if kind == "tensor" and (id(cur) != value[0] or
                                     id(getattr(cur, "_data", None)) != value[1] or
                                     getattr(cur, "_writes", 0) != value[2] or
                                     len(value) > 3 and cur._data.tobytes() != value[3]):
                return f"tensor attribute {type(obj).__name__}.{attr} got new data"
            if kind == "param" and (not isinstance(cur, Parameter) or
                                    (cur._dtype, cur._data.shape) != value):
                return (f"Parameter {type(obj).__name__}.{attr} changed type: "
                        f"{TensorType(*value)} -> {getattr(cur, 'type', type(cur).__name__)}")
            if kind == "params" and (type(cur) is not value[0] or len(cur) != len(value[1])
                                     or not all(isinstance(p, Parameter) and
                                                (p._dtype, p._data.shape) == t
                                                for p, t in zip(cur, value[1]))):
                return f"the Parameters of {type(obj).__name__}.{attr} changed"
            if kind == "id" and id(cur) != value or kind == "cells" and id(cur) != value[0]:
                return f"attribute {type(obj).__name__}.{attr} is a new object"
            if kind == "cells" and _cell_ids(cur) != value[1]:
                return f"the sub-Cells of {type(obj).__name__}.{attr} changed"
        if e.state is not None and e.state.resolve() is None:
            return e.state.why_not()
    return "a guarded attribute changed"


def get_entry(owner, fn, self_obj, args, kwargs, specs, name) -> Tuple[CacheEntry, list]:
    cache = _cache_for(owner, fn)
    names = _arg_names(fn, self_obj is not None)
    key, tensors = _signature(names, args, kwargs, specs)
    with cache.lock:
        candidates = cache.entries.get(key, ())
        for e in candidates:
            if e.guards_hold([p for _, p in tensors.params]):
                return e, tensors
        if candidates:
            reason = _guard_reason(list(candidates))
        else:
            reason = _diff_reason(cache.order, key, names + sorted(kwargs))
        entry = build_entry(fn, self_obj, args, kwargs, key, tensors, name, reason)
        if any(g[2] in ("contents", "held") for g in entry.guards):
            # graphs built for a list's earlier contents (each call changes it): dropped,
            # or the cache would grow at every call
            stale = {id(e) for e in candidates
                     if any(g[2] in ("contents", "held") for g in e.guards)}
            if stale:
                cache.entries[key] = [e for e in candidates if id(e) not in stale]
                cache.order[:] = [e for e in cache.order if id(e) not in stale]
        cache.entries.setdefault(key, []).append(entry)
        cache.order.append(entry)
        if get_context("warn_recompile") and len(cache.order) > 1:
            import warnings as _w
            _w.warn(f"graphjit: {name} compiled again ({reason})", RuntimeWarning, stacklevel=3)
        return entry, tensors


def signature(arg_names, args, kwargs, specs, aliasing=True):
    """(key, tensors) of a call: the cache key and the tensor leaves with their types
    (a Tensor passed twice is one leaf, unless not aliasing)."""
    return _signature(arg_names, args, kwargs, specs, aliasing)
