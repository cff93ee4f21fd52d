"""The importer gives back graphjit's op for a group of nodes the exporter wrote for it
(gj.Op.n/k) by structure alone: the group must be the exporter's pattern node for node,
and that pattern must be the op's exact formula (correctly rounded IEEE operations
only). No value is computed on the machine at hand to decide, so a file imports to
the same IR on every CPU, whatever SIMD kernels numpy picked (issue 23, item 9)."""
import numpy as np
import pytest

from optional import require
onnx = require("onnx", "onnx")

import graphjit.onnx as gx                                   # noqa: E402
from graphjit.ir import dtypes as D                          # noqa: E402
from graphjit.ir.graph import Graph                          # noqa: E402
from graphjit.ir.registry import all_ops, get_op             # noqa: E402
from graphjit.ir.types import TensorType                     # noqa: E402
from graphjit.jit.compiled_model import CompiledModel        # noqa: E402
from graphjit.onnx.import_patterns import pattern_of         # noqa: E402
from graphjit.onnx.import_patterns import _APPROXIMATE       # noqa: E402

DTYPES = [D.float32, D.float64, D.float16, D.int32, D.int64, D.int8, D.uint8, D.bool_]


def _candidates():
    """(op, input types) of every pure attribute-free elementwise op the exporter
    writes as more than one node."""
    out = []
    for name in sorted(all_ops()):
        opdef = get_op(name)
        if opdef.family != "elementwise" or opdef.attrs or opdef.effects is not None or \
                opdef.variadic or not 1 <= len(opdef.inputs) <= 2:
            continue
        if len(opdef.inputs) == 1:
            combos = [(d,) for d in DTYPES]
        else:
            combos = [(d, d) for d in DTYPES] + [(D.float32, D.int32), (D.int64, D.int8)]
        for ds in combos:
            types = tuple(TensorType(d, (4,)) for d in ds)
            pattern = pattern_of(name, types)
            if pattern is not None and len(pattern[0]) > 1:
                out.append((name, types, pattern))
    return out


CANDIDATES = _candidates()
EXACT = [c for c in CANDIDATES
         if not any(n.op_type in _APPROXIMATE and n.op_type.lower() != c[0].lower() and (
             n.op_type != "Pow" or any(t.dtype.is_floating for t in c[1])) for n in c[2][0])]


def _model(op, types):
    g = Graph(op.lower())
    params = [g.add_param(t, f"x{i}") for i, t in enumerate(types)]
    g.set_results([g.apply(op, *params)])
    return CompiledModel(g)


def _ops(graph):
    return [n.op for n in graph.walk() if n.op != "Const"]


def test_there_are_patterns_of_both_kinds():
    names = {c[0] for c in EXACT}
    assert {"Rsqrt", "NotEqual", "FloorDiv", "IsFinite", "Trunc"} <= names
    approximate = {c[0] for c in CANDIDATES} - names
    assert {"Log1p", "Expm1"} <= approximate


@pytest.mark.parametrize("op,types", [(c[0], c[1]) for c in CANDIDATES],
                         ids=[f"{c[0]}-" + "-".join(t.dtype.short for t in c[1])
                              for c in CANDIDATES])
def test_an_exported_pattern_comes_back_as_its_op_only_when_exact(tmp_path, op, types):
    path = tmp_path / "m.onnx"
    gx.export(_model(op, types), path)
    back = gx.import_model(path)
    exact = any(c[0] == op and c[1] == types for c in EXACT)
    if exact:
        assert _ops(back.graph) == [op]
    else:
        assert op not in _ops(back.graph) and len(_ops(back.graph)) > 1


def _probes(dtype):
    if dtype.is_bool:
        return [False, True]
    if dtype.is_integer:
        info = np.iinfo(dtype.np)
        return [v for v in (-7, -3, -1, 0, 1, 2, 5) if info.min <= v <= info.max] + \
            [info.min, info.max]
    return [-np.inf, -3.5, -1.0, -0.5, -0.0, 0.0, 1e-8, 0.5, 1.0, 2.5, 7.25, np.inf, np.nan]


@pytest.mark.parametrize("op,types", [(c[0], c[1]) for c in EXACT],
                         ids=[f"{c[0]}-" + "-".join(t.dtype.short for t in c[1])
                              for c in EXACT])
