"""MindSpore's `mindspore.communication` over MPI: init, release, ranks and groups.

    from graphjit.communication import init, get_rank, get_group_size
    init()                       # mpirun -n 4 python train.py: a world of 4 processes
    rank, size = get_rank(), get_group_size()

Launched by mpirun (Open MPI), init() joins the MPI world through mpi4py (the extra
`graphjit[mpi]`); run plainly, it makes a one-process world (MindSpore's standalone
mode), with no need for mpi4py. The collectives (ops.AllReduce, ...) run over the
world installed here.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional

from ..extras import install_hint
from ..ir.defs import collective as _coll

__all__ = ["init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group", "get_group_rank_from_world_rank",
           "get_world_rank_from_group_rank", "get_process_group_ranks", "set_timeout",
           "GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP", "is_initialized", "launched_by_mpi"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_BACKENDS = (None, "mpi", "mccl")
# what MPI launchers put in the environment of the processes they start
_LAUNCH_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")


class GlobalComm:
    """MindSpore's GlobalComm: the backend and the world group's name."""
    BACKEND = "mpi"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False


class _State:
    world = None                       # MPIWorld, or None for the one-process world
    groups: Dict[str, object] = {}     # group name -> MPIWorld (None: not a member)
    group_ranks: Dict[str, List[int]] = {}
    timeout = None


def launched_by_mpi() -> bool:
    """Whether an MPI launcher (mpirun, mpiexec, srun with PMI) started this process."""
    return any(v in os.environ for v in _LAUNCH_VARS)


def set_timeout(seconds: float) -> None:
    """How long a collective waits for the other processes before it raises
    CollectiveTimeoutError (300 s unless set); a process that fails is reported at
    once, whatever this is."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise ValueError(f"set_timeout: seconds must be a positive number, got {seconds!r}")
    _State.timeout = float(seconds)
    for g in [_State.world] + list(_State.groups.values()):
        if g is not None:
            g.timeout = float(seconds)


def init(backend_name: Optional[str] = None) -> None:
    """Join the world of processes this one was launched with.

    Args:
        backend_name: None or "mpi" (also MindSpore's CPU backend name "mccl"): graphjit
            runs its collectives over MPI on CPUs.

    Raises:
        ValueError: another backend ("hccl", "nccl": Ascend and GPU).
        ImportError: launched by mpirun without mpi4py installed.
    """
    if backend_name not in _BACKENDS:
        raise ValueError(f"init: backend_name {backend_name!r} is not available; graphjit's "
                         f"collectives run on CPUs over MPI: pass None or 'mpi' "
                         f"('hccl' and 'nccl' are Ascend's and GPU's)")
    if GlobalComm.INITED:
        return
    if launched_by_mpi():
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError(
                f"graphjit.communication.init: this process was launched by an MPI launcher "
                f"but mpi4py is not installed: it is the optional extra 'mpi'. Install it "
                f"with: {install_hint('mpi')}; it needs an MPI library (Debian/Ubuntu: "
                f"apt-get install openmpi-bin libopenmpi-dev)") from e
        from .mpi_world import DEFAULT_TIMEOUT, MPIWorld
        world = MPIWorld(MPI.COMM_WORLD.Dup(), _State.timeout or DEFAULT_TIMEOUT)
        world.install_fault_handlers()
        _State.world = world
        _coll.set_communicator(HCCL_WORLD_COMM_GROUP, world)
    GlobalComm.INITED = True


def release() -> None:
    """Leave the world: the collectives run over one process again. (The MPI library
    itself is finalized when the process exits.)"""
    for name in list(_State.groups):
        _coll.remove_communicator(name)
    _State.groups.clear()
    _State.group_ranks.clear()
    _coll.set_communicator(HCCL_WORLD_COMM_GROUP, None)
    _State.world = None
    GlobalComm.INITED = False


def is_initialized() -> bool:
    return GlobalComm.INITED


def _need_init(fn: str) -> None:
    if not GlobalComm.INITED:
        raise RuntimeError(f"{fn}: the communication is not initialized; call "
                           f"graphjit.communication.init() first")


def _group(fn: str, group: Optional[str]):
    _need_init(fn)
    group = HCCL_WORLD_COMM_GROUP if group is None else group
    if not isinstance(group, str):
        raise TypeError(f"{fn}: group must be a str, got {type(group).__name__}")
    if group in _coll.WORLD_ALIASES:
        return _coll.communicator(HCCL_WORLD_COMM_GROUP)
    if group not in _State.group_ranks:
        raise ValueError(f"{fn}: the group {group!r} does not exist; make it with "
                         f"create_group({group!r}, rank_ids)")
    comm = _State.groups.get(group)
    if comm is None:
        raise ValueError(f"{fn}: this process (rank {get_rank()}) is not in the group "
                         f"{group!r} (ranks {_State.group_ranks[group]})")
    return comm


def get_rank(group: Optional[str] = None) -> int:
    """This process's rank in the group (the world unless named)."""
    return _group("get_rank", group).rank


def get_group_size(group: Optional[str] = None) -> int:
    """The number of processes in the group (the world unless named)."""
    return _group("get_group_size", group).size


def get_local_rank(group: Optional[str] = None) -> int:
    """This process's rank among those of its machine."""
    _group("get_local_rank", group)
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", 0))


def get_local_rank_size(group: Optional[str] = None) -> int:
    """The number of processes on this machine."""
    _group("get_local_rank_size", group)
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", 1))


def create_group(group: str, rank_ids) -> None:
    """Make a group of these world ranks. Every process of the world calls it (MPI
    makes the group's communicator together)."""
    _need_init("create_group")
    if not isinstance(group, str) or not group or group in _coll.WORLD_ALIASES:
        raise ValueError(f"create_group: group must be a new non-empty name, got {group!r}")
    if group in _State.group_ranks:
        raise ValueError(f"create_group: the group {group!r} exists already")
    ranks = [int(r) for r in rank_ids]
    size = get_group_size()
    if not ranks or len(set(ranks)) != len(ranks) or any(not 0 <= r < size for r in ranks):
        raise ValueError(f"create_group: rank_ids must be distinct ranks of the world "
                         f"(0..{size - 1}), got {list(rank_ids)}")
    if _State.world is None:
        comm = _coll.communicator(HCCL_WORLD_COMM_GROUP) if ranks == [0] else None
    else:
        comm = _State.world.subgroup(ranks)
    _State.group_ranks[group] = ranks
    _State.groups[group] = comm
    if comm is not None:
        _coll.set_communicator(group, comm)


def destroy_group(group: str) -> None:
    _need_init("destroy_group")
    if group not in _State.group_ranks:
        raise ValueError(f"destroy_group: the group {group!r} does not exist")
    _State.group_ranks.pop(group)
    _State.groups.pop(group, None)
    _coll.remove_communicator(group)


def get_process_group_ranks(group: Optional[str] = None) -> List[int]:
    _need_init("get_process_group_ranks")
    if group is None or group in _coll.WORLD_ALIASES:
        return list(range(get_group_size()))
    if group not in _State.group_ranks:
        raise ValueError(f"get_process_group_ranks: the group {group!r} does not exist")
    return list(_State.group_ranks[group])


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    ranks = get_process_group_ranks(group)
    if world_rank_id not in ranks:
        raise ValueError(f"get_group_rank_from_world_rank: world rank {world_rank_id} is not "
                         f"in the group {group!r} (ranks {ranks})")
    return ranks.index(world_rank_id)


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"get_world_rank_from_group_rank: the group {group!r} has ranks "
                         f"0..{len(ranks) - 1}, got {group_rank_id}")
    return ranks[group_rank_id]
