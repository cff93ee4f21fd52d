"""Whole programs exported to ONNX and run on ONNX Runtime: every tutorial's model, and
random control-flow programs of the property-test generators (tests/frontend:
fuzzgen, fuzzgen2, leavegen). Each must give graphjit's outputs (values, dtypes,
shapes; floats within 1e-6, ONNX Runtime's tanh/exp/sums round differently) or, for
a model that updates Parameters, be refused with one clear error."""
import ast
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

if __name__ == "__main__":      # run by hand: tests/ holds the optional-extras helper
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from optional import require    # noqa: E402
onnx = require("onnx", "onnx")
ort = require("onnxruntime", "onnx")

import graphjit as ms                                         # noqa: E402
import graphjit.onnx as gx                                    # noqa: E402
from graphjit.jit.compiled_model import CompiledModel         # noqa: E402
from graphjit.onnx.exporter import OnnxExportError            # noqa: E402
from graphjit.onnx.export_outputs import flat_outputs        # noqa: E402
from _export_helpers import compare, export_and_compare, ort_run, session  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "tutorials"
FRONTEND = ROOT / "tests" / "frontend"
for _p in (str(FRONTEND), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

f32, i32 = np.float32, np.int32


def definitions(path):
    """The imports, constants, classes and functions of a tutorial, without running
    its script part (imports of missing optional extras are left out)."""
    tree = ast.parse(path.read_text())
    ns = {"__name__": f"defs_{path.stem}", "__file__": str(path)}
    for stmt in tree.body:
        keep = isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.Import, ast.ImportFrom))
        if isinstance(stmt, ast.Assign) and all(
                isinstance(t, (ast.Name, ast.Tuple)) for t in stmt.targets):
            names = [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            keep = all(n.isupper() for n in names)
        if not keep:
            continue
        code = compile(ast.Module([stmt], []), str(path), "exec")
        try:
            exec(code, ns)
        except ImportError:
            pass
    return ns


def T(*a, dtype=f32):
    return ms.Tensor(np.array(a, dtype).reshape(np.array(a, dtype).shape))


X = np.array([1.0, -2.0, 3.0], f32)
ROWS = np.arange(6, dtype=f32).reshape(2, 3) - 2


def _tutorial_cases():
    t01 = definitions(TUTORIALS / "01_quickstart.py")
    t02 = definitions(TUTORIALS / "02_loop_and_if_ir.py")
    t03 = definitions(TUTORIALS / "03_control_flow.py")
    t04 = definitions(TUTORIALS / "04_errors_and_explain.py")
    t05 = definitions(TUTORIALS / "05_training.py")
    t08 = definitions(TUTORIALS / "08_distributed.py")
    spec = importlib.util.spec_from_file_location("loop_model", TUTORIALS / "models" /
                                                  "loop_model.py")
    loop_model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loop_model)
    n3 = ms.Tensor(np.array(3, i32))
    xs = np.random.default_rng(0).standard_normal((6, 2, 1)).astype(f32)
    cases = [
        ("01 Scale", lambda: t01["Scale"](3.0), (ms.Tensor(ROWS), ms.Tensor(X)), None),
        ("02 running_total", lambda: CompiledModel(t02["build"]()), (),
         [[np.arange(18, dtype=f32).reshape(6, 3), np.array(lim, f32)]
          for lim in (40.0, 1000.0, -1.0)]),
        ("03 Scaled", lambda: t03["Scaled"](True), (ms.Tensor(X),), None),
        ("03 Clip", lambda: t03["Clip"](), (ms.Tensor(X),), [[X], [-X]]),
        ("03 Unrolled", lambda: t03["Unrolled"](), (ms.Tensor(X),), None),
        ("03 Rolled", lambda: t03["Rolled"](), (ms.Tensor(X), n3),
         [[X, np.array(k, i32)] for k in (0, 3, 7)]),
        ("03 RowsToList", lambda: t03["RowsToList"](), (ms.TensorSpec((None, 2), ms.float32),),
         [[ROWS.reshape(3, 2)], [np.zeros((0, 2), f32)]]),
        ("03 GrowFixed", lambda: t03["GrowFixed"](), (ms.Tensor(X), n3),
         [[X, np.array(k, i32)] for k in (1, 3)]),
        ("04 PadOrKeepFixed", lambda: t04["PadOrKeepFixed"](), (ms.Tensor(X),), [[X], [-X]]),
        ("04 RowSumFixed", lambda: t04["RowSumFixed"](), (ms.TensorSpec((None, 3), ms.float32),),
         [[ROWS], [np.zeros((0, 3), f32)]]),
        ("04 ScaleFixed", lambda: t04["ScaleFixed"](), (ms.Tensor(X),), [[X], [X * 10]]),
        ("04 Model", lambda: t04["Model"](), (ms.Tensor(X), ms.Tensor(ROWS), n3),
         [[X, ROWS, np.array(k, i32)] for k in (0, 3)]),
        ("05 EarlyStopRNN", lambda: t05["EarlyStopRNN"](),
         (ms.TensorSpec((None, 2, 1), ms.float32),), [[xs], [xs * 40], [xs[:0]]]),
        ("06 Shrink", lambda: loop_model.Shrink(), (ms.TensorSpec((None, 4), ms.float32),),
         [[np.ones((3, 4), f32)], [np.full((5, 4), -0.7, f32)], [np.zeros((0, 4), f32)]]),
    ]
    if "Scorer" in t08:
        rng = np.random.default_rng(2)
        cases.append(("08 Scorer", lambda: t08["Scorer"](),
                      (ms.TensorSpec((None, None), ms.float32),),
                      [[rng.standard_normal((4, 16)).astype(f32)],
                       [rng.standard_normal((1, 16)).astype(f32)]]))
        cases.append(("08 Standardize", lambda: t08["Standardize"](),
                      (ms.TensorSpec((None, 16), ms.float32),),
                      [[rng.standard_normal((5, 16)).astype(f32)]]))
    return cases, t05


