"""What the builder tracks per name: graph values (GraphTensor), Undefined, lists
built by loops (DynamicList); and the graph context values are recorded in."""
from __future__ import annotations

import threading
from typing import Dict, List, Optional

import numpy as np

from ..ir.memory import aligned_copy
from .. import ops
from ..ir.errors import (GraphJitError, UndefinedVariableError, UnsupportedSyntaxError)
from ..ir.graph import Graph, Value
from ..ir.types import TensorType
from ..common.parameter import Parameter
from ..ir.dtypes import int64
from ..common.tensor import Recorder, SymbolicTensor, Tensor, TensorLike, current_recorder
from .params import StateContext

__all__ = ["GraphTensor", "Undefined", "Lent", "Unassigned", "Unjoinable", "LocalFunction",
           "Switch", "MaybeUndefined", "GraphContext", "active", "current_loc", "set_loc",
           "is_graph", "as_graph", "DynamicList"]

_state = threading.local()


def active() -> "GraphContext":
    ctx = current_recorder()
    if ctx is None:
        raise UnsupportedSyntaxError(
            "a graph value was used outside the function being compiled",
            hint="do not keep graph values (for example in self attributes or globals) after "
                 "construct returns")
    return ctx


def current_loc():
    return getattr(_state, "loc", None)


def set_loc(loc):
    old = getattr(_state, "loc", None)
    _state.loc = loc
    return old


class GraphContext(StateContext, Recorder):
    """A graph being built, and how outer values reach it (closed subgraphs: every
    outer value read becomes an explicit parameter, recorded in `captures`). Entered,
    it is the thread's current recorder (tensor.current_recorder). Parameters are
    state it reads and updates when it runs (params.StateContext; `kind` is "root",
    "branch" or "loop")."""

    def __init__(self, graph: Graph, parent: Optional["GraphContext"] = None,
                 kind: Optional[str] = None):
        self.graph = graph
        self.parent = parent
        self.captures: Dict[int, Value] = {}   # id(outer value) -> param
        self.captured: List[Value] = []        # outer values, in param order
        self._consts: Dict[tuple, Value] = {}
        self._init_state(kind or ("root" if parent is None else "branch"))
        # tensors (Parameters, say) that are inputs of this graph rather than constants:
        # id(tensor) -> the value standing for it
        self.bound: Dict[int, Value] = {}
        # bound weights the program also updates (read from their state; see value_of)
        self.reread: set = set()

    def owns(self, v: Value) -> bool:
        ctx = self
        while ctx is not None:
            if v.graph is ctx.graph:
                return True
            ctx = ctx.parent
        return False

    def lift(self, v: Value) -> Value:
        """v as a value of this graph (capturing it from an enclosing graph)."""
        if v.graph is self.graph:
            return v
        if v.producer is not None and v.producer.op == "Const":
            return self.const(v.producer.attrs["value"])
        if self.parent is None or not self.parent.owns(v):
            raise UnsupportedSyntaxError(
                "a value computed inside a branch or loop body that depends on a tensor was "
                "kept somewhere graphjit does not track (an object or container that is not "
                "a local variable)", loc=current_loc(),
                hint="keep the value in a local variable (assigned on every path) and "
                     "return it")
        outer = self.parent.lift(v)
        p = self.captures.get(id(outer))
        if p is None:
            p = self.graph.add_param(outer.type, outer.name)
            self.captures[id(outer)] = p
            self.captured.append(outer)
        return p

    def truncate(self, n: int) -> None:
        """Drop the nodes after the first n, and forget constants they made."""
        self.graph.truncate(n)
        kept = {id(node) for node in self.graph.nodes}
        self._consts = {k: v for k, v in self._consts.items() if id(v.producer) in kept}

    def const(self, arr) -> Value:
        # a private, read-only copy: nothing outside (the user's array, an output handed
        # back to the user) can change a constant of the graph; on a cache-line
        # boundary (ir.memory: a weight BLAS reads at every step)
        arr = aligned_copy(arr)
        arr.flags.writeable = False
        key = None
        if arr.size <= 16:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            hit = self._consts.get(key)
            if hit is not None:
                return hit
        v = self.graph.add_node("Const", (), {"value": arr}, loc=current_loc()).outputs[0]
        if key is not None:
            self._consts[key] = v
        return v

    def value_of(self, x) -> Value:
        if isinstance(x, GraphTensor):
            return self.lift(x.value)
        if isinstance(x, Tensor):
            ctx = self
            while ctx is not None:     # a weight a gradient program takes as its input
                v = ctx.bound.get(id(x))
                if v is not None:
                    if id(x) in ctx.reread:
                        # the program updates it too: the value is its current state,
                        # the gradient goes to the input
                        return self.graph.add_node(
                            "WeightRead", (self.lift(v), self.read_param(x)), {},
                            loc=current_loc()).outputs[0]
                    return self.lift(v)
                ctx = ctx.parent
            if isinstance(x, Parameter):
                return self.read_param(x)
            return self.const(x._need_data())
        return self.const(np.asarray(x))

    def emit(self, op: str, inputs, attrs, names=()):
        vals = [self.value_of(x) for x in inputs]
        node = self.graph.add_node(op, vals, attrs, loc=current_loc(), names=names)
        return node

    def apply(self, op: str, inputs, attrs):
        return GraphTensor._apply(op, inputs, attrs)


