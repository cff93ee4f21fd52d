"""Collective operators across the processes of a group: AllReduce, AllGather, Broadcast,
ReduceScatter (MindSpore's `ops.AllReduce`...), with their gradients.

Every process of the group must issue the same collectives in the same order. A
collective is an effect ("collective"): no pass removes, merges, duplicates or moves
it. Written by the user it takes the state token and gives the next one, like Assign,
so its place among the Parameter reads and updates is data flow too:

    %g, %state_1: state = AllReduce(%grad, %state) reduction='sum'
    %state_2: state = Assign(%w, %new, %state_1)

The token is optional (`*state`): the collectives the gradient rules add to a backward
program (which holds no state) have none and keep their order as effects.

The ops run over a *communicator* looked up by group name when the kernel runs:
anything with `rank`, `size` and the methods of SingleProcess below. The world group
is the one process itself until graphjit.communication.init() installs the MPI world
(set_communicator); this module imports nothing else of graphjit.
"""
from __future__ import annotations

from typing import Dict

import numpy as np

from ..registry import register_op, set_grad
from ..types import STATE, TensorType
from .common import fail

__all__ = ["COLLECTIVE_OPS", "REDUCE_OPS", "WORLD_GROUP", "WORLD_ALIASES", "SingleProcess",
           "set_communicator", "communicator", "remove_communicator", "group_size"]

REDUCE_OPS = ("sum", "max", "min", "prod")
WORLD_GROUP = "hccl_world_group"
# MindSpore names the world group after the backend (HCCL, NCCL, MCCL): each is ours
WORLD_ALIASES = frozenset({WORLD_GROUP, "nccl_world_group", "mccl_world_group"})
COLLECTIVE_OPS = frozenset({"AllReduce", "AllGather", "Broadcast", "ReduceScatter"})


class SingleProcess:
    """The one-process world (a plain run, MindSpore's standalone mode): every
    collective gives back its input."""

    rank = 0
    size = 1

    def all_reduce(self, x: np.ndarray, op: str, where: str) -> np.ndarray:
        return np.array(x)

    def all_gather(self, x: np.ndarray, where: str) -> np.ndarray:
        return np.array(x)

    def broadcast(self, x: np.ndarray, root: int, where: str) -> np.ndarray:
        return np.array(x)

    def reduce_scatter(self, x: np.ndarray, op: str, where: str) -> np.ndarray:
        return np.array(x)


_GROUPS: Dict[str, object] = {}
_SINGLE = SingleProcess()


def set_communicator(group: str, comm) -> None:
    """Run the collectives of `group` over comm (None: back to one process)."""
    names = WORLD_ALIASES if group in WORLD_ALIASES else (group,)
    for n in names:
        if comm is None:
            _GROUPS.pop(n, None)
        else:
            _GROUPS[n] = comm


def remove_communicator(group: str) -> None:
    set_communicator(group, None)


def communicator(group: str):
    """The communicator of a group (the one-process world when none is installed).

    Raises:
        ValueError: a group other than the world that create_group did not make.
    """
    c = _GROUPS.get(group)
    if c is not None:
        return c
    if group in WORLD_ALIASES:
        return _SINGLE
    raise ValueError(f"the communication group {group!r} does not exist; make it with "
                     f"graphjit.communication.create_group({group!r}, rank_ids) first")


def group_size(group: str) -> int:
    return communicator(group).size


# -- inference and kernels ---------------------------------------------------------------------
def _split(ts):
    """(the tensor input's type, whether a token came)."""
    if len(ts) > 2:
        raise fail("collective", f"takes one tensor and at most one state token, got "
                                 f"{len(ts)} inputs")
    return ts[0], len(ts) == 2


def _check_group(op, attrs):
    g = attrs["group"]
    if not isinstance(g, str):
        raise fail(op, f"group must be a str, got {g!r}")
    try:
        return communicator(g)
    except ValueError as e:
        raise fail(op, str(e)) from None


def _check_op(op, attrs):
    if attrs["reduction"] not in REDUCE_OPS:
        raise fail(op, f"reduction must be one of {', '.join(REDUCE_OPS)} (ReduceOp.SUM, ...), got "
                       f"{attrs['op']!r}")


def _check_x(op, t: TensorType):
    if t.kind != "tensor":
        raise fail(op, f"x must be a tensor, got {t}")
    if t.dtype.is_bool:
        raise fail(op, f"x must be a number tensor, got {t}", hint="cast it to int32 first")


def _with_token(out, tok):
    return (out, STATE) if tok else out


def _first_dim_times(op, t: TensorType, k: int, divide: bool) -> TensorType:
    if t.shape is None:
        return t
    if len(t.shape) == 0:
        raise fail(op, f"x must have at least one dimension, got {t}")
    d = t.shape[0]
    if d is not None:
        if divide:
            if d % k:
                raise fail(op, f"the first dim of x ({d}) must be divisible by the group "
                               f"size ({k})")
            d //= k
        else:
            d *= k
    return TensorType(t.dtype, (d,) + tuple(t.shape[1:]))


def _all_reduce_infer(ts, attrs):
    t, tok = _split(ts)
    _check_x("AllReduce", t)
    _check_op("AllReduce", attrs)
    _check_group("AllReduce", attrs)
    return _with_token(t, tok)