CASES, T05 = _tutorial_cases()


@pytest.mark.parametrize("name,make,example,runs", CASES, ids=[c[0] for c in CASES])
def test_tutorial_model_exports_and_agrees(tmp_path, name, make, example, runs):
    export_and_compare(make() if example == () else make(), tmp_path, example, runs=runs,
                       name=name.replace(" ", "_"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", ["RunningMean", "AdagradSteps"])
def test_tutorial_models_that_update_parameters_are_refused(tmp_path, cls):
    example = ms.Tensor(np.ones(3, f32)) if cls == "RunningMean" else \
        ms.Tensor(np.ones((2, 2), f32))
    with pytest.raises(OnnxExportError, match="updates a Parameter") as info:
        gx.export(T05[cls](), tmp_path / "m.onnx", example)
    assert "05_training.py:" in str(info.value)


# -- random programs ------------------------------------------------------------------------------
def _load(src, directory, name):
    path = pathlib.Path(directory) / f"{name}.py"
    path.write_text("import graphjit as ms\nfrom graphjit import ops\n\n" + src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prog


def _generator(kind):
    """(program source of a seed, list of argument tuples) of a generator."""
    if kind == "fuzzgen":
        from fuzzgen import Gen
        import test_fuzz_equivalence as t
        return (lambda s: Gen(s).program(),
                [(ms.Tensor(x), ms.Tensor(y), ms.Tensor(np.array(n, i32)),
                  ms.Tensor(np.float32(s))) for x, y, n, s in t.INPUTS])
    if kind == "fuzzgen2":
        from fuzzgen2 import Gen2
        import test_fuzz2_equivalence as t
        return (lambda s: Gen2(s, avoid=t.AVOID).program(),
                [(ms.Tensor(a), ms.Tensor(b), ms.Tensor(v), ms.Tensor(bb),
                  ms.Tensor(np.array(n, i32)), p, q, f) for a, b, v, bb, n, p, q, f in t.INPUTS])
    from leavegen import LeaveGen
    import test_leaving_paths as t
    return lambda s: LeaveGen(s).program(), [t._args(*i) for i in t.INPUTS]


FOLDS = {
    # the returned value, then a constant Tensor of the module and a Python number
    "tail": lambda e: ast.Tuple([e, ast.Name("FOLD_T", ast.Load()),
                                 ast.Constant(7)], ast.Load()),
    # a Python number between, a constant Tensor first
    "mixed": lambda e: ast.Tuple([ast.Name("FOLD_T", ast.Load()), e,
                                  ast.Constant(2.5), ast.Constant(True)], ast.Load()),
    # everything folds: the program's work is dead code
    "all": lambda e: ast.Tuple([ast.Name("FOLD_T", ast.Load()), ast.Constant(3)],
                               ast.Load()),
}


def with_folded_outputs(src, fold):
    """The program with each `return E` of prog made to return constants beside (or
    instead of) E, as FOLDS[fold] says."""
    tree = ast.parse(src)
    prog = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "prog")

    def visit(stmts):
        for st in stmts:
            if isinstance(st, ast.Return):
                st.value = FOLDS[fold](st.value if st.value is not None else
                                       ast.Constant(None))
            elif not isinstance(st, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(st, field, []) or [])
                for h in getattr(st, "handlers", []) or []:
                    visit(h.body)
    visit(prog.body)
    return ("import numpy as np\n"
            "FOLD_T = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))\n\n"
            + ast.unparse(ast.fix_missing_locations(tree)))


def check_random_program(kind, seed, directory, fold=None):
    """Export the program compiled for the argument tuples graphjit runs (once per
    distinct Python-constant arguments), run it on ONNX Runtime, compare every output
    (those that folded to constants included); returns how many runs were compared.
    fold: None, or a key of FOLDS (the program made to return constants too)."""
    source, arg_sets = _generator(kind)
    src = source(seed)
    if fold is not None:
        src = with_folded_outputs(src, fold)
    fn = _load(src, directory, f"{kind}_{seed}_{fold}")
    ms.set_context(mode=ms.GRAPH_MODE)
    ran, sessions = 0, {}
    for k, args in enumerate(arg_sets):
        arrays = [a.asnumpy() for a in args if isinstance(a, ms.Tensor)]
        key = tuple(repr(a) for a in args if not isinstance(a, ms.Tensor))
        try:
            with np.errstate(all="ignore"):
                if key not in sessions:
                    sessions[key] = [ms.compile(fn, *args), None]
                model = sessions[key][0]
                want = flat_outputs(model, arrays)
        except Exception:       # graphjit refuses or raises: nothing to compare
            continue
        if sessions[key][1] is None:
            path = pathlib.Path(directory) / f"{kind}_{seed}_{k}.onnx"
            gx.export(model, path)
            sessions[key][1] = session(path)
        got = ort_run(sessions[key][1], arrays)
        problem = compare(got, want, rtol=1e-5, atol=1e-5)
        assert problem is None, f"{kind} seed {seed}, inputs {k}: {problem}\n{src}"
        ran += 1
    return ran


SEEDS = {"fuzzgen": range(0, 25), "fuzzgen2": range(0, 20), "leavegen": range(0, 15)}


@pytest.mark.parametrize("kind,seed", [(k, s) for k, r in SEEDS.items() for s in r])
def test_random_program_exports_and_agrees(tmp_path, kind, seed):
    check_random_program(kind, seed, tmp_path)


FOLD_SEEDS = [(k, s, f) for f in FOLDS for k in SEEDS for s in range(3)]


@pytest.mark.parametrize("kind,seed,fold", FOLD_SEEDS)
def test_random_program_returning_constants_exports_every_output(tmp_path, kind, seed, fold):
    assert check_random_program(kind, seed, tmp_path, fold) > 0


if __name__ == "__main__":      # more seeds by hand: python test_export_programs.py KIND LO HI
    import tempfile
    kind, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    failures, total = [], 0
    with tempfile.TemporaryDirectory() as d:
        for s in range(lo, hi):
            try:
                total += check_random_program(kind, s, d)
            except Exception as e:      # report and go on
                failures.append((s, f"{type(e).__name__}: {str(e)[:2000]}"))
    for s, e in failures:
        print(f"--- {kind} seed {s}: {e}")
    print(f"{kind} seeds {lo}..{hi}: {total} exports compared, {len(failures)} failing seed(s)")
