"""Graph-to-graph passes: each a function Graph -> Graph named with a verb, leaving the
graph valid (tests run the verifier after each), recursing into If and Loop bodies.
Imports nothing of graphjit but `ir`."""
from .batch_sliced_matmuls import batch_sliced_matmuls
from .canonicalize import canonicalize
from .eliminate_common_subexpressions import eliminate_common_subexpressions
from .eliminate_dead_values import eliminate_dead_values
from .fold_constants import fold_constants
from .hoist_loop_invariants import hoist_loop_invariants
from .merge_ifs import merge_ifs
from .pipeline import DEFAULT_PASSES, PassPipeline, dump_counts, dump_ir, optimize
from .simplify_algebra import simplify_algebra
from .slice_loop_gathers import slice_loop_gathers

__all__ = ["batch_sliced_matmuls", "canonicalize", "eliminate_common_subexpressions",
           "eliminate_dead_values", "fold_constants", "hoist_loop_invariants", "merge_ifs",
           "simplify_algebra", "slice_loop_gathers", "DEFAULT_PASSES", "PassPipeline", "dump_counts", "dump_ir",
           "optimize"]