def is_graph(x) -> bool:
    return isinstance(x, (GraphTensor, DynamicList))


def as_graph(x):
    """x, or for a Parameter its value as a graph value (read where the program uses it
    as a Python value would be: a condition, int(), iteration, unpacking)."""
    if isinstance(x, Parameter):
        ctx = current_recorder()
        if isinstance(ctx, GraphContext):
            return GraphTensor(ctx.read_param(x))
    return x


_WEAK_PRESERVING = frozenset({"Neg", "Abs", "Floor", "Ceil", "Sign", "Square", "Identity",
                               "LogicalNot"})


class GraphTensor(SymbolicTensor):
    """A value of the graph being built. `weak` marks values that stand for Python
    scalars (they promote like Python numbers, as JAX's weak types)."""

    __slots__ = ("value", "weak", "dim_of")

    def __init__(self, value: Value, weak: bool = False):
        self.value = value
        self.weak = weak
        self.dim_of = None      # (Value, axis) for a dim of unknown size from x.shape

    def _reshape_to(self, shape):
        """self.reshape(shape) where some entries are graph scalars (x.reshape(b, -1)
        with b = x.shape[0] of unknown size): a ReshapeTo over the shape as a tensor,
        with every dim that can be known while building (an entry that is one of this
        tensor's unknown dims stands for that dim, so a -1 beside it is known; checked
        when the graph runs)."""
        src = self.value.type.shape
        hint, unknown_dims, known = [], [], 1
        for d in shape:
            if isinstance(d, TensorLike):
                if d.type.shape not in ((), (1,)) or not d.dtype.is_integer:
                    raise TypeError(f"reshape's shape entries must be ints or integer "
                                    f"scalars, got a tensor of type {d.type}")
                dim = getattr(d, "dim_of", None)
                unknown_dims.append(None if dim is None else dim[1] if dim[0] is self.value
                                    else "other")
                hint.append(None)
            else:
                if d < -1:
                    raise ValueError(f"reshape: shape {tuple(shape)} has a negative dim {d}")
                hint.append(None if d == -1 else int(d))
                if d != -1:
                    known *= int(d)
        if sum(1 for d in shape if not isinstance(d, TensorLike) and d == -1) > 1:
            raise ValueError(f"reshape: shape {tuple(shape)} may hold only one -1")
        mine = [i for i, d in enumerate(src or ()) if d is None]
        # the -1 is known when the graph scalars are this tensor's unknown dims, or as many
        # dims of unknown size of other tensors (f.reshape(img.shape[0], -1) after a conv
        # of img: the batch dim): the kernel checks that at run time, so a guess that does
        # not hold is an error, never another shape
        if src is not None and -1 in [d for d in shape if not isinstance(d, TensorLike)] \
                and None not in unknown_dims and (
                    sorted(unknown_dims, key=str) == sorted(mine, key=str) or
                    len(unknown_dims) == len(mine) and "other" in unknown_dims):
            rest = 1
            for d in src:
                rest *= 1 if d is None else d
            if known == 0 or rest % known:
                raise ValueError(f"cannot reshape a tensor of type {self.value.type} to "
                                 f"{tuple(shape)}")
            hint[[i for i, d in enumerate(shape) if not isinstance(d, TensorLike) and
                  d == -1][0]] = rest // known
        parts = [ops.reshape(ops.cast(d, int64), (1,)) if isinstance(d, TensorLike) else
                 Tensor(np.array([int(d)], np.int64)) for d in shape]
        return GraphTensor._apply("ReshapeTo", (self, ops.concat(parts, 0)),
                                  {"shape_hint": tuple(hint)})

    @classmethod
    def _apply(cls, op, inputs, attrs):
        node = active().emit(op, inputs, attrs)
        # -k, abs(k) of a value standing for a Python number are Python numbers too
        weak = len(inputs) == 1 and getattr(inputs[0], "weak", False) and \
            op in _WEAK_PRESERVING
        outs = tuple(GraphTensor(v, weak) for v in node.outputs)
        return outs[0] if len(outs) == 1 else outs

    @property
    def type(self) -> TensorType:
        return self.value.type

    @property
    def dtype(self):
        return self.value.type.dtype

    @property
    def shape(self):
        """Known dims as ints; unknown dims as int64 graph scalars."""
        s = self.value.type.shape
        if s is None:
            raise UnsupportedSyntaxError(
                "the rank of this tensor is unknown, so its shape is not a tuple",
                hint="use ops.tensor_shape(x) for the shape as a tensor, or give the input a "
                     "known rank")
        if all(d is not None for d in s):
            return s
        shp = None
        out = []
        for i, d in enumerate(s):
            if d is None:
                if shp is None:
                    shp = GraphTensor._apply("Shape", (self,), {})
                g = GraphTensor._apply("Index", (shp,), {"index": (i,)})
                g.weak = True
                g.dim_of = (self.value, i)      # which dim it is (see reshape_to)
                out.append(g)
            else:
                out.append(d)
        return tuple(out)

    @property
    def ndim(self) -> int:
        r = self.value.type.rank
        if r is None:
            raise UnsupportedSyntaxError("the rank of this tensor is unknown (unknown_rank)",
                                         hint="give the input a known rank")
        return r

    @property
    def size(self):
        s = self.value.type.shape
        if s is not None and all(d is not None for d in s):
            n = 1
            for d in s:
                n *= d
            return n
        shp = GraphTensor._apply("Shape", (self,), {})
        return GraphTensor._apply("ReduceProd", (shp,), {"axis": None, "keep_dims": False})

    def __len__(self):
        s = self.value.type.shape
        if s is None or not s or s[0] is None:
            raise UnsupportedSyntaxError(
                f"len() of a tensor whose first dim is not known while the graph is built "
                f"({self.type})", hint="use x.shape[0] (a tensor) instead")
        return s[0]

    def __iter__(self):
        n = len(self)
        for i in range(n):
            yield self[i]

    def __bool__(self):
        raise UnsupportedSyntaxError(
            "bool() of a tensor value whose truth is known only at run time",
            hint="use it directly as an `if`/`while` condition, or use ops.where")

    def _no_python(self, what):
        raise UnsupportedSyntaxError(
            f"{what}() of a tensor value: the value is known only when the graph runs",
            hint="keep it a tensor (ops.cast), or compute it from Python values")

    def __index__(self):
        self._no_python("int")

    def __int__(self):
        self._no_python("int")

    def __float__(self):
        self._no_python("float")

    def __array__(self, *a, **k):
        raise UnsupportedSyntaxError(
            "a numpy function was called on a graph value",
            hint="use the graphjit.ops function of the same name")

    def __setitem__(self, key, value):
        raise UnsupportedSyntaxError("item assignment on a tensor that is not a plain variable",
                                     hint="assign to a variable: x[i] = v")

    def __getattr__(self, name):
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")

    def assign_value(self, value):
        raise UnsupportedSyntaxError(
            "Tensor.assign_value() on a tensor value inside a compiled function: it replaces "
            "an eager tensor's data in place, and a compiled function's tensors are values",
            hint="rebind the variable (x = value), or update a Parameter with "
                 "ops.assign(param, value)")

    def asnumpy(self):
        raise UnsupportedSyntaxError("asnumpy() of a graph value inside a compiled function",
                                     hint="return the tensor and call asnumpy() outside")

    def item(self):
        self._no_python("item")

    def __repr__(self):
        return f"<graph value {self.type}{' weak' if self.weak else ''}>"


