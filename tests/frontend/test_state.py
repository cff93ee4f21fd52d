"""Parameters are state: a compiled graph reads them when it runs and updates them in
program order (ops.assign, `self.p = v`, p[i] = v, assign_add), also inside If and
Loop bodies, sub-Cells and helpers; new data or a new Parameter never recompiles."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ops import operations as P
from helpers_state import run_steps

f32 = np.float32


def vec(*v, dtype=f32):
    return ms.Tensor(np.array(v, dtype))


def param(*v, name="p", dtype=f32):
    return ms.Parameter(ms.Tensor(np.array(v, dtype)), name=name)


class ReadUpdateRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = param(1.0, 2.0, name="w")

    def construct(self, x):
        before = self.w * 1
        ops.assign(self.w, self.w * x)
        return before, self.w + 0          # the read after the update sees it


def test_reads_see_updates_in_program_order_and_the_next_call_sees_them():
    g, e, net = run_steps(ReadUpdateRead, [(vec(2.0, 3.0),)] * 3)
    assert g[-1][1]["w"].tolist() == [8.0, 54.0]
    assert len(net.compile_cache()) == 1
    ops_ = [n.op for n in net.compile_cache()[0].graph.nodes if n.op != "Const"]
    assert ops_ == ["Load", "Mul", "Mul", "Assign", "Load", "Add"]


class AttributeUpdates(nn.Cell):
    """self.p = v, self.p += v and p[i] = v update the Parameter, as eagerly."""

    def __init__(self):
        super().__init__()
        self.w = param(1.0, 2.0, 3.0, name="w")
        self.count = ms.Parameter(ms.Tensor(np.array(0, np.int32)), name="count")

    def construct(self, x):
        self.w = self.w * 0.5 + x
        self.count += 1
        self.w[0] = self.w[1] - 1.0
        return self.w.sum() * self.count


def test_attribute_assignment_augmented_assignment_and_item_assignment():
    g, _, net = run_steps(AttributeUpdates, [(vec(1.0, 1.0, 1.0),), (vec(0.0, 2.0, -1.0),)])
    assert g[-1][1]["count"].tolist() == 2
    assert isinstance(net.w, ms.Parameter) and isinstance(net.count, ms.Parameter)


class UpdatesUnderConditions(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = param(1.0, 1.0, name="w")
        self.b = param(0.0, 0.0, name="b")
        self.hits = ms.Parameter(ms.Tensor(np.array(0, np.int64)), name="hits")

    def construct(self, x, n):
        i = 0
        while i < n:
            if (x * self.w).sum() > i:
                ops.assign(self.w, self.w * 1.5)
                ops.assign_add(self.hits, 1)
                if self.w.max() > 4:
                    break
            else:
                self.b = self.b - x
            i += 1
        return self.w + self.b, i


@pytest.mark.parametrize("x,n", [((1.0, 2.0), 3), ((-1.0, 0.5), 4), ((1.0, 1.0), 0),
                                 ((3.0, 3.0), 10)])
def test_updates_inside_while_if_and_break(x, n):
    g, _, net = run_steps(UpdatesUnderConditions, [(vec(*x), ms.Tensor(n))] * 3)
    assert len(net.compile_cache()) == 1
    printed = str(net.compile_cache()[0].graph)
    assert "Loop(" in printed and "If(" in printed and "Assign(" in printed


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = ms.Parameter(ms.Tensor(np.array(0.0, f32)), name="n")

    def construct(self, x):
        ops.assign_add(self.n, x.sum())
        return self.n * 1


class UsesSubCells(nn.Cell):
    """Updates made by sub-Cells, a CellList and a helper join one order."""

    def __init__(self):
        super().__init__()
        self.first = Counter()
        self.more = nn.CellList([Counter(), Counter()])

    def construct(self, x):
        a = self.first(x)
        outs = []
        for c in self.more:
            outs.append(c(x * a))
        bump(self.first.n, outs[-1])
        return self.first.n + outs[0]


def bump(p, v):
    ops.assign(p, p + v)


def test_sub_cells_cell_lists_and_helpers_update_in_order():
    run_steps(UsesSubCells, [(vec(1.0, 2.0),), (vec(-1.0, 0.5),)])


class ParameterTupleUpdate(nn.Cell):
    """An optimizer-like loop over a ParameterTuple (unrolled)."""

    def __init__(self):
        super().__init__()
        self.params = ms.ParameterTuple([param(1.0, 2.0, name="a"), param(3.0, name="b")])

    def construct(self, lr):
        for p in self.params:
            ops.assign(p, p - lr * p)
        return self.params[0].sum() + self.params[1].sum()


def test_parameter_tuples_are_bound_item_by_item():
    g, _, net = run_steps(ParameterTupleUpdate, [(ms.Tensor(0.5),)] * 2)
    assert g[-1][1]["params[0]"].tolist() == [0.25, 0.5]
    # a new Parameter object of the same type in the tuple is bound without a new graph
    net.params = ms.ParameterTuple([param(4.0, 4.0, name="a"), param(8.0, name="b")])
    out = net(ms.Tensor(0.5))
    assert out.asnumpy().tolist() == 8.0 and net.params[1].asnumpy().tolist() == [4.0]
    assert len(net.compile_cache()) == 1


class LoopThatOnlyReads(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = param(0.5, 0.25, name="w")

    def construct(self, h, n):
        for _ in range(n):
            h = ops.tanh(h * self.w + 1)
        return h


def test_a_loop_that_only_reads_loads_before_the_loop_and_carries_no_token():
    _, _, net = run_steps(LoopThatOnlyReads, [(vec(0.1, 0.2), ms.Tensor(3))])
    graph = net.compile_cache()[0].graph
    loop = next(n for n in graph.nodes if n.op == "Loop")
    assert all(p.type.kind == "tensor" for p in loop.attrs["body"].params)
    assert [n.op for n in graph.nodes].index("Load") < [n.op for n in graph.nodes].index("Loop")


class UpdateInLoopBody(nn.Cell):
    def __init__(self):
        super().__init__()
        self.acc = param(0.0, 0.0, name="acc")

    def construct(self, xs):
        for row in xs:
            self.acc = self.acc * 0.5 + row
        return self.acc * 1


def test_a_loop_that_updates_carries_the_token_and_reads_in_its_body():
    _, _, net = run_steps(UpdateInLoopBody, [(ms.Tensor(np.arange(6, dtype=f32).reshape(3, 2)),)] * 2)
    graph = net.compile_cache()[0].graph
    loop = next(n for n in graph.nodes if n.op == "Loop")
    body = loop.attrs["body"]
    assert [p.type.kind for p in body.params].count("state") == 1
    assert [n.op for n in body.nodes if n.op in ("Load", "Assign")] == ["Load", "Assign"]
    assert str(graph).count("back_edge %state") == 1


class TakesParameter(nn.Cell):
    def construct(self, p, x):
        ops.assign(p, p + x)
        return p * 2


def test_a_parameter_passed_as_an_argument_is_bound_to_each_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = TakesParameter()
    a, b = param(1.0, name="a"), param(10.0, name="b")
    assert net(a, vec(1.0)).asnumpy().tolist() == [4.0]
    assert net(b, vec(1.0)).asnumpy().tolist() == [22.0]
    assert a.asnumpy().tolist() == [2.0] and b.asnumpy().tolist() == [11.0]
    assert len(net.compile_cache()) == 1
    # a plain Tensor is not state: it is refused as the variable of an assign
    with pytest.raises(TypeError, match="must be a Parameter"):
        net(vec(1.0), vec(1.0))


def test_assign_casts_to_the_parameter_dtype_and_refuses_other_shapes():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = param(1.0, 2.0, name="w")

        def construct(self, v):
            ops.assign(self.w, v)
            return self.w + 0

    g, e, _ = run_steps(Net, [(ms.Tensor(np.array([3, 4], np.int64)),),
                              (ms.Tensor(np.array([7.0, 8.0])),)])
    assert g[0][0].dtype == ms.float32
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        # MindSpore's rule: the variable's shape ([1] and a scalar fit each other), no
        # broadcasting
        with pytest.raises(ms.ShapeInferenceError, match="must have the same shape"):
            Net()(vec(1.0, 2.0, 3.0))
        with pytest.raises(ms.ShapeInferenceError, match="must have the same rank"):
            Net()(ms.Tensor(7.0))


def test_set_inputs_and_jit_functions_with_global_parameters():
    counter = param(0.0, name="counter")

    @ms.jit
    def step(x):
        ops.assign_add(counter, x.sum())
        return counter * 2

    for k in range(3):
        out = step(vec(1.0, 2.0))
    assert counter.asnumpy().tolist() == [9.0] and out.asnumpy().tolist() == [18.0]
    assert len(step.compile_cache()) == 1


def test_compiled_model_requests_update_the_cells_parameters_and_export_keeps_them(tmp_path):
    net = ReadUpdateRead()
    model = ms.compile(net, vec(2.0, 3.0))
    assert [n for n, _ in model.get_metric("INPUTS")] == ["x"]
    assert model.get_metric("OUTPUTS") == ["f32[2]", "f32[2]"]
    req = model.create_infer_request()
    before, after = req.infer([np.array([2.0, 3.0], f32)])
    assert before.tolist() == [1.0, 2.0] and after.tolist() == [2.0, 6.0]
    assert net.w.asnumpy().tolist() == [2.0, 6.0]
    model.export(tmp_path / "m.gjm")
    again = ms.import_model(tmp_path / "m.gjm")
    assert again.get_metric("PARAMETERS") == [("w", "f32[2]")]
    b2, a2 = again.create_infer_request().infer([np.array([2.0, 3.0], f32)])
    assert b2.tolist() == [2.0, 6.0] and a2.tolist() == [4.0, 18.0]
    assert net.w.asnumpy().tolist() == [2.0, 6.0]         # the import has its own weights
    b3, _ = again.create_infer_request().infer([np.array([1.0, 1.0], f32)])
    assert b3.tolist() == [4.0, 18.0]                     # ...shared by its requests
    assert str(again.graph) == str(model.graph)


def test_the_equivalence_check_compares_updated_parameters():
    ms.set_context(mode=ms.GRAPH_MODE, check_equivalence=True)
    net = UpdatesUnderConditions()
    net(vec(1.0, 2.0), ms.Tensor(3))
    assert net.w.asnumpy().tolist() == [1.5 ** 3] * 2     # updated once, not twice


def test_a_parameter_value_needed_as_a_python_value_while_building_is_refused():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = param(1.0, name="w")

        def construct(self, x):
            return x * self.w.asnumpy()[0]

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.UnsupportedSyntaxError, match="Parameter 'w' was needed") as info:
        Net()(vec(1.0))
    assert "asnumpy" in info.value.loc.text


def test_a_parameter_picked_under_a_tensor_condition_cannot_be_assigned():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = param(1.0, name="a"), param(2.0, name="b")

        def construct(self, x):
            p = self.a if x.sum() > 0 else self.b
            ops.assign(p, x)
            return x

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="picked under a condition"):
        Net()(vec(1.0))
