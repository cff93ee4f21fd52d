"""Every tutorial runs to its end."""
import pathlib
import runpy
import sys

import pytest

import graphjit as ms

TUTORIALS = sorted((pathlib.Path(__file__).parent.parent / "tutorials").glob("*.py"))

# tutorials of optional extras: the modules they need (skipped without them)
NEEDS = {"07_onnx.py": ("onnx", "onnxruntime"),
         "08_distributed.py": ("dask.array", "distributed")}
EXTRA = {"07_onnx.py": "onnx", "08_distributed.py": "distributed"}


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.name)
def test_tutorial_runs(path, capsys, monkeypatch):
    for module in NEEDS.get(path.name, ()):
        pytest.importorskip(module, reason=f"{path.name} needs the optional extra: pip "
                                           f"install -e '.[{EXTRA[path.name]}]'")
    monkeypatch.setattr(sys, "argv", [str(path)])
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip()
