"""Run by the tests under mpirun -n 2: rank 0 all-reduces, rank 1 never does (it sleeps
then exits 0); rank 0 must give up after set_timeout's 2 s, naming the collective."""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

import graphjit as ms  # noqa: E402
from graphjit import ops  # noqa: E402
from graphjit.communication import get_rank, init, set_timeout  # noqa: E402

init()
set_timeout(2)
if get_rank() == 0:
    ops.AllReduce()(ms.Tensor(np.ones(2, np.float32)))
else:
    time.sleep(30)
