"""The command line's parts in-process: input specs, FILE.py:NAME targets, the dot
text, the progress bar, --help and the error paths of main (fast; the subprocess
runs are in test_cli_commands.py)."""
import io
import re
import textwrap

import sys

import numpy as np
import pytest

import graphjit as ms
from graphjit.cli import main
from graphjit.cli.dot import to_dot
from graphjit.cli.progress import Progress
from graphjit.cli.targets import UsageError, UserCodeError, load_target, parse_input
from graphjit.cli.timing import format_seconds, time_per_call
from optional import require

SOURCE = textwrap.dedent('''
    import graphjit as ms
    from graphjit import nn, ops

    class Counter(nn.Cell):
        def construct(self, x, n):
            i = 0
            while i < n:
                if x.sum() > 0:
                    x = x - 1.0
                else:
                    x = x * 2.0 + 1.0
                i += 1
            return x

    class NeedsArgs(nn.Cell):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def construct(self, x):
            return x * self.k

    def plain(x, y):
        return ops.exp(x) * y + 1.0

    @ms.jit
    def jitted(x):
        return x * 3.0

    three = NeedsArgs(3.0)
    CONSTANT = 7

    if __name__ == "__main__":
        raise SystemExit("the main block must not run")
''')


@pytest.fixture
def src(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SOURCE)
    return tmp_path


# -- input specs ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, dtype, shape", [
    ("float32[3,4]", ms.float32, (3, 4)),
    ("float32[None, 4]", ms.float32, (None, 4)),
    ("int64[?]", ms.int64, (None,)),
    ("int64[]", ms.int64, ()),
    ("f16[2]", ms.float16, (2,)),
    ("bool[1,1]", ms.bool_, (1, 1)),
    ("float64[*]", ms.float64, None),
])
def test_specs(text, dtype, shape):
    spec = parse_input(text).spec
    assert spec.dtype is dtype and spec.shape == shape


@pytest.mark.parametrize("text, message", [
    ("float32", "is not a spec like 'float32[3,4]'"),
    ("float32[3,x]", "dim 'x' is not a size"),
    ("float23[3]", "unknown dtype 'float23'"),
    ("float32[3", "is not a spec"),
    ("missing.npy", "input file not found: missing.npy"),
])
def test_malformed_specs(text, message, src):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_input(text)


