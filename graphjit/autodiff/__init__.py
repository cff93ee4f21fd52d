"""Reverse-mode automatic differentiation over the registry's gradient rules
(graphjit.ir.grad): a graph-to-graph transform for graph mode (grad_graph, with If
and Loop), and a tape over eager operators for PYNATIVE mode (Tape).

Imports nothing of graphjit but the IR.
"""
from .tape import Tape, current as current_tape, missing_gradient
from .transform import grad_graph
from .graphs import inline, clone_graph

__all__ = ["Tape", "current_tape", "missing_gradient", "grad_graph", "inline", "clone_graph"]