class Undefined:
    """A name defined on some paths only (read it and UndefinedVariableError is raised)."""

    __slots__ = ("name", "where")

    def __init__(self, name: str, where: str = ""):
        self.name = name
        self.where = where

    def error(self, loc) -> UndefinedVariableError:
        return UndefinedVariableError(
            f"'{self.name}' is not defined on every path that reaches this line"
            + (f" ({self.where})" if self.where else ""),
            loc=loc, names=(self.name,),
            hint=f"assign '{self.name}' before the `if`/loop, or in every branch")

    def __repr__(self):
        return f"<undefined {self.name}>"


class Unassigned(Undefined):
    """A name the body of a Loop assigns, read where no path from the start of the
    iteration has assigned it yet (Python makes it local to the whole function, so it
    is never a global there)."""

    __slots__ = ()

    def error(self, loc) -> UndefinedVariableError:
        return UndefinedVariableError(
            f"name '{self.name}' is not defined", loc=loc, names=(self.name,),
            detail=f"no path from the start of the loop's iteration assigns '{self.name}' "
                   f"before this line (the body assigns it elsewhere); the value an earlier "
                   f"iteration gave it is not carried in graph mode",
            hint=f"assign '{self.name}' before the loop")


class Lent(Undefined):
    """A variable lent to a nested function that declared it nonlocal and is running:
    its current value is in the borrower's environment."""

    __slots__ = ("borrower",)

    def __init__(self, name, borrower):
        super().__init__(name)
        self.borrower = borrower

    def current(self):
        v = self
        while isinstance(v, Lent):
            v = v.borrower.env[v.name]
        return v


