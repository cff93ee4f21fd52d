"""Every sub-command of `python -m graphjit`, each error case included, in a subprocess
from a temporary folder, as a user types them. Kept few: each start imports numpy and
graphjit (finer cases are in test_cli_units.py, in-process)."""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import graphjit as ms

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODEL = textwrap.dedent('''
    import numpy as np
    import graphjit as ms
    from graphjit import nn, ops


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.eye(4, dtype=np.float32) * 0.5))

        def construct(self, x):
            h = ops.zeros((4,), ms.float32)
            hs = []
            for row in x:
                h = ops.tanh(ops.matmul(row, self.w) + h)
                hs.append(h)
            out = ops.stack(hs)
            n = 0
            while ops.abs(out).sum() > 1.0:
                if out.max() > 0.5:
                    out = out * 0.5
                else:
                    out = out * 0.9
                n += 1
            return out, n


    class Broken(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                y = x
            else:
                y = ops.concat((x, x))
            return y


    if __name__ == "__main__":
        print("THE MAIN BLOCK RAN")
''')


def graphjit(folder, *args, path=None):
    """`python -m graphjit ARGS` in folder: (exit code, stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if path is not None:
        env["PATH"] = path
    done = subprocess.run([sys.executable, "-m", "graphjit", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "net.py").write_text(MODEL)
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    np.save(d / "x.npy", x)
    return d


@pytest.fixture(scope="module")
def exported(folder):
    code, out, err = graphjit(folder, "export", "net.py:Net", "--input", "float32[None,4]",
                              "-o", "net.gjm")
    assert code == 0, err
    assert "wrote net.gjm" in out and (folder / "net.gjm").is_file()
    return folder / "net.gjm"


def _eager(folder, x):
    """The Net of net.py run eagerly in this process."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("cli_test_net", folder / "net.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out, n = mod.Net()(ms.Tensor(x))
    return out.asnumpy(), n


def test_inspect_prints_each_part(folder):
    code, out, err = graphjit(folder, "inspect", "net.py:Net", "--input", "float32[None,4]",
                              "--seconds", "0.02")
    assert code == 0, err
    for heading in ("== explain ==", "== passes (node counts) ==", "== IR after the passes ==",
                    "== lowered program (fused and extern kernels) ==", "== time =="):
        assert heading in out
    assert "variable condition -> Loop" in out and "variable condition -> If" in out
    assert re.search(r"before: \d+ nodes", out) and re.search(r"after: +\d+ nodes", out)
    # the Parameter w is state: a ref input bound at each call, with the state token
    sig = "Net(%x: f32[?,4], %w: ref<f32[4,4]>, %state: state)"
    assert f"graph {sig}" in out and f"lowered {sig}" in out
    assert "fused(" in out and "extern MatMul" in out
    assert re.search(r"graph mode: [\d.]+ [um]?s per call", out)
    assert re.search(r"eager mode: [\d.]+ [um]?s per call", out)
    assert "results: graph mode equals eager mode" in out
    assert "THE MAIN BLOCK RAN" not in out          # FILE is loaded, not run as a script
    assert "Traceback" not in err


def test_export_then_run_matches_eager(folder, exported, tmp_path):
    code, out, err = graphjit(folder, "run", str(exported), "--input", "x.npy",
                              "-o", str(tmp_path / "outs"))
    assert code == 0, err
    assert "output0.npy (f32[5,4])" in out and "output1.npy (i64[])" in out
    got = np.load(tmp_path / "outs" / "output0.npy")
    n = np.load(tmp_path / "outs" / "output1.npy")
    want, want_n = _eager(folder, np.load(folder / "x.npy"))
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert int(n) == want_n and want_n > 0


