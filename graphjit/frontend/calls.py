"""Calls inside a function being built: builtins that meet graph values, user
functions, methods and Cells (built from their own source), graphjit's operators
(called directly), numpy functions (mapped to ops or refused)."""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import types

import numpy as np

from .. import ops
from ..ir import dtypes as dt
from ..ir.errors import GraphJitError, UnsupportedSyntaxError
from ..nn import Cell
from ..common.cell_hooks import REGISTRY as HOOKS, refuse_backward_hooks, run_forward_hooks, \
    run_pre_hooks
from .._input_checks import _check_of as _layer_check, check_layer_input
from ..ops._dispatch import apply, to_tensor
from ..common.parameter import Parameter
from ..common.tensor import Tensor, TensorLike
from ..common import cell_bprop as _bprop
from .control_flow import branch, condition_value
from .membership import count, involves_tensors
from .source import get_source
from .values import Collector, LocalFunction, Switch, active, current_loc, set_loc
from .values import DynamicList, GraphTensor, as_graph
from ..ops.function.grad.grad_func import GradFunction
from .strings import RuntimeString, encode, has_runtime, str_format
from ..ops.composite.base import HyperMap, Map, MultitypeFuncGraph
from .grad_program import call_grad_inline
from .grad_reuse import record_primal
from .builtin_types import _isinstance, _len, _to_scalar, _type

__all__ = ["call", "GraphRange", "GraphEnumerate", "GraphZip"]


