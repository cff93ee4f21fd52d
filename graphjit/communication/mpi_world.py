"""The MPI world: collectives over mpi4py, waited for with a deadline, and what a
process does when another one fails.

Every collective is a nonblocking MPI request (Iallreduce, Iallgather, Ibcast,
Ireduce_scatter_block) polled until it completes, so a process waiting for the others
notices, while it waits,
- an error report: a process that raises an uncaught exception tells every other one
  (a message on a communicator of its own) before it exits non-zero; the others stop
  with PeerFailedError naming it and its error;
- the deadline (`set_timeout`, 300 s unless set): CollectiveTimeoutError, naming the
  collective, and the processes known to be gone.
A process that dies without a word (killed) makes the launcher (mpirun) terminate the
others; each then says, before it exits non-zero, which processes are gone (those on
its own machine are checked by process id) and that the launcher stopped the job.
"""
from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
import traceback
from typing import List, Optional

import numpy as np

__all__ = ["MPIWorld", "PeerFailedError", "CollectiveTimeoutError", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 300.0
_ERROR_TAG = 7707
_ACK_TAG = 7708
# a report is sent to every other process, then the failing one waits this long for
# them to pick it up before it stops the job (mpirun ends the others when one fails)
_REPORT_GRACE = 3.0


class PeerFailedError(RuntimeError):
    """Another process of the group failed; names it (`rank`) and what it reported."""

    def __init__(self, msg: str, rank: Optional[int] = None):
        super().__init__(msg)
        self.rank = rank


class CollectiveTimeoutError(TimeoutError):
    """A collective did not complete before the deadline."""


def _mpi():
    from mpi4py import MPI
    return MPI


def _peer_failure(e: BaseException):
    """The PeerFailedError that caused e (graph runs wrap what a kernel raises)."""
    seen = 0
    while e is not None and seen < 20:
        if isinstance(e, PeerFailedError):
            return e
        e, seen = e.__cause__ or e.__context__, seen + 1
    return None


class MPIWorld:
    """A communicator (graphjit.ir.defs.collective's protocol) over an MPI
    communicator: rank, size, all_reduce, all_gather, broadcast, reduce_scatter."""

    def __init__(self, comm, timeout: float, root: "MPIWorld" = None):
        MPI = _mpi()
        self.MPI = MPI
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.timeout = timeout
        self.root = root or self              # the world: its error channel and peers
        self.issued = 0                       # collectives issued (named in errors)
        self.seconds = 0.0                    # spent waiting for them (for benchmarks)
        self._ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
        if root is None:
            self.errors = comm.Dup()           # error reports travel apart from the data
            me = (socket.gethostname(), os.getpid())
            self.peers = comm.allgather(me)    # (host, pid) of each rank
            self.failed = False
            self.world_ranks = list(range(self.size))

    # -- waiting -------------------------------------------------------------------------
    def _wait(self, req, what: str) -> None:
        self.issued += 1
        t0 = time.perf_counter()
        try:
            self._poll(req, what)
        finally:
            self.seconds += time.perf_counter() - t0

    def _poll(self, req, what: str) -> None:
        deadline = time.monotonic() + self.timeout
        pause, polls = 0.0, 0
        while not req.Test():
            self.root.check_reports()
            if time.monotonic() > deadline:
                gone = self.root.gone()
                raise CollectiveTimeoutError(
                    f"rank {self.root.rank}: {what} (collective #{self.issued} of this "
                    f"process) did not complete within {self.timeout:g} s"
                    + (f"; gone: {', '.join(f'rank {r}' for r in gone)}" if gone else
                       "; some process of the group did not issue it (a process that "
                       "hangs, or processes issuing different collectives)"))
            time.sleep(pause)       # yield first; back off to 1 ms while others compute
            polls += 1
            if polls > 20:
                pause = min(pause + 0.0001, 0.001)

    def check_reports(self) -> None:
        """Raise PeerFailedError if another process reported a failure."""
        st = self.MPI.Status()
        if self.errors.Iprobe(source=self.MPI.ANY_SOURCE, tag=_ERROR_TAG, status=st):
            msg = self.errors.recv(source=st.Get_source(), tag=_ERROR_TAG)
            self.failed = True
            # tell the failing process its report arrived (it waits for that, so that
            # the launcher does not end this one before it can say why it stops)
            self.errors.isend(self.rank, dest=st.Get_source(), tag=_ACK_TAG).Wait()
            raise PeerFailedError(f"rank {self.rank}: stopping because rank "
                                  f"{st.Get_source()} failed: {msg}", st.Get_source())

    def gone(self) -> List[int]:
        """The ranks on this machine whose process no longer runs."""
        host = socket.gethostname()
        out = []
        for r, (h, pid) in enumerate(self.peers):
            if h == host and r != self.rank:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    out.append(r)
                except PermissionError:
                    pass
        return out

    # -- collectives ---------------------------------------------------------------------
    @staticmethod
    def _wire(x: np.ndarray) -> np.ndarray:
        """x in a dtype MPI reduces (float16 travels as float32)."""
        x = x if x.flags.c_contiguous else np.array(x, order="C")
        return x.astype(np.float32) if x.dtype == np.float16 else x

    def all_reduce(self, x, op, where):
        w = self._wire(x)
        out = np.empty_like(w)
        self._wait(self.comm.Iallreduce(w, out, self._ops[op]), f"{where}(op={op!r})")
        return out.astype(x.dtype, copy=False)

    def all_gather(self, x, where):
        w = self._wire(x)
        out = np.empty((self.size * w.shape[0],) + w.shape[1:], w.dtype)
        self._wait(self.comm.Iallgather(w, out), where)
        return out.astype(x.dtype, copy=False)

    def broadcast(self, x, root, where):
        buf = np.array(self._wire(x))
        self._wait(self.comm.Ibcast(buf, root=root), f"{where}(root_rank={root})")
        return buf.astype(x.dtype, copy=False)

    def reduce_scatter(self, x, op, where):
        w = self._wire(x)
        out = np.empty((w.shape[0] // self.size,) + w.shape[1:], w.dtype)
        self._wait(self.comm.Ireduce_scatter_block(w, out, self._ops[op]),
                   f"{where}(op={op!r})")
        return out.astype(x.dtype, copy=False)

    def barrier(self, where="barrier"):
        self._wait(self.comm.Ibarrier(), where)

    def subgroup(self, rank_ids) -> Optional["MPIWorld"]:
        """The communicator of these world ranks (None on a process outside them)."""
        grp = self.comm.Get_group().Incl(list(rank_ids))
        comm = self.comm.Create_group(grp)
        if comm == self.MPI.COMM_NULL:
            return None
        sub = MPIWorld(comm, self.timeout, root=self)
        sub.world_ranks = list(rank_ids)
        return sub

    # -- failures ------------------------------------------------------------------------
    def report_failure(self, text: str) -> None:
        """Tell every other process that this one failed (unless it is failing because
        another one did), then wait until each has read it (at most _REPORT_GRACE s: a
        process busy computing reads it at its next collective)."""
        if self.failed:
            return
        self.failed = True
        others = [r for r in range(self.size) if r != self.rank]
        reqs = [self.errors.isend(text, dest=r, tag=_ERROR_TAG) for r in others]
        waiting = set(others)
        deadline = time.monotonic() + _REPORT_GRACE
        while (reqs or waiting) and time.monotonic() < deadline:
            reqs = [q for q in reqs if not q.Test()]
            st = self.MPI.Status()
            while self.errors.Iprobe(source=self.MPI.ANY_SOURCE, tag=_ACK_TAG, status=st):
                self.errors.recv(source=st.Get_source(), tag=_ACK_TAG)
                waiting.discard(st.Get_source())
            time.sleep(0.005)

    def install_fault_handlers(self) -> None:
        """An uncaught exception is reported to the other processes and ends this one
        with exit status 1; SIGTERM from the launcher (another process died) ends it
        with a line naming the processes that are gone."""
        previous = sys.excepthook
        world = self

        def hook(etype, value, tb):
            previous(etype, value, tb)
            peer = _peer_failure(value)
            if peer is not None:
                sys.stderr.write(f"graphjit.communication: {peer}\n")
            else:
                last = "".join(traceback.format_exception_only(etype, value)).strip()
                last = last.splitlines()[0] if last else etype.__name__
                sys.stderr.write(f"graphjit.communication: rank {world.rank} failed: "
                                 f"{last}\n")
                sys.stderr.flush()
                world.report_failure(last)
            sys.stderr.flush()
            sys.stdout.flush()
            os._exit(1)

        sys.excepthook = hook
        if threading.current_thread() is threading.main_thread():
            def on_term(signum, frame):
                if world.failed:    # this one failed (and said so) or stops for another
                    os._exit(1)
                gone = world.gone()
                who = ", ".join(f"rank {r} (pid {world.peers[r][1]})" for r in gone) \
                    if gone else "another process (none of this machine's is gone)"
                sys.stderr.write(f"graphjit.communication: rank {world.rank} stopped by the "
                                 f"launcher: {who} exited\n")
                sys.stderr.flush()
                os._exit(128 + signum)
            signal.signal(signal.SIGTERM, on_term)
