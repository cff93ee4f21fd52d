"""The MindSpore control-flow tutorial (seed 002), verbatim, with `mindspore` aliased to
graphjit: printed outputs match the tutorial; the failing examples fail with its error
class and text, naming the variable and the user's lines; "Constraint 1" now runs and
matches eager mode."""
import pathlib
import re
import runpy
import sys

import numpy as np
import pytest

import graphjit
import graphjit.nn
import graphjit.ops

HERE = pathlib.Path(__file__).parent / "seed_programs"


@pytest.fixture(autouse=True)
def mindspore_alias(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", graphjit)
    monkeypatch.setitem(sys.modules, "mindspore.nn", graphjit.nn)
    monkeypatch.setitem(sys.modules, "mindspore.ops", graphjit.ops)


def run(name):
    return runpy.run_path(str(HERE / name), run_name="__main__")


@pytest.mark.parametrize("name", ["if_constant.py", "for_unrolled.py", "for_expanded.py",
                                  "while_constant.py", "while_variable.py"])
def test_printed_outputs(name, capsys):
    run(name)
    out = capsys.readouterr().out.strip().splitlines()
    want = "output: 1" if name == "if_constant.py" else "output: 5"
    assert out[-1] == want


def test_if_variable_shape_join_error():
    with pytest.raises(ValueError) as info:
        run("if_variable.py")
    e = info.value
    assert isinstance(e, graphjit.ShapeJoinError)
    text = str(e)
    assert "Cannot join the return values of different branches, perhaps you need to make " \
           "them equal." in text
    assert "Shape Join Failed: shape1 = (), shape2 = (2)." in text
    assert e.names == ("out",)
    assert "if_variable.py" in text
    # both assignments are named with their lines
    assert "line 10: `out = x`" in text and "line 12: `out = z`" in text
    assert e.loc.line == 9 and e.loc.text.strip() == "if x < y:"


def test_constraint_two_shape_join_error():
    with pytest.raises(ValueError) as info:
        run("constraint2.py")
    e = info.value
    assert isinstance(e, graphjit.ShapeJoinError)
    text = str(e)
    assert "Shape Join Failed: shape1 = (), shape2 = (1)." in text
    assert e.names == ("out",)
    assert "line 22: `out = self.expand_dims(out, -1)`" in text
    assert e.loc.line == 15


def test_constraint_one_runs_and_matches_eager(capsys):
    graph_out = run("constraint1.py")["output"]
    graphjit.set_context(mode=graphjit.PYNATIVE_MODE)
    eager_out = run("constraint1.py")["output"]
    assert graph_out.dtype == eager_out.dtype == graphjit.int32
    assert graph_out.asnumpy() == eager_out.asnumpy() == 8