class GraphRange:
    """range() with a tensor bound: iterating it builds a Loop with a trip count."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def __repr__(self):
        return f"range({self.start}, {self.stop}, {self.step})"


class GraphEnumerate:
    def __init__(self, inner, start=0):
        self.inner, self.start = inner, start


class GraphZip:
    def __init__(self, inners):
        self.inners = list(inners)


GRAPH_ITERABLES = (GraphTensor, DynamicList, GraphRange, GraphEnumerate, GraphZip)


def _is_graph_arg(x) -> bool:
    if isinstance(x, (GraphTensor, DynamicList, Parameter)):
        return True
    if isinstance(x, (tuple, list)):
        return any(_is_graph_arg(v) for v in x)
    if isinstance(x, dict):
        return any(_is_graph_arg(v) for v in x.values())
    return False


def _is_internal(fn) -> bool:
    """A function of graphjit's own, run as Python when construct calls it; except
    the methods marked `_graphjit_from_source` (Cell methods MindSpore's subclasses call
    from their construct, as TrainOneStepWithLossScaleCell's), built like user code."""
    if getattr(fn, "_graphjit_from_source", False):
        return False
    mod = getattr(fn, "__module__", None) or ""
    return mod == "graphjit" or mod.startswith("graphjit.")


def _call_switch(b, sw: Switch, args, kwargs, node):
    n = len(sw.items)
    idx = sw.index
    if idx.dtype.is_bool:          # a bool is an int: False picks item 0, True item 1
        idx = ops.cast(idx, dt.int64)
    if not idx.dtype.is_integer:
        raise TypeError(f"list indices must be integers, not a {idx.dtype} tensor")
    k = ops.where(idx < 0, idx + n, idx)
    loc = b.loc(node)

    def build(i):
        if i == n - 1:
            return call(b, sw.items[i], args, kwargs, node)
        sides = (sw.labels[0], sw.labels[1]) if sw.labels and n == 2 else (
            f"item {i}", f"items after {i}")
        return branch(b, ops.equal(k, i), lambda: call(b, sw.items[i], args, kwargs, node),
                      lambda: build(i + 1), loc, sides)
    return build(0)


def _has_unknown_len(x) -> bool:
    if isinstance(x, GraphTensor):
        s = x.type.shape
        return s is None or not s or s[0] is None
    return isinstance(x, GRAPH_ITERABLES)


class RangeArgumentsError(TypeError, RuntimeError):
    """range() called with no argument or more than three: Python's TypeError, and
    MindSpore's RuntimeError (its make_range's words)."""


def _check_range_args(args, kwargs):
    """MindSpore's make_range checks, in its words (then Python's)."""
    if kwargs:
        raise TypeError("range() takes no keyword arguments")
    if not 1 <= len(args) <= 3:
        raise RangeArgumentsError(f"For 'make_range', the input size should within [1, 3] but "
                                  f"got{len(args)} (range expected 1 to 3 arguments, got "
                                  f"{len(args)})")
    for i, a in enumerate(args):
        if isinstance(a, float):
            raise TypeError(f"For 'make_range', the {i}th input should be a int scalar but got "
                            f"AbstractScalar (a Python float {a!r}: 'float' object cannot be "
                            f"interpreted as an integer)")
    if len(args) == 3 and isinstance(args[2], (int, np.integer)) and args[2] == 0:
        raise ValueError("For 'range', the argument 'step' could not be 0. (range() arg 3 "
                         "must not be zero)")


def _range(b, args, kwargs, node):
    _check_range_args(args, kwargs)
    args = [as_graph(a) for a in args]
    if any(isinstance(a, GraphTensor) for a in args):
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        else:
            start, stop, step = args
        if isinstance(step, GraphTensor):
            raise UnsupportedSyntaxError("range() with a tensor step", loc=b.loc(node),
                                         hint="use a Python int step")
        if step == 0:
            raise ValueError("range() arg 3 must not be zero")
        for v in (start, stop):
            if isinstance(v, GraphTensor) and not v.dtype.is_integer:
                raise TypeError(f"range() needs integers, got a {v.dtype} tensor")
        return GraphRange(start, stop, step)
    return range(*[a.__index__() if isinstance(a, Tensor) else a for a in args])


def _enumerate(b, args, kwargs, node):
    it = as_graph(args[0])
    _no_scalar_tensor([it])
    start = args[1] if len(args) > 1 else kwargs.get("start", 0)
    if isinstance(it, GRAPH_ITERABLES) and _has_unknown_len(it) or isinstance(
            it, (GraphRange, GraphEnumerate, GraphZip, DynamicList)):
        return GraphEnumerate(it, start)
    if isinstance(it, GraphTensor) and len(it) > b.c.max_unroll:
        return GraphEnumerate(it, start)
    return list(enumerate(it, start))


def _no_scalar_tensor(args):
    for a in args:
        if isinstance(a, (GraphTensor, Tensor)) and a.shape is not None and len(a.shape) == 0:
            raise TypeError("Cannot iterate over a scalar tensor. (iteration over a 0-d "
                            "tensor)")


def _zip(b, args, kwargs, node):
    args = [as_graph(a) for a in args]
    _no_scalar_tensor(args)
    if any(isinstance(a, (GraphRange, GraphEnumerate, GraphZip, DynamicList)) or
           (isinstance(a, GraphTensor) and _has_unknown_len(a)) for a in args):
        for a in args:
            if not isinstance(a, GRAPH_ITERABLES):
                raise UnsupportedSyntaxError(
                    "zip() of a run-time-length tensor with a Python sequence",
                    loc=b.loc(node), hint="make both tensors (ops.stack the Python list)")
        return GraphZip(args)
    return list(zip(*args))


def _rows_of(b, x, node, what):
    """A tensor iterated by a builtin (all, any, max, min): its rows, whose truth (or
    comparison) must be decidable, as eager mode's bool() of each row needs."""
    if isinstance(x, DynamicList):
        x = x.stacked(0)
    s = x.type.shape
    if s is None:
        raise UnsupportedSyntaxError(f"{what}() over a tensor of unknown rank",
                                     loc=b.loc(node), hint="give the input a known rank")
    if not s:
        raise TypeError("Cannot iterate over a scalar tensor. (iteration over a "
                        "0-d tensor)")
    n_row = 1
    for d in s[1:]:
        n_row = None if d is None or n_row is None else n_row * d
    if n_row != 1:
        raise ValueError(f"The truth value of a Tensor with {n_row or 'several'} elements is "
                         f"ambiguous; use .any() or .all() ({what}() compares the rows of "
                         f"a tensor of shape {x.type})")
    return x


def _all_any(which):
    def fn(b, args, kwargs, node):
        if len(args) != 1 or kwargs:
            return getattr(builtins, which)(*args, **kwargs)
        it = as_graph(args[0])
        if isinstance(it, (GraphTensor, DynamicList)):
            x = _rows_of(b, it, node, which)
            truth = x if x.dtype.is_bool else ops.not_equal(x, 0)
            out = (ops.all if which == "all" else ops.any)(ops.reshape(truth, (-1,)))
            out.weak = True
            return out
        if isinstance(it, (list, tuple)) and any(isinstance(as_graph(v), GraphTensor)
                                                 for v in it):
            out = None      # Python's short circuit, where the truths are known
            for v in it:
                c = condition_value(b, v, node)
                if not isinstance(c, GraphTensor):
                    if c == (which == "any"):
                        return c
                    continue
                out = c if out is None else (ops.logical_and if which == "all" else
                                             ops.logical_or)(out, c)
            if out is None:
                return which == "all"
            out.weak = True
            return out
        return getattr(builtins, which)(it)
    return fn


def _minmax(which):
    def fn(b, args, kwargs, node):
        vals = as_graph(args[0]) if len(args) == 1 else [as_graph(a) for a in args]
        if isinstance(vals, (GraphTensor, DynamicList)):
            if kwargs:
                raise UnsupportedSyntaxError(
                    f"{which}() of a tensor's rows with {sorted(kwargs)}", loc=b.loc(node),
                    hint=f"use x.{which}(axis=0)")
            x = _rows_of(b, vals, node, which)
            return (ops.amax if which == "max" else ops.amin)(x, 0)
        vals = list(vals)
        if not any(isinstance(v, GraphTensor) for v in vals) or kwargs:
            return getattr(builtins, which)(*args, **kwargs)
        out = vals[0]
        for v in vals[1:]:
            # Python keeps the first of equal items; for numbers the value is the same
            pick_new = (v > out) if which == "max" else (v < out)
            out = ops.where(pick_new, v, out)
        return out
    return fn


def _print(b, args, kwargs, node):
    """print runs when the graph runs (every call, in branch and loop order), as eager."""
    if any(isinstance(a, DynamicList) for a in args):
        raise UnsupportedSyntaxError("print of a list built in a loop", loc=b.loc(node),
                                     hint="print(ops.stack(lst))")
    sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
    if any(isinstance(a, (RuntimeString, Parameter)) or type(a) in (tuple, list, dict) and
           has_runtime(a)
           for a in args):
        # strings and containers made from tensor values: formatted when it runs
        inputs, template = [], []
        for a in args:
            template.append(encode(a if isinstance(a, RuntimeString) else
                                   RuntimeString([("fmt", a, "", "")]), inputs)
                            if has_runtime(a) else str(a))
        GraphTensor._apply("Print", tuple(inputs), {"template": tuple(template), "sep": sep,
                                                   "end": end})
        return None
    ops.functional.runtime_print(args, sep=sep, end=end)
    return None


def _text(conversion):
    def fn(b, args, kwargs, node):
        if len(args) == 1 and not kwargs and has_runtime(args[0]):
            return RuntimeString([("fmt", args[0], conversion, "")])
        return (str if conversion == "s" else repr)(*args, **kwargs)
    return fn


def _map(b, args, kwargs, node):
    """map(f, *seqs) applied while the graph is built, as MindSpore's graph mode does: a
    tuple when every sequence is a tuple, else a list (eager Python gives an iterator)."""
    if len(args) < 2 or kwargs:
        raise TypeError("The Map operator must have at least two arguments: "
                        "map(function, iterable, ...)")
    f, *its = args
    for i in its:
        if not hasattr(i, "__iter__"):
            raise TypeError(f"Map can only be applied to list, tuple, dict, str or Tensor, "
                            f"but got {type(i).__name__} ('{type(i).__name__}' object is "
                            f"not iterable)")
    out = [call(b, f, list(xs), {}, node) for xs in zip(*[list(i) for i in its])]
    return tuple(out) if all(type(i) is tuple for i in its) else out


def _super(b, args, kwargs, node):
    if args:
        return super(*args)
    cls = b.closure.get("__class__")
    names = [a.arg for a in b.node.args.args] if hasattr(b.node, "args") else []
    if cls is None or not names:
        raise UnsupportedSyntaxError("super() without arguments needs the method's class",
                                     loc=b.loc(node), hint="write super(ClassName, self)")
    return super(cls, b.env[names[0]])


def _sum(b, args, kwargs, node):
    it = args[0]
    if isinstance(it, DynamicList):
        return ops.sum(it.stacked(0), 0)
    if isinstance(it, GraphTensor) and _has_unknown_len(it):
        return ops.sum(it, 0)
    return builtins.sum(*args, **kwargs)


def _abs(b, args, kwargs, node):
    return abs(args[0])


def _round(b, args, kwargs, node):
    x = as_graph(args[0])
    if isinstance(x, GraphTensor):
        if x.weak:      # a Python number: Python's round (halves to even; an int without
            nd = args[1] if len(args) > 1 else kwargs.get("ndigits")   # ndigits)
            out = ops.round(x) if nd is None else ops.round(x, decimals=nd)
            if nd is None and x.dtype.is_floating:
                out = ops.cast(out, dt.int64)
            out.weak = True
            return out
        return x.__round__(*args[1:], **kwargs)
    return round(*args, **kwargs)


BUILTINS = {
    builtins.range: _range, builtins.enumerate: _enumerate, builtins.zip: _zip,
    builtins.len: _len, builtins.isinstance: _isinstance, builtins.type: _type,
    builtins.int: _to_scalar("int"),
    builtins.float: _to_scalar("float"), builtins.bool: _to_scalar("bool"),
    builtins.max: _minmax("max"), builtins.min: _minmax("min"), builtins.print: _print,
    builtins.map: _map, builtins.super: _super, builtins.sum: _sum, builtins.abs: _abs,
    builtins.round: _round, builtins.str: _text("s"), builtins.repr: _text("r"),
    builtins.all: _all_any("all"), builtins.any: _all_any("any"),
}

_NUMPY_TO_OPS = {
    "sum": "sum", "mean": "mean", "exp": "exp", "log": "log", "sqrt": "sqrt", "abs": "abs",
    "maximum": "maximum", "minimum": "minimum", "tanh": "tanh", "sin": "sin", "cos": "cos",
    "where": "where", "matmul": "matmul", "dot": "matmul", "reshape": "reshape",
    "transpose": "transpose", "concatenate": "concat", "stack": "stack", "square": "square",
    "negative": "neg", "floor": "floor", "ceil": "ceil", "sign": "sign", "clip": "clamp",
    "expand_dims": "expand_dims", "squeeze": "squeeze", "zeros_like": "zeros_like",
    "ones_like": "ones_like", "argmax": "argmax", "argmin": "argmin", "amax": "amax",
    "amin": "amin", "max": "amax", "min": "amin", "prod": "prod", "tile": "tile",
    "broadcast_to": "broadcast_to", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_not": "logical_not", "equal": "equal", "less": "less", "greater": "greater",
}


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
             "update", "setdefault", "popitem", "add", "discard", "__setitem__",
             "__delitem__", "__iadd__"}


