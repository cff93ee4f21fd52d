"""The per-call fast path: one Python function generated per cache entry that checks
a call's arguments against the entry's signature and runs its plan, with nothing
generic in between.

For IfInWhileNet (three int32 scalars, no attributes read) the entry's function is

    def call(args):
        if len(args) != 3 or _tape._recording or _context['check_equivalence'] or \\
                getattr(_local, 'stack', None):
            return MISS
        a0, a1, a2 = args
        if type(a0) is not _Tensor or a0._dtype is not _d0: return MISS
        x0 = a0._data
        if x0 is None or x0.shape != (): return MISS
        ...                                   # a1, a2 alike
        tok = _fp.set(_ignored)
        try:
            outs = _run(x0, x1, x2)           # the generated plan (backend.executor)
        except _Internal:
            raise
        except Exception as e:
            f = _failure(e)                   # the user's `raise` as it is, or wrapped
            if f is e: raise
            raise f from e
        finally:
            _fp.reset(tok)
        o = outs[0]
        if type(o) is not _ndarray: o = _asarray(o)
        r = _new(_Tensor); r._data = o; r._dtype = _by_numpy.get(o.dtype) or _from_numpy(o.dtype)
        r._spec_shape = None
        return r

It returns MISS for anything it does not take (another signature, keyword
arguments, a Parameter or a tuple argument, a gradient tape or a graph being built,
check_equivalence, a guarded attribute that changed, Parameters that no longer
bind); the caller then takes the general path, which handles or reports it.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Optional, Sequence

import numpy as np

from ..autodiff import tape as _tape
from ..context import _context
from ..frontend.program import Out
from ..frontend.templates import contents_key
from ..ir.dtypes import BY_NUMPY, from_numpy
from ..ir.errors import GraphJitError
from ..ir.fp_errors import FP_IGNORED, FP_STATE, ignore_fp_errors, restore_fp_errors
from ..common.parameter import Parameter
from ..common.tensor import Tensor, _recording as _local

__all__ = ["MISS", "make_call", "make_guard_check"]

MISS = object()          # "not this entry's call": take the general path

_CONSTANTS = (int, float, bool, str, type(None))
_counter = itertools.count()


def make_call(entry, args: Sequence, fill: Callable, own: Optional[Callable] = None,
              fresh: Optional[Sequence[bool]] = None, const_ids=frozenset()):
    """The fast call of a cache entry for calls like `args` (positional, Tensors with
    data and plain constants), or None if such calls cannot take it.

    Args:
        entry: the CacheEntry (key, plan, template, guards, state).
        args: a call the entry ran for (its Tensors give the dtypes).
        fill: builds the returned structure from the plan's outputs (cache._fill).
        own: for a compiled model, makes the returned structure own its arrays
            (an output sharing memory with a constant is copied); None for a Cell.
        fresh: with own: per graph result, whether it is always a new array.
        const_ids: with own: the ids of the plan's constant arrays.
    """
    key = entry.key
    if len(key) != len(args):
        return None
    env = base_env(entry)
    env.update({"MISS": MISS, "_tape": _tape, "_local": _local})
    n = len(args)
    lines = ["def call(args):",
             f"    if len(args) != {n} or _tape._recording or "
             f"_context['check_equivalence'] or getattr(_local, 'stack', None):",
             "        return MISS"]
    checked = argument_lines(args, key, env, "MISS", sequences=True)
    if checked is None:
        return None
    lines += checked[0]
    lines += _guard_lines(entry, env)
    lines += run_lines(entry, env, checked[1], "MISS")
    t = entry.template
    if type(t) is Out and not t.weak and not t.is_list:
        copy = []
        if own is not None and not fresh[t.i]:
            env["_consts"] = const_ids
            copy = ["    if id(o) in _consts or (o.base is not None and id(o.base) in "
                    "_consts): o = o.copy()"]
        lines += tensor_lines(t.i, "r", copy) + ["    return r"]
    elif own is None and type(t) is tuple and all(
            type(u) is Out and not u.weak and not u.is_list for u in t):
        # a tuple of tensors (an optimizer's updated Parameters), wrapped inline
        for k, u in enumerate(t):
            lines += tensor_lines(u.i, f"r{k}")
        lines.append(f"    return ({''.join(f'r{k}, ' for k in range(len(t)))})")
    else:
        env["_fill"], env["_template"] = fill, t
        if own is not None and not all(fresh):
            env["_own"] = own
            lines.append("    return _own(_fill(_template, outs))")
        else:
            lines.append("    return _fill(_template, outs)")
    source = "\n".join(lines) + "\n"
    filename = f"<graphjit-entry-{next(_counter)}>"
    exec(compile(source, filename, "exec"), env)
    fn = env["call"]
    fn.source = source
    return fn


def base_env(entry) -> dict:
    """The names every generated call reads: the entry's plan, the context, Tensor
    construction and numpy's error state."""
    return {"_context": _context, "_Tensor": Tensor, "_run": entry.plan.fn,
            "_failure": entry.plan.failure, "_Internal": (GraphJitError, AssertionError),
            "_ndarray": np.ndarray, "_asarray": np.asarray, "_new": object.__new__,
            "_by_numpy": BY_NUMPY, "_from_numpy": from_numpy, "_fp": FP_STATE,
            "_ignored": FP_IGNORED, "_ignore": ignore_fp_errors,
            "_restore": restore_fp_errors}


