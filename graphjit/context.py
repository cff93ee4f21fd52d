"""Global options: the execution mode and the compiler's switches (set_context)."""
from __future__ import annotations

from os import PathLike
from typing import Any, Callable, Dict


__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_context", "get_context", "compiler",
           "install_compiler", "install_option_hook", "ParallelMode",
           "set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context",
           "auto_parallel_context_is_set"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# MindSpore's JIT syntax levels (set_context(jit_syntax_level=...)). graphjit accepts them
# and compiles the same way at every level: what it cannot compile it refuses at build
# time with a documented error (it never falls back to running Python where MindSpore's
# LAX level would), and what it compiles gives eager mode's values.
STRICT = 0
COMPATIBLE = 1
LAX = 2
# set_context(jit_config={...}): its keys and their values (MindSpore's)
_JIT_CONFIG_VALUES = {"jit_level": ("O0", "O1", "O2"), "infer_boost": ("on", "off")}

_DEFAULTS = {
    "mode": GRAPH_MODE,
    # A constant `for`/`while` longer than this becomes a Loop (where the body
    # allows it) instead of being unrolled.
    "max_unroll": 256,
    # Run the first call of each new input signature eagerly too and compare.
    "check_equivalence": False,
    # Show graphjit's own frames in tracebacks of build errors.
    "show_internal_frames": False,
    # Warn (RuntimeWarning) when a Cell compiles again for a new input signature.
    "warn_recompile": False,
    # Run the graph passes (graphjit.passes: folding, CSE, dead values, ...) on every
    # graph before it runs; off, graphs run as the front-end built them.
    "optimize_graphs": True,
    # Print each graph's node counts after every pass (to stderr), for debugging.
    "dump_passes": False,
    # Run each fused group of exactly rounded elementwise ops (and a max/min over its
    # result) as one compiled loop, with numba (the optional extra 'numba'); the bits
    # are numpy's (graphjit.backend.numba_tier). Applies to graphs compiled after it.
    "numba_kernels": False,
    # Where those kernels are cached across processes; None: $XDG_CACHE_HOME (or
    # ~/.cache)/graphjit/numba. A folder that cannot be written compiles in memory.
    "numba_cache_dir": None,
    # Accepted for MindSpore compatibility; they change nothing here.
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": False,
    "jit_syntax_level": LAX,          # MindSpore's default (STRICT, COMPATIBLE or LAX)
    "jit_config": {"jit_level": "", "infer_boost": "off"},
    "max_call_depth": 1000,
    "precompile_only": False,
    "enable_graph_kernel": False,
    "memory_optimize_level": "O0",
    "max_device_memory": "1024GB",
    "enable_compile_cache": False,
    "compile_cache_path": ".",
    "runtime_num_threads": 2,
    "pynative_synchronize": False,
}
_context = dict(_DEFAULTS)
# option -> a function called with its new value before it is set (it may raise): the
# layers below install them (backend.numba_tier imports numba when switched on)
_option_hooks: Dict[str, Callable[[Any], None]] = {}


def install_option_hook(key: str, hook: Callable[[Any], None]) -> None:
    """Call hook(value) whenever set_context sets this option (before setting it)."""
    _option_hooks[key] = hook