def _call_cell(b, func, args, kwargs):
    construct = type(func).construct
    _check_layer(func, construct, args, kwargs)
    if func.__dict__.get("requires_grad"):       # a gradient of it may follow
        return record_primal(func, args, kwargs,
                             lambda: b.build_call(construct, args, kwargs, self_obj=func))
    out = b.build_call(construct, args, kwargs, self_obj=func)
    if getattr(b.c, "grad_depth", 0) and _bprop.has_bprop(func):
        # in a gradient program: its gradient is its bprop's (common.cell_bprop)
        return _bprop.wrap_outputs(func, _cell_positional(func, args, kwargs), out,
                                   apply, lambda v: isinstance(v, TensorLike))
    return out


def _cell_positional(cell, args, kwargs):
    if not kwargs:
        return list(args)
    bound = inspect.signature(cell.construct).bind(*args, **kwargs)
    bound.apply_defaults()
    return list(bound.args)


def _call_hooked_cell(b, func, hooks, args, kwargs, node):
    """A sub-Cell with forward hooks (common.cell_hooks): each hook is built into the graph as
    any function construct calls, on graph values, around the Cell's construct."""
    def hook_caller(kind):
        def call_hook(fn, *a):
            try:
                return call(b, fn, list(a), {}, node)
            except GraphJitError as e:      # name the hook and its Cell
                raise e.with_context(
                    detail=f"in the {kind} '{getattr(fn, '__name__', fn)}' registered on "
                           f"Cell '{type(func).__name__}': in graph mode a sub-Cell's hooks "
                           f"are built into the graph like the construct that calls it",
                    hint="make the hook code graph mode can build, take it off before "
                         "running in GRAPH_MODE (handle.remove()), or run in PYNATIVE_MODE")
        return call_hook
    args, kwargs = run_pre_hooks(func, hooks, args, kwargs, hook_caller("forward pre-hook"))
    out = _call_cell(b, func, list(args), kwargs)
    return run_forward_hooks(func, hooks, args, kwargs, out, hook_caller("forward hook"))


