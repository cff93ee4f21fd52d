"""ms.explain: one entry per if/while/for of the user's code (its line, constant or variable
condition, what made it variable, what it became) and the compile cache with the reason
for each compilation; ms.set_context(check_equivalence=True) checks graph against eager."""
import inspect
import re

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit import api, explain as explain_module


def vec(*xs):
    return ms.Tensor(np.asarray(xs, np.float32))


def i32(v):
    return ms.Tensor(np.array(v, np.int32))


def line_of(obj, snippet):
    lines, start = inspect.getsourcelines(obj)
    hits = [start + i for i, t in enumerate(lines) if snippet in t]
    assert len(hits) == 1, (snippet, hits)
    return hits[0]


def entry_of(report, snippet, program):
    """The text block of the report about the statement containing snippet."""
    text = str(report)
    head = f"{__name__.rsplit('.', 1)[-1]}.py:{line_of(program, snippet)}"
    lines = text.splitlines()
    idx = [i for i, t in enumerate(lines) if t.strip().startswith(head + " ")]
    assert len(idx) == 1, f"{head} not in the report:\n{text}"
    i = idx[0]
    block = [lines[i]]
    for t in lines[i + 1:]:
        if not t.startswith("      "):
            break
        block.append(t)
    return "\n".join(block)


# -- the programs --------------------------------------------------------------------------
class Decisions(nn.Cell):
    def __init__(self, flag=True):
        super().__init__()
        self.flag = flag

    def construct(self, x, n, rows):
        if self.flag:
            x = x + 1
        else:
            x = x - 1
        if x.sum() > 0:
            x = x * 2
        for i in range(3):
            x = x + i
        i = 0
        while i < n:
            x = x + 1
            i = i + 1
        outs = []
        for row in rows:
            x = x + row
            outs.append(row * 2)
        return x, ops.stack(outs)


def inputs(k=3, n=2, dtype=np.float32):
    return (ms.Tensor(np.ones(k, dtype)), i32(n), ms.Tensor(np.ones((2, k), dtype)))


def test_each_statement_is_listed_with_its_line_and_source():
    report = ms.explain(Decisions(), *inputs())
    text = str(report)
    for stmt in ("if self.flag:", "if x.sum() > 0:", "for i in range(3):", "while i < n:",
                 "for row in rows:"):
        assert stmt in entry_of(report, stmt, Decisions), text
    assert [r.kind for r in report.records] == ["if", "if", "for", "while", "for"]
    assert [r.loc.line for r in report.records] == [
        line_of(Decisions, s) for s in ("if self.flag:", "if x.sum() > 0:",
                                        "for i in range(3):", "while i < n:",
                                        "for row in rows:")]


def test_constant_if_is_folded_to_the_branch_taken():
    block = entry_of(ms.explain(Decisions(True), *inputs()), "if self.flag:", Decisions)
    assert re.search(r"constant condition -> folded to the if-branch", block), block
    block = entry_of(ms.explain(Decisions(False), *inputs()), "if self.flag:", Decisions)
    assert re.search(r"constant condition -> folded to the else-branch", block), block


def test_variable_if_becomes_an_if_and_names_the_input():
    block = entry_of(ms.explain(Decisions(), *inputs()), "if x.sum() > 0:", Decisions)
    assert re.search(r"variable condition -> If\b", block), block
    assert "depends on x" in block


def test_constant_for_is_unrolled_n_times():
    block = entry_of(ms.explain(Decisions(), *inputs()), "for i in range(3):", Decisions)
    assert re.search(r"constant condition -> unrolled 3 times", block), block


def test_tensor_while_is_a_loop_with_its_carried_variables():
    block = entry_of(ms.explain(Decisions(), *inputs()), "while i < n:", Decisions)
    assert re.search(r"variable condition -> Loop\b", block), block
    assert "depends on n" in block
    carried = re.search(r"carried: (.*)", block).group(1).split(", ")
    assert set(carried) == {"x", "i"}, block


def test_for_over_a_tensor_slices_it_and_concatenates_appends():
    report = ms.explain(Decisions(), *inputs())
    block = entry_of(report, "for row in rows:", Decisions)
    assert re.search(r"variable condition -> Loop\b", block), block
    assert "depends on rows" in block
    assert "x" in re.search(r"carried: (.*)", block).group(1).split(", ")
    assert re.search(r"sliced inputs: .*\(axis 0\)", block), block
    assert re.search(r"concatenated outputs: outs\b", block), block
    rec = report.records[-1]
    assert rec.details["concatenated"] == ["outs"]


