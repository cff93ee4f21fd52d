"""Parameters as graph state: how the graph being built reads and updates them.

A Parameter the program uses becomes a ref input of the top-level graph (bound to
the Parameter when the graph runs); every read is a `Load` and every update
(`ops.assign`, `self.p = v`, the optimizer ops) a state op, each taking the state
token and giving the next, so they keep the program's order (graphjit.ir.defs.state):

    def construct(self, x):              graph construct(%x, %w: ref<f32[3]>, %state) {
        y = x * self.w                     %w_1, %state_1 = Load(%w, %state)
        self.w = y                         %0 = Mul(%x, %w_1)
        return self.w + 1                  %state_2 = Assign(%w, %0, %state_1)
                                           %w_2, %state_3 = Load(%w, %state_2)
                                           %1 = Add(%w_2, 1.0)
                                           return %1, %state_3 }

The token lives in the graph context, not in a function's variables, so updates made
by sub-Cells and helper functions join the same chain. An If or Loop whose bodies
update state takes the token as an operand and gives the new one back (`branch`
in control_flow.py, `build_loop` in loop_body.py): each body starts its own chain
at a token parameter of its own. Reads are cached until the next update; an If
branch, and a Loop body that updates nothing, read Parameters in the enclosing graph
(before the If or Loop), so a body that only reads state carries no token.
"""
from __future__ import annotations

from typing import Dict, Optional

from ..ir.graph import Value
from ..ir.registry import get_op
from ..ir.types import STATE, ref_type
from ..common.parameter import Parameter

__all__ = ["StateContext", "param_name"]


def param_name(p: Parameter, path: Optional[str] = None) -> str:
    """A value name for a Parameter: its path in the Cell (`fc.weight` -> fc_weight),
    else its own name."""
    text = path or p.name or "param"
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in str(text)).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    return out or "param"


class StateContext:
    """The state half of GraphContext (values.py).

    Attributes:
        kind: "root" (the graph of the call), "branch" (an If branch) or "loop" (a
            Loop body).
        token: the current state token of this graph (None until a state op needs it).
        token_param: this graph's state-token parameter (its chain starts there).
        wrote: an update happened in this graph (directly or in a body it holds).
        hoist_reads: a Loop body that (so far) updates nothing: its reads happen in
            the enclosing graph, before the Loop.
        refs: (root only) id(Parameter) -> (Parameter, ref parameter of the graph).
    """

    def _init_state(self, kind: str):
        self.kind = kind
        self.token: Optional[Value] = None
        self.token_param: Optional[Value] = None
        self.wrote = False
        self.hoist_reads = kind == "loop"
        self._loads: Dict[int, Value] = {}
        self.refs: Dict[int, tuple] = {}
        self.ref_names: Dict[int, str] = {}

    def root(self):
        ctx = self
        while ctx.parent is not None:
            ctx = ctx.parent
        return ctx

    # -- refs and the token ------------------------------------------------------------------
    def ref_of(self, p: Parameter) -> Value:
        """The ref standing for Parameter p in this graph (a ref parameter of the root
        graph, captured into subgraphs)."""
        root = self.root()
        hit = root.refs.get(id(p))
        if hit is None:
            v = root.graph.add_param(ref_type(p.type.value_type()),
                                     param_name(p, root.ref_names.get(id(p))))
            hit = root.refs[id(p)] = (p, v)
        return self.lift(hit[1])

    def current_token(self) -> Value:
        """The token the next state op of this graph takes (a state parameter, made on
        first use)."""
        if self.token is None:
            self.token = self.token_param = self.graph.add_param(STATE, "state")
        return self.token

    def set_token(self, token: Value, wrote: bool, written=None) -> None:
        """The token after a state op (or an If/Loop holding some); an update forgets
        the cached reads of the Parameters it wrote (`written`, ids; None: all)."""
        self.token = token
        if wrote:
            self.wrote = True
            if written is None:
                self._loads.clear()
            else:
                for k in written:
                    self._loads.pop(k, None)

    def save_state(self):
        """What restore_state needs to undo the state ops of nodes dropped later."""
        return (self.token, self.token_param, self.wrote, dict(self._loads))

    def restore_state(self, saved) -> None:
        """The state before the nodes dropped since save_state (a token parameter made
        since stays: the chain starts there again)."""
        token, token_param, self.wrote, loads = saved
        self._loads = dict(loads)
        if token_param is None and self.token_param is not None:
            token = self.token_param
        else:
            self.token_param = token_param
        self.token = token

    # -- reads and updates ---------------------------------------------------------------------
    def read_param(self, p: Parameter) -> Value:
        """p's value at this point of the program."""
        v = self._loads.get(id(p))
        if v is not None:
            return v
        if self.parent is not None and not self.wrote and (
                self.kind == "branch" or self.hoist_reads):
            v = self.lift(self.parent.read_param(p))
        else:
            from .values import current_loc
            node = self.graph.add_node("Load", (self.ref_of(p), self.current_token()), {},
                                       loc=current_loc(),
                                       names=(param_name(p, self.root().ref_names.get(id(p))),
                                              "state"))
            self.set_token(node.outputs[1], wrote=False)
            v = node.outputs[0]
        self._loads[id(p)] = v
        return v

    def update(self, op: str, inputs, attrs):
        """Record state op `op`: Parameters at its ref inputs, values elsewhere; returns
        its outputs but the token (graph values)."""
        from .values import GraphTensor, current_loc
        opdef = get_op(op)
        vals, written = [], []
        for i, x in enumerate(inputs):
            if opdef.kind_of_input(i) == "ref":
                if not isinstance(x, Parameter):
                    name = opdef.inputs[min(i, len(opdef.inputs) - 1)]
                    raise TypeError(f"{op}: {name} must be a Parameter (state the graph "
                                    f"updates), got {type(x).__name__}")
                vals.append(self.ref_of(x))
                written.append(id(x))
            else:
                vals.append(self.value_of(x))
        node = self.graph.add_node(op, vals + [self.current_token()], attrs,
                                   loc=current_loc())
        outs = node.outputs
        outs[-1].name = "state"
        # distinct Parameters stay distinct objects at every call (the binding checks
        # it), so an update leaves the cached reads of the others valid
        self.set_token(outs[-1], wrote=True, written=written)
        return tuple(GraphTensor(o) for o in outs[:-1])

    def note_ref_name(self, p: Parameter, path: str) -> None:
        """The path by which the program reached p (names its ref)."""
        self.root().ref_names.setdefault(id(p), path)