def argument_lines(args, key, env, miss: str, sequences: bool):
    """(lines, arrays): the lines unpacking a call's `args` and checking each against
    its signature `key` (`return <miss>` where one differs), and the names of the
    arrays they bind for the plan; None if an argument is of a kind the fast call does
    not take. With `sequences`, a tuple or list of Tensors is taken too (flattened in
    order, as the signature does)."""
    n = len(args)
    lines = [f"    {', '.join(f'a{i}' for i in range(n))}{',' if n == 1 else ''} = args"] \
        if n else []
    arrays = []
    for i, (a, k) in enumerate(zip(args, key)):
        if type(a) is Tensor and a._data is not None and k[0] == "T":
            env[f"_d{i}"] = a._dtype
            lines += [f"    if type(a{i}) is not _Tensor or a{i}._dtype is not _d{i}: "
                      f"return {miss}",
                      f"    x{i} = a{i}._data",
                      f"    if x{i} is None or {_shape_test(f'x{i}', k[2])}: return {miss}"]
            arrays.append(f"x{i}")
        elif sequences and type(a) in (tuple, list) and k[0] == type(a).__name__ and \
                len(k[1]) == len(a) and all(type(t) is Tensor and t._data is not None and
                                            kt[0] == "T" for t, kt in zip(a, k[1])):
            env[f"_seq{i}"] = type(a)
            lines.append(f"    if type(a{i}) is not _seq{i} or len(a{i}) != {len(a)}: "
                         f"return {miss}")
            for j, (t, kt) in enumerate(zip(a, k[1])):
                x = f"x{i}_{j}"
                env[f"_d{i}_{j}"] = t._dtype
                lines += [f"    t = a{i}[{j}]",
                          f"    if type(t) is not _Tensor or t._dtype is not _d{i}_{j}: "
                          f"return {miss}",
                          f"    {x} = t._data",
                          f"    if {x} is None or {_shape_test(x, kt[2])}: return {miss}"]
                arrays.append(x)
        elif type(a) in _CONSTANTS and k[0] == "C":
            env[f"_t{i}"], env[f"_v{i}"] = type(a), k[2]
            lines.append(f"    if type(a{i}) is not _t{i} or a{i} != _v{i}: return {miss}")
            if type(a) is float and a == 0:      # 0.0 and -0.0 are different graphs
                env["_copysign"], env[f"_s{i}"] = math.copysign, math.copysign(1.0, k[2])
                lines.append(f"    if _copysign(1.0, a{i}) != _s{i}: return {miss}")
        else:
            return None
    if len(arrays) > 1:     # the signature was made for distinct Tensors: one passed twice
        names = [f"a{i}" for i, a in enumerate(args) if type(a) is Tensor]
        names += [f"a{i}[{j}]" for i, a in enumerate(args) if type(a) in (tuple, list)
                  for j in range(len(a))]
        if len(names) <= 4:
            pairs = [f"{x} is {y}" for k, x in enumerate(names) for y in names[k + 1:]]
            lines.append(f"    if {' or '.join(pairs)}: return {miss}")
        else:
            lines.append(f"    if len({{{', '.join(f'id({x})' for x in names)}}}) != "
                         f"{len(names)}: return {miss}")
    return lines, arrays


def run_lines(entry, env, arrays, miss: str) -> list:
    """The lines running the plan on `arrays` (and the entry's state, resolved first:
    `return <miss>` if it no longer binds) under the ignored error state, reporting a
    failure as the general path does, then applying the entry's `self.attr = constant`
    writes; the plan's results are `outs`."""
    lines = []
    call_args = arrays
    if entry.state is not None:
        env["_resolve"] = entry.state.resolve
        env["_token"] = np.True_
        lines += ["    vs = _resolve()", f"    if vs is None: return {miss}"]
        call_args = [arrays[e[1]] if e[0] == "tensor" else f"vs[{e[1]}]" if e[0] == "ref"
                     else "_token" for e in entry.state.layout]
    lines += ["    tok = _fp.set(_ignored)" if FP_STATE is not None else "    tok = _ignore()",
              "    try:", f"        outs = _run({', '.join(call_args)})",
              "    except _Internal:", "        raise",
              "    except Exception as e:", "        f = _failure(e)", "        if f is e: raise",
              "        raise f from e", "    finally:",
              "        _fp.reset(tok)" if FP_STATE is not None else "        _restore(tok)"]
    if entry.attr_writes:             # `self.attr = constant`, after every run
        env["_attr_writes"] = entry.attr_writes
        lines += ["    for ref, attr, value in _attr_writes:", "        obj = ref()",
                  "        if obj is not None:", "            setattr(obj, attr, value)"]
    return lines


