"""docs/errors.md, executable: every documented mistake, inside if, for and while, raises
its class (and the builtin it subclasses) at the user's line, with the source text, the
variables involved, both sides of a failed join and a fix.

The programs live in tests/frontend/error_programs/; expected lines are found by searching
their source, so they stay right when the files change. Run this file as a script to print
the current message of every case, or with --update-docs to rewrite the messages shown in
docs/errors.md.
"""
from __future__ import annotations

import inspect
import pathlib
import re
import runpy
import sys
import traceback
from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np
import pytest

import graphjit as ms
from graphjit.jit.api import compare_results
import graphjit.nn
import graphjit.ops

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))  # so that `python test_error_catalog.py` finds the programs
from error_programs import (raising, registry_errors, runtime, shape_inference,  # noqa: E402
                            shape_join, type_join, undefined, unsupported)

DOCS = HERE.parent.parent / "docs" / "errors.md"
SEEDS = HERE / "seed_programs"
GRAPHJIT_DIR = pathlib.Path(ms.__file__).resolve().parent


# -- inputs ----------------------------------------------------------------------------------
def _vec():
    return ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def _rows():
    return ms.Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))


def _n(v=2):
    return ms.Tensor(np.array(v, np.int32))


def _mat():
    return ms.Tensor(np.ones((2, 3), np.float32))


INPUTS = {
    "x": lambda: (_vec(),),
    "x,rows": lambda: (_vec(), _rows()),
    "x,n": lambda: (_vec(), _n()),
    "x,zero": lambda: (_vec(), ms.Tensor(np.array(0, np.int32))),
    "rows": lambda: (_rows(),),
    "x,y": lambda: (_vec(), _vec()),
    "x,w": lambda: (_mat(), _mat()),
    "x,ws": lambda: (_mat(), ms.Tensor(np.ones((2, 2, 3), np.float32))),
    "x,w,n": lambda: (_mat(), _mat(), _n()),
    "x,i": lambda: (_vec(), _n(2)),
    "x,idx": lambda: (_vec(), ms.Tensor(np.array([0, 3], np.int32))),
}


@pytest.fixture(autouse=True)
def catalog_ops():
    """The user operators of the examples, registered for each test and removed after it,
    so that the registry's own tests (every op complete) never see them."""
    from graphjit.ir import registry
    names = registry_errors.register() + runtime.register()
    yield
    for name in names:
        registry._REGISTRY.pop(name, None)   # no public unregister


# -- locating lines ----------------------------------------------------------------------------
def line_of(obj, snippet: str) -> Tuple[int, str]:
    """The (line number, full text) of the one line of obj's source containing snippet."""
    lines, start = inspect.getsourcelines(obj)
    hits = [(start + i, text.rstrip("\n")) for i, text in enumerate(lines) if snippet in text]
    assert len(hits) == 1, f"{snippet!r} is on {len(hits)} lines of {obj.__qualname__}"
    return hits[0]


def source_file(obj) -> str:
    return str(pathlib.Path(inspect.getsourcefile(obj)).resolve())


# -- the catalog -------------------------------------------------------------------------------
@dataclass
class Case:
    """One documented mistake: the program, what it raises and what the message must say.

    at: a snippet of the line the error points at; span: where its underline starts.
    sites: snippets of other lines the message must name by line number and text
    (the assignments of both sides of a join, say). phrases: regexes the message must
    match.
    """

    id: str
    program: type
    inputs: str
    error: type
    builtin: type
    at: str
    phrases: Tuple[str, ...] = ()
    names: Tuple[str, ...] = ()
    sites: Tuple[str, ...] = ()
    span: Optional[str] = None
    fix: str = "required"        # "missing": a known gap (xfail); "n/a": a run-time error
    marks: tuple = field(default=())

    def run(self):
        return self.program()(*INPUTS[self.inputs]())


JOIN = r"Cannot join the return values of different branches, perhaps you need to make " \
       r"them equal\."

