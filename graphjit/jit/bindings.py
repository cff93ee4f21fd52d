"""Binding a compiled graph's state inputs at each call: each ref input to the
Parameter the program found (through the Cell attribute, tuple item or argument it
came from, looked up again at every call), and the state token.

A graph that reads or updates Parameters takes, besides its tensor inputs, one ref
per Parameter and the state token, and returns the last token after its results
(graphjit.ir.defs.state). A new Parameter object of the same dtype and shape in an
attribute's place is bound in the old one's stead: no new graph. A source that no
longer gives a Parameter of that type, or two sources of one ref that now give two
objects, make `resolve` fail, and the cache builds the graph again.
"""
from __future__ import annotations

import itertools
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..ir.graph import Graph
from ..common.parameter import Parameter

__all__ = ["StateBinding"]

_TOKEN = np.True_   # the state token's run-time value (its value means nothing)


def _find(source, arg_params):
    kind = source[0]
    if kind == "object":
        return source[1]
    if kind == "arg":
        return arg_params[source[1]] if arg_params is not None and \
            source[1] < len(arg_params) else _SKIP
    owner = source[1]()
    if owner is None:
        return None
    value = getattr(owner, source[2], None)
    if kind == "item":
        try:
            value = value[source[3]]
        except (TypeError, IndexError, KeyError):
            return None
    return value


_SKIP = object()   # an argument source, checked when the call's arguments are known


class StateBinding:
    """The state inputs of one compiled graph.

    Args:
        graph: the graph.
        slots: (ref parameter index, Parameter found while building, sources) per ref
            input; sources as frontend.state.Compiler.state_sources. Without them (an
            imported model) the layout is known but nothing can be resolved.

    Attributes:
        layout: per graph parameter, ("tensor", i) for the i-th tensor input,
            ("ref", j) for the j-th slot, or ("state",) for the token.
        returns_token: the graph's last result is the state token.
        names: per slot, the Parameter's name (or the ref parameter's).
    """

    def __init__(self, graph: Graph, slots: Sequence[Tuple[int, Parameter, list]] = ()):
        by_index = {i: (p, list(src) or [("object", p)]) for i, p, src in slots}
        self.layout: List[tuple] = []
        self.types, self.sources, self.names = [], [], []
        n_tensor = 0
        for i, prm in enumerate(graph.params):
            kind = prm.type.kind
            if kind == "ref":
                p, src = by_index.get(i, (None, []))
                self.layout.append(("ref", len(self.sources)))
                self.types.append(prm.type.value_type())
                self.sources.append(src)
                self.names.append(getattr(p, "name", None) or prm.name)
            elif kind == "state":
                self.layout.append(("state",))
            else:
                self.layout.append(("tensor", n_tensor))
                n_tensor += 1
        self.returns_token = bool(graph.results) and graph.results[-1].type.kind == "state"
        self._checks = [((t.dtype, t.shape), tuple(src)) for t, src in
                        zip(self.types, self.sources)]
        if self._checks and all(s[0] in ("attr", "item", "object")
                                for _, src in self._checks for s in src):
            self.resolve = _generated_resolve(self._checks)   # no argument sources

    def resolve(self, arg_params=None) -> Optional[List[Parameter]]:
        """The Parameters to bind now, one per slot; None if a source no longer gives
        a Parameter of the slot's type, the sources of a slot disagree, or two slots
        give one Parameter (the graph was built for distinct ones: a read cached across
        an update of the other would be stale). Argument sources are skipped when
        arg_params is None."""
        out = []
        for (dtype, shape), sources in self._checks:
            found = None
            for s in sources:
                if s[0] == "attr":              # the common case, inline
                    owner = s[1]()
                    p = getattr(owner, s[2], None) if owner is not None else None
                else:
                    p = _find(s, arg_params)
                    if p is _SKIP:
                        continue
                if not isinstance(p, Parameter) or p._dtype is not dtype or \
                        p._data.shape != shape or (found is not None and p is not found):
                    return None
                found = p
            out.append(found)
        if len({id(p) for p in out if p is not None}) != sum(p is not None for p in out):
            return None
        return out

    def why_not(self, arg_params=None) -> str:
        """Why resolve fails: the first slot whose sources give something else."""
        for name, t, sources in zip(self.names, self.types, self.sources):
            found = []
            for s in sources:
                p = _find(s, arg_params)
                if p is _SKIP:
                    continue
                if not isinstance(p, Parameter):
                    return f"Parameter {name} is now a {type(p).__name__}"
                if p._dtype is not t.dtype or p._data.shape != t.shape:
                    return f"Parameter {name} changed type: {t} -> {p.type}"
                found.append(p)
            if any(p is not found[0] for p in found):
                return f"the places that gave Parameter {name} now give different Parameters"
        return "two Parameters the graph reads are now one object"

    @property
    def n_tensors(self) -> int:
        return sum(1 for e in self.layout if e[0] == "tensor")

    def tensor_params(self, graph: Graph) -> list:
        """The graph's tensor parameters (its inputs as a model), in order."""
        return [p for p, e in zip(graph.params, self.layout) if e[0] == "tensor"]

    def arguments(self, arrays: Sequence, variables: Sequence) -> list:
        """The graph's arguments: the tensor arrays, the variables and the token, in
        parameter order."""
        out = []
        for entry in self.layout:
            if entry[0] == "tensor":
                out.append(arrays[entry[1]])
            elif entry[0] == "ref":
                out.append(variables[entry[1]])
            else:
                out.append(_TOKEN)
        return out


