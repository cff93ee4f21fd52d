"""Runs graphs: each lowered graph becomes one Python module generated once.

The graph is lowered first (graphjit.backend.lowering): its nodes grouped into
fused elementwise kernels, extern kernels (one node, its own kernel) and If/Loop
with lowered bodies. Every kernel is then written as Python: a value is a local
variable (a Const a global holding its array); an extern node is a call of the
kernel chosen for its exact types (OpDef.make_kernel) or, where a numpy expression
computes it identically, that expression (same-dtype arithmetic as operators,
Squeeze/ExpandDims as views, MatMul as `@`, max/min/sum as ufunc reductions); a
fused kernel is written by graphjit.backend.fusion (small: inline, into buffers it
owns; large: a helper function over cache-sized blocks). If and Loop are not calls:
their bodies are inline, If as an `if`/`else` statement and Loop as a `while`
statement specialised to its port map (graphjit.backend.loop). Each value is
deleted after its last use. For `Loop(%n, true, x * 2)` with a body `tanh(h + 1)`:

    def run(v0, v1):
        v3 = v1 * c2                # fused Mul(%x, 2.0)
        del v1
        n5 = _trip_count6(v0)       # the Loop's driver
        p8 = v3                     #   the back-edged parameter's first value
        i9 = 0
        while i9 < n5:
            v12 = p8 + c11          #   the body, inline
            u13(v12, v12)           #   Tanh, into the buffer of h + 1 (it dies here)
            p8 = v12                #   the back edge
            i9 += 1
        v16 = p8                    #   the last value
        return (v16,)

Nothing is looked up or rebuilt per call or per iteration. A failure is reported
at the node of the line that raised (a map from generated lines to nodes).
"""
from __future__ import annotations

import itertools
import linecache
import math
import traceback
from typing import Callable, Dict, List, Optional, Set, Tuple

import numpy as np

from ..ir.errors import GraphJitError, GraphRuntimeError
from ..ir.graph import Graph
from .fusion import emit_fused
from .kernels import (EXPRESSIONS, FP_IGNORED, FP_STATE, call_text, ignore_fp_errors,
                      is_one_element_bool, node_kernel, restore_fp_errors, truth)
from .loop import emit_loop
from .numba_groups import emit_group, plan_groups
from .numba_tier import active as numba_active
from ..ir.memory import aligned_copy
from .stack_plan import plan_stacks
from .stacks import list_stacks
from .lowering import CONTROL, FUSED, Kernel, Program, lower, lower_bodies

__all__ = ["compile_graph", "CompiledGraph", "make_node_kernel", "Emitter"]

_counter = itertools.count()


class CompiledGraph:
    """A graph turned into a callable: `cg(*arrays) -> tuple of arrays`.

    Attributes:
        graph: the IR graph.
        program: the lowered program it runs (print it to see the kernels).
        fn: the generated function (no error wrapping, no errstate).
        source: the generated Python source, for reading and debugging.
    """

    def __init__(self, graph: Graph):
        self.graph = graph
        self.program = lower(graph)
        self.fn, self.source, self._nodes = generate(self.program)

    def __call__(self, *args):
        if FP_STATE is None:
            token = ignore_fp_errors()
        else:                       # ignore_fp_errors, without a call (a small graph's
            token = FP_STATE.set(FP_IGNORED)      # run is a few microseconds)
        try:
            return self.fn(*args)
        except (GraphJitError, AssertionError):
            raise
        except Exception as e:
            failure = self.failure(e)
            if failure is e:
                raise
            raise failure from e
        finally:
            restore_fp_errors(token) if FP_STATE is None else FP_STATE.reset(token)

    def failure(self, e: Exception) -> Exception:
        """What a run that raised e raises: the user's own `raise` as it is, anything
        else as a GraphRuntimeError at the node that failed."""
        if getattr(e, "_graphjit_raised", False):
            return e
        return self._wrap(e)

    def _wrap(self, e: Exception) -> GraphRuntimeError:
        node = None
        fname = self.fn.__code__.co_filename
        for frame, lineno in traceback.walk_tb(e.__traceback__):
            if frame.f_code.co_filename == fname:
                node = self._nodes.get(lineno, node)
        cls = runtime_error_class(type(e))
        if node is None:
            return cls(f"graph '{self.graph.name}' failed: {type(e).__name__}: {e}")
        return cls(
            f"{node.op} failed while the graph ran: {type(e).__name__}: {e}", loc=node.loc,
            detail="inputs: " + ", ".join(str(v.type) for v in node.inputs),
            names=getattr(e, "_graphjit_names", ()), hint=getattr(e, "_graphjit_hint", ""))


_RUNTIME_CLASSES = {}