def test_an_exact_pattern_is_the_ops_kernel_bit_for_bit(tmp_path, op, types):
    """What the importer relies on, checked here and not at import: the pattern run as
    ONNX ops in graphjit equals the op (it uses no transcendental function, so this
    holds on every CPU)."""
    path = tmp_path / "m.onnx"
    proto = gx.export(_model(op, types), path)
    for node in proto.graph.node:        # no group names: nothing to recognize
        node.name = ""
    formula = gx.import_model(proto.SerializeToString())
    assert _ops(formula.graph) != [op]
    grids = np.meshgrid(*[np.array(_probes(t.dtype), t.dtype.np) for t in types],
                        indexing="ij")
    arrays = [g.reshape(-1) for g in grids]
    # both run on the same arrays of 4: a numpy function (np.cos of Cos's Cast and Cos)
    # then sees the same data in both, whatever kernel numpy picks for that length
    with np.errstate(all="ignore"):
        want = _run_formula(_model(op, types).graph, arrays)
        got = _run_formula(formula.graph, arrays)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=True)
    if want.dtype.kind == "f":
        assert np.array_equal(np.signbit(got), np.signbit(want))


def _run_formula(graph, arrays):
    """Run an imported graph of static shape (4,) on longer probe arrays, 4 at a time."""
    model = CompiledModel(graph)
    n = len(arrays[0])
    pad = (-n) % 4
    padded = [np.concatenate([a, np.repeat(a[:1], pad)]) for a in arrays]
    chunks = [model.run_arrays([a[i:i + 4] for a in padded])[0]
              for i in range(0, n + pad, 4)]
    return np.concatenate(chunks)[:n]


def test_import_decides_without_running_numpys_kernels(tmp_path, monkeypatch):
    """Log1p, Expm1 and every transcendental numpy has are made to fail: the imported IR
    is the same, so nothing was probed."""
    types = (TensorType(D.float32, (4,)),)
    files = []
    for op in ("Log1p", "Expm1", "Rsqrt", "Square"):
        path = tmp_path / f"{op}.onnx"
        gx.export(_model(op, types), path)
        files.append(path)
    before = [str(gx.import_model(p).graph) for p in files]

    def broken(*a, **k):
        raise AssertionError("the importer ran a numpy kernel to decide a rewrite")
    for name in ("log1p", "expm1", "log", "exp", "sqrt", "reciprocal", "square"):
        monkeypatch.setattr(np, name, broken)
    after = []
    for p in files:
        after.append(str(gx.import_model(p).graph))
    assert after == before


def test_a_group_whose_names_lie_keeps_its_onnx_meaning(tmp_path):
    """Rsqrt's pattern named as Square, Square's as Rsqrt, and Rsqrt's with its
    Reciprocal swapped for a Neg under the right name: none is rewritten."""
    types = (TensorType(D.float32, (4,)),)
    x = np.array([0.25, 4.0, 9.0, 2.0], np.float32)
    for op, claim, swap in (("Rsqrt", "Square", None), ("Square", "Rsqrt", None),
                            ("Rsqrt", "Rsqrt", ("Reciprocal", "Neg"))):
        proto = gx.export(_model(op, types), tmp_path / "m.onnx")
        for node in proto.graph.node:
            node.name = node.name.replace(f"gj.{op}.", f"gj.{claim}.")
            if swap and node.op_type == swap[0]:
                node.op_type = swap[1]
        back = gx.import_model(proto.SerializeToString())
        ops = _ops(back.graph)
        assert claim not in ops, (op, claim, ops)
        want = {"Rsqrt": 1 / np.sqrt(x), "Square": x * x}[op] if swap is None else -np.sqrt(x)
        np.testing.assert_array_equal(back.run_arrays([x])[0], want.astype(np.float32))


def test_the_same_file_gives_the_same_ir_twice(tmp_path):
    types = (TensorType(D.float32, (4,)), TensorType(D.float32, (4,)))
    path = tmp_path / "m.onnx"
    g = Graph("mix")
    a, b = (g.add_param(t, f"x{i}") for i, t in enumerate(types))
    g.set_results([g.apply("Log1p", g.apply("Square", a)), g.apply("FloorMod", a, b),
                   g.apply("Expm1", g.apply("Rsqrt", b))])
    gx.export(CompiledModel(g), path)
    first = str(gx.import_model(path).graph)
    assert first == str(gx.import_model(path).graph)
    ops = _ops(gx.import_model(path).graph)
    assert {"Square", "FloorMod", "Rsqrt"} <= set(ops)
    assert "Log1p" not in ops and "Expm1" not in ops

