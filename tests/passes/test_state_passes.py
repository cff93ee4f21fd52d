"""The passes over programs that read and update Parameters: no pass drops, merges,
hoists or reorders an update, or a read that depends on one. Each program is built
without the pipeline, then every pass (and the whole pipeline) runs on a copy; the
chain of state ops is compared, and the graphs are run from the same Parameter values
and must give the same results and the same updates."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops

passes = pytest.importorskip("graphjit.passes")

from graphjit.backend.executor import compile_graph  # noqa: E402
from graphjit.ir import verify  # noqa: E402
from graphjit.ir.defs.state import Variable  # noqa: E402

f32 = np.float32


def P(*v, name):
    return ms.Parameter(ms.Tensor(np.array(v, f32)), name=name)


class ReadWriteRead(nn.Cell):
    """Equal reads on both sides of an update (CSE must not merge them), equal updates
    (not merged), an update whose result nothing reads (not dropped)."""

    def __init__(self):
        super().__init__()
        self.w = P(1.0, 2.0, name="w")
        self.n = P(0.0, name="n")

    def construct(self, x):
        a = self.w * 2
        ops.assign_add(self.n, 1.0)
        ops.assign_add(self.n, 1.0)
        ops.assign(self.w, x)
        b = self.w * 2
        ops.assign(self.w, x)
        return a + b


class UpdateInLoop(nn.Cell):
    """A read in a Loop body that looks invariant but follows an update in the body
    (LICM must not hoist it), and a pure invariant it may hoist."""

    def __init__(self):
        super().__init__()
        self.acc = P(0.0, 0.0, name="acc")
        self.scale = P(3.0, 3.0, name="scale")

    def construct(self, xs, k):
        i = 0
        while i < k:
            ops.assign(self.acc, self.acc + xs[0] * 2)
            if self.acc.sum() > 10:
                self.acc = self.acc * 0.5
            i += 1
        return self.acc * self.scale


class UpdatesInBranches(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = P(1.0, name="w")

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.w, self.w + x)
        else:
            ops.assign(self.w, self.w - x)
        if x.sum() > 0:                    # the same condition again: merge_ifs territory
            ops.assign(self.w, self.w * 2)
        return self.w + 0


PROGRAMS = [
    (ReadWriteRead, lambda: (np.array([5.0, 6.0], f32),)),
    (UpdateInLoop, lambda: (np.ones((2, 2), f32), np.asarray(4, np.int64))),
    (UpdatesInBranches, lambda: (np.array([2.0], f32),)),
    (UpdatesInBranches, lambda: (np.array([-2.0], f32),)),
]


def _graph(make, args):
    ms.set_context(mode=ms.GRAPH_MODE, optimize_graphs=False)
    net = make()
    net(*(ms.Tensor(a) for a in args))
    entry = net.compile_cache()[0]
    return net, entry


def chain(graph):
    """The state ops of graph in the order of its token chain, with the name of the
    ref they act on (If and Loop: their bodies' chains)."""
    out = []
    for node in graph.nodes:
        if any(v.type.kind == "state" for v in node.inputs):
            if node.op in ("If", "Loop"):
                out.append((node.op, [chain(g) for g in node.subgraphs()]))
            else:
                out.append((node.op, node.inputs[0].name))
    return out


def run(graph, entry, net, args):
    values = {id(p): Variable(np.array(p._data)) for p in net.get_parameters()}
    variables = [values[id(p)] for p in entry.state.resolve()]
    outs = compile_graph(graph)(*entry.state.arguments(list(args), variables))
    return [np.asarray(o) for o in outs if not isinstance(o, np.bool_)], \
        [v._data for v in variables]


@pytest.mark.parametrize("make, args", PROGRAMS)
@pytest.mark.parametrize("the_pass", list(dict.fromkeys(passes.DEFAULT_PASSES)) + ["pipeline"],
                         ids=lambda p: getattr(p, "__name__", str(p)))
def test_passes_keep_every_read_and_update_in_order(make, args, the_pass):
    net, entry = _graph(make, args())
    before = entry.graph
    want = run(before, entry, net, args())
    net2, entry2 = _graph(make, args())        # the same program built again, for the pass
    g = entry2.graph
    g = passes.optimize(g, True, False) if the_pass == "pipeline" else the_pass(g)
    verify(g)
    assert chain(g) == chain(before)
    got = run(g, entry2, net2, args())
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        np.testing.assert_array_equal(a, b)


def test_the_check_finds_a_pass_that_drops_an_update():
    """A wrong 'pass' that merges the two equal AssignAdds (rewiring the token) keeps a
    valid graph, but the chain and the values tell."""
    def merge_equal_updates(g):
        adds = [n for n in g.nodes if n.op == "AssignAdd"]
        second = adds[1]
        g.replace_all_uses_with(second.outputs[0], second.inputs[2])
        g.erase_node(second)
        return g
    make, args = PROGRAMS[0]
    net, entry = _graph(make, args())
    net2, entry2 = _graph(make, args())
    g = merge_equal_updates(entry2.graph)
    verify(g)
    assert chain(g) != chain(entry.graph)
    assert run(g, entry2, net2, args())[1][1] != run(entry.graph, entry, net, args())[1][1]