class Unjoinable(Undefined):
    """A name whose values on two paths cannot become one (a failed join). Eager
    Python would be fine if the name is never read again, so the error is raised
    only when it is read (AutoGraph's rule for undefined values)."""

    __slots__ = ("exc",)

    def __init__(self, name: str, exc: GraphJitError):
        super().__init__(name)
        self.exc = exc

    def error(self, loc):
        if loc is not None and self.exc.loc is not None and loc.line != self.exc.loc.line:
            self.exc.extra_locs += ((f"'{self.name}' is read here", loc),)
        return self.exc


class MaybeUndefined:
    """A name bound only inside a Loop body that may run zero times. Reading it gives its
    value and checks, when the graph runs, that the loop ran: otherwise it raises
    UnboundLocalError, as eager Python does."""

    __slots__ = ("name", "value", "ran")

    def __init__(self, name: str, value, ran: "GraphTensor"):
        self.name, self.value, self.ran = name, value, ran

    def read(self):
        GraphTensor._apply("CheckBound", (self.ran,), {"name": self.name})
        return self.value

    def __repr__(self):
        return f"<{self.name}, defined if the loop ran>"


class LocalFunction:
    """A lambda or def written inside a function being built; calling it builds its
    body with the enclosing builder's variables visible (late binding, as Python)."""

    def __init__(self, builder, node, name: str):
        self.builder = builder
        self.node = node
        self.__name__ = name
        self.defaults = []
        self.kw_defaults = {}

    def __call__(self, *args, **kwargs):
        return self.builder.call_local(self, list(args), kwargs)

    def __repr__(self):
        return f"<local function {self.__name__}>"


