"""MindSpore's `mindspore.parallel._auto_parallel_context`: auto_parallel_context(), the
object behind get_auto_parallel_context, with the getters model-zoo code calls."""
from __future__ import annotations

from ..context import (auto_parallel_context_is_set, get_auto_parallel_context,
                       set_auto_parallel_context, reset_auto_parallel_context)

__all__ = ["auto_parallel_context"]


class _AutoParallelContext:
    def get_device_num_is_set(self):
        return auto_parallel_context_is_set("device_num")

    def get_global_rank_is_set(self):
        return auto_parallel_context_is_set("global_rank")

    def get_parallel_mode(self):
        return get_auto_parallel_context("parallel_mode")

    def get_device_num(self):
        return get_auto_parallel_context("device_num")

    def get_global_rank(self):
        return get_auto_parallel_context("global_rank")

    def get_gradients_mean(self):
        return get_auto_parallel_context("gradients_mean")

    def get_full_batch(self):
        return get_auto_parallel_context("full_batch")

    def get_enable_parallel_optimizer(self):
        return get_auto_parallel_context("enable_parallel_optimizer")

    def get_pipeline_stages(self):
        return get_auto_parallel_context("pipeline_stages")

    def set_parallel_mode(self, mode):
        set_auto_parallel_context(parallel_mode=mode)

    def reset(self):
        reset_auto_parallel_context()


_CONTEXT = _AutoParallelContext()


def auto_parallel_context():
    """The auto-parallel context object (one per process)."""
    return _CONTEXT