def test_sliced_inputs_are_named():
    block = entry_of(ms.explain(Decisions(), *inputs()), "for row in rows:", Decisions)
    assert re.search(r"sliced inputs: .*\brows\b", block), block


def loops_of_every_kind(x, n):
    j = 0
    while j < 2:
        x = x * 2
        j = j + 1
    for k in range(n):
        x = x + k
    for k in range(300):
        x = x + 1
    y = x if x.sum() > 0 else -x
    return y


def test_constant_while_range_loops_and_long_unrolls():
    with pytest.warns(RuntimeWarning, match="max_unroll"):
        report = ms.explain(loops_of_every_kind, vec(1.0, 2.0), ms.Tensor(np.array(3)))
    prog = loops_of_every_kind
    assert "constant condition -> unrolled 2 times" in entry_of(report, "while j < 2:", prog)
    block = entry_of(report, "for k in range(n):", prog)
    assert re.search(r"variable condition -> Loop\b.*depends on n", block), block
    block = entry_of(report, "for k in range(300):", prog)
    assert re.search(r"-> Loop\b.*max_unroll", block), block
    block = entry_of(report, "y = x if x.sum() > 0 else -x", prog)
    assert re.search(r"variable condition -> If\b", block), block
    assert re.search(r"note: line %d:.*max_unroll" % line_of(prog, "range(300)"), str(report))


def straight(x):
    return x * 2


def test_no_control_flow_says_so():
    assert "(no if/while/for)" in str(ms.explain(straight, vec(1.0)))


def test_compiled_graphs_die_with_their_cell():
    import gc
    import weakref
    net = Decisions()
    net(*inputs())
    graph, cell = weakref.ref(net.compile_cache()[0].graph), weakref.ref(net)
    del net
    gc.collect()
    assert cell() is None and graph() is None


# -- the compile cache --------------------------------------------------------------------------
def cache_lines(report):
    text = str(report)
    return text[text.index("Compile cache:"):].splitlines()[1:]


def test_cache_entries_and_the_reason_for_each_compilation():
    net = Decisions()
    ms.explain(net, *inputs(3))
    ms.explain(net, *inputs(4))                              # x and rows change shape
    ms.explain(net, *inputs(4, dtype=np.float64)[:1], i32(2),
               ms.Tensor(np.ones((2, 4), np.float32)))        # x changes dtype
    report = ms.explain(net, *inputs(4)[:2], ms.Tensor(np.ones((2, 4), np.float32)))
    lines = cache_lines(report)
    assert len(lines) == 3, lines
    reasons = " | ".join(lines)
    assert "because: first call" in reasons
    assert re.search(r"because: x changed shape: f32\[3\] -> f32\[4\]; rows changed shape: "
                     r"f32\[2,3\] -> f32\[2,4\]", reasons), reasons
    assert re.search(r"because: x changed dtype: f32\[4\] -> f64\[4\]", reasons), reasons
    assert all(re.search(r"^\s+\[\d\] \(x: \w+\[\d\], n: i32\[\], rows: f32\[2,\d\]\)", t)
               for t in lines), lines


def test_recompiled_for_a_python_argument_value_and_an_attribute():
    def scaled(x, k):
        return x * k if k > 1 else x
    ms.explain(scaled, vec(1.0), 2)
    report = ms.explain(scaled, vec(1.0), 3)
    assert re.search(r"because: k changed value: int 2 -> int 3", str(report)), str(report)

    net = Decisions(True)
    net(*inputs())
    net.flag = False
    report = ms.explain(net, *inputs())
    assert re.search(r"because: attribute Decisions\.flag changed: True -> False",
                     str(report)), str(report)


def test_cache_entries_keep_their_compile_order():
    net = Decisions()
    ms.explain(net, *inputs(3))
    ms.explain(net, *inputs(4))
    lines = cache_lines(ms.explain(net, *inputs(3)))
    assert "first call" in lines[0] and "changed shape" in lines[1], lines


