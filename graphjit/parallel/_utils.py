"""MindSpore's `mindspore.parallel._utils` helpers that training cells of the model zoo
call (TrainOneStep wrappers read the parallel mode, the device count and gradients_mean
through them)."""
from __future__ import annotations

from ..context import ParallelMode, auto_parallel_context_is_set, get_auto_parallel_context

__all__ = ["_get_parallel_mode", "_get_gradients_mean", "_get_device_num", "_get_global_rank",
           "_is_in_auto_parallel_mode", "_get_enable_parallel_optimizer",
           "_get_pipeline_stages", "_get_full_batch"]


def _get_parallel_mode():
    return get_auto_parallel_context("parallel_mode")


def _get_gradients_mean():
    return get_auto_parallel_context("gradients_mean")


def _get_device_num():
    """device_num if set, else the size of the communication group (1 without init)."""
    if auto_parallel_context_is_set("device_num"):
        return get_auto_parallel_context("device_num")
    from ..communication.management import get_group_size
    try:
        return get_group_size()
    except RuntimeError:
        return 1


def _get_global_rank():
    from ..communication.management import get_rank
    try:
        return get_rank()
    except RuntimeError:
        return 0


def _is_in_auto_parallel_mode():
    return _get_parallel_mode() in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)


def _get_enable_parallel_optimizer():
    return get_auto_parallel_context("enable_parallel_optimizer")


def _get_pipeline_stages():
    return get_auto_parallel_context("pipeline_stages")


def _get_full_batch():
    return get_auto_parallel_context("full_batch")
