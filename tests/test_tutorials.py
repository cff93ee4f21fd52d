"""Every tutorial runs to its end."""
import pathlib
import runpy
import sys

import pytest

import graphjit as ms
from optional import require

TUTORIALS = sorted((pathlib.Path(__file__).parent.parent / "tutorials").glob("*.py"))

# tutorials of optional extras: the modules they need (skipped without them)
NEEDS = {"07_onnx.py": ("onnx", "onnxruntime"),
         "08_distributed.py": ("dask.array", "distributed")}
EXTRA = {"07_onnx.py": "onnx", "08_distributed.py": "distributed"}


def _param(path):
    """A tutorial of an optional extra is marked `extra` (.ci/run's second phase)."""
    if path.name in EXTRA:
        return pytest.param(path, marks=pytest.mark.extra(EXTRA[path.name]), id=path.name)
    return pytest.param(path, id=path.name)


@pytest.mark.parametrize("path", [_param(p) for p in TUTORIALS])
def test_tutorial_runs(path, capsys, monkeypatch):
    for module in NEEDS.get(path.name, ()):
        require(module, EXTRA[path.name])
    monkeypatch.setattr(sys, "argv", [str(path)])
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip()
