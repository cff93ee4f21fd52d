"""The pass pipeline: passes run in order, with a callback after each that may dump
the graph or its node counts (xDSL's PassPipeline, Numba's DUMP_IR).

    PassPipeline(DEFAULT_PASSES, callback=dump_counts()).apply(graph)
"""
from __future__ import annotations

import sys
from typing import Callable, Optional, Sequence, TextIO

from ..ir.graph import Graph
from .batch_sliced_matmuls import batch_sliced_matmuls
from .canonicalize import canonicalize
from .common import Stats
from .eliminate_common_subexpressions import eliminate_common_subexpressions
from .eliminate_dead_values import eliminate_dead_values
from .hoist_loop_invariants import hoist_loop_invariants
from .slice_loop_gathers import slice_loop_gathers

__all__ = ["Pass", "PassPipeline", "DEFAULT_PASSES", "optimize", "dump_counts", "dump_ir"]

Pass = Callable[[Graph], Graph]

# canonicalize folds constants and simplifies arithmetic as it goes (as MLIR's
# canonicalizer runs the op folders); merged equal nodes (two negations of one flag,
# say) and dropped dead ones expose more of that, and so do values moved out of Loops,
# hence its second run; invariant nodes leave Loops before the batched products look
# for invariant matrices, and the gathers those leave become slices.
DEFAULT_PASSES: Sequence[Pass] = (
    canonicalize,
    eliminate_common_subexpressions,
    eliminate_dead_values,
    hoist_loop_invariants,
    batch_sliced_matmuls,
    slice_loop_gathers,
    canonicalize,
    eliminate_dead_values,
)


class PassPipeline:
    """Passes applied in order; `callback(pass, graph)` runs after each.

    Args:
        passes: functions Graph -> Graph, each leaving the graph valid.
        callback: called with the pass just run and the graph it returned (for
            dumps; see dump_counts and dump_ir).
    """

    def __init__(self, passes: Sequence[Pass] = DEFAULT_PASSES,
                 callback: Optional[Callable[[Pass, Graph], None]] = None):
        self.passes = tuple(passes)
        self.callback = callback

    def apply(self, graph: Graph) -> Graph:
        """Run the passes on graph; returns the graph the last one returned."""
        if self.callback is not None:
            self.callback(None, graph)
        for p in self.passes:
            graph = p(graph)
            if self.callback is not None:
                self.callback(p, graph)
        return graph


def _name(p: Optional[Pass]) -> str:
    return "input" if p is None else getattr(p, "__name__", repr(p))


def dump_counts(stream: Optional[TextIO] = None) -> Callable[[Pass, Graph], None]:
    """A callback printing, after each pass, the graph's node counts by op:

        [graphjit passes] demo: input                          58 nodes (Const 22, If 11, ...)
        [graphjit passes] demo: canonicalize                   31 nodes (...)
    """
    def callback(p: Optional[Pass], graph: Graph) -> None:
        out = stream if stream is not None else sys.stderr
        out.write(f"[graphjit passes] {graph.name}: {_name(p):<34} {Stats(graph)}\n")
    return callback


def dump_ir(stream: Optional[TextIO] = None) -> Callable[[Pass, Graph], None]:
    """A callback printing the whole graph after each pass."""
    def callback(p: Optional[Pass], graph: Graph) -> None:
        out = stream if stream is not None else sys.stderr
        out.write(f"// -- after {_name(p)} --\n{graph}\n")
    return callback


def optimize(graph: Graph, enabled: bool = True, dump: bool = False) -> Graph:
    """The default pipeline: what the compiler runs on every graph it builds, between
    verifying it and planning its execution.

    Args:
        graph: a verified graph; optimized in place (its parameters and results keep
            their order and types).
        enabled: False returns the graph untouched (set_context(optimize_graphs=False)).
        dump: print node counts after each pass to stderr
            (set_context(dump_passes=True)).
    """
    if not enabled:
        return graph
    return PassPipeline(DEFAULT_PASSES, dump_counts() if dump else None).apply(graph)