def call(b, func, args, kwargs, node):
    """Call `func` from the function being built by `b`."""
    handler = BUILTINS.get(func) if _hashable(func) else None
    if handler is not None:
        return handler(b, args, kwargs, node)
    if isinstance(func, GradFunction):
        return call_grad_inline(b, func, args, kwargs, node)
    if isinstance(func, (HyperMap, Map)) and not kwargs:   # each leaf call is built
        return func.apply(lambda f, *xs: call(b, f, list(xs), {}, node), args)
    if isinstance(func, MultitypeFuncGraph):
        return call(b, func.resolve(args), args, kwargs, node)
    if type(func) is functools.partial:      # F.partial(f, a)(b): f(a, b), built as f is
        return call(b, func.func, list(func.args) + list(args), {**func.keywords, **kwargs},
                    node)
    if isinstance(func, Switch):
        return _call_switch(b, func, args, kwargs, node)
    jit_target = getattr(type(func), "_graphjit_target", None)
    if jit_target is not None:     # an @jit function (maybe bound): (function, self or None)
        fn, obj = jit_target(func)
        return b.build_call(fn, args, kwargs, self_obj=obj)
    if isinstance(func, LocalFunction):
        return func(*args, **kwargs)
    if isinstance(func, Cell):
        hooks = func.__dict__.get("_graphjit_hooks")
        # the graph depends on the Cells' hooks: built again when one is added or removed
        b.c.guard_attr(HOOKS, "version", HOOKS.version)
        if hooks:
            refuse_backward_hooks(func)
            return _call_hooked_cell(b, func, hooks, args, kwargs, node)
        return _call_cell(b, func, args, kwargs)
    owner = getattr(func, "__self__", None)
    if type(owner) is str and getattr(func, "__name__", "") == "format" and (
            has_runtime(args) or has_runtime(kwargs)):
        return str_format(owner, args, kwargs)
    if type(owner) is str and getattr(func, "__name__", "") == "join" and len(args) == 1 \
            and not kwargs and type(args[0]) in (list, tuple) and any(
                isinstance(v, RuntimeString) for v in args[0]):
        out = ""
        for i, v in enumerate(args[0]):
            if not isinstance(v, (str, RuntimeString)):
                raise TypeError(f"sequence item {i}: expected str instance, "
                                f"{type(v).__name__} found")
            out = out + (owner if i else "") + v
        return out
    if type(owner) in (list, tuple) and getattr(func, "__name__", "") == "count" and \
            len(args) == 1 and not kwargs and involves_tensors(owner, args[0]):
        return count(owner, args[0], lambda v: condition_value(b, v, node))
    if isinstance(owner, Collector) and owner.length_name is not None and \
            getattr(func, "__name__", "") == "append":
        return _count_append(b, owner, func, args, kwargs)
    if type(owner) in (list, dict, set) and getattr(func, "__name__", "") in _MUTATORS:
        b.refuse_external_mutation(owner, node, node.func.value if isinstance(
            getattr(node, "func", None), ast.Attribute) else None)
    if type(owner) is list and getattr(func, "__name__", "") == "pop":
        try:
            return func(*args, **kwargs)
        except IndexError as e:     # MindSpore's words, then Python's
            raise IndexError(f"The pop index out of range. ({e})") from None
    if isinstance(func, types.MethodType):
        f, obj = func.__func__, func.__self__
        if _is_internal(f) or not isinstance(f, types.FunctionType):
            return func(*args, **kwargs)
        if _is_graph_arg(args) or _is_graph_arg(kwargs) or isinstance(obj, Cell) or \
                getattr(type(obj), "_graphjit_jit_class", False):
            return b.build_call(f, args, kwargs, self_obj=obj)
        return func(*args, **kwargs)
    if isinstance(func, types.FunctionType):
        if _is_internal(func):
            return func(*args, **kwargs)
        mod = getattr(func, "__module__", "") or ""
        if mod.split(".")[0] in ("numpy",):
            return _numpy_call(b, func, args, kwargs, node)
        if _is_graph_arg(args) or _is_graph_arg(kwargs):
            return b.build_call(func, args, kwargs)
        return func(*args, **kwargs)
    if isinstance(func, type):
        if getattr(func, "_graphjit_jit_class", False) or (
                _is_graph_arg(args) or _is_graph_arg(kwargs)) and not _is_internal(func) \
                and func.__init__ is not object.__init__ and isinstance(
                    func.__init__, types.FunctionType) and not issubclass(func, Cell):
            obj = func.__new__(func)
            b.c.created[id(obj)] = obj
            init = func.__init__
            if isinstance(init, types.FunctionType) and not _is_internal(init):
                b.build_call(init, args, kwargs, self_obj=obj)
            return obj
        obj = func(*args, **kwargs)
        if not isinstance(obj, type):   # type(x) finds a class, it does not make one
            b.c.created[id(obj)] = obj
        return obj
    if _is_numpy_callable(func) and (_is_graph_arg(args) or _is_graph_arg(kwargs)):
        return _numpy_call(b, func, args, kwargs, node)
    if callable(func) and not _is_internal(type(func)) and (
            _is_graph_arg(args) or _is_graph_arg(kwargs)):
        call_method = getattr(type(func), "__call__", None)
        target = getattr(type(call_method), "_graphjit_target", None)
        if target is not None:          # an @jit __call__: built inline as @jit functions are
            call_method = target(call_method)[0]
        if isinstance(call_method, types.FunctionType) and not _is_internal(call_method):
            return b.build_call(call_method, args, kwargs, self_obj=func)
    return func(*args, **kwargs)


