"""A corpus of MindSpore-style control-flow programs (tests/frontend/ms_corpus),
each run eagerly (PYNATIVE_MODE) and compiled (GRAPH_MODE) and compared on
values, dtypes, shapes and structure; plus programs MindSpore documents as
errors, checked for the error class and a message naming the user's file and line."""
import importlib
import os
import traceback

import numpy as np
import pytest

import graphjit as ms
from graphjit.jit.api import JitFunction, compare_results

_MODULES = ["if_cases", "for_cases", "while_cases", "mixed_cases", "model_cases", "error_cases", "tricky_cases", "more_cases", "extra_cases", "probe_cases", "dtype_cases", "ms_tests_cases", "loops2_cases"]

# case name -> reason, for failures still open in graphjit (see /tmp/qa_failures.md)
# cases graphjit does not handle yet (strict: they must be taken out once it does)
XFAIL = {}


def _load(attr):
    out = []
    for mod in _MODULES:
        try:
            m = importlib.import_module(f"ms_corpus.{mod}")
        except ImportError:
            continue
        for case in getattr(m, attr, []):
            out.append((mod, case))
    return out


def _params(attr):
    params = []
    for mod, case in _load(attr):
        name = case[0]
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[name])] if name in XFAIL else []
        params.append(pytest.param(case, id=f"{mod}:{name}", marks=marks))
    return params


def _eager(make, make_inputs):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    target = make()
    if isinstance(target, JitFunction):
        target = target.fn
    return target(*make_inputs())


def _graph(make, make_inputs):
    ms.set_context(mode=ms.GRAPH_MODE)
    target = make()
    if not isinstance(target, (ms.nn.Cell, JitFunction)):
        target = ms.jit(target)
    return target(*make_inputs())


@pytest.mark.parametrize("case", _params("CASES"))
def test_graph_matches_eager(case):
    name, make, make_inputs = case[:3]
    eager = _eager(make, make_inputs)
    graph = _graph(make, make_inputs)
    problem = compare_results(graph, eager)
    assert not problem, f"{name}: {problem}\ngraph={graph!r}\neager={eager!r}"


@pytest.mark.parametrize("case", _params("TWICE_CASES"))
def test_graph_matches_eager_on_several_inputs(case):
    """One Cell, called on a sequence of inputs (compile cache, set_inputs)."""
    name, make, input_list = case
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = make()
    eager = [net(*args()) for args in input_list]
    ms.set_context(mode=ms.GRAPH_MODE)
    net = make()
    graph = [net(*args()) for args in input_list]
    for i, (g, e) in enumerate(zip(graph, eager)):
        problem = compare_results(g, e)
        assert not problem, f"{name} call {i}: {problem}\ngraph={g!r}\neager={e!r}"


@pytest.mark.parametrize("case", _params("MODEL_CASES"))
def test_construct_on_numpy_matches_model_predict(case):
    """MindSpore's own test style: net.construct(numpy) as plain Python against
    Model(net).predict(Tensor)."""
    name, make, make_np_inputs = case
    ms.set_context(mode=ms.GRAPH_MODE)
    expected = make().construct(*make_np_inputs())
    args = [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in make_np_inputs()]
    out = ms.Model(make()).predict(*args)
    got = out.asnumpy() if isinstance(out, ms.Tensor) else out
    exp = expected.asnumpy() if isinstance(expected, ms.Tensor) else np.asarray(expected)
    assert np.allclose(np.asarray(got, dtype=np.float64), np.asarray(exp, dtype=np.float64)), \
        f"{name}: predict {got!r} vs construct {exp!r}"
    assert np.shape(got) == np.shape(exp), f"{name}: shape {np.shape(got)} vs {np.shape(exp)}"


@pytest.mark.parametrize("case", _params("ERROR_CASES"))
def test_documented_errors(case):
    """(name, make, make_inputs, error class, builtin base, source text of the line)."""
    name, make, make_inputs, err_cls, base, line_text = case
    # eager mode: these programs are only errors for the graph compiler (or also eagerly)
    with pytest.raises(base) as info:
        _graph(make, make_inputs)
    err = info.value
    assert isinstance(err, err_cls), f"{name}: {type(err).__name__}: {err}"
    msg = str(err)
    src_file = importlib.import_module(make.__module__).__file__
    assert os.path.basename(src_file) in msg, f"{name}: file name missing from: {msg}"
    assert line_text in msg, f"{name}: line {line_text!r} missing from: {msg}"
