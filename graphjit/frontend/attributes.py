"""`obj.attr = value` in a compiled function, on an object that outlives the call."""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from ..ir.errors import UnsupportedSyntaxError
from .strings import has_runtime
from .values import GraphTensor, active

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["set_object_attr"]


def set_object_attr(b: FunctionBuilder, obj, attr, value, stmt):
    """`obj.attr = value` on an object that outlives the call (self, a global object):
    MindSpore 2.x sets it (JIT Fallback), at every call. A constant value on a path known
    while building is set now (later reads in this build see it) and again after every
    run of the graph; a value or a path that depends on tensors is refused."""
    where = "on a path chosen by tensor values" if active().parent is not None else \
        "to a value known only when the graph runs" if has_runtime(value) or isinstance(
            value, GraphTensor) else None
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
