"""Loops: constant loops unroll, loops on tensor values become Loop nodes.

    for i in range(3): ...        # unrolled, one copy of the body per i
    for row in x: ...             # a Loop slicing x along axis 0
    for i in range(n): ...        # n a tensor: a Loop with a trip count
    while x.sum() < 10: ...       # a Loop; the test runs again at the end of the body

A Loop's carried values are the variables its body assigns. The body is built
against their entry types and rebuilt until the exit types join with the entry
types (ShapeJoin, which only widens). Python numbers the body changes become
0-d tensors that keep Python's promotion (weak types); lists appended to become
concatenated (scan) outputs.
"""
from __future__ import annotations

import ast
import os
import warnings
from typing import TYPE_CHECKING

from .. import ops
from ..ir.errors import GraphJitError, UnsupportedSyntaxError
from . import analysis
from .calls import GraphEnumerate, GraphRange, GraphZip
from .control_flow import Record, already_left, branch, condition_value, describe
from .joins import _MISSING, _lists_in, restore, snapshot
from .loop_body import LoopSpec, build_loop, loop_exit
from .state import BRK, CONT, LEFT, RET
from .values import DynamicList, GraphTensor, active, as_graph

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["build_for", "build_while", "LoopSpec", "loop_spec"]


def loop_spec(b, it, node) -> LoopSpec:
    if isinstance(it, DynamicList):
        it = it.stacked(0)
    if isinstance(it, GraphTensor):
        if it.type.shape is not None and len(it.type.shape) == 0:
            raise TypeError("Cannot iterate over a scalar tensor. (iteration over a "
                            "0-d tensor)")
        return LoopSpec([it], None, lambda i, s: ops.squeeze(s[0], 0),
                        f"rows of a tensor ({describe(it, b.c.param_source)})")
    if isinstance(it, GraphRange):
        start, stop, step = it.start, it.stop, it.step
        if step > 0:
            n = (stop - start + (step - 1)) // step if step != 1 else stop - start
        else:
            n = (start - stop + (-step - 1)) // (-step)
        n = ops.maximum(n, 0) if isinstance(n, GraphTensor) else max(n, 0)

        def make(i, s):
            v = i if (isinstance(start, int) and start == 0 and step == 1) else start + i * step
            if isinstance(v, GraphTensor):
                v.weak = True
            return v
        return LoopSpec([], n, make, "range with a tensor bound" + (
            f" ({describe(stop, b.c.param_source)})" if isinstance(stop, GraphTensor) else ""))
    if isinstance(it, GraphEnumerate):
        inner = loop_spec(b, it.inner, node)
        st = it.start

        def make_e(i, s):
            k = i if isinstance(st, int) and st == 0 else i + st
            if isinstance(k, GraphTensor):
                k.weak = True
            return (k, inner.make(i, s))
        return LoopSpec(inner.sliced, inner.trip, make_e, "enumerate of " + inner.describe)
    if isinstance(it, GraphZip):
        specs = [loop_spec(b, x, node) for x in it.inners]
        sliced, offsets = [], []
        for s in specs:
            offsets.append(len(sliced))
            sliced.extend(s.sliced)
        trips = [s.trip for s in specs if s.trip is not None]
        trip = None
        for t in trips:
            trip = t if trip is None else ops.minimum(trip, t) if isinstance(
                trip, GraphTensor) or isinstance(t, GraphTensor) else min(trip, t)

        def make_z(i, s):
            return tuple(sp.make(i, s[o:o + len(sp.sliced)]) for sp, o in zip(specs, offsets))
        return LoopSpec(sliced, trip, make_z, "zip of " + ", ".join(s.describe for s in specs))
    raise TypeError(f"cannot build a Loop over {type(it).__name__}")