_counter = itertools.count()


def _generated_resolve(checks):
    """StateBinding.resolve written out for sources that are attributes, items and
    objects (no call arguments): one weakref call per owner, each source looked up
    and checked inline, then the distinctness test. For a Momentum step's weight
    (the Dense's attribute and the optimizer's item) it reads

        o0 = _r0()
        o1 = _r1()
        p = getattr(o0, 'weight', None) if o0 is not None else None
        if not isinstance(p, _P) or p._dtype is not _t0 or p._data.shape != _s0: ...
        try:
            q = getattr(o1, '_parameters', None)[0]
        except (TypeError, IndexError, KeyError):
            return None
        if q is not p: return None
        ...
    """
    env = {"_P": Parameter}
    owners = {}
    lines = ["def resolve(arg_params=None):"]
    found = []
    for j, ((dtype, shape), sources) in enumerate(checks):
        env[f"_t{j}"], env[f"_s{j}"] = dtype, shape
        name = f"p{j}"
        for k, s in enumerate(sources):
            var = name if k == 0 else "q"
            if s[0] == "object":
                env[f"_obj{j}_{k}"] = s[1]
                lines.append(f"    {var} = _obj{j}_{k}")
            else:
                o = owners.get(id(s[1]))
                if o is None:
                    o = owners[id(s[1])] = f"o{len(owners)}"
                    env[f"_r{o}"] = s[1]
                    lines.append(f"    {o} = _r{o}()")
                get = f"getattr({o}, {s[2]!r}, None) if {o} is not None else None"
                if s[0] == "attr":
                    lines.append(f"    {var} = {get}")
                else:
                    env[f"_i{j}_{k}"] = s[3]
                    lines += ["    try:", f"        {var} = ({get})[_i{j}_{k}]",
                              "    except (TypeError, IndexError, KeyError):",
                              "        return None"]
            if k == 0:
                # isinstance, as resolve: a subclass of Parameter binds too
                lines.append(f"    if not isinstance({var}, _P) or {var}._dtype is not _t{j} "
                             f"or {var}._data.shape != _s{j}: return None")
            else:
                lines.append(f"    if {var} is not {name}: return None")
        found.append(name)
    if len(found) > 1:
        lines.append(f"    if len({{{', '.join(f'id({n})' for n in found)}}}) != "
                     f"{len(found)}: return None")
    lines.append(f"    return [{', '.join(found)}]")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<graphjit-resolve-{next(_counter)}>", "exec"), env)
    fn = env["resolve"]
    fn.source = source
    return fn