def test_draw_dot_has_a_cluster_per_branch_and_body(folder):
    code, out, err = graphjit(folder, "draw", "net.py:Net", "--input", "float32[None,4]",
                              "-o", "net.dot")
    assert code == 0, err
    text = (folder / "net.dot").read_text()
    model = ms.compile(_net(folder), ms.TensorSpec((None, 4), ms.float32))
    ops_ = [n.op for n in model.graph.walk()]
    clusters = re.findall(r"subgraph (cluster_\w+) \{", text)
    assert len([c for c in clusters if c.endswith("_then")]) == ops_.count("If") == 1
    assert len([c for c in clusters if c.endswith("_else")]) == ops_.count("If")
    assert len([c for c in clusters if c.endswith("_body")]) == ops_.count("Loop") == 2
    assert any(c.startswith("cluster_fused") for c in clusters)
    for label in ("slice axis=0", "back edge", "concat axis=0", "last", "initial"):
        assert f'label="{label}"' in text
    assert re.search(r'label="Tanh\\nf32\[4\]\\nnet.py:\d+"', text)


def _net(folder):
    import importlib.util
    spec = importlib.util.spec_from_file_location("cli_test_net2", folder / "net.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Net()


@pytest.mark.extra("graphviz")
@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed "
                    "(apt-get install graphviz)")
def test_draw_renders_svg(folder, exported):
    code, out, err = graphjit(folder, "draw", str(exported), "-o", "net.svg")
    assert code == 0, err
    assert out.strip() == "wrote net.svg"
    svg = (folder / "net.svg").read_text()
    assert "<svg" in svg and "Loop body" in svg and "then branch" in svg


def test_draw_svg_without_graphviz_writes_dot(folder, exported, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    code, out, err = graphjit(folder, "draw", str(exported), "-o", "nodot.svg",
                              path=str(empty))
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1
    assert "dot is not installed: wrote nodot.dot instead" in out
    assert (folder / "nodot.dot").read_text().startswith("digraph")
    assert not (folder / "nodot.svg").exists()


def test_bench_reports_three_modes_with_a_progress_bar(folder):
    code, out, err = graphjit(folder, "bench", "net.py:Net", "--input", "float32[8,4]",
                              "--seconds", "0.05", "--requests", "2")
    assert code == 0, err
    assert re.search(r"graph mode: +[\d.]+ [um]?s per call", out)
    assert re.search(r"2 infer requests: +[\d.]+ [um]?s per call \([\d,]+ calls/s", out)
    assert re.search(r"eager mode: +[\d.]+ [um]?s per call", out)
    assert re.search(r"graph mode +\[#+\] 100%", err)       # the finished bars
    assert re.search(r"eager mode +\[#+\] 100%", err)


@pytest.mark.parametrize("args, message", [
    (("inspect", "missing.py:Net", "--input", "float32[3]"), "file not found: missing.py"),
    (("export", "net.py:Nett", "--input", "float32[3]", "-o", "a.gjm"),
     "net.py has no 'Nett'; it defines Net (Cell class), Broken (Cell class)"),
    (("draw", "net.py:Net", "--input", "float32[3,four]"), "dim 'four' is not a size"),
    (("run", "damaged.gjm", "--input", "x.npy"), "cannot load the graphjit model file"),
], ids=["missing file", "no such NAME", "malformed spec", "unreadable model"])
def test_user_mistakes_are_one_line_and_exit_2(folder, args, message):
    (folder / "damaged.gjm").write_bytes(b"not a model at all")
    code, out, err = graphjit(folder, *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"usage: graphjit {args[0]}")
    assert lines[-1].startswith(f"graphjit {args[0]}: error: ") and message in lines[-1]
    assert all(line.startswith((" ", "usage:", "graphjit")) for line in lines)
    assert "Traceback" not in err and out == ""


def test_build_error_is_shown_at_the_users_line_and_exits_1(folder):
    code, out, err = graphjit(folder, "inspect", "net.py:Broken", "--input", "float32[3]")
    assert code == 1
    assert err.startswith("graphjit.ir.errors.ShapeJoinError: ")
    assert "Shape Join Failed: shape1 = (3), shape2 = (6)." in err
    assert re.search(r'File ".*net.py", line \d+, column \d+, in construct', err)
    assert "if x.sum() > 0:" in err
    assert "Traceback" not in err


@pytest.mark.skipif(shutil.which("graphjit") is None,
                    reason="the console script is installed by pip install -e .")
def test_console_script(tmp_path):
    done = subprocess.run(["graphjit", "--version"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("graphjit ")