def build_for(b: FunctionBuilder, node: ast.For):
    loc = b.loc(node)
    it = as_graph(b.eval(node.iter))
    graph_iter = isinstance(it, (GraphTensor, DynamicList, GraphRange, GraphEnumerate,
                                 GraphZip))
    if not graph_iter:
        if not isinstance(it, (range, list)) and not hasattr(it, "__iter__") and \
                not hasattr(it, "__getitem__"):
            # MindSpore's wording ("... object is not iterable in graph mode")
            raise TypeError(f"'{type(it).__name__}' object is not iterable in graph mode")
        items = it if isinstance(it, range) else list(it) if not isinstance(it, list) else it
        n = len(items)
        if isinstance(items, range) and n > b.c.max_unroll:
            ok = _try_rolled_range(b, node, items, loc)
            if ok:
                return
        elif isinstance(items, range) and n >= ROLL_MIN_STEPS:
            # unrolled, a long loop with a large body builds n copies of it: slower to
            # compile, and no faster to run unless its ops fuse across steps (small bodies)
            if _try_rolled_range(b, node, items, loc, quiet=True):
                return
        elif n > b.c.max_unroll:
            msg = (f"line {loc.line}: this `for` loop runs {n} times (more than max_unroll="
                   f"{b.c.max_unroll}) over a Python {type(it).__name__}; it is unrolled")
            b.c.warnings.append(msg)
        b.c.record(Record("for", loc, "constant", f"unrolled {n} times",
                          f"iterates a Python {type(it).__name__}"))
        _unrolled_for(b, node, list(items))
        return
    spec = loop_spec(b, it, node)
    rec = b.c.record(Record("for", loc, "variable", "Loop", spec.describe))
    outer_flags = _flags(b)
    build_loop(b, node, "for", spec=spec, record=rec)
    loop_exit(b, node, outer_flags)


def _flags(b):
    """The enclosing loop's break and continue flags (a loop's own start False)."""
    return {f: b.env.get(f, _MISSING) for f in (BRK, CONT)}


#: A constant range of this many steps or more may be kept rolled (quiet=True below)...
ROLL_MIN_STEPS = 32
#: ...when unrolling it would put more than this many nodes in the graph.
UNROLL_NODE_BUDGET = 1024


class _Unroll(Exception):
    """The rolled attempt of a constant range is given up: unroll it."""


def _try_rolled_range(b, node, r: range, loc, quiet: bool = False) -> bool:
    """A constant range longer than max_unroll becomes a Loop if its body allows it.

    quiet: the range is within max_unroll; it is kept rolled only where unrolling
    would build more than UNROLL_NODE_BUDGET nodes, and nothing is said either way.
    Either way a loop whose body carries a Python int is unrolled: a Loop carries it
    as an int64, which wraps where Python's ints grow."""
    env0, locs0 = dict(b.env), dict(b.locs)
    n_nodes = len(active().graph.nodes)
    state0 = active().save_state()
    lists = [(l, snapshot(l)) for l in _lists_in(env0)]
    n_rec = len(b.c.records)
    outer_flags = _flags(b)
    try:
        rec = b.c.record(Record("for", loc, "constant", "Loop",
                                f"range of {len(r)} > max_unroll={b.c.max_unroll}"))
        build_loop(b, node, "for", spec=LoopSpec([], len(r), _range_maker(r),
                                                 f"range({r.start}, {r.stop}, {r.step})"),
                   record=rec)
        loops = [n for n in active().graph.nodes[n_nodes:] if n.op == "Loop"]
        if _carries_python_int(b, node, loops[-1] if loops else None):
            raise _Unroll("changes a Python int")
        if quiet:
            size = sum(1 for _ in loops[-1].attrs["body"].walk()) if loops else 0
            if size * len(r) <= UNROLL_NODE_BUDGET:
                raise _Unroll("small enough to unroll")
            rec.reason = (f"range of {len(r)}: unrolled it would be {len(r)} copies of a "
                          f"{size}-node body")
        loop_exit(b, node, outer_flags)
        if not quiet:
            b.c.warnings.append(f"line {loc.line}: `for` over range({len(r)}) exceeds "
                                f"max_unroll={b.c.max_unroll}; built as a Loop instead of "
                                f"unrolling")
        return True
    except (GraphJitError, TypeError, ValueError, IndexError, _Unroll) as e:
        b.env, b.locs = env0, locs0
        active().truncate(n_nodes)
        active().restore_state(state0)
        for l, old in lists:
            restore(l, old)
        del b.c.records[n_rec:]
        if quiet:
            return False
        why = (f"{e} (a Loop would carry it as an int64, which wraps where a Python int "
               f"grows)" if isinstance(e, _Unroll) else
               f"needs the loop index as a Python number ({type(e).__name__}: "
               f"{str(e).splitlines()[0]})")
        msg = (f"line {loc.line}: `for` over range({len(r)}) exceeds max_unroll="
               f"{b.c.max_unroll}, but its body {why}; it is unrolled")
        if not _in_graphjit(loc):   # graphjit's own loops (an optimizer's over its
            b.c.warnings.append(msg)   # Parameters) are no news to the user
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
        return False


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _in_graphjit(loc) -> bool:
    """Whether the source at loc is graphjit's own (not the user's)."""
    f = getattr(loc, "file", None) or ""
    return os.path.abspath(f).startswith(_PACKAGE_DIR + os.sep)


