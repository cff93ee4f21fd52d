"""Shared fixtures: every test starts from the default context."""
import pytest

import graphjit as ms
from graphjit.context import reset_context


@pytest.fixture(autouse=True)
def _fresh_context():
    reset_context()
    yield
    reset_context()