def set_context(**kwargs: Any) -> None:
    """Set options: mode (GRAPH_MODE or PYNATIVE_MODE), max_unroll, check_equivalence,
    show_internal_frames, warn_recompile, optimize_graphs, dump_passes, numba_kernels,
    numba_cache_dir; MindSpore's device options are accepted.

    MindSpore's compile knobs are accepted and validated as MindSpore does, and change
    nothing in what graphjit compiles or computes: jit_syntax_level (STRICT, COMPATIBLE
    or LAX; graphjit compiles the same at every level) and jit_config (a dict with keys
    jit_level in "O0"/"O1"/"O2" and infer_boost in "on"/"off"; get_context("jit_config")
    gives the merged dict).

    Raises:
        ValueError: a bad value, or an unknown option close to a known one (a typo);
            other unknown options (MindSpore device settings) only warn.
        TypeError: jit_config not a dict.
        ModuleNotFoundError: numba_kernels=True without numba (the extra 'numba').
    """
    # options with a hook last: it sees the others given in the same call
    for k, v in sorted(kwargs.items(), key=lambda kv: kv[0] in _option_hooks):
        if k not in _DEFAULTS:
            import difflib
            close = difflib.get_close_matches(k, list(_DEFAULTS), n=1, cutoff=0.85)
            if close:   # most likely a typo of one of ours
                raise ValueError(f"set_context: unknown option '{k}'; did you mean "
                                 f"'{close[0]}'?")
            # another of MindSpore's many device options: accepted, it changes nothing here
            import warnings
            warnings.warn(f"set_context: option '{k}' has no effect in graphjit",
                          UserWarning, stacklevel=2)
        if k == "mode" and v not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), "
                             f"got {v!r}")
        if k == "max_unroll" and (not isinstance(v, int) or v < 0):
            raise ValueError(f"set_context: max_unroll must be a non-negative int, got {v!r}")
        if k in ("optimize_graphs", "dump_passes", "numba_kernels") and \
                not isinstance(v, bool):
            raise ValueError(f"set_context: {k} must be True or False, got {v!r}")
        if k == "numba_cache_dir" and v is not None and not isinstance(v, (str, PathLike)):
            raise ValueError(f"set_context: numba_cache_dir must be a path or None, got {v!r}")
        if k == "jit_syntax_level" and (isinstance(v, bool) or v not in (STRICT, COMPATIBLE, LAX)):
            raise ValueError(f"For 'jit_syntax_level', the value should be context.STRICT, "
                             f"context.COMPATIBLE or context.LAX, but got {v!r}.")
        if k == "jit_config":
            v = _checked_jit_config(v)
        hook = _option_hooks.get(k)
        if hook is not None:
            hook(v)
        _context[k] = v


def _checked_jit_config(config) -> dict:
    if not isinstance(config, dict):
        raise TypeError(f"For 'set_context', the argument 'jit_config' must be a dict, but got "
                        f"{type(config).__name__}.")
    for key, value in config.items():
        allowed = _JIT_CONFIG_VALUES.get(key)
        if allowed is None:
            raise ValueError(f"For 'context.set_context', the key of argument 'jit_config' must "
                             f"be one of {list(_JIT_CONFIG_VALUES)}, but got {key!r}.")
        if value not in allowed:
            raise ValueError(f"For 'jit_config', the value of argument {key} must be one of "
                             f"{list(allowed)}, but got {value!r}.")
    merged = dict(_context["jit_config"])
    merged.update(config)
    return merged


def get_context(key: str) -> Any:
    """The value of one option (see set_context)."""
    try:
        value = _context[key]
    except KeyError:
        raise ValueError(f"get_context: unknown option '{key}'") from None
    return dict(value) if isinstance(value, dict) else value


def reset_context() -> None:
    """Restore every option's default (used by tests)."""
    _context.clear()
    _context.update(_DEFAULTS)