def _check_layer(cell, construct, args, kwargs) -> None:
    """A built-in layer's input check (graphjit/_input_checks.py), in its own words. The nodes
    a run-time check makes belong to the layer: at its construct, called from the
    user's line (so drawings box them with the layer, errors show both lines)."""
    if _layer_check(type(cell)) is None:
        return
    loc = current_loc()
    try:
        src = get_source(construct)
        here = src.loc(src.node)
    except Exception:  # no source to point at: the user's line alone
        here = None
    old = set_loc(here.with_caller(loc) if here is not None and loc is not None else loc)
    try:
        check_layer_input(cell, args, kwargs)
    finally:
        set_loc(old)


def _count_append(b, c: Collector, func, args, kwargs):
    """An append to a list whose length the Loop carries: one more, in this path of the
    body (an If joins the counts of its branches). Inside an inner Loop an append runs
    an unknown number of times: len() is then refused, as before."""
    out = func(*args, **kwargs)
    ctx = active()
    while ctx is not None and ctx is not c.ctx:
        if getattr(ctx, "kind", None) == "loop":
            c.counted = False
            return out
        ctx = ctx.parent
    if c.counted and c.length_name in b.env:
        b.env[c.length_name] = b.env[c.length_name] + 1
    return out


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _is_numpy_callable(f) -> bool:
    return isinstance(f, np.ufunc) or (getattr(f, "__module__", "") or "").startswith("numpy")