def _carries_python_int(b, node, loop) -> bool:
    """Whether a Loop carries a value standing for a Python int: after it, a name the
    body assigns (other than the loop's own index) is a weak integer Loop output."""
    if loop is None:
        return False
    index = set(analysis.target_names(node.target))
    for name, v in b.env.items():
        if isinstance(v, GraphTensor) and v.weak and v.value.producer is loop and \
                name not in index and v.dtype.is_integer:
            return True
    return False


def _range_maker(r: range):
    def make(i, s):
        v = i if (r.start == 0 and r.step == 1) else r.start + i * r.step
        v.weak = True
        return v
    return make


def _unrolled_for(b: FunctionBuilder, node, items):
    saved = _flags(b)
    b.loop_depth += 1
    b.env[BRK] = False
    try:
        for item in items:
            b.env[CONT] = False
            b.env.pop(LEFT, None)      # (a continue of the last iteration ends here)
            state = _loop_stop(b)
            if state is True:
                break

            def iteration(item=item):
                b.assign(node.target, item, node)
                b.exec_block(node.body)
            if state is False:
                iteration()
            else:
                branch(b, ops.logical_not(state), iteration, lambda: already_left(b),
                       b.loc(node), ("iteration that runs", "iteration skipped by break/return"))
    except BaseException:
        _restore_flags(b, saved)
        raise
    finally:
        b.loop_depth -= 1
    loop_exit(b, node, saved)


def _loop_stop(b):
    """Like stop_state, for the head of a loop iteration (continue does not stop it)."""
    return b.stop_state((RET, BRK))


def _restore_flags(b, saved):
    b.env.pop(LEFT, None)     # paths that broke out go on after the loop
    for f, v in saved.items():
        if v is _MISSING:
            b.env.pop(f, None)
        else:
            b.env[f] = v


def build_while(b: FunctionBuilder, node: ast.While):
    loc = b.loc(node)
    saved = _flags(b)
    b.loop_depth += 1
    b.env[BRK] = False
    count = 0
    limit = max(100000, b.c.max_unroll)
    rec = True
    try:
        while True:
            b.env[CONT] = False
            b.env.pop(LEFT, None)
            state = _loop_stop(b)
            if state is True:
                break
            cond = condition_value(b, b.eval(node.test), node.test)
            if isinstance(state, GraphTensor):
                if cond is False:
                    break
                cond = ops.logical_not(state) if cond is True else ops.logical_and(
                    ops.logical_not(state), cond)
            if isinstance(cond, GraphTensor):
                rec = b.c.record(Record("while", loc, "variable",
                                        "Loop" + (f" (after {count} unrolled iterations)"
                                                  if count else ""), describe(cond, b.c.param_source)))
                build_loop(b, node, "while", cond0=cond, record=rec)
                rec = None
                break
            if not cond:
                break
            b.exec_block(node.body)
            count += 1
            if count > limit:
                raise UnsupportedSyntaxError(
                    f"a while loop with a condition known at build time did not end after "
                    f"{limit} iterations", loc=loc,
                    hint="make the condition depend on a tensor so it becomes a Loop")
        if rec is not None:
            b.c.record(Record("while", loc, "constant", f"unrolled {count} times",
                              "condition known while building"))
    except BaseException:
        _restore_flags(b, saved)
        raise
    finally:
        b.loop_depth -= 1
    loop_exit(b, node, saved)