# -- the parallel context (MindSpore's set_auto_parallel_context) --------------------------
class ParallelMode:
    """How a job of several processes trains: STAND_ALONE (each process alone) or
    DATA_PARALLEL (each holds the whole model and its own shard of the data; the
    gradients are all-reduced before each update). MindSpore's model-parallel modes
    (SEMI_AUTO_PARALLEL, AUTO_PARALLEL, HYBRID_PARALLEL) are named but not supported."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL,
                 AUTO_PARALLEL]


_PARALLEL_DEFAULTS = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 1,             # unless set, the group's size is used
    "global_rank": 0,
    "parameter_broadcast": True,
    # the size in bytes of the buckets DistributedGradReducer fuses gradients into
    # (one all-reduce per bucket); 0: one all-reduce per gradient
    "comm_fusion_threshold": 25 * 1024 * 1024,
    # accepted for MindSpore compatibility; they change nothing here
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "search_mode": "dynamic_programming",
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
    "full_batch": False,
    "enable_parallel_optimizer": False,
    "all_reduce_fusion_config": [],
    "pipeline_stages": 1,
    "grad_accumulation_step": 1,
    "dataset_strategy": "data_parallel",
}
_parallel = dict(_PARALLEL_DEFAULTS)
_parallel_set: set = set()      # the options set_auto_parallel_context was given


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set the parallel options: parallel_mode (ParallelMode.STAND_ALONE or
    DATA_PARALLEL), gradients_mean (average the all-reduced gradients), device_num,
    global_rank, parameter_broadcast (Parameters from rank 0 when training starts),
    comm_fusion_threshold (bucket size in bytes); MindSpore's other options are accepted.

    Raises:
        ValueError: an unknown option or a bad value; a model-parallel mode.
    """
    for k, v in kwargs.items():
        if k not in _PARALLEL_DEFAULTS:
            raise ValueError(f"set_auto_parallel_context: unknown option '{k}'; the options "
                             f"are {', '.join(sorted(_PARALLEL_DEFAULTS))}")
        if k == "parallel_mode":
            if v not in ParallelMode.MODE_LIST:
                raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of "
                                 f"{ParallelMode.MODE_LIST}, got {v!r}")
            if v not in (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL):
                raise ValueError(f"set_auto_parallel_context: parallel_mode {v!r} (model "
                                 f"parallelism) is not supported by graphjit; use "
                                 f"ParallelMode.DATA_PARALLEL")
        if k in ("gradients_mean", "parameter_broadcast", "full_batch") and \
                not isinstance(v, bool):
            raise ValueError(f"set_auto_parallel_context: {k} must be True or False, got {v!r}")
        if k in ("device_num", "global_rank", "comm_fusion_threshold") and (
                isinstance(v, bool) or not isinstance(v, int) or v < (1 if k == "device_num"
                                                                      else 0)):
            raise ValueError(f"set_auto_parallel_context: {k} must be a "
                             f"{'positive' if k == 'device_num' else 'non-negative'} int, "
                             f"got {v!r}")
        _parallel[k] = v
        _parallel_set.add(k)


def auto_parallel_context_is_set(attr_key: str) -> bool:
    """Whether set_auto_parallel_context set this option (device_num: the group's size
    is used unless it was set, as MindSpore's _get_device_num)."""
    return attr_key in _parallel_set


def get_auto_parallel_context(attr_key: str) -> Any:
    """The value of one parallel option (see set_auto_parallel_context)."""
    try:
        return _parallel[attr_key]
    except KeyError:
        raise ValueError(f"get_auto_parallel_context: unknown option '{attr_key}'") from None


def reset_auto_parallel_context() -> None:
    """Every parallel option back to its default (STAND_ALONE)."""
    _parallel.clear()
    _parallel.update(_PARALLEL_DEFAULTS)
    _parallel_set.clear()


# -- the compiler, as the layers below it reach it ----------------------------------------
class _Compiler:
    """The compile entry points nn.Cell calls in graph mode. The compiler (graphjit.jit)
    sits above nn and imports it, so it installs these at import (install_compiler),
    as JAX's interpreters set the trace context its core reads."""

    def call_cell(self, cell, args, kwargs):
        """Run a Cell's construct as a compiled graph (Cell.__call__ in graph mode)."""
        raise RuntimeError("graphjit.jit is not imported: import graphjit")

    def cell_cache(self, cell):
        """The compiled entries of a Cell, oldest first (Cell.compile_cache)."""
        raise RuntimeError("graphjit.jit is not imported: import graphjit")

    def call_grad(self, grad_function, args, kwargs):
        """Run a gradient function (ops.function.grad.grad_func.GradFunction) in graph mode."""
        raise RuntimeError("graphjit.jit is not imported: import graphjit")


compiler = _Compiler()


def install_compiler(call_cell, cell_cache) -> None:
    """Set the functions behind compiler.call_cell and compiler.cell_cache."""
    compiler.call_cell = call_cell
    compiler.cell_cache = cell_cache
