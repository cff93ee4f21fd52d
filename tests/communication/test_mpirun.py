"""Data-parallel training launched as users launch it, `mpirun -n N python script.py`, on
loopback: N processes each on its shard of every batch end with the Parameters one
process gets on the whole batch; a process that dies or raises stops the others with
an error naming it. Skipped when mpirun or mpi4py is missing."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = shutil.which("mpirun")

pytestmark = [
    pytest.mark.skipif(MPIRUN is None, reason="needs mpirun (apt-get install openmpi-bin)"),
    pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None,
                       reason="needs the optional extra 'mpi': pip install -e '.[mpi]'"),
]

# loopback only; root may launch (CI containers run as root); 4 ranks on 2 cores
MPI_ARGS = ["--oversubscribe", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo",
            "--mca", "oob_tcp_if_include", "lo"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def mpirun(n, script, *args, timeout=120):
    """(return code, combined output, seconds) of `mpirun -n n python script args`."""
    t0 = time.monotonic()
    p = subprocess.run([MPIRUN, "-n", str(n)] + MPI_ARGS + [sys.executable,
                                                             os.path.join(HERE, script),
                                                             *map(str, args)],
                       env=ENV, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def plain(script, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))}
    p = subprocess.run([sys.executable, os.path.join(HERE, script), *map(str, args)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


MODES = ("graph", "pynative")


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """One process on the whole batch, per (model, mode)."""
    d = tmp_path_factory.mktemp("ref")
    out = {}
    for model in ("cnn", "rnn"):
        plain("dp_worker.py", model, ",".join(MODES), d / model)
        for mode in MODES:
            with np.load(d / f"{model}.{mode}.rank0.npz") as z:
                out[model, mode] = {k: z[k] for k in z.files}
    return out


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("model", ["cnn", "rnn"])
def test_data_parallel_steps_give_the_parameters_of_one_process_on_the_whole_batch(
        references, tmp_path, n, model):
    """5 steps on a batch split across n processes (graph mode, then PYNATIVE)."""
    rc, out, _ = mpirun(n, "dp_worker.py", model, ",".join(MODES), tmp_path / "dp")
    assert rc == 0, out
    for mode in MODES:
        ref = references[model, mode]
        for rank in range(n):
            with np.load(tmp_path / f"dp.{mode}.rank{rank}.npz") as z:
                assert sorted(z.files) == sorted(ref)
                for name in ref:
                    np.testing.assert_allclose(z[name], ref[name], rtol=1e-5, atol=1e-7,
                                               err_msg=f"{mode}, rank {rank} of {n}: {name}")


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_and_their_gradients_and_buckets_under_mpirun(n):
    rc, out, _ = mpirun(n, "collectives_worker.py")
    assert rc == 0, out
    assert sorted(line.split()[-1] for line in out.splitlines()
                  if line.startswith("ok ")) == [str(r) for r in range(n)], out


def test_a_killed_rank_stops_the_others_with_its_rank_named(tmp_path):
    rc, out, seconds = mpirun(3, "dp_worker.py", "cnn", "graph", tmp_path / "k",
                              "--kill-rank", 1, timeout=90)
    assert rc != 0
    assert seconds < 60
    # mpirun names the rank, and the survivors (waiting in the all-reduce when mpirun
    # terminates them) say which one is gone before they exit (mpirun escalates to
    # SIGKILL after a while, so on a loaded machine one of them may not get to say it)
    assert "process rank 1 with PID" in out, out
    said = [s for s in (0, 2) if f"rank {s} stopped by the launcher: rank 1 (pid" in out]
    assert said, out
    assert not any((tmp_path / f"k.graph.rank{r}.npz").exists() for r in range(3))


def test_a_rank_that_raises_stops_the_others_with_its_rank_and_error_named(tmp_path):
    rc, out, seconds = mpirun(3, "dp_worker.py", "cnn", "pynative", tmp_path / "r",
                              "--raise-rank", 2, timeout=90)
    assert rc != 0
    assert seconds < 60
    assert "rank 2 failed: ValueError: the data of this process is broken" in out, out
    # each survivor reads the report at its next collective and says why it stops; one
    # that a loaded machine keeps from getting there within the failing rank's grace
    # period (3 s) is ended by mpirun and still names rank 2
    told = [s for s in (0, 1) if f"rank {s}: stopping because rank 2 failed: ValueError: the "
            f"data of this process is broken" in out]
    assert told, out
    for survivor in set((0, 1)) - set(told):
        assert f"rank {survivor} stopped by the launcher: rank 2 (pid" in out, out


def test_a_collective_the_others_never_issue_times_out_naming_it():
    rc, out, seconds = mpirun(2, "timeout_worker.py", timeout=90)
    assert rc != 0 and seconds < 30
    assert "CollectiveTimeoutError: rank 0: AllReduce(op='sum') (collective #1 of this " \
           "process) did not complete within 2 s" in out, out


def test_the_data_parallel_tutorial_under_mpirun():
    tutorial = os.path.join(HERE, "..", "..", "tutorials", "09_data_parallel.py")
    env = dict(ENV, PYTHONPATH=os.pathsep.join(
        [os.path.abspath(os.path.join(HERE, "..", ".."))] + sys.path))
    p = subprocess.run([MPIRUN, "-n", "2"] + MPI_ARGS + [sys.executable, tutorial], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    sums = [line for line in p.stdout.splitlines() if "Parameter checksum" in line]
    assert len(sums) == 2 and len({line.split("checksum ")[1].split()[0] for line in sums}) == 1