def runtime_error_class(original: type) -> type:
    """GraphRuntimeError that is also the class eager mode raises for the same data
    (`except IndexError` catches an index out of range in both modes)."""
    cls = _RUNTIME_CLASSES.get(original)
    if cls is None:
        cls = GraphRuntimeError
        if original.__module__ == "builtins" and issubclass(original, Exception) and \
                not issubclass(original, (OSError, UnicodeError, RuntimeError)):
            try:
                cls = type("GraphRuntimeError", (GraphRuntimeError, original),
                           {"__str__": GraphRuntimeError.__str__,
                            "__module__": GraphRuntimeError.__module__})
                cls("probe")
            except TypeError:
                cls = GraphRuntimeError
        _RUNTIME_CLASSES[original] = cls
    return cls


# -- the emitter ------------------------------------------------------------------------------
# constants broadcast ahead of time to their use's shape up to this size (see
# Emitter.const_broadcast): a bias added at every step of an RNN, say
BROADCAST_CONST_BYTES = 64 * 1024


class Emitter:
    """Writes the Python source of one generated module: helper functions (large
    fused kernels) and the `run` function.

    Every value gets a local variable (a Const, a global holding its value); kernels
    and constants live in `env`, the module's globals. Lines are kept with the node
    each runs, for the map from line numbers to nodes that errors use.
    """

    def __init__(self):
        self.env: Dict[str, object] = {"np": np, "_truth": truth, "_copyto": np.copyto,
                                       "_numpy_value": (np.ndarray, np.generic),
                                       "_ndarray": np.ndarray}
        self.lines: List[Tuple[str, object]] = []
        self.helpers: List[Tuple[str, object]] = []
        self.names: Dict[int, str] = {}
        self.consts: Dict[int, object] = {}        # id(value) -> its array
        self.aliases: Dict[int, object] = {}       # id(value) -> the value it names
        self._arrays: Dict[str, str] = {}          # a constant's global -> its array's
        self._const_names: Dict[tuple, str] = {}   # equal constants share one global
        self._ids = itertools.count()
        # a Loop's sliced parameter read only through Squeeze: (array, index, axis)
        self.sliced: Dict[int, Tuple[str, str, int]] = {}
        # ids of the stacks kept as lists of their rows (backend.stacks)
        self.lists: Set[int] = set()
        # ids of nodes not run: an ExpandDims whose rows such a list takes
        # directly, or that a Loop's plan (backend.loop_plan) makes unnecessary
        self.skip: Set[int] = set()
        # values a Loop's plan stores into a given buffer (backend.loop_plan)
        self.into: Dict[int, str] = {}
        self.pinned: set = set()          # names of those buffers, never deleted
        self.before: Dict[int, str] = {}  # a line run before the kernel making a value
        self.instead: Dict[int, str] = {}  # a node's line in place of its kernel

    # names
    def fresh(self, prefix: str = "v") -> str:
        return f"{prefix}{next(self._ids)}"

    def bind(self, value, name: str) -> None:
        self.names[id(value)] = name

    def name(self, value) -> str:
        value = self.aliases.get(id(value), value)
        n = self.names.get(id(value))
        if n is None:
            n = self.names[id(value)] = self.fresh()
        return n

    def glob(self, obj, prefix: str) -> str:
        n = self.fresh(prefix)
        self.env[n] = obj
        return n

    def ref(self, obj, name: Optional[str] = None) -> str:
        """A global naming a numpy function or ufunc, by its own name (`_multiply`)."""
        name = "_" + (name or getattr(obj, "__name__", "f"))
        while self.env.get(name, obj) is not obj:
            name += "_"
        self.env[name] = obj
        return name

    def const_array(self, value) -> Optional[str]:
        """For a Const value: the global holding it as an array (a 0-d array for a
        scalar: ufuncs over arrays take those faster than numpy scalars). None for
        values that are not constants."""
        if id(value) not in self.consts:
            return None
        scalar = self.name(value)              # the global of its runtime value
        if isinstance(self.env[scalar], np.ndarray):
            return scalar
        n = self._arrays.get(scalar)
        if n is None:
            n = self._arrays[scalar] = self.glob(np.asarray(self.consts[id(value)]), "c")
        return n

    def const_broadcast(self, value, shape) -> Optional[str]:
        """For a Const value that broadcasts to the static `shape` and would be small
        there: the global holding it broadcast to that shape (a ufunc over two arrays
        of one shape takes half the time of one that broadcasts a small operand; the
        values, and so the results, are the same). None otherwise."""
        if id(value) not in self.consts or not shape or value.type.shape == tuple(shape):
            return None
        arr = np.asarray(self.consts[id(value)])
        if arr.ndim == 0 or arr.size >= math.prod(shape) or \
                math.prod(shape) * arr.itemsize > BROADCAST_CONST_BYTES:
            return None
        key = (id(value), tuple(shape))
        n = self._arrays.get(key)
        if n is None:
            try:
                full = aligned_copy(np.ascontiguousarray(np.broadcast_to(arr, shape)))
            except ValueError:
                return None
            n = self._arrays[key] = self.glob(full, "c")
        return n

    # lines
    def line(self, depth: int, text: str, node=None) -> None:
        self.lines.append(("    " * depth + text, node))

    def cond_expr(self, value, name: Optional[str] = None) -> str:
        """An expression whose truth is the condition's (checked to be one element);
        `name` is the variable holding it (by default, the value's own)."""
        v = name or self.name(value)
        return v if is_one_element_bool(value.type) else f"_truth({v})"

    def assign(self, depth: int, targets: List[str], sources: List[str], node=None) -> None:
        """targets = sources, all at once (a back edge may swap two values)."""
        pairs = [(t, s) for t, s in zip(targets, sources) if t != s]
        if pairs:
            self.line(depth, ", ".join(t for t, _ in pairs) + " = " +
                      ", ".join(s for _, s in pairs), node)

    def free(self, depth: int, values, keep=()) -> None:
        """`del` the local variables of dead values (never a constant's global, nor a
        name in `keep`, which a live value still uses)."""
        names = []
        for v in values:
            if v.type.shape == ():
                continue          # a scalar: deleting it costs more than it frees
            n = self.names.get(id(self.aliases.get(id(v), v)))
            if n is not None and n not in self.env and n not in keep and n not in names \
                    and n not in self.pinned:
                names.append(n)
        if names:
            self.line(depth, "del " + ", ".join(names))

    # programs and kernels
    def program_body(self, prog: Program, depth: int) -> List[str]:
        """Emit the kernels of a lowered program (its params must be bound); returns
        the names of its results."""
        for node in prog.consts:
            arr = node.attrs["value"]
            key = _const_key(arr)
            name = self._const_names.get(key) if key is not None else None
            if name is None:
                name = self.glob(_const_value(arr), "c")
                if key is not None:
                    self._const_names[key] = name
            self.consts[id(node.outputs[0])] = arr
            self.bind(node.outputs[0], name)
        for v in prog.aliases:
            self.aliases[id(v)] = prog.root(v)
        self.free(depth, prog.entry_frees)
        stacks = plan_stacks(prog)
        for st in stacks:                     # rows written into the stacked buffer
            for y, view in zip(st.values, st.views):
                self.into[id(y)] = self.name(view)
            self.pinned.add(self.name(st.source))
            self.instead[id(st.node)] = f"{self.name(st.node.outputs[0])} = " \
                                        f"{self.name(st.source)}"
        copies = {id(y) for st in stacks for y in st.values} & \
            {id(prog.root(r)) for r in prog.graph.results}
        groups = plan_groups(self, prog) if numba_active() else {}
        for k in prog.kernels:
            group = groups.get(id(k))
            if group is not None:           # one numba loop (backend.numba_groups)
                if group.kernels[0] is k:
                    emit_group(self, group, depth)
            elif id(k.node) in self.instead:
                self.line(depth, self.instead[id(k.node)], k.node)
                for v in k.node.inputs:            # a row returned too: a copy of it
                    v = prog.root(v)
                    if id(v) in copies:
                        copies.discard(id(v))
                        c = self.fresh()
                        self.line(depth, f"{c} = {self.name(v)}.copy()", k.node)
                        self.bind(v, c)
            elif id(k.node) not in self.skip:
                for v in k.stores:
                    if id(v) in self.before:
                        self.line(depth, self.before[id(v)], k.node)
                self.kernel(k, depth)
            dead = {id(v) for v in k.frees}
            self.free(depth, k.frees,
                      keep={self.name(o) for o in k.stores if id(o) not in dead})
        return [self.name(r) for r in prog.graph.results]

    def kernel(self, k: Kernel, depth: int) -> None:
        if k.kind == FUSED:
            emit_fused(self, k, depth)
            return
        node = k.node
        if id(node) in self.skip:
            return
        ins = [self.name(v) for v in node.inputs]
        emit = EMITTERS.get(node.op, emit_call)
        emit(self, k, ins, depth)

    def function(self, params: List[str], results: List[str], label: str):
        """Compile the helpers and `def run(params): ...; return (results,)`.

        Returns:
            (run, source, {line number: node}).
        """
        ret = ", ".join(results) + ("," if len(results) == 1 else "")
        body = [(f"def run({', '.join(params)}):", None)] + self.lines + \
            [(f"    return ({ret})", None)]
        all_lines = self.helpers + body
        src = "".join(text + "\n" for text, _ in all_lines)
        nodes = {i + 1: node for i, (_, node) in enumerate(all_lines) if node is not None}
        filename = f"<graphjit:{label}:{next(_counter)}>"
        code = compile(src, filename, "exec")
        exec(code, self.env)
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        return self.env["run"], src, nodes


