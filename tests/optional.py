"""Tests of optional extras: how they skip without the extra, and how CI finds them.

A test that needs an extra carries `@pytest.mark.extra("onnx")` (or sits in one of
EXTRA_DIRS, which conftest.py marks); `.ci/run` first runs the whole suite without
any extra, as a new user has it, then installs the extras and runs `pytest -m extra`.
Without the extra such a test skips with a one-line reason naming the install command.
"""
import pytest

# tests/<folder> -> the extra every test in it needs
EXTRA_DIRS = {"onnx_io": "onnx", "distributed_dask": "distributed", "communication": "mpi"}


def require(module: str, extra: str):
    """Import `module`, or skip the test (or module) saying which extra installs it."""
    return pytest.importorskip(
        module, reason=f"needs the optional extra '{extra}': pip install -e '.[{extra}]'")