CASES = [
    # ShapeJoinError
    Case("shape_join-if", shape_join.ShapeInIf, "x", ms.ShapeJoinError, ValueError,
         at="if x.sum() > 0:",
         phrases=(JOIN, re.escape("Shape Join Failed: shape1 = (3), shape2 = (6)."),
                  r"rule 1", r"if-branch", r"else-branch", r"float32"),
         names=("out",), sites=("out = x", "out = ops.concat((x, x))")),
    Case("shape_join-for", shape_join.ShapeInFor, "x,rows", ms.ShapeJoinError, ValueError,
         at="for row in rows:",
         phrases=(JOIN, re.escape("Shape Join Failed: shape1 = (3), shape2 = (6)."),
                  r"rule 1", r"iteration"),
         names=("out",), sites=("out = ops.concat((out, row))",)),
    Case("shape_join-while", shape_join.ShapeInWhile, "x,n", ms.ShapeJoinError, ValueError,
         at="while n > 0:",
         phrases=(JOIN, re.escape("Shape Join Failed: shape1 = (3), shape2 = (1, 3)."),
                  r"rule 4", r"iteration"),
         names=("out",), sites=("out = ops.expand_dims(out, 0)",)),
    # TypeJoinError: dtypes
    Case("type_join-if", type_join.DtypeInIf, "x", ms.TypeJoinError, TypeError,
         at="if x.sum() > 0:",
         phrases=(r"float32", r"int32", r"if-branch", r"else-branch"),
         names=("out",), sites=("out = x", "out = ops.cast(x, ms.int32)")),
    Case("type_join-for", type_join.DtypeInFor, "rows", ms.TypeJoinError, TypeError,
         at="for row in rows:", phrases=(r"int32", r"float32", r"iteration"),
         names=("total",), sites=("total = total + row",)),
    Case("type_join-while", type_join.DtypeInWhile, "x,n", ms.TypeJoinError, TypeError,
         at="while n > 0:", phrases=(r"int32", r"float32", r"iteration"),
         names=("total",), sites=("total = total + x",)),
    # TypeJoinError: a tensor on one path, None on the other
    Case("none_join-if", type_join.NoneInIf, "x", ms.TypeJoinError, TypeError,
         at="if x.sum() > 0:", phrases=(r"None", r"float32 tensor"),
         names=("best",), sites=("best = x", "best = None")),
    Case("none_join-for", type_join.NoneInFor, "rows", ms.TypeJoinError, TypeError,
         at="for row in rows:", phrases=(r"None", r"float32 tensor", r"iteration"),
         names=("best",)),
    Case("none_join-while", type_join.NoneInWhile, "x,n", ms.TypeJoinError, TypeError,
         at="while n > 0:", phrases=(r"None", r"float32 tensor", r"iteration"),
         names=("best",)),
    # UndefinedVariableError
    Case("undefined-if", undefined.UndefinedInIf, "x", ms.UndefinedVariableError, NameError,
         at="return scaled", span="scaled", phrases=(r"'scaled'", r"if-branch"),
         names=("scaled",)),
    # a name bound only inside a loop on tensor values: read after a loop that ran zero
    # times it raises UnboundLocalError when the graph runs, as eager Python does
    Case("undefined-for", undefined.UndefinedInFor, "x,zero", ms.GraphRuntimeError,
         UnboundLocalError, at="return last", span="last", phrases=(r"'last'", r"loop"),
         names=("last",)),
    Case("undefined-while", undefined.UndefinedInWhile, "x,zero", ms.GraphRuntimeError,
         UnboundLocalError, at="return last", span="last", phrases=(r"'last'", r"loop"),
         names=("last",)),
    Case("undefined-typo", undefined.Typo, "x", ms.UndefinedVariableError, NameError,
         at="return hiden + 1", span="hiden", phrases=(r"name 'hiden' is not defined",),
         names=("hiden",)),
    # a name the loop body assigns, read before the body assigns it: only an earlier
    # iteration's value could be there, and graph mode does not carry it
    Case("undefined-earlier-iteration", undefined.EarlierIteration, "x,n",
         ms.UndefinedVariableError, NameError, at="x = x + prev", span="prev",
         phrases=(r"name 'prev' is not defined", r"earlier iteration"), names=("prev",)),
    # UnsupportedSyntaxError
    *[Case(f"{kind}-{where}", getattr(unsupported, f"{prefix}In{where.title()}"),
           "x" if where == "if" else "x,rows" if where == "for" else "x,n",
           ms.UnsupportedSyntaxError, SyntaxError, at=at[where], phrases=phrases, names=names,
           span=span[where] if isinstance(span, dict) else span)
      for kind, prefix, at, phrases, names, span in [
          ("try", "Try", dict.fromkeys(("if", "for", "while"), "try:"),
           (r"try/except is not supported in graph mode",), (), None),
          ("yield", "Yield", {"if": "yield x\n", "for": "yield x + row",
                              "while": "yield x * n"}, (r"yield", r"generator"), (), None),
          ("global", "Global", dict.fromkeys(("if", "for", "while"), "global STEPS"),
           (r"global",), (), None),
          ("with", "With", dict.fromkeys(("if", "for", "while"), "with np.errstate"),
           (r"with",), (), None),
          ("numpy", "Numpy", {"if": "x = x / np.linalg.norm(x)",
                              "for": "x = x + row / np.linalg.norm(row)",
                              "while": "x = x / np.linalg.norm(x)"},
           (r"numpy\.\w*norm was called on a graph value",), (), "np.linalg.norm"),
          ("asnumpy", "Asnumpy", {"if": "x = ms.Tensor(x.asnumpy()",
                                  "for": "x = x + ms.Tensor(row.asnumpy()",
                                  "while": "x = ms.Tensor(x.asnumpy()"},
           (r"asnumpy\(\) of a graph value",), (),
           {"if": "x.asnumpy()", "for": "row.asnumpy()", "while": "x.asnumpy()"}),
          ("param-value", "ParamValue", {"if": "x = x * self.scale.asnumpy()",
                                         "for": "x = x + row * self.scale.asnumpy()",
                                         "while": "x = x * self.scale.asnumpy()"},
           (r"the value of Parameter 'scale' was needed while the graph is built",
            r"state"), (), "self.scale.asnumpy()"),
      ]
      for where in ("if", "for", "while")],
    *[Case(f"mutate-{where}", getattr(unsupported, f"MutateIn{where.title()}"),
           "x" if where == "if" else "x,rows" if where == "for" else "x,n",
           ms.UnsupportedSyntaxError, SyntaxError,
           at="self.history.append(row)" if where == "for" else "self.history.append(x)",
           phrases=(r"a list that outlives the call",))
      for where in ("if", "for", "while")],
    Case("async", unsupported.AsyncConstruct, "x", ms.UnsupportedSyntaxError, SyntaxError,
         at="async def construct", phrases=(r"coroutine", r"async def",
                                            r"Fix: define it with a plain `def construct`")),
    Case("recursion", unsupported.RecursionDepthFromTensor, "x", ms.UnsupportedSyntaxError,
         SyntaxError, at="return self.count(x - 1) + self.count(x - 2)",
         span="self.count(x - 1)",
         phrases=(r"'count' calls itself under a condition that depends on a tensor value",
                  r"more than once"), names=("count",)),
    # ShapeInferenceError
    Case("matmul-if", shape_inference.MatMulInIf, "x,w", ms.ShapeInferenceError, ValueError,
         at="x = ops.matmul(x, w)", span="ops.matmul",
         phrases=(r"MatMul", re.escape("f32[2,3] and f32[2,3]"))),
    Case("matmul-for", shape_inference.MatMulInFor, "x,ws", ms.ShapeInferenceError,
         ValueError, at="x = ops.matmul(x, w)", span="ops.matmul",
         phrases=(r"MatMul", re.escape("f32[2,3] and f32[2,3]"))),
    Case("matmul-while", shape_inference.MatMulInWhile, "x,w,n", ms.ShapeInferenceError,
         ValueError, at="x = ops.matmul(x, w)", span="ops.matmul",
         phrases=(r"MatMul", re.escape("f32[2,3] and f32[2,3]"))),
    *[Case(f"layer-{where}", getattr(shape_inference, f"DenseIn{where.title()}"),
           "x" if where == "if" else "x,rows" if where == "for" else "x,n",
           ms.ShapeInferenceError, ValueError,
           at="x = self.fc(row)" if where == "for" else "x = self.fc(x)", span="self.fc",
           phrases=(r"Dense\(in_channels=4\) got an input with 3 features",
                    r"Fix: build the layer with in_channels=3"))
      for where in ("if", "for", "while")],
    Case("ambiguous-if", shape_inference.AmbiguousIf, "x", ms.ShapeInferenceError,
         ValueError, at="if x > 0:", span="x > 0",
         phrases=(r"truth value of a tensor with 3 elements", r"ambiguous", r"\.any\(\)")),
    Case("ambiguous-for", shape_inference.AmbiguousInFor, "x,rows", ms.ShapeInferenceError,
         ValueError, at="if row > 0:", span="row > 0",
         phrases=(r"truth value of a tensor with 3 elements", r"ambiguous")),
    Case("ambiguous-while", shape_inference.AmbiguousWhile, "x", ms.ShapeInferenceError,
         ValueError, at="while x > 0:", span="x > 0",
         phrases=(r"truth value of a tensor with 3 elements", r"ambiguous")),
    # OpNotFoundError, MissingInferenceError
    *[Case(f"unknown_op-{where}", getattr(registry_errors, f"UnknownOpIn{where.title()}"),
           "x" if where == "if" else "x,rows" if where == "for" else "x,n",
           ms.OpNotFoundError, LookupError, at='ops.call_op("Sofmax"', span="ops.call_op",
           phrases=(r"no operator named 'Sofmax' is registered", r"did you mean 'Softmax'"))
      for where in ("if", "for", "while")],
    *[Case(f"no_infer-{where}", getattr(registry_errors, f"NoInferIn{where.title()}"),
           "x" if where == "if" else "x,rows" if where == "for" else "x,n",
           ms.MissingInferenceError, NotImplementedError, at="double(", span="double(",
           phrases=(r"No shape inference function exists for op 'CatalogDoubleNoInfer'",
                    r"infer="))
      for where in ("if", "for", "while")],
    # GraphRuntimeError (raised when the graph runs, still at the user's line)
    # RaiseError: a message made from tensor values, on a path known while building
    *[Case(f"raise-{where}", getattr(raising, f"RaiseIn{where.title()}"),
           "x" if where == "if" else "x,rows" if where == "for" else "x,n", ms.RaiseError,
           RuntimeError, at=at, phrases=(r"Should not raise with variable under a constant "
                                         r"condition",))
      for where, at in (("if", 'raise ValueError(f"unexpected input {x}")'),
                        ("for", 'raise ValueError("bad row %s" % rows[i])'),
                        ("while", 'raise ValueError("stopped at {}".format(x))'))],
    Case("runtime-if", runtime.PickInIf, "x,i", ms.GraphRuntimeError, RuntimeError,
         at="x = [x, x * 2][i]", span="[x, x * 2][i]",
         phrases=(r"failed while the graph ran", r"out of range"), fix="n/a"),
    Case("runtime-for", runtime.PickInFor, "x,idx", ms.GraphRuntimeError, RuntimeError,
         at="x = [x, x * 2][i]", span="[x, x * 2][i]",
         phrases=(r"failed while the graph ran", r"out of range"), fix="n/a"),
    Case("runtime-while", runtime.PickInWhile, "x,i", ms.GraphRuntimeError, RuntimeError,
         at="x = [x, x * 2][i]", span="[x, x * 2][i]",
         phrases=(r"failed while the graph ran", r"out of range"), fix="n/a"),
]
BY_ID = {c.id: c for c in CASES}