def _numpy_call(b, func, args, kwargs, node):
    if not (_is_graph_arg(args) or _is_graph_arg(kwargs)):
        return func(*args, **kwargs)
    name = getattr(func, "__name__", "")
    target = _NUMPY_TO_OPS.get(name)
    if target is None:
        raise UnsupportedSyntaxError(
            f"numpy.{name} was called on a graph value; numpy cannot see values that exist "
            f"only when the graph runs", loc=b.loc(node),
            hint="use the graphjit.ops function that does the same")
    fn = getattr(ops, target)
    if name in ("sum", "mean", "amax", "amin", "max", "min", "prod"):
        x = args[0]
        axis = kwargs.pop("axis", args[1] if len(args) > 1 else None)
        keep = bool(kwargs.pop("keepdims", False))
        if kwargs or len(args) > 2:
            raise UnsupportedSyntaxError(
                f"numpy.{name} with arguments {sorted(kwargs)} on a graph value",
                loc=b.loc(node), hint=f"use x.{name}(axis, keepdims)")
        op = {"sum": "ReduceSum", "mean": "ReduceMean", "amax": "ReduceMax",
              "max": "ReduceMax", "amin": "ReduceMin", "min": "ReduceMin",
              "prod": "ReduceProd"}[name]
        if isinstance(axis, list):
            axis = tuple(axis)
        return apply(op, to_tensor(x), axis=axis, keep_dims=keep)
    return fn(*args, **kwargs)
