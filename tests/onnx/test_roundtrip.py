"""graphjit -> ONNX -> graphjit: identical outputs always; the same printed IR up to
names (value names, graph names, source locations) for graphs of ops the exporter
writes as one node or as a pattern the importer recognizes (import_patterns), and
for Loops whose sliced inputs and concatenated outputs have static lengths; with a
length known only at run time the ONNX port map (a Gather per iteration, a reshape
of the stacked results) stays, and the control-flow ops and outputs are compared."""
import re
from collections import Counter

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

import graphjit as ms  # noqa: E402
import graphjit.onnx as gx  # noqa: E402
from graphjit import nn, ops  # noqa: E402


def normalize(text: str) -> str:
    """The printed IR with comments dropped and names numbered by first appearance."""
    text = re.sub(r"\s+#.*", "", text)
    names = {}

    def value(m):
        return names.setdefault(("v", m.group(1)), f"%v{len([k for k in names if k[0] == 'v'])}")

    def graph(m):
        key = ("g", m.group(2))
        return m.group(1) + names.setdefault(key, f"g{len([k for k in names if k[0] == 'g'])}")

    text = re.sub(r"%([A-Za-z0-9_]+)", value, text)
    text = re.sub(r"(@|graph |subgraph )([A-Za-z0-9_]+)", graph, text)
    return text


def roundtrip(net, specs, tmp_path):
    model = ms.compile(net, *specs)
    path = tmp_path / "m.onnx"
    gx.export(net, str(path), *specs)
    return model, gx.import_model(str(path))