def _params(cases):
    return [pytest.param(c, id=c.id, marks=c.marks) for c in cases]


def raise_of(case: Case) -> BaseException:
    with pytest.raises(case.builtin) as info:
        case.run()
    return info.value


# -- every case: class, line, source text, names, phrases, sites -------------------------------
@pytest.mark.parametrize("case", _params(CASES))
def test_catalog_case(case):
    e = raise_of(case)
    assert isinstance(e, case.error) and isinstance(e, ms.GraphJitError), type(e).__mro__
    text = str(e)
    line, src = line_of(case.program, case.at)
    assert e.loc is not None, text
    assert pathlib.Path(e.loc.file).resolve() == pathlib.Path(source_file(case.program))
    assert (e.loc.line, e.loc.text.strip()) == (line, src.strip()), text
    for pattern in case.phrases:
        assert re.search(pattern, text), f"{pattern!r} not in:\n{text}"
    for name in case.names:
        assert name in e.names, (e.names, text)
        assert f"'{name}'" in text, text
    for snippet in case.sites:
        site_line, site_src = line_of(case.program, snippet)
        assert f"line {site_line}" in text and site_src.strip() in text, \
            f"line {site_line} `{site_src.strip()}` not named in:\n{text}"


def _rendered_location(e, case):
    """Checks `File "...", line L, column C`, the source line and its caret underline."""
    text = str(e)
    line, src = line_of(case.program, case.at)
    col = src.index(case.span) if case.span else len(src) - len(src.lstrip())
    head = f'File "{e.loc.file}", line {line}, column {col + 1}'
    assert head in text, f"{head!r} not in:\n{text}"
    lines = text.splitlines()
    stripped = src.strip()
    i = next(i for i, t in enumerate(lines) if t.strip() == stripped and i > 0 and
             head in lines[i - 1])
    carets = lines[i + 1]
    indent = len(lines[i]) - len(lines[i].lstrip())
    assert set(carets.strip()) == {"^"}, carets
    assert carets.index("^") - indent == col - (len(src) - len(src.lstrip())), (src, carets)