def _const_key(arr) -> Optional[tuple]:
    """A key equal for constants with the same dtype, shape and bytes (the front-end
    makes a copy of a weight each time the code reads it: one array serves them all,
    so the caches hold it once); None for large ones (hashing them costs)."""
    if not isinstance(arr, np.ndarray) or arr.nbytes > (1 << 20) or arr.dtype.hasobject:
        return None
    return arr.dtype.str, arr.shape, arr.tobytes()


def _const_value(arr):
    """A Const's runtime value: 0-d arrays become numpy scalars, as numpy's own
    kernels return them, so scalar arithmetic stays on numpy's fast path."""
    return arr[()] if isinstance(arr, np.ndarray) and arr.ndim == 0 else arr


# -- extern nodes: one emitter per op, a kernel call otherwise --------------------------------
def _target(em: Emitter, node) -> str:
    outs = [em.name(o) for o in node.outputs]
    if not outs:
        return ""
    return (outs[0] if len(outs) == 1 else ", ".join(outs) + ",") + " = "


def emit_call(em: Emitter, k: Kernel, ins: List[str], depth: int) -> None:
    node = k.node
    em.line(depth, f"{_target(em, node)}{call_text(em, node, ins)}", node)


def _emit_expression(em: Emitter, k: Kernel, ins: List[str], depth: int) -> None:
    node = k.node
    if len(node.outputs) == 1:
        expr = EXPRESSIONS[node.op](node, em, *ins)
        if expr is not None:
            em.line(depth, f"{em.name(node.outputs[0])} = {expr}", node)
            return
    emit_call(em, k, ins, depth)


