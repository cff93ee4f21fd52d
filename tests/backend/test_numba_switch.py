"""Switching the numba tier (set_context(numba_kernels=...)) on and off: off by default,
and without numba installed (the extra 'numba') switching it on says which extra."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import graphjit as ms
from graphjit.jit.cache import cache_of

ROOT = pathlib.Path(__file__).parents[2]


def test_the_tier_is_off_by_default():
    assert ms.get_context("numba_kernels") is False
    assert ms.get_context("numba_cache_dir") is None
    ms.set_context(mode=ms.GRAPH_MODE)
    jf = ms.jit(lambda x: (x * 2.0 + 1.0) * x)
    jf(ms.Tensor(np.ones(4)))
    assert "_nb" not in cache_of(jf)[0].plan.source


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="numba_kernels must be True or False"):
        ms.set_context(numba_kernels=1)
    with pytest.raises(ValueError, match="numba_cache_dir must be a path or None"):
        ms.set_context(numba_cache_dir=3)
    assert ms.get_context("numba_kernels") is False


def test_switching_on_without_numba_names_the_extra():
    code = textwrap.dedent("""
        import sys
        sys.modules["numba"] = None         # as if numba were not installed
        import graphjit as ms
        try:
            ms.set_context(numba_kernels=True)
        except ModuleNotFoundError as e:
            print("ERROR", e)
        print(ms.get_context("numba_kernels"))
        ms.set_context(numba_kernels=False)   # switching it off needs nothing
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert "ERROR" in out.stdout and "optional extra 'numba'" in out.stdout
    assert "pip install" in out.stdout and out.stdout.split()[-1] == "False"
