"""Data-parallel training (MindSpore's `mindspore.nn.wrap.grad_reducer`:
`nn.DistributedGradReducer`): the gradients of
every process all-reduced (and averaged with `mean`) before the optimizer's update,
fused into buckets so that small gradients travel together.

    grads = self.grad(self.network, self.weights)(*inputs)
    grads = self.grad_reducer(grads)     # DistributedGradReducer(self.weights, True, 4)
    self.optimizer(grads)

A bucket holds consecutive gradients of one dtype up to `comm_fusion_threshold`
bytes (set_auto_parallel_context; 25 MB unless set, 0: one message per gradient):
they are flattened, concatenated, all-reduced in one message and split back. The
buckets depend only on the Parameters' shapes and dtypes, so every process makes the
same ones and issues the same all-reduces in the same order.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...communication import get_group_size
from ...context import ParallelMode, auto_parallel_context_is_set, get_auto_parallel_context
from ...ir.defs.collective import WORLD_GROUP, communicator
from ..cell import Cell

__all__ = ["DistributedGradReducer", "broadcast_parameters", "plan_buckets",
           "data_parallel_reducer"]


def plan_buckets(params: Sequence[Parameter], threshold: int) -> Tuple[Tuple[int, ...], ...]:
    """Consecutive runs of parameter indices of one dtype, each under `threshold`
    bytes (a gradient larger than it alone); threshold 0: one bucket per gradient."""
    buckets: List[List[int]] = []
    size, dtype = 0, None
    for i, p in enumerate(params):
        nbytes = int(np.prod(p.shape, dtype=np.int64)) * p.dtype.np.itemsize
        if buckets and threshold > 0 and p.dtype is dtype and size + nbytes <= threshold:
            buckets[-1].append(i)
            size += nbytes
        else:
            buckets.append([i])
            size, dtype = nbytes, p.dtype
    return tuple(tuple(b) for b in buckets)


class DistributedGradReducer(Cell):
    """The gradients of `parameters` summed over the processes of `group` (averaged
    when `mean`), in buckets of `comm_fusion_threshold` bytes.

    Args:
        parameters: the Parameters whose gradients construct takes, in that order.
        mean: divide by `degree` (None: get_auto_parallel_context("gradients_mean")).
        degree: the number of processes (None: get_group_size(group)).
        fusion_type: accepted for MindSpore compatibility.
        group: the communication group.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=WORLD_GROUP):
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if not all(isinstance(p, Parameter) for p in params):
            raise TypeError("DistributedGradReducer: parameters must be Parameters "
                            "(net.trainable_params())")
        if mean is None:
            mean = get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"DistributedGradReducer: mean must be a bool, got {mean!r}")
        if degree is None:
            degree = get_group_size(group)
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got "
                             f"{degree!r}")
        self.mean, self.degree, self.group = mean, degree, group
        self.shapes = tuple(tuple(p.shape) for p in params)
        self.sizes = tuple(int(np.prod(s, dtype=np.int64)) for s in self.shapes)
        self.buckets = plan_buckets(params, get_auto_parallel_context("comm_fusion_threshold"))
        self.allreduce = ops.AllReduce(ops.ReduceOp.SUM, group)
        self.scale = 1.0 / degree

    def construct(self, grads):
        out = []
        for bucket in self.buckets:
            if len(bucket) == 1:
                out.append(self._finish(self.allreduce(grads[bucket[0]])))
            else:
                flat = ops.concat([ops.reshape(grads[i], (self.sizes[i],)) for i in bucket])
                total = self._finish(self.allreduce(flat))
                start = 0
                for i in bucket:
                    out.append(ops.reshape(total[start:start + self.sizes[i]],
                                           self.shapes[i]))
                    start += self.sizes[i]
        return tuple(out)

    def _finish(self, g):
        if self.mean:
            return g * self.scale
        return g


def broadcast_parameters(params: Sequence[Parameter], root: int = 0,
                         group: str = WORLD_GROUP) -> None:
    """Give every process the values process `root` has (one message per dtype)."""
    comm = communicator(group)
    if comm.size == 1:
        return
    by_dtype = {}
    for p in params:
        by_dtype.setdefault(p.dtype, []).append(p)
    for dtype, ps in by_dtype.items():
        flat = np.concatenate([np.asarray(p.asnumpy()).reshape(-1) for p in ps]) if ps else \
            np.zeros(0, dtype.np)
        flat = comm.broadcast(flat, root, "parameter broadcast")
        start = 0
        for p in ps:
            n = int(np.prod(p.shape, dtype=np.int64))
            p._set_data_unchecked(flat[start:start + n].reshape(tuple(p.shape)).copy())
            start += n


def data_parallel_reducer(network: Cell, weights) -> Cell:
    """What TrainOneStepCell reduces its gradients with: in DATA_PARALLEL mode, a
    DistributedGradReducer over device_num processes (the group's size unless set),
    the network's Parameters broadcast from rank 0 first when parameter_broadcast is
    set; otherwise None."""
    if get_auto_parallel_context("parallel_mode") != ParallelMode.DATA_PARALLEL:
        return None
    if get_auto_parallel_context("parameter_broadcast"):
        broadcast_parameters(list(network.get_parameters()))
    degree = get_auto_parallel_context("device_num") if \
        auto_parallel_context_is_set("device_num") else get_group_size()
    return DistributedGradReducer(weights, get_auto_parallel_context("gradients_mean"), degree)
