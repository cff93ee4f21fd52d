"""Front-end features beyond control flow: folding, calls, dynamic shapes, the compile
cache, modes, jit_class."""
import warnings

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both

f32 = np.float32


def vec(*xs):
    return ms.Tensor(np.asarray(xs, f32))


def ops_in(graph):
    return [n.op for n in graph.walk()]


# -- constant folding -------------------------------------------------------------------------
class Folding(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flag = False
        self.scale = 3
        self.layers = [1, 2]
        self.bias = None
        self.table = {"a": 1.0, "b": 2.0}

    def construct(self, x):
        if self.flag:
            x = x * 100
        if self.bias is None:
            x = x + 1
        if isinstance(x, ms.Tensor) and len(self.layers) == 2 and x.shape[0] > 1:
            x = x * self.scale
        for k, v in self.table.items():
            x = x + v
        return x


def test_constant_conditions_fold_without_control_flow_nodes():
    g, _ = run_both(lambda: Folding(), vec(1.0, 2.0))
    net = Folding()
    net(vec(1.0, 2.0))
    graph = net.compile_cache()[0].graph
    assert "If" not in ops_in(graph) and "Loop" not in ops_in(graph)


# -- calls -------------------------------------------------------------------------------------
def module_helper(x, k):
    if x.sum() > k:
        return x - k
    return x + k


def make_scale():
    return 2.5


class Calls(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.SequentialCell([nn.ReLU(), nn.Tanh()])

    def method(self, x):
        return x * 2

    def construct(self, x):
        factor = make_scale()            # constant arguments: runs as Python
        offset = 0.5

        def closure(v):
            return v + offset

        y = closure(self.method(x)) * factor
        y = module_helper(y, 1.0)
        return self.inner(y)


def test_calls_are_built_from_source():
    for v in ([1.0, -2.0], [-3.0, -4.0]):
        run_both(lambda: Calls(), vec(*v))


# -- nested constructs ------------------------------------------------------------------------
def if_in_for_in_while(x, n):
    i = 0
    while i < n:
        for j in range(2):
            if (x + j).sum() > 3:
                x = x - 1
            else:
                x = x + 2
        i = i + 1
    return x


def break_in_if_in_for(x):
    for row in ops.stack([x, x * 2, x * 3]):
        if row.sum() > 5:
            x = x + row
            break
        x = x - 1
    return x


def return_in_while(x, n):
    while n > 0:
        n = n - 1
        if x.sum() > 4:
            return x * 10
        x = x + 1
    return x


@pytest.mark.parametrize("n", [0, 1, 3])
def test_nested_constructs(n):
    t = ms.Tensor(np.array(n, np.int32))
    for v in ([0.5, 0.5], [3.0, 2.0]):
        run_both(lambda: if_in_for_in_while, vec(*v), t)
        run_both(lambda: break_in_if_in_for, vec(*v))
        run_both(lambda: return_in_while, vec(*v), t)


# -- long constant loops ------------------------------------------------------------------------
def long_loop(x):
    for i in range(1000):
        x = x * 0.999 + i * 0.001
    return x


def long_loop_needs_python_index(x):
    table = [float(k) for k in range(300)]
    out = x
    for i in range(300):
        out = out + table[i]
    return out


def test_long_constant_loop_becomes_a_loop():
    ms.set_context(max_unroll=100)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        run_both(lambda: long_loop, vec(1.0))
        f = ms.jit(long_loop)
        f(vec(1.0))
    graph = f.compile_cache()[0].graph
    assert "Loop" in ops_in(graph)
    rep = str(ms.explain(f, vec(1.0)))
    assert "max_unroll=100" in rep


def test_long_loop_whose_body_needs_python_ints_still_works():
    ms.set_context(max_unroll=100)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        run_both(lambda: long_loop_needs_python_index, vec(1.0))


# -- dynamic shapes ---------------------------------------------------------------------------
class Dyn(nn.Cell):
    def construct(self, x):
        if x.shape[0] > 2:
            y = x[:2] * 2
        else:
            y = x[:2] + 1
        return y.sum(), x.shape[0]


def test_set_inputs_makes_dims_unknown_and_conditions_variable():
    net = Dyn()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    a = net(ms.Tensor(np.ones((3, 4), f32)))
    b = net(ms.Tensor(np.ones((1, 4), f32)))
    assert len(net.compile_cache()) == 1
    graph = net.compile_cache()[0].graph
    assert str(graph.params[0].type) == "f32[?,4]"
    assert "If" in ops_in(graph)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ea, eb = Dyn()(ms.Tensor(np.ones((3, 4), f32))), Dyn()(ms.Tensor(np.ones((1, 4), f32)))
    assert float(a[0]) == float(ea[0]) and float(b[0]) == float(eb[0])
    assert int(a[1]) == ea[1] == 3 and int(b[1]) == eb[1] == 1


def test_set_inputs_rejects_a_tensor_of_the_wrong_rank():
    net = Dyn()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    with pytest.raises(ValueError, match="set_inputs"):
        net(ms.Tensor(np.ones((3, 5), f32)))


def rank_agnostic(x):
    return x * 2 + 1


def test_tensorspec_unknown_rank():
    model = ms.compile(rank_agnostic, ms.TensorSpec(None, ms.float32))
    assert str(model.graph.params[0].type) == "f32[*]"
    out = model(ms.Tensor(np.ones((2, 3), f32)))
    assert out.shape == (2, 3) and float(out.asnumpy()[0, 0]) == 3.0


# -- the compile cache -------------------------------------------------------------------------
def scaled(x, k):
    return x * k


def test_cache_per_signature_and_reasons():
    f = ms.jit(scaled)
    f(vec(1.0), 2)
    f(vec(2.0), 2)
    assert len(f.compile_cache()) == 1
    f(vec(1.0, 2.0), 2)
    f(vec(1.0), 3)
    entries = f.compile_cache()
    assert len(entries) == 3
    assert "first call" in entries[0].reason
    assert "shape" in entries[1].reason or "f32[2]" in entries[1].reason
    assert "k changed" in entries[2].reason


class Flagged(nn.Cell):
    def __init__(self):
        super().__init__()
        self.double = False

    def construct(self, x):
        if self.double:
            return x * 2
        return x


def test_changed_attribute_recompiles():
    net = Flagged()
    assert float(net(vec(3.0)).asnumpy()[0]) == 3.0
    net.double = True
    assert float(net(vec(3.0)).asnumpy()[0]) == 6.0
    assert "double" in net.compile_cache()[-1].reason


# -- modes ------------------------------------------------------------------------------------------
def test_jit_compiles_in_pynative_mode_too():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    f = ms.jit(scaled)
    f(vec(1.0), 2)
    assert len(f.compile_cache()) == 1


@ms.jit
class AlwaysGraph(nn.Cell):
    def construct(self, x):
        return x + 1


def test_jit_on_a_cell_class():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = AlwaysGraph()
    net(vec(1.0))
    assert len(net.compile_cache()) == 1


@ms.jit_class
class Accumulator:
    def __init__(self, start):
        self.total = start

    def add(self, v):
        if v.sum() > 0:
            self.total = self.total + v
        return self.total


class UsesJitClass(nn.Cell):
    def construct(self, x, y):
        acc = Accumulator(x)
        acc.add(y)
        return acc.add(y * 2)


def test_jit_class_instances_in_construct():
    run_both(lambda: UsesJitClass(), vec(1.0, 2.0), vec(0.5, 0.5))
    run_both(lambda: UsesJitClass(), vec(1.0, 2.0), vec(-0.5, -0.5))


class WithParameter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], f32)), name="w")

    def construct(self, x):
        if (x * self.w).sum() > 0:
            return x * self.w
        return x - self.w