class Switch:
    """A function value chosen when the graph runs: `cells[i]` with a tensor index i,
    or a name given other functions on the two paths of a tensor condition. Calling
    it builds the call of each item in a branch (a chain of If nodes, MindSpore's
    switch)."""

    def __init__(self, items, index, labels=None):
        self.items, self.index = items, index
        self.labels = labels     # how messages name each item's call (default: item i)

    def __repr__(self):
        return f"<one of {len(self.items)} functions, chosen when the graph runs>"


class Collector(list):
    """Stands for a list appended to inside a Loop body: records one iteration's
    appends, each with a flag saying whether it happened (True, or a bool graph value
    when it happened under a tensor condition), and refuses reads (the list's content
    is known only at run time)."""

    def __init__(self, name, length_name=None, ctx=None):
        super().__init__()
        self.name = name
        self.flags = []
        # where the loop carries the list's length (when the body reads len() of it):
        # the name of that hidden variable, and the body's graph the appends count in
        self.length_name, self.ctx = length_name, ctx
        self.counted = True     # False after an append inside an inner Loop

    def append(self, x):
        list.append(self, x)
        self.flags.append(True)

    def _refuse(self, *a, what="", hint=""):
        raise UnsupportedSyntaxError(
            f"the list '{self.name}' is appended to in a loop that depends on a tensor value, "
            f"so it can only be appended to inside the loop{what}",
            hint=hint or "read it after the loop (for example ops.stack(" + self.name + "))")

    def __len__(self):
        n = f"n_{self.name}"
        self._refuse(what=" (its length is known only when the graph runs)",
                     hint=f"count the appends in a variable of your own and read that: "
                          f"`{n} = len({self.name})` before the loop, `{n} += 1` beside "
                          f"`{self.name}.append(...)`, then `if {n} >= ...:` (it is carried "
                          f"by the loop); after the loop len({self.name}) works")

    def __getitem__(self, i):
        self._refuse(what=" (its items are known only when the graph runs)",
                     hint=f"keep the item you need in a variable of your own (`last = v` "
                          f"beside `{self.name}.append(v)`), or read the list after the loop "
                          f"(for example ops.stack({self.name})[i])")

    __iter__ = __contains__ = pop = extend = insert = _refuse

    def __bool__(self):
        self._refuse()


