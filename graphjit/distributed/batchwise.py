"""Decides from the IR whether a graph keeps the rows of its batch apart, so that
scoring the batch in blocks of rows gives what one call on the whole batch gives.

The rule. Axis 0 of every graph input is the batch axis. Each value of the graph
gets one of four states, from its inputs' states and its op (an abstract
interpretation over the graph, into If branches and Loop bodies):

    Invariant   the same in every block: constants, weights, dims other than the
                batch dim (`x.shape[1]`), and anything computed from them only.
    Rows(a)     axis `a` has one entry per row of the batch, and entry i depends
                only on row i of the inputs: the value for the whole batch is
                the concatenation along `a` of the values for its blocks.
    ShapeOf(a)  `Shape` of a Rows(a) value: its entry `a` is the block's size.
    Mixed       depends on how the batch is cut into blocks (a reduction over
                the batch axis, the batch size used as a number, a condition or
                trip count computed from the rows...); it carries the reason and
                the user's line.

The graph is batch-wise when every result is Rows(0) and every check (`Assert`,
`Check`, `CheckNonZero`, `CheckBound`: they raise when any element is false, so
they split over blocks) sees Invariant or Rows values and runs under Invariant
control. Examples (x is the input, f32[?,3]):

    x * 2 + w, relu(x @ W), softmax(x, -1), x.sum(1), x[:, 1:]     Rows(0): accepted
    x - x.mean(0)           ReduceMean over axis 0 is Mixed: refused
    x.reshape(-1)           merges the batch axis with another: refused
    x * x.shape[0]          uses the block size as a number: refused
    if x.sum() > 0: ...     the If's condition is Mixed, so are its outputs: refused
    if x.shape[1] > 2: ...  the condition is Invariant: each branch is analysed
    for t in range(x.shape[1]): h = f(x[:, t], h)   an Invariant trip count: accepted

Each rule is local and errs on the side of refusing: an op the tables below do
not know, with a non-Invariant input, is Mixed; so are shapes of unknown rank,
broadcasting an Invariant value whose dim on the batch axis is not known to be 1
(it could equal the batch size by accident), joining an Invariant with a Rows
value (an If's branches, a Loop's entry and back edge), and slicing or iterating
along the batch axis. A model that happens to be batch-wise for reasons the
rules do not see (a `while` on `(x > 1).any()` whose extra iterations change no
converged row) is refused; eager and blockwise answers never silently differ.

A model compiled for a fixed batch size (an input typed f32[32,3]) is analysed as
it is: constants folded from `x.shape[0]` are then just numbers, valid because
every block has exactly that many rows (graphjit.distributed.predict checks the
chunks).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..ir.errors import GraphJitError
from ..ir.graph import Graph, Node
from ..ir.registry import get_op, has_op
from .batch_rules import (FAMILY_RULES, INVARIANT, RULES, Mixed, Rows, ShapeOf, axis_index,
                          join, mixed)

__all__ = ["NotBatchwiseError", "batch_states", "check_batchwise", "model_inputs", "model_outputs"]


class NotBatchwiseError(GraphJitError, ValueError):
    """A model whose outputs are not computed row by row from its inputs, so it
    cannot be scored in blocks of rows (see graphjit.distributed.batchwise)."""


NotBatchwiseError.__str__ = GraphJitError.__str__

# what each kind of effect (OpDef.effects) means for blocks: "check" ops raise when any
# element of their input is false, so they split over blocks; "io" (Print) runs once
# per block on its worker; a "read" of state is an ordinary input; "random" and "write"
# cannot be split (checked in _Analysis.check_effect)
_SPLITS = ("io", "read")
# checks that pass their value on and fail only where a Python int outgrows int64: a
# value of theirs that depends on how the batch is cut is reported where it is used
_PASS_ON = frozenset({"CheckIntOverflow"})


# -- the analysis --------------------------------------------------------------------------
class _Analysis:
    """Walks a graph and its subgraphs; `problems` collects the Mixed states that
    reach a check or run under Mixed control."""

    def __init__(self):
        self.problems: List[Tuple[str, Mixed]] = []

    def graph(self, g: Graph, param_states: Sequence, guard: Optional[Mixed],
              report: bool) -> List:
        states: Dict[int, object] = {id(p): s for p, s in zip(g.params, param_states)}
        for node in g.nodes:
            ins = [states[id(v)] for v in node.inputs]
            outs = self.node(node, ins, guard, report)
            for o, s in zip(node.outputs, outs):
                states[id(o)] = s
        return [states[id(r)] for r in g.results]

    def node(self, node: Node, ins, guard, report) -> Tuple:
        if node.op == "If":
            return self.if_(node, ins, guard, report)
        if node.op == "Loop":
            return self.loop(node, ins, guard, report)
        effects = get_op(node.op).effects if has_op(node.op) else None
        if effects is not None and effects not in _SPLITS and report and \
                node.op not in _PASS_ON:
            self.check_effect(node, effects, ins, guard)
        n = len(node.outputs)
        if all(s is INVARIANT for s in ins):
            return (INVARIANT,) * n
        first = next((s for s in ins if isinstance(s, Mixed)), None)
        if first is not None:
            return (first,) * n
        if any(v.type.rank is None for v in node.inputs + node.outputs):
            return (mixed(node, "has a value of unknown rank, so the batch axis cannot be "
                                 "followed through it"),) * n
        rule = RULES.get(node.op) or FAMILY_RULES.get(_family(node.op))
        if rule is None:
            return (mixed(node, f"graphjit does not know whether {node.op} keeps the rows "
                                 f"of the batch apart"),) * n
        out = rule(node, ins)
        return out if isinstance(out, tuple) else (out,) * n

    def check_effect(self, node: Node, effects: str, ins, guard) -> None:
        if effects == "random":
            self.problems.append((f"{node.op} draws random numbers", mixed(
                node, "blocks scored by several workers cannot draw the numbers one call "
                      "draws (score with the model in inference mode)")))
            return
        if effects == "collective":
            self.problems.append((f"{node.op} is a collective operation", mixed(
                node, "blocks scored by Dask workers are not the processes of an MPI group: "
                      "a collective has no meaning there (score the model one process "
                      "runs)")))
            return
        if effects != "check":
            self.problems.append((f"{node.op} has an effect ({effects})", mixed(
                node, "graphjit.distributed cannot split it over blocks: each worker would "
                      "update its own copy of the state")))
            return
        if guard is not None:
            self.problems.append((f"{node.op} runs under a condition that depends on how the "
                                  f"batch is cut into blocks", guard))
        for s in ins:
            if isinstance(s, Mixed):
                self.problems.append((f"{node.op} checks a value that depends on how the "
                                      f"batch is cut into blocks", s))
            elif isinstance(s, ShapeOf):
                self.problems.append((f"{node.op} checks the shape of a batched value",
                                      mixed(node, "checks a batched value's shape")))

    def if_(self, node: Node, ins, guard, report) -> Tuple:
        cond, operands = ins[0], ins[1:]
        branches = (node.attrs["then_graph"], node.attrs["else_graph"])
        if cond is not INVARIANT:
            why = mixed(node, f"its condition {_origin(cond)}, so a block could take "
                               f"another branch than the whole batch")
            for g in branches:
                self.graph(g, operands, guard or why, report)
            return (why,) * len(node.outputs)
        then_r, else_r = (self.graph(g, operands, guard, report) for g in branches)
        return tuple(join(a, b, node, f"output {k} of the If")
                     for k, (a, b) in enumerate(zip(then_r, else_r)))

    def loop(self, node: Node, ins, guard, report) -> Tuple:
        attrs, body = node.attrs, node.attrs["body"]
        n_out = len(node.outputs)
        why = None
        for s, what in ((ins[0], "trip count"), (ins[1], "initial condition")):
            if s is not INVARIANT and why is None:
                why = mixed(node, f"its {what} {_origin(s)}, so a block could run another "
                                   f"number of iterations than the whole batch")
        params: List = [INVARIANT] * len(body.params)
        initial = {}
        for li, bp, axis in attrs["input_map"]:
            s = ins[li]
            if axis is not None and isinstance(s, Rows):
                if axis_index(axis, node.inputs[li].type.rank) == s.axis:
                    s = mixed(node, "iterates over the rows of the batch")
                    why = why or s
            elif axis is not None and isinstance(s, ShapeOf):
                s = mixed(node, "iterates over a batched value's shape")
            params[bp] = s
            if axis is None:
                initial[bp] = s
        back = list(attrs["back_edges"])
        for _ in range(4 * len(body.params) + 4):     # states only widen: this ends
            results = self.graph(body, params, guard or why, False)
            changed = False
            for ri, bp in back:
                new = join(params[bp], results[ri], node,
                           f"the loop-carried value {body.params[bp].name or bp}")
                if new != params[bp]:
                    params[bp], changed = new, True
            if not changed:
                break
        cond = results[attrs["condition_result"]]
        if cond is not INVARIANT and why is None:
            why = mixed(node, f"its condition {_origin(cond)}, so a block could run another "
                               f"number of iterations than the whole batch")
        if report:
            self.graph(body, params, guard or why, True)
        if why is not None:
            return (why,) * n_out
        back_of = dict(back)
        outs = []
        for ri, axis in attrs["output_map"]:
            s = results[ri]
            if ri in back_of:
                s = join(initial.get(back_of[ri], INVARIANT), s, node,
                         f"the loop-carried value {body.params[back_of[ri]].name or ''}")
            if axis is not None and isinstance(s, Rows) and \
                    axis_index(axis, body.results[ri].type.rank) == s.axis:
                s = mixed(node, "concatenates its iterations along the batch axis")
            elif axis is not None and isinstance(s, ShapeOf):
                s = mixed(node, "stacks a batched value's shape")
            outs.append(s)
        return tuple(outs)


def model_inputs(graph: Graph) -> list:
    """The parameters a caller passes arrays for: the Parameters (refs) and the state
    token a model binds itself are not among them."""
    return [p for p in graph.params if p.type.is_tensor]


def model_outputs(graph: Graph) -> list:
    """The results a call returns (the state token is not one)."""
    return [r for r in graph.results if r.type.is_tensor]


def _family(op: str) -> Optional[str]:
    return get_op(op).family if has_op(op) else None


def _origin(s) -> str:
    """Why a control value is not Invariant, as the end of a sentence."""
    if isinstance(s, Mixed):
        return f"depends on how the batch is cut into blocks ({s.why})"
    if isinstance(s, ShapeOf):
        return "is computed from the block size"
    return "is computed from the rows of the batch"


def batch_states(graph: Graph) -> Tuple[List, List[Tuple[str, Mixed]]]:
    """The state of each result of `graph` when axis 0 of every parameter is the batch
    axis, and the problems found at checks.

    Returns:
        (result states, [(what, Mixed state)...]).
    """
    an = _Analysis()
    params = []
    for p in graph.params:
        if not p.type.is_tensor:
            params.append(INVARIANT)   # a Parameter (ref) or the state token: the weights
        elif p.type.rank is None or p.type.rank == 0:
            params.append(Mixed(f"input '{p.name}' ({p.type}) has no first axis known to be "
                                f"the batch axis"))
        else:
            params.append(Rows(0))
    results = an.graph(graph, params, None, True)
    return results, an.problems


def check_batchwise(graph: Graph, model_name: str = "") -> None:
    """Refuse a graph whose results are not computed row by row (see the module
    docstring for the rule).

    Raises:
        NotBatchwiseError: naming the output, why, and the user's line.
    """
    results, problems = batch_states(graph)
    label = f"model '{model_name or graph.name}'"
    hint = ("graphjit.distributed.predict scores the batch in blocks of rows, so each row "
            "of every output must depend only on the same row of the inputs; compute "
            "whole-batch statistics outside the model (or in a second pass over the "
            "results)")
    if problems:          # effects first: they concern the model as a whole
        what, s = problems[0]
        raise NotBatchwiseError(f"{label} is not batch-wise: {what}: {s.why}", loc=_loc(s),
                                hint=hint)
    for k, (r, s) in enumerate(zip(graph.results, results)):
        if s == Rows(0) or not r.type.is_tensor:   # the state token is not an output
            continue
        head = f"{label} is not batch-wise: output {k} ({r.type}) "
        if isinstance(s, Mixed):
            raise NotBatchwiseError(head + "depends on how the batch is cut into blocks: "
                                    + s.why, loc=_loc(s), hint=hint)
        if isinstance(s, Rows):
            raise NotBatchwiseError(head + f"has its batch axis at axis {s.axis}, not first",
                                    hint="return it with the batch axis first (ops.transpose)")
        raise NotBatchwiseError(head + f"is {s}, so it has no batch axis",
                                hint="return only values with one row per input row; "
                                     "compute values that do not depend on the rows once, "
                                     "outside graphjit.distributed.predict")


def _loc(s: Mixed):
    return None if s.node is None else s.node.loc
