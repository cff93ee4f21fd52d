"""Shared fixtures: every test starts from the default context; tests of optional
extras are marked `extra` (see optional.py)."""
import pathlib

import pytest

from optional import EXTRA_DIRS

import graphjit as ms
from graphjit.context import reset_auto_parallel_context, reset_context


@pytest.fixture(autouse=True)
def _fresh_context():
    reset_context()
    reset_auto_parallel_context()
    yield
    reset_context()
    reset_auto_parallel_context()


_TESTS = pathlib.Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    """Mark every test in a folder of an optional extra, so `pytest -m extra` runs them."""
    for item in items:
        try:
            folder = pathlib.Path(str(item.fspath)).relative_to(_TESTS).parts[0]
        except ValueError:
            continue
        if folder in EXTRA_DIRS:
            item.add_marker(pytest.mark.extra(EXTRA_DIRS[folder]))