def test_parameters_are_read_when_the_graph_runs():
    # a Parameter is state: new data, or a new Parameter of the same type in its place,
    # is read by the same graph; only a new dtype or shape (a new Parameter) builds it again
    net = WithParameter()
    x = vec(1.0, 1.0)
    assert net(x).asnumpy().tolist() == [1.0, 2.0]
    net.w.set_data(ms.Tensor(np.array([3.0, 4.0], f32)))
    assert net(x).asnumpy().tolist() == [3.0, 4.0]
    net.w = ms.Parameter(ms.Tensor(np.array([-5.0, 1.0], f32)), name="w")
    assert net(x).asnumpy().tolist() == [6.0, 0.0]
    assert len(net.compile_cache()) == 1
    # set_data refuses a new shape (MindSpore); a new Parameter of another shape is legal
    net.w = ms.Parameter(ms.Tensor(np.array([2.0], f32)), name="w")
    assert net(x).asnumpy().tolist() == [2.0, 2.0]
    assert len(net.compile_cache()) == 2
    assert "changed type" in net.compile_cache()[-1].reason


class DictInBranches(nn.Cell):
    def construct(self, x):
        d = {"a": x, "b": 1}
        if x.sum() > 0:
            d["a"] = x + 1
            d["b"] = 2
        return d["a"] * d["b"]


class DictInLoop(nn.Cell):
    def construct(self, x, n):
        d = {"a": x}
        while n > 0:
            d["a"] = d["a"] + 1
            n = n - 1
        return d["a"]


def test_dicts_join_across_branches_and_are_carried_by_loops():
    for v in ([1.0, 2.0], [-3.0, 1.0]):
        run_both(lambda: DictInBranches(), vec(*v))
    for n in (0, 2):
        run_both(lambda: DictInLoop(), vec(1.0), ms.Tensor(np.array(n, np.int32)))


