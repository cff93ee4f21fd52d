"""`obj.attr = value` in a compiled function, on an object that outlives the call, and
changes of the lists and dicts that outlive it or that the caller passed."""
from __future__ import annotations

import ast
import weakref
from typing import TYPE_CHECKING

from ..ir.errors import UnsupportedSyntaxError
from .strings import has_runtime
from ..common.tensor import Tensor
from .values import GraphTensor, active

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["set_object_attr", "restore_attrs", "change_container"]


def set_object_attr(b: FunctionBuilder, obj, attr, value, stmt):
    """`obj.attr = value` on an object that outlives the call (self, a global object):
    MindSpore 2.x sets it (JIT Fallback), at every call. A constant value on a path known
    while building is set now (later reads in this build see it) and again after every
    run of the graph; a tensor value (on a path known while building) is set to the
    run's value after every run; a path that depends on tensors is refused."""
    where = "on a path chosen by tensor values" if active().parent is not None else \
        "to a value known only when the graph runs" if has_runtime(value) and not \
        isinstance(value, GraphTensor) else None
    if where is None and isinstance(value, GraphTensor):
        if b.c.grad_depth:
            where = "to a value known only when the graph runs, in a gradient program"
        else:
            _set_graph_value(b, obj, attr, value)
            return
    if where is not None:
        raise UnsupportedSyntaxError(
            f"setting attribute '{attr}' of {type(obj).__name__} inside a compiled function "
            f"{where} (graph mode sets attributes to constants, on paths known while the "
            f"graph is built)", loc=b.loc(stmt), names=(attr,),
            hint="keep the value in a local variable and return it, or make the attribute "
                 "a Parameter (self.p = v then updates it when the graph runs)")
    setattr(obj, attr, value)
    try:
        ref = weakref.ref(obj)
    except TypeError:
        ref = (lambda o: lambda: o)(obj)
    b.c.attr_writes.append((ref, attr, value))


_MISSING = object()


def _set_graph_value(b: FunctionBuilder, obj, attr, value):
    """`obj.attr = x`, x a tensor value: later reads in this build see x; the attribute's
    old value comes back when the build ends (program.py) and the run's value of x is
    set after every run (jit.cache.apply_writes), as eager mode sets it at every call."""
    b.c.attr_restore.append((obj, attr, obj.__dict__.get(attr, _MISSING)))
    object.__setattr__(obj, attr, value)
    try:
        ref = weakref.ref(obj)
    except TypeError:
        ref = (lambda o: lambda: o)(obj)
    b.c.attr_values.append((ref, attr, value))


def restore_attrs(compiler) -> None:
    """Give back the attributes _set_graph_value set to graph values (last first)."""
    for obj, attr, old in reversed(compiler.attr_restore):
        if old is _MISSING:
            obj.__dict__.pop(attr, None)
        else:
            object.__setattr__(obj, attr, old)
    compiler.attr_restore.clear()


def change_container(b: FunctionBuilder, obj, node, expr=None):
    """A list or dict changed inside a compiled function: one the caller passed is
    given its final contents after each run (program.py), on a path known while
    building; one that outlives the call (attributes of the Cell, globals) cannot
    change, the change would happen once, while the graph is built, instead of at every
    call. `expr` is the AST of the object (to name it)."""
    if id(obj) in b.c.passed_in:
        if active().parent is None and not b.c.grad_depth:
            # changed on every path: the caller's object gets the final contents
            # after each run, as eager Python changes it (program.py)
            b.c.arg_writes[id(obj)] = obj
            return
        kind = type(obj).__name__
        name = ast.unparse(expr) if expr is not None else ""
        raise UnsupportedSyntaxError(
            f"changing {('`' + name + '`, ') if name else ''}a {kind} passed in by the "
            f"caller, in a branch or loop that depends on a tensor value (or in a "
            f"function being differentiated): eager Python would change the caller's "
            f"{kind} when that path runs",
            loc=b.loc(node), names=(name,) if name else (),
            hint=f"build a new local {kind} (e.g. {name or 'it'} = "
                 f"{'list' if kind == 'list' else 'dict'}({name or 'it'})) and return it, "
                 f"or run this in PYNATIVE_MODE")
    if id(obj) in b.c.external:
        kind = "tensor" if isinstance(obj, Tensor) else type(obj).__name__
        name = ast.unparse(expr) if expr is not None else ""
        if type(obj) in (list, dict) and b.c.ext_ok:
            if active().parent is None and not b.c.grad_depth:
                # changed on a path known while building: the build changes it (later
                # reads see it), program.py gives it back its contents when the build
                # ends and the run gives it the final contents, at every call
                if id(obj) not in b.c.ext_writes:
                    b.c.ext_writes[id(obj)] = (obj, dict(obj) if kind == "dict" else
                                               list(obj))
                return
            raise UnsupportedSyntaxError(
                f"changing {('`' + name + '`, ') if name else ''}a {kind} that outlives "
                f"the call (an attribute, a global or a closure's), in a branch or loop "
                f"that depends on a tensor value (or in a function being differentiated):"
                f" eager Python would change it when that path runs",
                loc=b.loc(node), names=(name,) if name else (),
                hint=f"build a new local {kind} and return it, or run this in "
                     f"PYNATIVE_MODE")
        raise UnsupportedSyntaxError(
            f"changing {('`' + name + '`, ') if name else ''}a {kind} that outlives the "
            f"call (an attribute or a global), inside a compiled function",
            loc=b.loc(node), names=(name,) if name else (),
            hint=f"build a new local {kind} (and return it) instead of changing "
                 f"{name or 'it'}, or run this Cell in PYNATIVE_MODE")
