"""State shared by the builder's modules: the control flags kept in the environment
and the Compiler (what one compilation collects: guards, records, warnings)."""
from __future__ import annotations

import sys
import weakref
from typing import Any, Dict, List

import numpy as np

from ..nn import Cell
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from .templates import contents_key

__all__ = ["Compiler", "RET", "RETVAL", "BRK", "CONT", "LEFT", "RAISED", "FLAGS",
           "bound_name"]

# Control state lives in the environment under names user code cannot spell, so
# branch joins and loop carries treat it like any variable (AutoGraph's flags).
RET, RETVAL, BRK, CONT = "<returned>", "<return value>", "<break>", "<continue>"
FLAGS = (RET, BRK, CONT)
# True (a Python bool, never a graph value) where every path has left by return, break
# or continue although each flag alone is a graph value (`if c: break` then `return`):
# names unbound on such a path do not make a later read fail (nothing reads them there)
LEFT = "<left>"
# True where every path that reaches this point has raised (a `raise` built as a Raise
# node, on a path chosen by tensor values): nothing after it runs, and where it joins
# another path the names take that path's values
RAISED = "<raised>"


def bound_name(name: str) -> str:
    """The carried slot of a Loop that says whether `name` is bound (a name first bound
    inside the body, or one that may be unbound before the loop)."""
    return f"<bound {name}>"