def test_cache_entries_show_python_arguments():
    def scaled(x, k):
        return x * k
    ms.explain(scaled, vec(1.0), 2)
    lines = cache_lines(ms.explain(scaled, vec(1.0), 3))
    assert lines[0] != lines[1].replace("[1]", "[0]"), lines
    assert "k" in lines[0] and "2" in lines[0].split("compiled")[0], lines


def test_explain_uses_the_cells_cache_and_the_graph_it_runs():
    net = Decisions()
    out = net(*inputs())
    report = ms.explain(net, *inputs())
    assert len(cache_lines(report)) == 1          # the call's entry, not a new one
    assert report.entries[0] is net.compile_cache()[0]
    assert "Loop" in str(net.compile_cache()[0].graph)
    assert out[1].shape == (2, 3)


# -- check_equivalence ---------------------------------------------------------------------------
def checked(x, n):
    out = x
    i = 0
    while i < n:
        if out.sum() > 4:
            out = out - 1
        else:
            out = out * 2
        i = i + 1
    return out, i


def test_check_equivalence_passes_for_correct_programs():
    ms.set_context(check_equivalence=True)
    f = ms.jit(checked)
    for n in (0, 1, 4):
        out, i = f(vec(1.0, 2.0), i32(n))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want, wi = checked(vec(1.0, 2.0), i32(n))
        ms.set_context(mode=ms.GRAPH_MODE)
        assert np.array_equal(out.asnumpy(), want.asnumpy()) and i == wi
    out = Decisions()(*inputs())
    assert out[1].shape == (2, 3)


def test_check_equivalence_runs_eagerly_once_per_new_signature(monkeypatch):
    compared = []
    real = api.compare_results

    def counting(a, b, path="result"):
        if path == "result":
            compared.append(1)
        return real(a, b, path)
    monkeypatch.setattr(explain_module, "compare_results", counting)
    ms.set_context(check_equivalence=True)
    f = ms.jit(checked)
    f(vec(1.0, 2.0), i32(3))
    f(vec(5.0, 2.0), i32(1))                 # same signature: not checked again
    assert len(compared) == 1
    f(vec(1.0, 2.0, 3.0), i32(3))            # a new signature
    assert len(compared) == 2
    ms.set_context(check_equivalence=False)
    f(vec(1.0, 2.0, 3.0, 4.0), i32(3))
    assert len(compared) == 2


def _perturb(monkeypatch, how):
    real = api.CacheEntry.run

    def wrong(self, tensors):
        out = real(self, tensors)
        return how(out)
    monkeypatch.setattr(api.CacheEntry, "run", wrong)


def test_a_difference_raises_equivalence_error_with_both_results_and_the_report(monkeypatch):
    _perturb(monkeypatch, lambda out: (out[0] + 1000, out[1]))
    ms.set_context(check_equivalence=True)
    with pytest.raises(AssertionError) as info:
        ms.jit(checked)(vec(1.0, 2.0), i32(2))
    e = info.value
    assert isinstance(e, ms.EquivalenceError)
    text = str(e)
    assert "graph mode and eager mode disagree" in text and "result[0]: values differ" in text
    graph_part = text[text.index("graph mode gave:"):text.index("eager mode gave:")]
    eager_part = text[text.index("eager mode gave:"):]
    assert "1001." in graph_part and "1003." in graph_part      # 1, 3 plus 1000
    assert re.search(r"Tensor\(\[1\.,\s*3\.\]", eager_part), eager_part
    assert "Control flow of checked" in text and "while i < n:" in text
    assert re.search(r"variable condition -> Loop", text)
    assert "Compile cache:" in text


def test_a_dtype_or_structure_difference_is_reported(monkeypatch):
    _perturb(monkeypatch, lambda out: (ms.Tensor(out[0].asnumpy().astype(np.float64)), out[1]))
    ms.set_context(check_equivalence=True)
    with pytest.raises(ms.EquivalenceError, match=r"result\[0\]: dtype float64 vs float32"):
        ms.jit(checked)(vec(1.0, 2.0), i32(2))
    monkeypatch.undo()
    _perturb(monkeypatch, lambda out: out[0])
    with pytest.raises(ms.EquivalenceError, match=r"Tensor vs tuple|tuple"):
        ms.jit(checked)(vec(1.0, 2.0), i32(2))