class DynamicList:
    """A list whose length is known only at run time: items appended once per
    iteration of a Loop become `stacks` (each stacked along a new axis 0);
    `prefix` and `suffix` are ordinary items before and after."""

    def __init__(self, prefix, stacks, suffix=(), masks=None, suffix_flags=None):
        self.prefix = list(prefix)
        self.stacks = list(stacks)
        self.suffix = list(suffix)
        # per stack: None (appended in every iteration) or a bool stack (appended where true)
        self.masks = list(masks) if masks is not None else [None] * len(self.stacks)
        # per suffix item: True, or a bool graph value (appended under a tensor condition)
        self.suffix_flags = list(suffix_flags) if suffix_flags is not None else \
            [True] * len(self.suffix)

    def append(self, x):
        self.suffix.append(x)
        self.suffix_flags.append(True)

    def stacked(self, axis=0):
        """All items stacked along `axis` as one graph value."""
        parts = []
        if self.prefix:
            parts.append(ops.stack(self.prefix, 0))
        k = len(self.stacks)
        if k:
            body = self.stacks[0] if k == 1 else ops.reshape(
                ops.stack(self.stacks, 1), (-1,) + tuple(_static_tail(self.stacks[0])))
            known = [m for m in self.masks if m is not None]
            if known:    # appends under a tensor condition: keep the rows that happened
                masks = [m if m is not None else ops.logical_or(known[0], True)
                         for m in self.masks]
                mask = masks[0] if k == 1 else ops.reshape(ops.stack(masks, 1), (-1,))
                body = GraphTensor._apply("BooleanMask", (body, mask), {})
            parts.append(body)
        if self.suffix:
            tail = ops.stack(self.suffix, 0)
            if any(f is not True for f in self.suffix_flags):
                flags = ops.stack([ops.logical_or(f, False) if f is not True else
                                   Tensor._wrap(np.asarray(True)) for f in self.suffix_flags])
                tail = GraphTensor._apply("BooleanMask", (tail, flags), {})
            parts.append(tail)
        if not parts:
            raise UnsupportedSyntaxError("stacking a list that may be empty",
                                         hint="give the list a first item before the loop")
        out = parts[0] if len(parts) == 1 else ops.concat(parts, 0)
        if axis % max(out.ndim, 1) != 0:
            perm = list(range(1, out.ndim))
            perm.insert(axis % out.ndim, 0)
            out = ops.transpose(out, tuple(perm))
        return out

    def concatenated(self, axis=0):
        s = self.stacked(0)
        shape = s.type.shape
        if shape is None:
            raise UnsupportedSyntaxError("concat of a list of tensors of unknown rank")
        r = len(shape) - 1
        a = axis % r
        perm = list(range(1, a + 1)) + [0] + list(range(a + 1, r + 1))
        t = ops.transpose(s, tuple(perm)) if a else s
        tail = [d for d in shape[1:]]
        new = tuple(-1 if i == a else (d if d is not None else -1) for i, d in enumerate(tail))
        if list(new).count(-1) > 1:
            raise UnsupportedSyntaxError(
                "concat of a list built in a loop needs the other dims known",
                hint="use ops.stack, or give the inputs known shapes")
        return ops.reshape(t, new)

    def length(self):
        """The number of items: a Python int where known, else an int graph value."""
        if not (self.prefix or self.stacks or self.suffix):
            return 0
        n = self.stacked(0).shape[0]
        if isinstance(n, GraphTensor):
            n.weak = True
        return n

    def __len__(self):
        raise UnsupportedSyntaxError(
            "len() of a list whose length is known only at run time (it was appended to in a "
            "loop that depends on a tensor)", hint="use ops.stack(lst).shape[0]")

    def __getitem__(self, i):
        rows = self.stacked(0)
        if isinstance(i, slice):      # a list again: the rows the slice keeps
            return DynamicList([], [rows[i]])
        n = rows.shape[0]
        ops.functional.runtime_check(ops.logical_and(i >= -n, i < n), IndexError,
                                     "list index out of range")
        return ops.gather(rows, i, 0)

    def __iter__(self):
        raise UnsupportedSyntaxError(
            "iterating a list whose length is known only at run time",
            hint="iterate ops.stack(lst) instead (a for loop over a tensor becomes a Loop)")

    def contents(self):
        return (list(self.prefix), list(self.stacks), list(self.masks), list(self.suffix),
                list(self.suffix_flags))

    def set_contents(self, contents):
        (self.prefix, self.stacks, self.masks, self.suffix, self.suffix_flags) = \
            [list(c) for c in contents]

    def __repr__(self):
        return f"<list of run-time length: {len(self.prefix)} + loop x {len(self.stacks)} + " \
               f"{len(self.suffix)}>"


def _static_tail(t):
    s = t.type.shape
    return tuple(-1 if d is None else d for d in s[1:]) if s is not None else ()