class Compiler:
    """State shared by every function built for one compilation."""

    def __init__(self, max_unroll: int = 256, max_depth: int = 200):
        self.max_unroll = max_unroll
        self.max_depth = max_depth
        self.depth = 0
        self.records: List[Any] = []       # explain records (control_flow.Record)
        self.guards: List[tuple] = []      # (weakref to object, attribute, kind, value)
        self._guarded: set = set()         # (id(object), attribute, kind, value) in guards
        self.created: Dict[int, Any] = {}  # objects created while building, by id
        self.warnings: List[str] = []
        self.param_source: Dict[int, Any] = {}  # id(subgraph param) -> outer Value
        self.external: Dict[int, Any] = {}      # containers that outlive the call, by id
        self.passed_in: Dict[int, Any] = {}     # the caller's lists and dicts (arguments)
        self.arg_writes: Dict[int, Any] = {}    # those the program changes (see program.py)
        self.attr_values: List[tuple] = []      # (weakref, attribute, graph value) to set
        self.attr_restore: List[tuple] = []     # (object, attribute, value before build)
        self.return_loc = None                  # the top-level function's last return
        self.stack: List[Any] = []              # user functions being built (Activation)
        # id(Parameter) -> where the program found it, for binding it at each call:
        # ("attr", weakref to owner, name), ("item", weakref to owner, name, index),
        # ("arg", k) (the k-th Parameter argument) or ("object", the Parameter)
        self.state_sources: Dict[int, List[tuple]] = {}
        self.unguarded: set = set()             # ids of tensors the graph takes as inputs
        self.grad_depth = 0                     # gradient programs being built around
        self.grad_weights: list = []            # the Parameters they differentiate
        # a call just built raises on every path (its Raise nodes run): the statement or
        # branch that made it marks its own path as raised
        self.raised_call = False
        self.attr_writes: List[tuple] = []      # (weakref to object, attribute, value)
        # lists and dicts from outside (globals, closures, attributes) the program
        # changes: id -> (the object, its contents before the build); only a top-level
        # build (program.build_program) sets ext_ok and gives them back after building
        self.ext_writes: Dict[int, tuple] = {}
        self.ext_ok = False

    def note_external(self, value):
        if type(value) in (list, dict, set, tuple) or isinstance(value, Tensor):
            self.external[id(value)] = value
        return value

    def guard_global(self, names: dict, name: str, value) -> None:
        """A module variable the graph folded (a number, string, tuple, list, dict or
        tensor, not a module, function or class): guarded through its module as an
        attribute, so rebinding it or changing its contents builds the graph again,
        as eager mode would read the new value. Globals of code with no module (exec)
        are not guarded."""
        if not (value is None or type(value) in (bool, int, float, str, tuple, list, dict)
                or isinstance(value, (Tensor, np.ndarray))):
            return
        module = sys.modules.get(names.get("__name__"))
        if module is not None and getattr(module, "__dict__", None) is names:
            self.guard_attr(module, name, value)

    def guard_contents(self, value) -> None:
        """A closure's list or dict the graph folded: built again when its contents
        change (the cell's binding itself is the function's)."""
        if type(value) in (list, dict) and id(value) not in self.ext_writes:
            seen = (id(value), None, "contents", contents_key(value))
            if seen not in self._guarded:
                self._guarded.add(seen)
                self.guards.append(((lambda o: lambda: o)(value), None, "contents",
                                    seen[3]))

    def note_passed_in(self, value):
        """An argument's lists and dicts (stand-ins for the caller's): changing one
        would change the caller's object in eager Python, once per call."""
        if type(value) in (list, dict):
            self.passed_in[id(value)] = value
        if type(value) in (list, tuple):
            for v in value:
                self.note_passed_in(v)
        elif type(value) is dict:
            for v in value.values():
                self.note_passed_in(v)

    def record(self, rec):
        self.records.append(rec)
        return rec

    def note_state_source(self, param, source: tuple) -> None:
        """Where the program found a Parameter (see state_sources); each once."""
        found = self.state_sources.setdefault(id(param), [])
        if source not in found:
            found.append(source)

    def note_attr_state(self, obj, attr, value) -> None:
        """A Parameter (or a tuple or list of them) read as an attribute of obj: each is
        bound through obj at every call, so a new Parameter object of the same type in
        its place needs no new graph."""
        try:
            ref = weakref.ref(obj)
        except TypeError:
            return
        if isinstance(value, Parameter):
            self.note_state_source(value, ("attr", ref, attr))
        elif isinstance(value, (tuple, list)):
            for i, v in enumerate(value):
                if isinstance(v, Parameter):
                    self.note_state_source(v, ("item", ref, attr, i))

    def guard_attr(self, obj, attr, value):
        """Remember an attribute the graph depends on (the compiled entry is used only
        while it is unchanged). The object is held weakly: a cache must not keep its
        Cell alive. A Parameter is state: only its type is guarded (its data is read
        when the graph runs); a sub-Cell by identity (the graph is built from it), with
        the identities of its own sub-Cells."""
        if isinstance(value, Parameter):
            kind, key = "param", (value._dtype, value._data.shape)
        elif isinstance(value, (tuple, list)) and value and all(
                isinstance(v, Parameter) for v in value):
            kind, key = "params", (type(value), tuple((v._dtype, v._data.shape)
                                                      for v in value))
        elif isinstance(value, Cell):
            # by identity, and a container (CellList, SequentialCell, any Cell with
            # sub-Cells) by the identities of its sub-Cells too: iterating it or calling
            # its cells() reads no attribute, so an append or insert would go unseen
            cells = value.__dict__.get("_cells")
            kind, key = ("cells", (id(value), tuple(id(c) for c in cells.values()))) \
                if cells else ("id", id(value))
        elif isinstance(value, (bool, int, float, str, type(None))) or (
                isinstance(value, tuple) and all(isinstance(v, (bool, int, float, str,
                                                                type(None))) for v in value)):
            kind, key = "value", value
        elif isinstance(value, Tensor):
            if id(value) in self.unguarded:
                # an input of the graph, read when it runs: new data is fine, another
                # tensor in its place is not
                kind, key = "id", id(value)
            else:
                # the graph holds this tensor's data as a constant: rebuild if either
                # changes
                kind, key = "tensor", (id(value), id(value._data), getattr(value, "_writes", 0))
                if getattr(value, "_exposed", False):
                    # its array was handed out (asnumpy): writes into it are not counted,
                    # so the guard compares the data itself
                    key += (value._data.tobytes(),)
        elif isinstance(value, np.ndarray):
            kind, key = "id", id(value)
        elif type(value) in (list, dict, tuple):
            # a list or dict (or a tuple holding one) the graph folded: the same object
            # with the same contents, or the graph would answer from stale values
            kind, key = "held", (id(value), contents_key(value))
        else:
            return
        seen = (id(obj), attr, kind, key)
        try:
            if seen in self._guarded:   # an unrolled loop reads self.w at every step
                return
            self._guarded.add(seen)
        except TypeError:   # a value that does not hash is guarded as often as it is read
            pass
        try:
            ref = weakref.ref(obj)
        except TypeError:
            ref = (lambda o: lambda: o)(obj)
        self.guards.append((ref, attr, kind, key))
