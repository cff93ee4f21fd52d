"""The builtins that ask what a value is, while a function is built: len(), isinstance(),
type() and the int()/float()/bool() conversions, for graph values as eager Python
answers them (a tensor value is a Tensor when the graph runs; a graph value standing
for a Python number converts as that number)."""
from __future__ import annotations

import builtins

from .. import ops
from ..ir import dtypes as dt
from ..ir.errors import UnsupportedSyntaxError
from ..common.tensor import Tensor, TensorLike
from .values import Collector, DynamicList, GraphTensor, as_graph

__all__ = ["_len", "_isinstance", "_type", "_to_scalar"]


def _len(b, args, kwargs, node):
    (x,) = args
    if isinstance(x, GraphTensor):
        s = x.type.shape
        if s is not None and s and s[0] is not None:
            return s[0]
        if s is not None and not s:
            raise TypeError("len() of a 0-d tensor")
        d = x.shape[0] if s is not None else None
        if d is None:
            raise UnsupportedSyntaxError("len() of a tensor of unknown rank", loc=b.loc(node))
        return d
    if isinstance(x, DynamicList):
        return x.length()
    if isinstance(x, Collector) and x.length_name is not None and x.counted and \
            x.length_name in b.env:
        return b.env[x.length_name]     # carried by the Loop, as the appends counted it
    return len(x)


def _isinstance(b, args, kwargs, node):
    x, cls = args
    classes = cls if isinstance(cls, tuple) else (cls,)
    if isinstance(x, GraphTensor) and any(c in (Tensor, TensorLike) for c in classes):
        return True
    if isinstance(x, DynamicList) and list in classes:
        return True
    return isinstance(x, cls)


def _type(b, args, kwargs, node):
    """type(x): a tensor's value is a Tensor while the graph runs, a growing list a list."""
    if len(args) == 1 and not kwargs:
        x = args[0]
        if isinstance(x, GraphTensor):      # a weak one is a Python number's value
            if not x.weak:
                return Tensor
            return bool if x.dtype.is_bool else float if x.dtype.is_floating else int
        if isinstance(x, DynamicList):
            return list
    return type(*args, **kwargs)


def _to_scalar(kind):
    def conv(b, args, kwargs, node):
        if args:
            args = (as_graph(args[0]),) + tuple(args[1:])
        if args and isinstance(args[0], GraphTensor):
            x = args[0]
            n = x.type.shape
            if n is not None and any(d is not None and d != 1 for d in n):
                raise ValueError(f"only one-element tensors can be converted to Python "
                                 f"scalars (got {x.type})")
            target = {"int": dt.int64, "float": dt.float64, "bool": dt.bool_}[kind]
            if kind == "bool":
                out = ops.not_equal(x, 0) if not x.dtype.is_bool else x
            elif kind == "int" and x.dtype.is_floating:
                # int() truncates toward zero, as Python does
                out = ops.cast(ops.where(x < 0, ops.ceil(x), ops.floor(x)), target)
            else:
                out = ops.cast(x, target)
            if n:
                out = ops.reshape(out, ())
            out.weak = True
            return out
        return getattr(builtins, kind)(*args, **kwargs)
    return conv