def tensor_lines(i: int, name: str, then=()) -> list:
    """The lines binding `name` to a Tensor over the plan's result outs[i] (as the
    array `o`, after the lines `then`)."""
    return [f"    o = outs[{i}]",
            "    if type(o) is not _ndarray: o = _asarray(o)", *then,
            f"    {name} = _new(_Tensor)", f"    {name}._data = o",
            f"    {name}._dtype = _by_numpy.get(o.dtype) or _from_numpy(o.dtype)",
            f"    {name}._spec_shape = None"]


def _shape_test(x: str, shape) -> str:
    """A test true when array x does not have `shape` (None: any rank; a None dim:
    any size)."""
    if shape is None:
        return "False"
    if all(d is not None for d in shape):
        return f"{x}.shape != {tuple(shape)!r}"
    tests = [f"{x}.ndim != {len(shape)}"]
    tests += [f"{x}.shape[{i}] != {d}" for i, d in enumerate(shape) if d is not None]
    return " or ".join(tests)


def make_guard_check(entry):
    """A function `check() -> bool`: entry.guards_hold(state=False), written out."""
    env = {}
    lines = ["def check():"] + [ln.replace("return MISS", "return False")
                                for ln in _guard_lines(entry, env)] + ["    return True"]
    exec(compile("\n".join(lines) + "\n", f"<graphjit-guards-{next(_counter)}>", "exec"),
         env)
    return env["check"]


def _guard_lines(entry, env) -> list:
    """The lines checking the entry's guards: each attribute the graph depends on is
    as it was (CacheEntry.guards_hold, written out for the common kinds)."""
    if any(g[2] not in ("value", "tensor", "id", "param", "params", "cells", "held")
           for g in entry.guards):
        env["_guards_hold"] = entry.guards_hold     # Parameters, sub-Cells: the general check
        return ["    if not _guards_hold(state=False): return MISS"]
    lines = []
    refs = {}
    env["_absent"] = object()
    for j, (ref, attr, kind, value) in enumerate(entry.guards):
        if id(ref) not in refs:
            r = refs[id(ref)] = f"o{len(refs)}"
            env[f"_ref{r}"] = ref
            lines += [f"    {r} = _ref{r}()", f"    if {r} is None: return MISS"]
        lines.append(f"    c = getattr({refs[id(ref)]}, {attr!r}, _absent)")
        if kind == "value":
            env[f"_g{j}"] = value
            lines.append(f"    if type(c) is not type(_g{j}) or c != _g{j}: return MISS")
        elif kind == "param":
            env["_Parameter"] = Parameter
            env[f"_g{j}a"], env[f"_g{j}b"] = value
            lines.append(f"    if not isinstance(c, _Parameter) or c._dtype is not _g{j}a or "
                         f"c._data.shape != _g{j}b: return MISS")
        elif kind == "params":          # a ParameterTuple or list: its type, length, items
            env["_Parameter"] = Parameter
            env[f"_g{j}t"] = value[0]
            lines.append(f"    if type(c) is not _g{j}t or len(c) != {len(value[1])}: "
                         f"return MISS")
            for k, (dtype, shape) in enumerate(value[1]):
                env[f"_g{j}_{k}a"], env[f"_g{j}_{k}b"] = dtype, shape
                lines.append(f"    p = c[{k}]")
                lines.append(f"    if not isinstance(p, _Parameter) or p._dtype is not "
                             f"_g{j}_{k}a or p._data.shape != _g{j}_{k}b: return MISS")
        elif kind == "cells":           # the same Cell, with the same sub-Cells in order
            env["_nodict"] = {}
            env[f"_g{j}a"], env[f"_g{j}b"] = value
            lines += [f"    if id(c) != _g{j}a: return MISS",
                      "    d = getattr(c, '__dict__', _nodict).get('_cells')",
                      f"    if (tuple([id(x) for x in d.values()]) if d else ()) != _g{j}b: "
                      f"return MISS"]
        elif kind == "held":            # the same list or dict, with the same contents
            env["_contents_key"] = contents_key
            env[f"_g{j}a"], env[f"_g{j}b"] = value
            lines.append(f"    if id(c) != _g{j}a or _contents_key(c) != _g{j}b: return MISS")
        elif kind == "tensor":
            env[f"_g{j}a"], env[f"_g{j}b"], env[f"_g{j}c"] = value[:3]
            lines.append(f"    if id(c) != _g{j}a or id(getattr(c, '_data', None)) != _g{j}b "
                         f"or getattr(c, '_writes', 0) != _g{j}c: return MISS")
            if len(value) > 3:          # an array handed out by asnumpy: its bytes
                env[f"_g{j}d"] = value[3]
                lines.append(f"    if c._data.tobytes() != _g{j}d: return MISS")
        else:
            env[f"_g{j}"] = value
            lines.append(f"    if id(c) != _g{j}: return MISS")
    return lines
