"""MindSpore's `mindspore.ops.operations.comm_ops`: the collective primitives
(`ops.AllReduce`, AllGather, Broadcast, ReduceScatter, ReduceOp) over the group
installed by graphjit.communication.

Eagerly a collective exchanges data with the other processes at once; in a graph
being built it is recorded on the state token (graphjit.ir.defs.collective), so it
runs in program order when the graph runs. Every process must issue the same
collectives in the same order.
"""
from __future__ import annotations

from ...common.tensor import SymbolicTensor, current_recorder
from ...ir.defs.collective import REDUCE_OPS, WORLD_GROUP
from .._dispatch import apply, apply_update, to_tensor
from ..primitive import Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "Broadcast", "ReduceScatter"]


class ReduceOp:
    """How AllReduce and ReduceScatter combine the processes' values."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _group(prim: str, group) -> str:
    if not isinstance(group, str):
        raise TypeError(f"For '{prim}', the 'group' must be a str, got "
                        f"{type(group).__name__}")
    return group


def _reduce_op(prim: str, op) -> str:
    if op not in REDUCE_OPS:
        raise TypeError(f"For '{prim}', the 'op' must be one of ReduceOp.SUM, ReduceOp.MAX, "
                        f"ReduceOp.MIN, ReduceOp.PROD, got {op!r}")
    return op


def _run(prim: str, x, **attrs):
    """Run or record collective `prim` on x: in a graph being built, chained on the state
    token; eagerly, now (and on the gradient tape when one records)."""
    x = to_tensor(x)
    if current_recorder() is not None or isinstance(x, SymbolicTensor):
        return apply_update(prim, x, **attrs)
    return apply(prim, x, **attrs)


def all_reduce(x, op=ReduceOp.SUM, group=WORLD_GROUP):
    """x reduced over the processes of the group; every process gets the result."""
    return _run("AllReduce", x, reduction=_reduce_op("AllReduce", op),
                group=_group("AllReduce", group))


def all_gather(x, group=WORLD_GROUP):
    """Every process's x concatenated along axis 0, in rank order."""
    return _run("AllGather", x, group=_group("AllGather", group))


def reduce_scatter(x, op=ReduceOp.SUM, group=WORLD_GROUP):
    """x reduced over the group and split along axis 0; process r gets block r."""
    return _run("ReduceScatter", x, reduction=_reduce_op("ReduceScatter", op),
                group=_group("ReduceScatter", group))


def broadcast(x, root_rank=0, group=WORLD_GROUP):
    """Process root_rank's x on every process of the group."""
    return _run("Broadcast", x, root_rank=root_rank, group=_group("Broadcast", group))


class AllReduce(Primitive):
    """AllReduce(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x)."""

    def __init__(self, op=ReduceOp.SUM, group=WORLD_GROUP):
        super().__init__(op=op, group=group)
        self.op = _reduce_op("AllReduce", op)
        self.group = _group("AllReduce", group)

    def __call__(self, x):
        return all_reduce(x, self.op, self.group)


class AllGather(Primitive):
    """AllGather(group=GlobalComm.WORLD_COMM_GROUP)(x): concatenated along axis 0."""

    def __init__(self, group=WORLD_GROUP):
        super().__init__(group=group)
        self.group = _group("AllGather", group)

    def __call__(self, x):
        return all_gather(x, self.group)


class ReduceScatter(Primitive):
    """ReduceScatter(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x)."""

    def __init__(self, op=ReduceOp.SUM, group=WORLD_GROUP):
        super().__init__(op=op, group=group)
        self.op = _reduce_op("ReduceScatter", op)
        self.group = _group("ReduceScatter", group)

    def __call__(self, x):
        return reduce_scatter(x, self.op, self.group)


class Broadcast(Primitive):
    """Broadcast(root_rank, group=GlobalComm.WORLD_COMM_GROUP)(input_x): input_x is a
    tuple of tensors (MindSpore's signature; one tensor is taken too); returns the
    root's, as a tuple."""

    def __init__(self, root_rank, group=WORLD_GROUP):
        super().__init__(root_rank=root_rank, group=group)
        if isinstance(root_rank, bool) or not isinstance(root_rank, int) or root_rank < 0:
            raise TypeError(f"For 'Broadcast', the 'root_rank' must be a non-negative int, "
                            f"got {root_rank!r}")
        self.root_rank = root_rank
        self.group = _group("Broadcast", group)

    def __call__(self, input_x):
        if isinstance(input_x, (tuple, list)):
            return tuple(broadcast(x, self.root_rank, self.group) for x in input_x)
        return broadcast(input_x, self.root_rank, self.group)