def _fix_params():
    out = []
    for c in CASES:
        marks = list(c.marks if isinstance(c.marks, (list, tuple)) else [c.marks])
        if c.fix == "missing":
            marks.append(pytest.mark.xfail(strict=True, reason=(
                "gap: the message does not end with a concrete fix ('Fix: ...')")))
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("case", _fix_params())
def test_message_shows_location_source_underline_and_fix(case):
    e = raise_of(case)
    _rendered_location(e, case)
    if case.fix == "n/a":
        return
    last = str(e).rstrip().splitlines()[-1]
    assert last.startswith("Fix: ") and len(last) > len("Fix: ") + 10, str(e)


# -- requirements of the issue the messages do not meet yet ------------------------------------
@pytest.mark.parametrize("case_id", ["shape_join-for", "shape_join-while", "type_join-for",
                                     "type_join-while"])
def test_loop_join_names_both_sides_with_their_assignments(case_id):
    case = BY_ID[case_id]
    e = raise_of(case)
    text = str(e)
    name = case.names[0]
    entry = "out = x" if name == "out" else "total = ops.zeros((3,), ms.int32)"
    line, src = line_of(case.program, entry)
    assert f"line {line}" in text and src.strip() in text, text
    assert len(re.findall(r"float32|int32", text)) >= 2, text