def same_outputs(a, b, *inputs):
    want = a.create_infer_request().infer(list(inputs))
    got = b.run_arrays(list(inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def control_ops(graph):
    return Counter(n.op for n in graph.walk() if n.op in ("If", "Loop"))


class Dense(nn.Cell):
    def construct(self, x, y):
        z = ops.relu(ops.matmul(x, y) + 1.0) * 2.0
        w = ops.transpose(z, (1, 0)).reshape(-1)
        return ops.concat((w, w), 0).sum(), ops.sqrt(ops.abs(z)), ops.square(z), \
            ops.rsqrt(z + 1.0), ops.tanh(z) - ops.sigmoid(z), ops.maximum(z, 0.5)


class Elementwise(nn.Cell):
    def construct(self, x, y):
        return ops.floor(x / y), x // y, x % y, \
            ops.exp(x) * ops.cos(y), ops.isfinite(x / y)


class Branches(nn.Cell):
    def construct(self, x, y):
        if x.sum() > y.sum():
            z = x * y - 1.0
        else:
            z = ops.abs(x) + y
        return z * 2.0


class Counter_(nn.Cell):
    def construct(self, x, n):
        i = 0
        while i < n:
            if x.sum() > 0:
                x = x - 1.0
            else:
                x = x * 2.0 + 1.0
            i += 1
        return x


class Stacker(nn.Cell):
    def construct(self, xs):
        out = []
        for x in xs:
            out.append(x * 2.0)
        return ops.stack(out)


F23 = ms.TensorSpec((2, 3), ms.float32)


@pytest.mark.parametrize("net, specs", [
    (Dense(), (F23, ms.TensorSpec((3, 4), ms.float32))),
    (Elementwise(), (F23, F23)),
    (Branches(), (F23, F23)),
], ids=["dense", "elementwise", "if"])
def test_same_ir_up_to_names_and_same_outputs(net, specs, tmp_path):
    model, back = roundtrip(net, specs, tmp_path)
    assert normalize(str(back.graph)) == normalize(str(model.graph))
    rng = np.random.default_rng(0)
    for _ in range(3):
        inputs = [rng.standard_normal(s.shape).astype(np.float32) for s in specs]
        same_outputs(model, back, *inputs)


def test_loops_round_trip_to_the_same_ir(tmp_path):
    """A while loop with an If inside; a for loop over a tensor (a sliced input) whose
    results are stacked (a concatenated output): the port map comes back."""
    model, back = roundtrip(Counter_(), (ms.TensorSpec((None,), ms.float32),
                                         ms.TensorSpec((), ms.int64)), tmp_path)
    assert control_ops(back.graph) == control_ops(model.graph) == Counter(If=1, Loop=1)
    assert normalize(str(back.graph)) == normalize(str(model.graph))
    for n in (0, 1, 5):
        same_outputs(model, back, np.array([1.0, -2.0, 0.5], np.float32), np.array(n))
    model, back = roundtrip(Stacker(), (ms.TensorSpec((4, 3), ms.float32),), tmp_path)
    assert normalize(str(back.graph)) == normalize(str(model.graph))
    same_outputs(model, back, np.arange(12, dtype=np.float32).reshape(4, 3))


def test_a_loop_over_rows_of_unknown_count_keeps_onnx_port_map(tmp_path):
    """With an unknown length the trip count ONNX gets (the length, computed) is no
    constant, so the Gather per iteration and the stacked-then-reshaped output stay:
    same outputs and control flow, not the same IR."""
    model, back = roundtrip(Stacker(), (ms.TensorSpec((None, 3), ms.float32),), tmp_path)
    assert control_ops(back.graph) == control_ops(model.graph)
    assert normalize(str(back.graph)) != normalize(str(model.graph))
    for n in (0, 1, 4):
        same_outputs(model, back, np.arange(3 * n, dtype=np.float32).reshape(n, 3))


class Exact(nn.Cell):
    def construct(self, x):
        return ops.log1p(ops.abs(x)), ops.expm1(x)


def test_expm1_comes_back_as_the_exporters_formula(tmp_path):
    """Expm1's ONNX pattern is an accurate formula, not bit-identical to numpy's expm1 on
    every probe, so the importer keeps the formula; Log1p's pattern agrees on every
    probe and comes back as Log1p."""
    model, back = roundtrip(Exact(), (F23,), tmp_path)
    assert "Log1p" in str(back.graph) and "Expm1" not in str(back.graph)
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32) * 1e-3
    for g, w in zip(back.run_arrays([x]), model.create_infer_request().infer([x])):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_normalize_keeps_what_differs():
    a = "graph f(%x: f32[2]) {\n  %0: f32[2] = Neg(%x)  # a.py:1\n  return %0\n}"
    b = "graph g(%y: f32[2]) {\n  %t: f32[2] = Neg(%y)\n  return %t\n}"
    c = "graph g(%y: f32[2]) {\n  %t: f32[2] = Abs(%y)\n  return %t\n}"
    assert normalize(a) == normalize(b) != normalize(c)


# -- whole programs: the tutorials' models and random control-flow programs ---------------------
# (the cases and generators of test_export_programs.py, which runs them on ONNX Runtime)
def _programs():
    import test_export_programs as programs
    return programs


def _identical(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("index", range(len(_programs().CASES)),
                         ids=[c[0] for c in _programs().CASES])
def test_tutorial_models_round_trip_to_identical_outputs(index, tmp_path):
    from graphjit.jit.compiled_model import CompiledModel
    name, make, example, runs = _programs().CASES[index]
    model = make() if example == () else ms.compile(make(), *example)
    assert isinstance(model, CompiledModel)
    path = tmp_path / "m.onnx"
    gx.export(model, str(path))
    back = gx.import_model(str(path))
    assert control_ops(back.graph) == control_ops(model.graph)
    runs = runs or [[e.asnumpy() for e in example]]
    for arrays in runs:
        with np.errstate(all="ignore"):
            _identical(back.run_arrays(arrays), model.run_arrays(arrays))


SEEDS = {"fuzzgen": range(0, 10), "fuzzgen2": range(0, 6), "leavegen": range(0, 8)}


@pytest.mark.parametrize("kind,seed", [(k, s) for k, r in SEEDS.items() for s in r])
def test_random_programs_round_trip_to_identical_outputs(kind, seed, tmp_path):
    programs = _programs()
    source, arg_sets = programs._generator(kind)
    fn = programs._load(source(seed), tmp_path, f"{kind}_{seed}")
    ms.set_context(mode=ms.GRAPH_MODE)
    models, compared = {}, 0
    for k, args in enumerate(arg_sets):
        arrays = [a.asnumpy() for a in args if isinstance(a, ms.Tensor)]
        key = tuple(repr(a) for a in args if not isinstance(a, ms.Tensor))
        try:
            with np.errstate(all="ignore"):
                if key not in models:
                    models[key] = [ms.compile(fn, *args), None]
                want = models[key][0].run_arrays(arrays)
        except Exception:       # graphjit refuses or raises: nothing to compare
            continue
        if models[key][1] is None:
            path = tmp_path / f"{kind}_{seed}_{k}.onnx"
            gx.export(models[key][0], str(path))
            models[key][1] = gx.import_model(str(path))
            assert control_ops(models[key][1].graph) == control_ops(models[key][0].graph)
        with np.errstate(all="ignore"):
            _identical(models[key][1].run_arrays(arrays), want)
        compared += 1
    if not compared:
        pytest.skip("graphjit refuses or raises on every input of this program")