def _all_gather_infer(ts, attrs):
    t, tok = _split(ts)
    _check_x("AllGather", t)
    comm = _check_group("AllGather", attrs)
    return _with_token(_first_dim_times("AllGather", t, comm.size, False), tok)


def _reduce_scatter_infer(ts, attrs):
    t, tok = _split(ts)
    _check_x("ReduceScatter", t)
    _check_op("ReduceScatter", attrs)
    comm = _check_group("ReduceScatter", attrs)
    return _with_token(_first_dim_times("ReduceScatter", t, comm.size, True), tok)


def _broadcast_infer(ts, attrs):
    t, tok = _split(ts)
    _check_x("Broadcast", t)
    comm = _check_group("Broadcast", attrs)
    root = attrs["root_rank"]
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or \
            not 0 <= root < comm.size:
        raise fail("Broadcast", f"root_rank must be an int in [0, {comm.size}), got {root!r}")
    return _with_token(t, tok)


def _contiguous(x):
    """x as a C-contiguous array of its own shape (np.ascontiguousarray makes 0-d 1-d)."""
    x = np.asarray(x)
    return x if x.flags.c_contiguous else np.array(x, order="C")


def _factory(run):
    def factory(in_types, out_types, attrs):
        dtype = out_types[0].dtype.np
        group, where = attrs["group"], attrs.get("name") or ""
        built = communicator(group).size    # the output types were inferred for it

        def k(x, *tok):
            comm = communicator(group)
            if comm.size != built:
                raise RuntimeError(
                    f"{where or 'the collective'}: this graph was built for a group "
                    f"{group!r} of {built} process(es) but it now has {comm.size}; build it "
                    f"again after graphjit.communication.init() (call init() before the "
                    f"first call of a model with collectives)")
            out = np.asarray(run(comm, _contiguous(x), attrs, where), dtype=dtype)
            return (out, tok[0]) if tok else out
        return k
    return factory


_COMMON = {"group": WORLD_GROUP, "name": ""}


def _register(name, attrs, infer, run, doc):
    register_op(name, ("x", "*state: state"), dict(attrs, **_COMMON), infer=infer,
                kernel_factory=_factory(run), exact_dtype=True, family="extern",
                effects="collective", doc=doc)


_register("AllReduce", {"reduction": "sum"}, _all_reduce_infer,
          lambda c, x, a, w: c.all_reduce(x, a["reduction"], w or "AllReduce"),
          "x reduced (op: sum, max, min, prod) over the processes of the group; every "
          "process gets the result")
_register("AllGather", {}, _all_gather_infer,
          lambda c, x, a, w: c.all_gather(x, w or "AllGather"),
          "the x of every process of the group concatenated along axis 0, in rank order")
_register("Broadcast", {"root_rank": 0}, _broadcast_infer,
          lambda c, x, a, w: c.broadcast(x, int(a["root_rank"]), w or "Broadcast"),
          "the x of process root_rank, on every process of the group")
_register("ReduceScatter", {"reduction": "sum"}, _reduce_scatter_infer,
          lambda c, x, a, w: c.reduce_scatter(x, a["reduction"], w or "ReduceScatter"),
          "x reduced over the group, split along axis 0 into group-size blocks; process r "
          "gets block r")


# -- gradients (MindSpore's bprops, grad_comm_ops.py) ---------------------------------------
def _attrs(n, **kw):
    return dict({"group": n.attrs["group"], "name": ""}, **kw)


def _all_reduce_grad(b, n):
    none = [None] * (len(n.in_types) - 1)
    if not n.differentiable(0) or n.g is None:
        return [None] + none
    op = n.attrs["reduction"]
    if op == "sum":
        dx = b.apply("AllReduce", n.g, **_attrs(n, reduction="sum"))
    elif op == "prod":
        dx = b.div(b.apply("AllReduce", b.mul(n.g, n.y(0)), **_attrs(n, reduction="sum")), n.x(0))
    else:   # max, min: the reduced adjoint where x is the extremum
        dx = b.apply("AllReduce", n.g, **_attrs(n, reduction="sum"))
        hit = b.cast(b.apply("Equal", n.x(0), n.y(0)), n.out_types[0].dtype)
        dx = b.mul(dx, hit)
    return [n.like(dx, 0)] + none


def _all_gather_grad(b, n):
    none = [None] * (len(n.in_types) - 1)
    if not n.differentiable(0) or n.g is None:
        return [None] + none
    return [n.like(b.apply("ReduceScatter", n.g, **_attrs(n, reduction="sum")), 0)] + none


def _reduce_scatter_grad(b, n):
    none = [None] * (len(n.in_types) - 1)
    if not n.differentiable(0) or n.g is None:
        return [None] + none
    if n.attrs["reduction"] != "sum":
        raise fail("ReduceScatter",
                   f"the gradient of ReduceScatter(op={n.attrs['reduction']!r}) is not "
                   f"defined (MindSpore too differentiates only ReduceOp.SUM)")
    return [n.like(b.apply("AllGather", n.g, **_attrs(n)), 0)] + none


def _broadcast_grad(b, n):
    # MindSpore's bprop: the adjoint passes through unchanged on every process
    none = [None] * (len(n.in_types) - 1)
    return [n.g if n.differentiable(0) else None] + none


set_grad("AllReduce", _all_reduce_grad)
set_grad("AllGather", _all_gather_grad)
set_grad("ReduceScatter", _reduce_scatter_grad)
set_grad("Broadcast", _broadcast_grad)