def _emit_if(em: Emitter, k: Kernel, ins: List[str], depth: int) -> None:
    node = k.node
    operands = ins[1:]
    outs = [em.name(o) for o in node.outputs]
    em.line(depth, f"if {em.cond_expr(node.inputs[0], ins[0])}:", node)
    for key in ("then_graph", "else_graph"):
        if key == "else_graph":
            em.line(depth, "else:", node)
        body = k.bodies[key]
        for p, name in zip(body.graph.params, operands):
            em.bind(p, name)
        # a result the branch computes is written straight into the output's variable
        params = {id(p) for p in body.graph.params}
        for o, r in zip(outs, body.graph.results):
            r = body.root(r)
            if id(r) not in params and id(r) not in em.names and r.producer.op != "Const":
                em.bind(r, o)
        n_lines = len(em.lines)
        results = em.program_body(body, depth + 1)
        em.assign(depth + 1, outs, results, node)
        if len(em.lines) == n_lines:
            em.line(depth + 1, "pass")


EMITTERS: Dict[str, Callable[[Emitter, Kernel, List[str], int], None]] = {
    "If": _emit_if, "Loop": emit_loop, **{op: _emit_expression for op in EXPRESSIONS},
}


# -- entry points -----------------------------------------------------------------------------
def generate(prog: Program):
    """(function, source, {line: node}) for a lowered graph."""
    em = Emitter()
    em.lists = list_stacks(prog)
    params = []
    for p in prog.graph.params:
        params.append(em.fresh())
        em.bind(p, params[-1])
        if not p.type.is_tensor:
            continue     # a ref (bound to a variable) or the state token: passed as is
        v, dtype = params[-1], em.glob(p.type.dtype.np, '_dtype')
        if p.type.shape == ():
            # a numpy scalar, as Consts and scalar results are: an operator on two of
            # them takes numpy's scalar fast path (a 0-d array takes the ufunc's)
            em.line(1, f"{v} = {v}[()] if type({v}) is _ndarray else np.asarray({v}, "
                       f"{dtype})[()]")
        else:
            # inline operators on Python numbers would compute in Python's types
            em.line(1, f"if not isinstance({v}, _numpy_value): {v} = np.asarray({v}, "
                       f"{dtype})")
    results = em.program_body(prog, 1)
    return em.function(params, results, prog.graph.name)


def make_node_kernel(node) -> Callable:
    """The callable that runs one node. For If and Loop it is a generated function
    running the bodies inline, taking one argument per input position and returning
    the tuple of the node's outputs."""
    if node.op in ("If", "Loop"):
        em = Emitter()
        ins = [em.fresh("a") for _ in node.inputs]
        kernel = Kernel(CONTROL, (node,), tuple(node.inputs), node.outputs,
                        bodies=lower_bodies(node))
        EMITTERS[node.op](em, kernel, ins, 1)
        fn, _, _ = em.function(ins, [em.name(o) for o in node.outputs], node.op)
        return fn
    return node_kernel(node)


def compile_graph(graph: Graph) -> CompiledGraph:
    """Lower a graph and build its executable form (and, inside it, its bodies')."""
    return CompiledGraph(graph)
