"""The rule that keeps collectives in step: a collective (AllReduce, ...) inside an If
or a Loop is accepted only where every process provably runs it the same number of
times, that is when the condition (and a Loop's trip count and condition) is
*uniform*: the same on every process.

A value is uniform when it is
- a constant;
- the output of AllReduce, AllGather or Broadcast (every process gets the same);
- computed by an op without effects from uniform values only;
- an output of an If or Loop whose control is uniform, from uniform values.
Everything else is not: the graph's tensor inputs (each process reads its own shard),
Parameter reads (processes may hold different values), random draws, ReduceScatter's
blocks. So

    if ops.AllReduce()(loss) > 1.0:    # uniform: accepted
        x = ops.AllReduce()(x)
    if loss > 1.0:                      # this process's loss: refused at build time
        x = ops.AllReduce()(x)

Conditions on Python values (get_rank() included) and on static shapes are folded
while the graph is built and never reach this check: each process builds the branch it
takes, as eager execution runs it. A Loop over the slices of a tensor whose length
along that axis is unknown when the graph is built (a dynamic dim) stops where this
process's data ends: not uniform.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from .errors import GraphJitError
from .graph import Graph, Node
from .registry import get_op, has_op

__all__ = ["CollectiveControlError", "check_collectives", "COLLECTIVES", "UNIFORM_RESULTS"]

COLLECTIVES = frozenset({"AllReduce", "AllGather", "Broadcast", "ReduceScatter"})
UNIFORM_RESULTS = frozenset({"AllReduce", "AllGather", "Broadcast"})


class CollectiveControlError(GraphJitError, ValueError):
    """A collective under control flow that may run a different number of times on
    different processes."""


def _first_collective(g: Graph) -> Optional[Node]:
    for n in g.nodes:
        if n.op in COLLECTIVES:
            return n
        for sub in n.subgraphs():
            found = _first_collective(sub)
            if found is not None:
                return found
    return None


class _Check:
    def __init__(self):
        self.cache: Dict[int, Optional[Node]] = {}

    def collective_in(self, g: Graph) -> Optional[Node]:
        if id(g) not in self.cache:
            self.cache[id(g)] = _first_collective(g)
        return self.cache[id(g)]

    def graph(self, g: Graph, params: List[bool], report: bool) -> List[bool]:
        """Uniformity of g's results given its parameters'; refuses (when report) a
        collective under non-uniform control."""
        u: Dict[int, bool] = {id(p): ok for p, ok in zip(g.params, params)}
        for n in g.nodes:
            ins = [u.get(id(v), False) for v in n.inputs]
            for o, ok in zip(n.outputs, self.node(n, ins, report)):
                u[id(o)] = ok
        return [u.get(id(r), False) for r in g.results]

    def node(self, n: Node, ins: List[bool], report: bool) -> List[bool]:
        k = len(n.outputs)
        if n.op == "Const":
            return [True] * k
        if n.op == "If":
            return self.if_(n, ins, report)
        if n.op == "Loop":
            return self.loop(n, ins, report)
        if n.op in UNIFORM_RESULTS:
            return [True] * k
        effects = get_op(n.op).effects if has_op(n.op) else "unknown"
        if effects is not None and effects != "check":
            return [False] * k
        ok = all(ins)
        return [ok] * k

    def _refuse(self, n: Node, what: str, body: Graph) -> None:
        coll = self.collective_in(body)
        raise CollectiveControlError(
            f"{coll.op} runs inside {what} whose condition may differ between the processes "
            f"(it depends on this process's own data or state), so some processes could "
            f"issue it and others not, and the job would hang",
            loc=coll.loc, extra_locs=(("the condition", n.loc),) if n.loc else (),
            hint="make the condition the same on every process: compute it from a "
                 "collective's result (e.g. ops.AllReduce()(flag) > 0), from constants, or "
                 "move the collective out of the branch or loop")

    def if_(self, n: Node, ins, report) -> List[bool]:
        cond = ins[0]
        then_g, else_g = n.attrs["then_graph"], n.attrs["else_graph"]
        if report and not cond:
            for g in (then_g, else_g):
                if self.collective_in(g) is not None:
                    self._refuse(n, "an if", g)
        a = self.graph(then_g, ins[1:], report)
        b = self.graph(else_g, ins[1:], report)
        return [cond and x and y for x, y in zip(a, b)]

    @staticmethod
    def _static_slices(n: Node) -> bool:
        """Whether the inputs the Loop slices have a known length along their axis (a
        length known when the graph is built is a build-time value, as a constant is;
        an unknown one comes from this process's data and may stop it early)."""
        for li, bp, axis in n.attrs["input_map"]:
            if axis is None:
                continue
            shape = n.inputs[li].type.shape
            if shape is None or shape[axis] is None:
                return False
        return True

    def loop(self, n: Node, ins, report) -> List[bool]:
        body: Graph = n.attrs["body"]
        back = {bp: ri for ri, bp in n.attrs["back_edges"]}
        params = [True] * len(body.params)       # uniform until shown otherwise
        for li, bp, axis in n.attrs["input_map"]:
            params[bp] = ins[li]
        ci = n.attrs["current_iteration"]
        if ci != -1:
            params[ci] = True      # the iteration number: the same wherever it runs
        cr = n.attrs["condition_result"]
        while True:     # narrow to a fixed point: a back edge may carry a non-uniform value
            res = self.graph(body, params, False)
            changed = False
            for bp, ri in back.items():
                if params[bp] and not res[ri]:
                    params[bp], changed = False, True
            if not changed:
                break
        control = ins[0] and ins[1] and res[cr] and self._static_slices(n)
        if report and not control and self.collective_in(body) is not None:
            self._refuse(n, "a loop", body)
        if report:
            self.graph(body, params, True)
        return [control and res[ri] for ri, axis in n.attrs["output_map"]]


def check_collectives(graph: Graph) -> None:
    """Refuse a collective that some processes might run more often than others (see
    the module docstring).

    Raises:
        CollectiveControlError: at the collective, with the condition's line.
    """
    chk = _Check()
    if chk.collective_in(graph) is None:
        return
    chk.graph(graph, [False] * len(graph.params), True)