def test_npy_inputs(src):
    np.save("a.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    arg = parse_input("a.npy")
    assert arg.spec.dtype is ms.int32 and arg.spec.shape == (2, 3)
    assert arg.array_or_random(np.random.default_rng(0), 4) is arg.array
    np.save("c.npy", np.array([1 + 2j]))
    with pytest.raises(UsageError, match="complex128 data"):
        parse_input("c.npy")
    (src / "bad.npy").write_bytes(b"garbage")
    with pytest.raises(UsageError, match="cannot read bad.npy as a .npy array"):
        parse_input("bad.npy")


def test_random_inputs_follow_the_spec():
    rng = np.random.default_rng(0)
    a = parse_input("float32[None,3]").array_or_random(rng, 5)
    assert a.dtype == np.float32 and a.shape == (5, 3)
    b = parse_input("int64[]").array_or_random(rng, 5)
    assert b.dtype == np.int64 and b.shape == () and 0 <= b <= 2
    assert parse_input("bool[2]").array_or_random(rng, 5).dtype == np.bool_
    assert parse_input("float32[*]").array_or_random(rng, 5).shape == (5,)


def test_random_integers_are_small_by_default_and_the_range_can_be_set():
    """Issue 23 item 4: the default range is 0..2, both ends included; --int-range and
    an input's own @LOW..HIGH change it; every value of the range is drawn."""
    from graphjit.cli.targets import DEFAULT_INT_RANGE, parse_int_range
    rng = np.random.default_rng(0)
    assert DEFAULT_INT_RANGE == (0, 2)
    a = parse_input("int32[400]").array_or_random(rng, 4)
    assert set(a.tolist()) == {0, 1, 2}
    b = parse_input("int32[400]").array_or_random(rng, 4, (-3, 5))
    assert set(b.tolist()) == set(range(-3, 6))
    c = parse_input("int8[None,50]@7..9").array_or_random(rng, 8, (0, 1))
    assert c.shape == (8, 50) and set(c.tolist()[0]) <= {7, 8, 9} and c.dtype == np.int8
    assert parse_int_range("1..4") == parse_int_range(" 1 , 4 ") == (1, 4)
    with pytest.raises(UsageError, match="LOW \\(5\\) is above HIGH \\(1\\)"):
        parse_int_range("5,1")
    with pytest.raises(UsageError, match="is for integer inputs"):
        parse_input("float32[3]@0..2")
    with pytest.raises(UsageError, match="does not fit uint8"):
        parse_input("uint8[3]@-1..2").array_or_random(rng, 4)


def test_int_range_on_the_command_line(src, capsys):
    (src / "emb.py").write_text(textwrap.dedent('''
        from graphjit import nn

        class Lookup(nn.Cell):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(3, 4)

            def construct(self, ids):
                return self.emb(ids).sum()
    '''))
    assert main(["run", "emb.py:Lookup", "-i", "int32[None,20]"]) == 0      # 0..2 fits
    capsys.readouterr()
    assert main(["run", "emb.py:Lookup", "-i", "int32[None,20]", "--int-range", "0,9"]) == 1
    assert "emb.py" in capsys.readouterr().err
    assert main(["run", "emb.py:Lookup", "-i", "int32[None,20]@0..1", "--int-range", "0,9"]) == 0
    assert main(["run", "emb.py:Lookup", "-i", "int32[4]", "--int-range", "x"]) == 2
    assert "is not LOW,HIGH" in capsys.readouterr().err
    assert main(["run", "--help"]) == 0
    assert "--int-range LOW,HIGH" in capsys.readouterr().out


# -- targets ----------------------------------------------------------------------------------------
def test_target_kinds(src):
    cell = load_target("m.py:Counter")
    assert cell.kind == "Cell" and type(cell.obj).__name__ == "Counter"
    assert cell.arg_names() == ["x", "n"]
    assert load_target("m.py:three").obj.k == 3.0
    fn = load_target("m.py:plain")
    assert fn.kind == "function" and fn.arg_names() == ["x", "y"]
    model = fn.compile([parse_input("float32[2]"), parse_input("float32[2]")])
    x = np.array([0.0, 1.0], np.float32)
    y = np.array([2.0, 3.0], np.float32)
    got = model(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    want = fn.run_eager([ms.Tensor(x), ms.Tensor(y)]).asnumpy()
    assert np.array_equal(got, want)
    assert load_target("m.py:jitted").kind == "function"


@pytest.mark.parametrize("text, message", [
    ("m.py", "'m.py' is not FILE.py:NAME"),
    ("m.py:Nope", "m.py has no 'Nope'; it defines Counter (Cell class), NeedsArgs (Cell "
                  "class), plain (function), jitted (function), three (Cell instance)"),
    ("m.py:CONSTANT", "'CONSTANT' in m.py is of type int, not a Cell class"),
    ("m.py:NeedsArgs", "the Cell class NeedsArgs cannot be built with no arguments"),
    ("other.py:Net", "file not found: other.py"),
    ("m.txt:Net", "file not found: m.txt"),
])
def test_target_mistakes(text, message, src):
    with pytest.raises(UsageError, match=re.escape(message)):
        load_target(text)


def test_wrong_number_of_inputs(src):
    with pytest.raises(UsageError, match=r"Counter takes the inputs \(x, n\); got 1 --input"):
        load_target("m.py:Counter").compile([parse_input("float32[3]")])


def test_a_file_that_fails_to_load_is_the_users_error(src):
    (src / "boom.py").write_text("x = 1\nraise RuntimeError('boom at import')\n")
    with pytest.raises(UserCodeError) as e:
        load_target("boom.py:x")
    report = e.value.report()
    assert "boom.py failed while loading" in report and 'boom.py", line 2' in report
    assert "RuntimeError: boom at import" in report and "importlib" not in report
    (src / "syntax.py").write_text("def f(:\n")
    with pytest.raises(UserCodeError) as e:
        load_target("syntax.py:f")
    assert "SyntaxError" in e.value.report()


# -- main: help, exit codes, printing ------------------------------------------------------------------
@pytest.mark.parametrize("command", ["inspect", "export", "run", "draw", "bench"])
def test_every_command_has_help(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: graphjit {command}") and "--input" in out


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: graphjit") and "required: COMMAND" in err


def test_run_prints_small_outputs_and_summarizes_large_ones(src, capsys):
    assert main(["export", "m.py:Counter", "-i", "float32[None]", "-i", "int64[]",
                 "-o", "c.gjm"]) == 0
    np.save("x.npy", np.array([1.0, -2.0], np.float32))
    np.save("n.npy", np.array(3))
    capsys.readouterr()
    assert main(["run", "c.gjm", "-i", "x.npy", "-i", "n.npy"]) == 0
    out = capsys.readouterr().out
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = load_target("m.py:Counter").obj(ms.Tensor(np.array([1.0, -2.0], np.float32)), 3)
    assert out == f"output 0: f32[2]\n{np.array2string(want.asnumpy())}\n"
    np.save("big.npy", np.ones(5000, np.float32))
    assert main(["run", "c.gjm", "-i", "big.npy", "-i", "n.npy"]) == 0
    out = capsys.readouterr().out
    assert "output 0: f32[5000]" in out and "5000 elements: save them with -o OUTDIR" in out
    assert main(["run", "c.gjm", "-i", "x.npy"]) == 2       # one input short
    assert "takes 2 input(s)" in capsys.readouterr().err


def test_onnx_export_without_the_onnx_extra(src, capsys, monkeypatch):
    """Without the onnx package, exporting to .onnx is a usage error naming the extra."""
    for name in list(sys.modules):
        if name == "graphjit.onnx" or name.startswith(("graphjit.onnx.", "onnx")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "onnx", None)          # `import onnx` now fails
    assert main(["export", "m.py:plain", "-i", "float32[2]", "-i", "float32[2]",
                 "-o", "p.onnx"]) == 2
    err = capsys.readouterr().err
    assert "needs the optional extra 'onnx'" in err and "pip install -e '.[onnx]'" in err


@pytest.mark.extra("onnx")
def test_onnx_export_and_run(src, tmp_path, capsys):
    require("graphjit.onnx", "onnx")
    assert main(["export", "m.py:Counter", "-i", "float32[None]", "-i", "int64[]",
                 "-o", "c.onnx"]) == 0
    assert "wrote c.onnx (ONNX)" in capsys.readouterr().out
    np.save("x.npy", np.array([1.0, -2.0, 0.5], np.float32))
    np.save("n.npy", np.array(4))
    assert main(["run", "c.onnx", "-i", "x.npy", "-i", "n.npy", "-o", "outs"]) == 0
    got = np.load("outs/output0.npy")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = load_target("m.py:Counter").obj(ms.Tensor(np.load("x.npy")), 4).asnumpy()
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert main(["draw", "c.onnx", "-o", "c.dot"]) == 0
    assert (src / "c.dot").read_text().count("subgraph cluster_loop") == 1


def test_inspect_without_passes(src, capsys):
    assert main(["inspect", "m.py:Counter", "-i", "float32[3]", "-i", "int64[]",
                 "--no-passes", "--no-timing"]) == 0
    out = capsys.readouterr().out
    assert "(passes off: --no-passes)" in out and "== IR ==" in out
    assert "graph mode:" not in out


# -- dot ----------------------------------------------------------------------------------------------
def test_dot_of_an_if_inside_a_loop(src):
    target = load_target("m.py:Counter")
    model = target.compile([parse_input("float32[3]"), parse_input("int64[]")])
    text = to_dot(model.graph, model.lowered)
    assert text.startswith("digraph graphjit {") and text.rstrip().endswith("}")
    assert text.count("subgraph cluster_loop") == 1
    assert text.count("subgraph cluster_if") == 2
    # the If's clusters sit inside the Loop body's block
    body = text.index("subgraph cluster_loop1_body {")
    assert body < text.index("subgraph cluster_if1_then {") < text.index("subgraph cluster_if1_else {")
    assert 'label="back edge"' in text and 'label="condition"' in text
    assert re.search(r'label="Sub\(\., 1\.0\)\\nf32\[3\]\\nm\.py:\d+"', text)
    # every edge comes after every node (an edge in a cluster would pull its ends in)
    first_edge = min(i for i, line in enumerate(text.splitlines()) if " -> " in line)
    assert all(" -> " in line or line.strip() == "}"
               for line in text.splitlines()[first_edge:])
    plain = to_dot(model.graph)
    assert "fillcolor=\"#dbe9f6\"" not in plain and "kernels" not in plain


def test_dot_outlines_fused_kernels(src):
    (src / "k.py").write_text(textwrap.dedent('''
        from graphjit import ops

        def chain(x):
            return ops.tanh(ops.exp(x) + 1.0) * 2.0

        def around_extern(x, y):
            a = ops.exp(x)               # fused with the Add after the MatMul
            b = ops.matmul(y, y)
            return a + b
    '''))
    model = load_target("k.py:chain").compile([parse_input("float32[4]")])
    text = to_dot(model.graph, model.lowered)
    m = re.search(r'subgraph cluster_fused_1 \{\n\s*label="fused kernel: ([^"]+)"', text)
    assert m and m.group(1) == "Exp, Add, Tanh, Mul"
    model = load_target("k.py:around_extern").compile([parse_input("float32[3,3]")] * 2)
    assert model.lowered.summary() == ["extern(MatMul)", "fused(Exp, Add)"]
    text = to_dot(model.graph, model.lowered)
    m = re.search(r'subgraph cluster_fused_1 \{\n\s*label="fused kernel: ([^"]+)"', text)
    assert m and m.group(1) == "Exp, Add"
    assert text.index("MatMul") < text.index("subgraph cluster_fused_1")


# -- progress and timing ------------------------------------------------------------------------------
def test_progress_off_a_terminal_writes_the_finished_bar_once():
    out = io.StringIO()
    bar = Progress("graph mode", 2.0, stream=out)
    for t in (0.5, 1.0, 1.5):
        bar.update(t)
    bar.close(2.0)
    assert out.getvalue() == f"{'graph mode':<24} [{'#' * 30}] 100%   2.0/2.0 s\n"


def test_time_per_call():
    calls = []
    t = time_per_call(lambda: calls.append(1), 0.02)
    assert t.calls <= len(calls) and t.best > 0 and t.best <= t.median
    assert format_seconds(12.3e-6) == "12.3 us" and format_seconds(0.004561) == "4.56 ms"


# -- state is no output; export suffixes (issue 23, items 3 and 6) ---------------------------------
STATEFUL = textwrap.dedent('''
    import numpy as np
    import graphjit as ms
    from graphjit import nn, ops

    class Acc(nn.Cell):
        def __init__(self):
            super().__init__()
            self.total = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="total")
            self.w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")

        def construct(self, x):
            if x.sum() > 0:
                self.total = self.total + x.sum(0)
            return x * self.w
''')


def test_state_is_a_note_not_an_output(src, capsys):
    (src / "acc.py").write_text(STATEFUL)
    assert main(["export", "acc.py:Acc", "-i", "float32[None,3]", "-o", "a.gjm"]) == 0
    out = capsys.readouterr().out
    assert "-> f32[?,3];" in out and "state" not in out.split("\n")[0]
    assert "note: the model updates the Parameter total when it runs" in out
    assert main(["draw", "acc.py:Acc", "-i", "float32[None,3]", "-o", "a.dot"]) == 0
    dot = (src / "a.dot").read_text()
    assert "output 0" in dot and "output 1" not in dot
    assert "note: updates total" in dot
    inputs = [line for line in dot.splitlines() if "invhouse" in line]
    assert inputs and not any("state" in line for line in inputs)


def test_export_refuses_a_suffix_it_does_not_know(src, capsys):
    (src / "acc.py").write_text(STATEFUL)
    assert main(["export", "acc.py:Acc", "-i", "float32[3]", "-o", "net.xyz"]) == 2
    err = capsys.readouterr().err
    assert "cannot tell the format of 'net.xyz'" in err and "--format gjm" in err
    assert not (src / "net.xyz").exists()
    assert main(["export", "acc.py:Acc", "-i", "float32[3]", "-o", "net.xyz",
                 "--format", "gjm"]) == 0
    assert (src / "net.xyz").is_file()


# -- draw: loops over rows, layers as one box (issue 23, item 5) -----------------------------------
LAYERED = textwrap.dedent('''
    import graphjit as ms
    from graphjit import nn, ops

    class Dec(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)

        def construct(self, x):
            h = ops.zeros((3,), ms.float32)
            for row in x:
                h = ops.tanh(self.fc(row) + h)
            return self.fc(h)
''')


def test_draw_says_a_loop_over_rows_runs_once_per_row_and_boxes_layers(src, capsys):
    (src / "dec.py").write_text(LAYERED)
    assert main(["draw", "dec.py:Dec", "-i", "float32[None,3]", "-o", "d.dot"]) == 0
    dot = (src / "d.dot").read_text()
    loop = next(line for line in dot.splitlines() if "shape=\"hexagon\"" in line)
    assert "one iteration per row of x" in loop
    assert "no trip count" not in loop and "condition always true" not in loop
    boxes = [line for line in dot.splitlines() if "box3d" in line]
    assert any("h = ops.tanh(self.fc(row) + h)\\ndec.py:13: graphjit layer code" in b
               for b in boxes)
    assert any("return self.fc(h)\\ndec.py:14: graphjit layer code" in b for b in boxes)
    assert "MatMul\\n" not in dot and "nn.py" not in dot and "basic.py" not in dot
    assert main(["draw", "dec.py:Dec", "-i", "float32[None,3]", "-o", "e.dot",
                 "--expand-layers"]) == 0
    full = (src / "e.dot").read_text()
    assert "box3d" not in full and "MatMul\\n" in full
    assert main(["draw", "--help"]) == 0
    assert "--expand-layers" in capsys.readouterr().out