class StructuredInputs(nn.Cell):
    def construct(self, d, pair, b=None, a=None):
        x, w = d["x"], d["w"]
        if (x * w).sum() > 0:
            y = x * w
        else:
            y = x + w
        return y, d["x"], pair[1], b, a


def test_dict_tuple_and_keyword_tensor_inputs_bind_to_the_right_parameters():
    d = {"x": vec(1.0, 2.0), "w": vec(-3.0, 1.0)}
    run_both(lambda: StructuredInputs(), d, (vec(4.0), vec(5.0)), b=vec(6.0), a=vec(7.0))


class ReversedRange(nn.Cell):
    def construct(self, x):
        s = x[0] * 0
        for i in range(x.shape[0] - 1, -1, -1):
            s = s * 2 + x[i]
        return s


def test_range_with_a_tensor_start_and_a_negative_step():
    net = ReversedRange()
    net.set_inputs(ms.Tensor(shape=[None, 2], dtype=ms.float32))
    x = ms.Tensor(np.array([[1, 2], [4, 3], [0, -1]], f32))
    assert net(x).asnumpy().tolist() == [9.0, 4.0]


class NonlocalCounter(nn.Cell):
    def construct(self, x):
        calls = 0

        def bump(t):
            nonlocal calls
            calls += 1
            return t + 1 if t.sum() > 0 else t - 1

        for _ in range(3):
            x = bump(x)
        return x, calls


class DictFromBranches(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            d = {"a": x, "b": x * 2}
        else:
            d = {"a": -x, "b": x}
        d["c"] = d["a"] + d["b"]
        return d


@pytest.mark.parametrize("v", [[1.0, -3.0], [1.0, 2.0]])
def test_nonlocal_in_local_functions_and_dicts_from_branches(v):
    run_both(lambda: NonlocalCounter(), vec(*v))
    run_both(lambda: DictFromBranches(), vec(*v))


class PrintInIfInLoop(nn.Cell):
    def construct(self, x):
        i = ms.Tensor(0, ms.int32)
        while i < 3:
            if x[0] > 1:
                print("gt", i)
            x = x + 1
            i = i + 1
        return x


def test_a_branch_that_only_prints_still_runs(capsys):
    x = ms.Tensor(np.array([0.5, 2.0], f32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    PrintInIfInLoop()(x)
    eager = capsys.readouterr().out
    ms.set_context(mode=ms.GRAPH_MODE)
    PrintInIfInLoop()(x)
    assert capsys.readouterr().out == eager == "gt 1\ngt 2\n"


class AppendInBranchesInLoop(nn.Cell):
    def construct(self, x):
        outs = []
        for i in range(x.shape[0] - 1, -1, -1):
            if x[i, 0] > x[i, 1]:
                outs.append(x[i, 0])
            else:
                outs.append(x[i, 1])
        return ops.stack(outs)


class NonlocalUnderCondition(nn.Cell):
    def construct(self, x):
        hits = 0

        def visit(t):
            nonlocal hits
            if t.sum() > 0:
                hits += 1
            return t - 1

        for _ in range(3):
            x = visit(x)
        return x, hits


def test_appends_in_both_branches_of_a_loop_body_and_nonlocal_under_a_condition():
    net = AppendInBranchesInLoop()
    net.set_inputs(ms.Tensor(shape=[None, 2], dtype=ms.float32))
    x = ms.Tensor(np.array([[1, 2], [4, 3], [0, -1]], f32))
    assert net(x).asnumpy().tolist() == [0.0, 4.0, 2.0]
    for v in ([2.0, 0.5], [-1.0, 0.5], [3.0, 3.0]):
        run_both(NonlocalUnderCondition, vec(*v))      # (refused before issue 9)


class NonlocalsInBranchesLoopsAndReturns(nn.Cell):
    def construct(self, x):
        hits = 0
        total = x * 0

        def visit(t):
            nonlocal hits, total

            def inner():              # reads the values visit is changing
                return total + hits
            if t.sum() > 0:
                hits += 1
                if t[0] > 1:
                    return t * 2
                total = inner()
            for r in ops.stack([t, t]):
                total = total + r
            return t - 1

        for _ in range(3):
            x = visit(x)
            if x.sum() > 2:
                x = visit(x * 0.5)
        return x, hits, total


@pytest.mark.parametrize("v", [[2.0, 0.5], [-1.0, 0.5], [3.0, 3.0]])
def test_nonlocal_changed_under_tensor_conditions_loops_and_early_returns(v):
    run_both(NonlocalsInBranchesLoopsAndReturns, vec(*v))


class DictCarriedByWhile(nn.Cell):
    def construct(self, x):
        d = {"s": x * 0, "p": x * 0 + 1}
        while d["s"].sum() < 10:
            d = {"s": d["s"] + x, "p": d["p"] * 2}
        return d["s"], d


def test_a_dict_rebound_in_a_tensor_loop_is_carried():
    run_both(lambda: DictCarriedByWhile(), vec(1.0, 2.0))