def _part(text, label):
    """The lines of a message part: its label, the location line, the source, the carets."""
    lines = text.splitlines()
    i = lines.index(label)
    return lines[i:i + 4]


@pytest.mark.parametrize("case_id, stmt", [("shape_join-for", "out = ops.concat((out, row))"),
                                           ("shape_join-while", "out = ops.expand_dims(out, 0)")])
def test_loop_shape_join_shows_where_the_shape_changes_with_its_source(case_id, stmt):
    case = BY_ID[case_id]
    part = _part(str(raise_of(case)), "'out' changes shape here:")
    line, _ = line_of(case.program, stmt)
    assert part[1].startswith(f'  File "{source_file(case.program)}", line {line}, column '), part
    assert part[2].strip() == stmt and set(part[3].strip()) == {"^"}, part


_GROW = """from graphjit import nn, ops


class Grow(nn.Cell):
    def construct(self, x, n):
        out = x
        while n > 0:
            out = ops.expand_dims(out, 0)
            n = n - 1
        return out
"""


def test_identical_programs_in_two_files_each_point_at_their_own_file(tmp_path):
    # equal code objects from two files (== ignores the file): the second program's
    # message named the first file, whose text was gone once that file was
    import importlib.util
    import linecache
    grows = []
    for name in ("first", "second"):
        path = tmp_path / name / "prog.py"
        path.parent.mkdir()
        path.write_text(_GROW)
        spec = importlib.util.spec_from_file_location(f"grow_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        grows.append((module.Grow, path))
    args = (_vec(), ms.Tensor(np.array(2, np.int32)))
    for i, (grow, path) in enumerate(grows):
        with pytest.raises(ms.ShapeJoinError) as info:
            grow()(*args)
        e = info.value
        assert pathlib.Path(e.loc.file) == path and e.loc.text.strip() == "while n > 0:", str(e)
        part = _part(str(e), "'out' changes shape here:")
        assert part[1].startswith(f'  File "{path}", line 8, column 13'), part
        assert part[2].strip() == "out = ops.expand_dims(out, 0)", part
        if i == 0:
            path.unlink()
            linecache.checkcache()


@pytest.mark.parametrize("case_id", ["none_join-for", "none_join-while"])
def test_loop_none_join_names_assignments(case_id):
    case = BY_ID[case_id]
    text = str(raise_of(case))
    none_line, _ = line_of(case.program, "best = None")
    body_line, _ = line_of(case.program, "best = row * 2" if "for" in case_id else
                           "best = x * n")
    assert f"line {none_line}" in text and f"line {body_line}" in text, text


def test_op_shape_error_names_the_arguments():
    e = raise_of(BY_ID["matmul-if"])
    assert set(e.names) >= {"x", "w"}, e.names
    assert "'x'" in str(e) and "'w'" in str(e)


@pytest.mark.parametrize("case_id", ["global-if", "global-for", "global-while"])
def test_global_refusal_names_the_variable(case_id):
    e = raise_of(BY_ID[case_id])
    assert e.names == ("STEPS",), e.names


def test_typo_suggests_the_close_name():
    e = raise_of(BY_ID["undefined-typo"])
    assert re.search(r"Fix: .*'hidden'", str(e)), str(e)


# -- mistakes graph mode compiles today although it must refuse them ------------------------
@pytest.mark.parametrize("program,inputs", [
    (unsupported.BoolInIf, "x,y"), (unsupported.BoolInFor, "x,rows"),
    (unsupported.BoolInWhile, "x,n"),
], ids=["if", "for", "while"])
def test_bool_of_a_graph_value_gives_the_eager_answer(program, inputs):
    # bool(t) stands for a Python bool: `p is True` compares its value, as in eager mode
    args = INPUTS[inputs]()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    expected = program()(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert not compare_results(program()(*args), expected)


def test_mutation_refusal_names_the_object():
    e = raise_of(BY_ID["mutate-if"])
    assert any("history" in n for n in e.names), e.names


# -- the seed tutorial's failing examples ------------------------------------------------------
@pytest.fixture
def mindspore_alias(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", ms)
    monkeypatch.setitem(sys.modules, "mindspore.nn", graphjit.nn)
    monkeypatch.setitem(sys.modules, "mindspore.ops", graphjit.ops)


def _seed_line(name, text):
    lines = (SEEDS / name).read_text().splitlines()
    hits = [i + 1 for i, t in enumerate(lines) if t.strip() == text]
    assert len(hits) == 1, (name, text, hits)
    return hits[0]


SEED_FAILURES = [
    # file, the statement the error points at, (assignments the message must name)
    ("if_variable.py", "if x < y:", ("out = x", "out = z")),
    ("constraint2.py", "while i < 3:", ("out = x", "out = self.expand_dims(out, -1)")),
]


@pytest.mark.usefixtures("mindspore_alias")
@pytest.mark.parametrize("name,at,assignments", SEED_FAILURES,
                         ids=[s[0] for s in SEED_FAILURES])
def test_seed_tutorial_failures_name_out_and_its_assignments(name, at, assignments):
    with pytest.raises(ValueError) as info:
        runpy.run_path(str(SEEDS / name), run_name="__main__")
    e = info.value
    assert isinstance(e, ms.ShapeJoinError)
    text = str(e)
    assert e.names == ("out",) and "'out'" in text
    assert e.loc.line == _seed_line(name, at) and e.loc.text.strip() == at
    assert name in e.loc.file
    for stmt in assignments:
        assert f"line {_seed_line(name, stmt)}" in text and stmt in text, (stmt, text)
    assert re.search(r"rule \d", text) and "Fix:" in text


# -- the classes that are not about one program line -------------------------------------------
def test_equivalence_error_shows_both_results_and_the_report():
    ms.set_context(check_equivalence=True)
    with pytest.raises(AssertionError) as info:
        runtime.Noisy()(_vec())
    e = info.value
    assert isinstance(e, ms.EquivalenceError)
    text = str(e)
    assert "graph mode and eager mode disagree" in text
    assert "graph mode gave:" in text and "eager mode gave:" in text
    assert "Compile cache:" in text and "Noisy" in text
    assert "Fix:" in text


@pytest.mark.parametrize("case_id", ["runtime-if", "runtime-for", "runtime-while"])
def test_runtime_error_is_also_the_class_eager_mode_raises(case_id):
    """`except IndexError` works in both modes: eager mode raises IndexError for the list
    index out of range, graph mode a GraphRuntimeError that is an IndexError too."""
    case = BY_ID[case_id]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(IndexError):
        case.run()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(IndexError) as info:
        case.run()
    assert isinstance(info.value, ms.GraphRuntimeError)


def test_model_file_error_names_the_file(tmp_path):
    path = tmp_path / "model.gjm"
    path.write_bytes(b"not a model")
    with pytest.raises(ValueError) as info:
        ms.import_model(str(path))
    e = info.value
    assert isinstance(e, ms.ModelFileError)
    assert str(path) in str(e) and "not a graphjit model" in str(e)


def test_graph_verification_error_for_a_hand_built_graph():
    from graphjit.ir.graph import Graph
    from graphjit.ir.types import TensorType
    g, other = Graph("g"), Graph("other")
    a = g.add_param(TensorType(ms.float32, (3,)), "a")
    b = other.add_param(TensorType(ms.float32, (3,)), "b")
    with pytest.raises(ValueError) as info:
        g.apply("Add", a, b)
    e = info.value
    assert isinstance(e, ms.GraphVerificationError)
    assert "belongs to graph 'other'" in str(e) and "closed" in str(e)


def test_every_class_is_exported_and_subclasses_its_builtin():
    builtins = {"ShapeJoinError": (ValueError, TypeError), "TypeJoinError": (TypeError, ValueError),
                "UnsupportedSyntaxError": SyntaxError, "UndefinedVariableError": UnboundLocalError,
                "ShapeInferenceError": (ValueError, TypeError), "OpNotFoundError": LookupError,
                "MissingInferenceError": NotImplementedError,
                "MissingGradientError": NotImplementedError,
                "GraphVerificationError": ValueError, "GraphRuntimeError": RuntimeError,
                "EquivalenceError": AssertionError, "ModelFileError": ValueError,
                "UnregisteredParameterError": ValueError, "RaiseError": RuntimeError}
    from graphjit.ir import errors
    assert set(errors.__all__) == set(builtins) | {"GraphJitError"}
    for name, builtin in builtins.items():
        cls = getattr(ms, name)
        assert issubclass(cls, ms.GraphJitError), name
        for b in builtin if isinstance(builtin, tuple) else (builtin,):
            assert issubclass(cls, b), (name, b)


# -- tracebacks --------------------------------------------------------------------------------
def _frames(e):
    return [pathlib.Path(f.filename).resolve() for f in traceback.extract_tb(e.__traceback__)]


def _in_graphjit(path):
    return GRAPHJIT_DIR in path.parents


def test_builder_frames_hidden_by_default_and_shown_on_request():
    case = BY_ID["shape_join-if"]
    hidden = _frames(raise_of(case))
    assert not any(p.parent.name in ("frontend", "ir") and p.name != "api.py"
                   for p in hidden if _in_graphjit(p)), hidden
    ms.set_context(show_internal_frames=True)
    shown = _frames(raise_of(case))
    assert any(p.name == "builder.py" for p in shown if _in_graphjit(p)), shown
    assert len(shown) > len(hidden)


def _graphjit_frames(e):
    """(file name, function) of the graphjit frames of e's traceback."""
    return [(pathlib.Path(f.filename).name, f.name) for f in traceback.extract_tb(e.__traceback__)
            if _in_graphjit(pathlib.Path(f.filename).resolve())]


@ms.jit
def _jit_shape_join(x):
    if x.sum() > 0:
        out = x
    else:
        out = ms.ops.concat((x, x))
    return out


class _JitMethod:
    @ms.jit
    def run(self, x):
        return _jit_shape_join(x) * 2


def test_traceback_shows_one_graphjit_frame_the_entry_point_called():
    # below the user's own frame, only the public entry point the user called
    cell = raise_of(BY_ID["shape_join-if"])
    assert _graphjit_frames(cell) == [("cell.py", "__call__")], traceback.format_tb(
        cell.__traceback__)
    frames = traceback.extract_tb(cell.__traceback__)
    assert not _in_graphjit(pathlib.Path(frames[0].filename).resolve())
    calls = {
        "@jit function": (lambda: _jit_shape_join(_vec()), ("api.py", "__call__")),
        "@jit method": (lambda: _JitMethod().run(_vec()), ("api.py", "__call__")),
        "ms.compile": (lambda: ms.compile(shape_join.ShapeInIf(), _vec()),
                       ("compiled_model.py", "compile")),
        "ms.explain": (lambda: ms.explain(shape_join.ShapeInIf(), _vec()),
                       ("api.py", "explain")),
    }
    for what, (call, entry) in calls.items():
        with pytest.raises(ms.ShapeJoinError) as info:
            call()
        assert _graphjit_frames(info.value) == [entry], (what, traceback.format_tb(
            info.value.__traceback__))


def test_explain_hides_internal_frames_too():
    with pytest.raises(ms.ShapeJoinError) as info:
        ms.explain(shape_join.ShapeInIf(), _vec())
    assert not any(p.name == "builder.py" for p in _frames(info.value))


# -- docs/errors.md covers every class and shows these very programs ---------------------------
def _docs():
    return DOCS.read_text()


def test_docs_have_a_section_per_error_class():
    from graphjit.ir import errors
    text = _docs()
    for name in errors.__all__:
        assert re.search(rf"^## `{name}`", text, re.M), f"docs/errors.md: no section for {name}"


def _doc_examples():
    """(case id, code block, message block) for each `<!-- case: ID -->` marker."""
    text = _docs()
    pattern = re.compile(r"<!-- case: ([\w-]+) -->\s*```python\n(.*?)```\s*```text\n(.*?)```",
                         re.S)
    return pattern.findall(text)


def test_docs_examples_are_tested_programs_with_their_messages():
    examples = _doc_examples()
    assert len(examples) >= 12
    documented = {case_id for case_id, _, _ in examples}
    classes = {BY_ID[i].error for i in documented if i in BY_ID}
    for cls in (ms.ShapeJoinError, ms.TypeJoinError, ms.UnsupportedSyntaxError,
                ms.UndefinedVariableError, ms.ShapeInferenceError, ms.OpNotFoundError,
                ms.MissingInferenceError, ms.GraphRuntimeError):
        assert cls in classes, f"docs/errors.md has no tested example of {cls.__name__}"
    for case_id, code, message in examples:
        case = BY_ID[case_id]
        assert inspect.getsource(case.program) in code, f"{case_id}: the code differs from " \
                                                        f"{case.program.__qualname__}"
        if case.marks:
            continue
        line, src = line_of(case.program, case.at)
        assert f"line {line}" in message and src.strip() in message, case_id
        for pattern in case.phrases:
            assert re.search(pattern, message), f"{case_id}: docs message lacks {pattern!r}"
        for snippet in case.sites:
            assert f"line {line_of(case.program, snippet)[0]}" in message, (case_id, snippet)


def current_message(case: Case) -> str:
    """The message a case prints now, as a traceback shows it, paths relative to the
    repository."""
    root = str(HERE.parent.parent) + "/"
    try:
        case.run()
    except Exception as e:  # noqa: BLE001 - printing whatever it is
        return f"{type(e).__module__}.{type(e).__name__}: {e}".replace(root, "")
    return "(no error)"


def update_docs():
    """Rewrite the message block of every `<!-- case: ID -->` example in docs/errors.md."""
    def fill(m):
        return m.group(1) + current_message(BY_ID[m.group(2)]) + "\n```"
    text = re.sub(r"(<!-- case: ([\w-]+) -->\s*```python\n.*?```\s*```text\n).*?```",
                  fill, _docs(), flags=re.S)
    DOCS.write_text(text)


if __name__ == "__main__":
    registry_errors.register()
    runtime.register()
    if sys.argv[1:] == ["--update-docs"]:
        update_docs()
    else:
        for c in CASES:
            print(f"## {c.id}\n{current_message(c)}\n")
