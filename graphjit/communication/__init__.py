"""`mindspore.communication`: the processes of a data-parallel job and their groups,
over MPI (`pip install 'graphjit[mpi]'`; see graphjit.communication.management).
Importing it needs no mpi4py: init() imports it when mpirun launched the process."""
from __future__ import annotations

from .management import (GlobalComm, HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,
                         NCCL_WORLD_COMM_GROUP, create_group, destroy_group,
                         get_group_rank_from_world_rank, get_group_size, get_local_rank,
                         get_local_rank_size, get_process_group_ranks, get_rank,
                         get_world_rank_from_group_rank, init, is_initialized,
                         launched_by_mpi, release, set_timeout)
from .mpi_world import CollectiveTimeoutError, PeerFailedError
from ..ir.uniformity import CollectiveControlError

__all__ = ["init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group",
           "get_group_rank_from_world_rank", "get_world_rank_from_group_rank",
           "get_process_group_ranks", "set_timeout", "is_initialized", "launched_by_mpi",
           "GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP", "PeerFailedError", "CollectiveTimeoutError",
           "CollectiveControlError"]

