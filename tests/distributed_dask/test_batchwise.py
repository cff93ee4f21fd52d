"""The batch-wise rule of graphjit.distributed (graphjit.distributed needs Dask to import): models it accepts give,
block by block of rows, exactly what one call on the whole batch gives; models it
refuses are refused with the reason and the user's line.

The property test builds random graphs from the ops the rule knows, over an input
f32[?,2,3], with constants whose dims collide with the batch size, and checks the
rule's soundness: whenever a graph is accepted, running it on blocks of rows and
concatenating equals running it on the whole batch.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from optional import require

require("dask.array", "distributed")
require("distributed", "distributed")

import graphjit as ms
from graphjit import nn, ops
from graphjit.distributed import NotBatchwiseError, check_batchwise
from graphjit.distributed.batchwise import batch_states
from graphjit.distributed.batch_rules import INVARIANT, Mixed, Rows
from graphjit.ir import Graph, GraphJitError, TensorType, dtypes as dt

RNG = np.random.default_rng(7)
W = RNG.integers(-2, 3, (3, 4)).astype(np.float32)


def blockwise(model, arrays, sizes):
    """Run the model on consecutive blocks of rows and concatenate each output."""
    outs, start = [], 0
    for n in sizes:
        outs.append(model.run_arrays([a[start:start + n] for a in arrays]))
        start += n
    return tuple(np.concatenate(parts, axis=0) for parts in zip(*outs))


def assert_blockwise_equal(model, arrays, sizes=(1, 3, 2), rtol=0.0):
    """Blocks give the whole batch's rows: exactly, or within rtol where BLAS (matmul,
    conv) picks its kernel, and so its rounding, by the number of rows."""
    whole = model.run_arrays(arrays)
    parts = blockwise(model, arrays, sizes)
    for w, p in zip(whole, parts):
        assert w.dtype == p.dtype and w.shape == p.shape
        np.testing.assert_allclose(p, w, rtol=rtol, atol=0)


# -- models the rule accepts ---------------------------------------------------------------
class Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Tensor(W)

    def construct(self, x):
        h = ops.relu(ops.matmul(x, self.w) + 1.0)
        return ops.softmax(h, -1), h.sum(1), h[:, 1:3] * 2


class SeqLoop(nn.Cell):
    """A Loop whose trip count is read from the data (its length along axis 1)."""

    def construct(self, x):
        h = x[:, 0] * 0.0
        t = 0
        while t < x.shape[1]:
            h = h * 0.5 + x[:, t]
            t = t + 1
        return h


class ShapeIf(nn.Cell):
    """An If on a dim other than the batch dim: the same branch for every block."""

    def construct(self, x):
        if x.shape[1] > 2:
            y = x[:, :2] * 2.0
        else:
            y = x - 1.0
        return ops.expand_dims(y, 1).transpose(0, 2, 1).squeeze(2)


class Embed(nn.Cell):
    """A table looked up by batched indices, one-hot, cumsum along a non-batch axis."""

    def __init__(self):
        super().__init__()
        self.table = ms.Tensor(W.T.copy())

    def construct(self, ids):
        e = ops.gather(self.table, ids, 0)
        return e.reshape(-1, 6), ops.one_hot(ids, 4, ms.Tensor(1.0), ms.Tensor(0.0)), \
            ops.cumsum(e, 2)


class CNN(nn.Cell):
    """Conv2d, BatchNorm2d, MaxPool2d, Dropout, Dense and LayerNorm in inference mode."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, pad_mode="valid")
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flat = nn.Flatten()
        self.drop = nn.Dropout(keep_prob=0.8)
        self.fc = nn.Dense(64, 3)
        self.ln = nn.LayerNorm((3,))

    def construct(self, x):
        h = self.pool(ops.relu(self.bn(self.conv(x))))
        return self.ln(self.fc(self.drop(self.flat(h))))


def _eval(cell):
    cell.set_train(False)
    return cell


ACCEPTED = [
    (Dense, [ms.TensorSpec((None, 3), ms.float32)], [RNG.integers(-3, 4, (6, 3))
                                                      .astype(np.float32)]),
    (SeqLoop, [ms.TensorSpec((None, None), ms.float32)], [RNG.integers(-3, 4, (6, 5))
                                                          .astype(np.float32)]),
    (ShapeIf, [ms.TensorSpec((None, None), ms.float32)], [RNG.integers(-3, 4, (6, 4))
                                                          .astype(np.float32)]),
    (Embed, [ms.TensorSpec((None, 2), ms.int64)], [RNG.integers(0, 4, (6, 2))]),
    (lambda: _eval(CNN()), [ms.TensorSpec((None, 2, 10, 10), ms.float32)],
     [RNG.integers(-3, 4, (6, 2, 10, 10)).astype(np.float32)]),
]
# the CNN's convolutions are float32 GEMMs whose summation order depends on the number
# of rows in a block (and its weights on the test order's random state): a few ulp apart
RTOL = {"CNN": 1e-5}


NAMES = ["Dense", "SeqLoop", "ShapeIf", "Embed", "CNN"]


@pytest.mark.parametrize("make,specs,arrays,name", [c + (n,) for c, n in zip(ACCEPTED, NAMES)],
                         ids=NAMES)
def test_accepted_models_give_the_same_rows_in_blocks(make, specs, arrays, name):
    model = ms.compile(make(), *specs)
    check_batchwise(model)
    assert_blockwise_equal(model, arrays, rtol=RTOL.get(name, 0.0))


def test_the_data_dependent_loop_is_a_loop():
    model = ms.compile(SeqLoop(), ms.TensorSpec((None, None), ms.float32))
    assert any(n.op == "Loop" for n in model.graph.walk())
    model = ms.compile(ShapeIf(), ms.TensorSpec((None, None), ms.float32))
    assert any(n.op == "If" for n in model.graph.walk())


def test_a_model_compiled_for_a_fixed_batch_size_is_analysed_as_compiled():
    model = ms.compile(Dense(), ms.Tensor(np.zeros((4, 3), np.float32)))
    check_batchwise(model)


# -- models the rule refuses ---------------------------------------------------------------
class Centered(nn.Cell):
    def construct(self, x):
        return x - x.mean(0)                                    # REFUSED HERE


class BatchIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:                                         # REFUSED HERE
            x = x * 2.0
        return x


class BatchWhile(nn.Cell):
    """Batch-wise in fact (converged rows do not change), but the rule cannot see it."""

    def construct(self, x):
        while (x.abs() > 1.0).any():                            # REFUSED HERE
            x = ops.where(x.abs() > 1.0, x * 0.5, x)
        return x


class Flat(nn.Cell):
    def construct(self, x):
        return x.reshape(-1) * 1.0                              # REFUSED HERE


class TimesBatch(nn.Cell):
    def construct(self, x):
        return x * x.shape[0]                                   # REFUSED HERE


class OverRows(nn.Cell):
    def construct(self, x):
        acc = x[0] * 0.0
        for row in x:                                           # REFUSED HERE
            acc = acc + row
        return acc + x


class BatchTrip(nn.Cell):
    def construct(self, x):
        acc = x * 1.0
        for i in range(x.shape[0]):                             # REFUSED HERE
            acc = acc * 0.5 + 1.0
        return acc


class RowsStopTheLoop(nn.Cell):
    """The loop starts on an Invariant condition; the rows decide when it stops."""

    def construct(self, x):
        go = x.shape[1] > 0
        while go:                                               # REFUSED HERE
            x = x * 0.5
            go = x.sum() > 1.0
        return x


class StaleCarry(nn.Cell):
    """s is Invariant on entry and a batch sum after one iteration: y reads it."""

    def construct(self, x):
        s = ops.zeros((3,), ms.float32)
        y = x[:, 0, :] * 1.0
        t = 0
        while t < x.shape[1]:
            y = y + s
            s = x[:, t, :].sum(0)                               # REFUSED HERE
            t = t + 1
        return y


class RowsOrConstant(nn.Cell):
    def construct(self, x):
        if x.shape[1] > 2:                                      # REFUSED HERE
            y = x[:, :1] * 2.0
        else:
            y = ops.zeros((1, 1), ms.float32)
        return y


class Transposed(nn.Cell):
    def construct(self, x):
        return x.transpose(1, 0)


class RowAssert(nn.Cell):
    def construct(self, x):
        assert x.sum() > -100.0, "too small"                    # REFUSED HERE
        return x + 1.0


REFUSED = [
    (Centered, r"ReduceMean: reduces over axis 0, the batch axis", True),
    (BatchIf, r"If: its condition is computed from the rows of the batch|"
              r"its condition depends on how the batch", True),
    (BatchWhile, r"Loop: its (initial )?condition", True),
    (Flat, r"Reshape: mixes the batch axis with other dims", True),
    (TimesBatch, r"reads the size of the batch axis", True),
    (OverRows, r"iterates over the rows of the batch", True),
    (BatchTrip, r"Loop: its trip count depends on how the batch is cut.*the block size", True),
    (RowsStopTheLoop, r"Loop: its condition depends on how the batch is cut.*ReduceSum", True),
    (StaleCarry, r"ReduceSum: reduces over axis 0", True),
    (RowsOrConstant, r"If: output 0 of the If is one entry per row along axis 0 on one path "
                     r"and the same for every block on another", True),
    (Transposed, r"output 0 \(f32\[3,\?\]\) has its batch axis at axis 1", False),
    (RowAssert, r"Assert checks a value that depends on how the batch is cut", True),
]


SPECS = {StaleCarry: ms.TensorSpec((None, None, 3), ms.float32),
         RowsStopTheLoop: ms.TensorSpec((None, None), ms.float32),
         RowsOrConstant: ms.TensorSpec((None, None), ms.float32)}


@pytest.mark.parametrize("cls,pattern,located", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_models_name_the_reason_and_the_line(cls, pattern, located):
    model = ms.compile(cls(), SPECS.get(cls, ms.TensorSpec((None, 3), ms.float32)))
    with pytest.raises(NotBatchwiseError, match=pattern) as info:
        check_batchwise(model)
    assert isinstance(info.value, ValueError)
    assert "is not batch-wise" in str(info.value)
    if located:
        assert "REFUSED HERE" in info.value.loc.text
        assert info.value.loc.text.strip() in str(info.value)


@pytest.mark.parametrize("cls", [Centered, BatchIf, TimesBatch, OverRows])
def test_refused_models_would_give_other_answers_in_blocks(cls):
    """The refusals are needed: these models really give other answers in blocks."""
    model = ms.compile(cls(), ms.TensorSpec((None, 3), ms.float32))
    x = np.array([[1, -2, 3], [-4, 5, -6], [7, 8, -9], [-1, -1, -1]], np.float32)
    whole = model.run_arrays([x])
    try:
        parts = blockwise(model, [x], (1, 3))
    except GraphJitError:
        return                      # or fail on a block
    assert any(w.shape != p.shape or not np.array_equal(w, p) for w, p in zip(whole, parts))


def test_an_output_without_a_batch_axis_is_refused():
    g = Graph("weights")
    x = g.add_param(TensorType(F32, (None, 3)), "x")
    w = g.const(W)
    g.set_results([g.apply("MatMul", x, w), g.apply("Add", w, w)])
    with pytest.raises(NotBatchwiseError, match=r"output 1 \(f32\[3,4\]\) is the same for "
                                                r"every block, so it has no batch axis"):
        check_batchwise(ms.CompiledModel(g))


def test_an_exported_model_keeps_the_user_lines_in_the_refusal(tmp_path):
    path = tmp_path / "centered.gjm"
    ms.compile(Centered(), ms.TensorSpec((None, 3), ms.float32)).export(path)
    with pytest.raises(NotBatchwiseError, match="ReduceMean") as info:
        check_batchwise(str(path))
    assert "x.mean(0)" in str(info.value)


def test_check_batchwise_takes_only_models():
    with pytest.raises(TypeError, match="CompiledModel or the path"):
        check_batchwise(Centered())


# -- one case per rule, checked by running it ----------------------------------------------
def _case(shape, build, dtype=None):
    """A graph of one input of `shape` (batch dim None) and the results `build` makes."""
    g = Graph("case")
    x = g.add_param(TensorType(dtype or dt.float32, shape), "x")
    c = lambda *s: g.const((np.arange(int(np.prod(s))) % 5 - 2).reshape(s).astype(np.float32))
    g.set_results([build(g, x, c)])
    return g


R0, R1, R2, MIXED = Rows(0), Rows(1), Rows(2), "mixed"
RULE_CASES = [
    ("matmul weights", (None, 3), lambda g, x, c: g.apply("MatMul", x, c(3, 4)), R0),
    ("matmul vector", (None, 3), lambda g, x, c: g.apply("MatMul", x, c(3)), R0),
    ("matmul weights first", (None, 3),
     lambda g, x, c: g.apply("MatMul", c(2, 3), x, transpose_b=True), R1),
    ("matmul batched", (None, 2, 3),
     lambda g, x, c: g.apply("MatMul", x, x, transpose_b=True), R0),
    ("matmul contracts the batch", (None, 3),
     lambda g, x, c: g.apply("MatMul", x, x, transpose_a=True), MIXED),
    ("matmul contracts the batch with weights", (None, 3),
     lambda g, x, c: g.apply("MatMul", c(2, 4), x), MIXED),
    ("matmul pairs rows", (None, 3),
     lambda g, x, c: g.apply("MatMul", x, x, transpose_b=True), MIXED),
    ("matmul broadcasts weights on the batch", (None, 2, 3),
     lambda g, x, c: g.apply("MatMul", x, c(4, 3, 5)), MIXED),
    ("broadcast keeps", (None, 3),
     lambda g, x, c: g.apply("BroadcastTo", x, shape=(2, -1, 3)), R1),
    ("broadcast fixes the batch", (None, 1),
     lambda g, x, c: g.apply("BroadcastTo", x, shape=(4, 3)), MIXED),
    ("squeeze another axis", (None, 1, 3), lambda g, x, c: g.apply("Squeeze", x, axis=1), R0),
    ("squeeze the batch", (None, 1, 3), lambda g, x, c: g.apply("Squeeze", x, axis=0),
     MIXED),
    ("concat a constant", (None, 3),
     lambda g, x, c: g.apply("Concat", x, c(4, 3), axis=1), MIXED),
    ("concat along features", (None, 3),
     lambda g, x, c: g.apply("Concat", x, g.apply("Neg", x), axis=1), R0),
    ("add along two axes", (None, 3),
     lambda g, x, c: g.apply("Add", x, g.apply("ExpandDims", x, axis=1)), MIXED),
    ("add a row of weights", (None, 3), lambda g, x, c: g.apply("Add", x, c(1, 3)), R0),
    ("gather features", (None, 3),
     lambda g, x, c: g.apply("Gather", x, g.const(np.array([2, 0])), axis=1), R0),
    ("gather rows", (None, 3),
     lambda g, x, c: g.apply("Gather", x, g.const(np.array([2, 0])), axis=0), MIXED),
    ("look up a table", (None, 2),
     lambda g, x, c: g.apply("Gather", c(4, 5), g.apply("Cast", x, dtype=dt.int64), axis=0),
     R0),
    ("sum over features", (None, 2, 3),
     lambda g, x, c: g.apply("ReduceSum", x, axis=1, keep_dims=False), R0),
    ("sum before the batch axis", (None, 2, 3),
     lambda g, x, c: g.apply("ReduceSum", g.apply("Transpose", x, perm=(1, 0, 2)),
                             axis=0, keep_dims=False), R0),
    ("sum before the batch axis, dims kept", (None, 2, 3),
     lambda g, x, c: g.apply("ReduceSum", g.apply("Transpose", x, perm=(1, 0, 2)),
                             axis=0, keep_dims=True), R1),
    ("transpose a cycle", (None, 2, 3),
     lambda g, x, c: g.apply("Transpose", x, perm=(1, 2, 0)), R2),
    ("transpose the other cycle", (None, 2, 3),
     lambda g, x, c: g.apply("Transpose", x, perm=(2, 0, 1)), R1),
    ("tile features", (None, 3), lambda g, x, c: g.apply("Tile", x, multiples=(1, 2)), R0),
    ("tile the batch", (None, 3), lambda g, x, c: g.apply("Tile", x, multiples=(2, 1)),
     MIXED),
    ("flatten features", (None, 2, 3), lambda g, x, c: g.apply("Flatten", x), R0),
    ("flatten the batch", (None, 2, 3),
     lambda g, x, c: g.apply("Flatten", x, start_dim=0, end_dim=1), MIXED),
    ("reshape features", (None, 2, 3), lambda g, x, c: g.apply("Reshape", x, shape=(-1, 6)),
     R0),
    ("reshape with the batch", (None, 2, 3),
     lambda g, x, c: g.apply("Reshape", x, shape=(-1, 3)), MIXED),
    ("index features", (None, 2, 3),
     lambda g, x, c: g.apply("Index", x, index=(("slice", None, None, None), 1, None)), R0),
    ("index rows", (None, 3),
     lambda g, x, c: g.apply("Index", x, index=(("slice", 1, None, None),)), MIXED),
    ("stack", (None, 3), lambda g, x, c: g.apply("Stack", x, x, axis=0), R1),
    ("one hot", (None, 2),
     lambda g, x, c: g.apply("OneHot", g.apply("Cast", x, dtype=dt.int64), depth=3, axis=0),
     R1),
    ("cumsum features", (None, 3), lambda g, x, c: g.apply("CumSum", x, axis=1), R0),
    ("cumsum rows", (None, 3), lambda g, x, c: g.apply("CumSum", x, axis=0), MIXED),
    ("softmax rows", (None, 3), lambda g, x, c: g.apply("Softmax", x, axis=0), MIXED),
    ("update features", (None, 3),
     lambda g, x, c: g.apply("IndexUpdate", x, c(1), index=(("slice", None, None, None), 0)),
     R0),
    ("update rows", (None, 3),
     lambda g, x, c: g.apply("IndexUpdate", x, c(1), index=(0,)), MIXED),
    ("conv2d", (None, 2, 5, 5),
     lambda g, x, c: g.apply("Conv2D", x, c(3, 2, 3, 3), out_channel=3, kernel_size=(3, 3)),
     R0),
    ("conv2d weights from the rows", (None, 2, 5, 5),
     lambda g, x, c: g.apply("Conv2D", x, g.apply("Index", x, index=(
         ("slice", 0, 3, None), ("slice", None, None, None), ("slice", 0, 3, None),
         ("slice", 0, 3, None))), out_channel=3, kernel_size=(3, 3)), MIXED),
    ("max pool", (None, 2, 4, 4),
     lambda g, x, c: g.apply("MaxPool", x, kernel_size=(2, 2), strides=(2, 2)), R0),
    ("avg pool over the batch", (None, 4, 4),
     lambda g, x, c: g.apply("AvgPool", g.apply("Transpose", x, perm=(1, 2, 0)),
                             kernel_size=(2, 2), strides=(2, 2)), MIXED),
    ("batch norm, inference", (None, 3, 2),
     lambda g, x, c: g.apply("BatchNorm", x, c(3), c(3), c(3), g.apply("Abs", c(3)))[0], R0),
    ("batch norm, training", (None, 3, 2),
     lambda g, x, c: g.apply("BatchNorm", x, c(3), c(3), c(3), g.apply("Abs", c(3)),
                             is_training=True)[0], MIXED),
    ("layer norm", (None, 2, 3),
     lambda g, x, c: g.apply("LayerNorm", x, c(2, 3), c(2, 3))[0], R0),
    ("layer norm over the batch", (None, 3),
     lambda g, x, c: g.apply("LayerNorm", g.apply("Transpose", x), c(3, 2), c(3, 2),
                             begin_norm_axis=-1, begin_params_axis=0)[0], MIXED),
    ("sort features", (None, 3), lambda g, x, c: g.apply("Sort", x)[1], R0),
    ("sort rows", (None, 3), lambda g, x, c: g.apply("Sort", x, axis=0)[0], MIXED),
    ("top k", (None, 3), lambda g, x, c: g.apply("TopK", x, k=2)[0], R0),
    ("gather elements", (None, 3),
     lambda g, x, c: g.apply("GatherD", x, g.apply("Cast", g.apply("Abs", x), dtype=dt.int64)
                             if False else g.apply("Cast", g.apply(
                                 "FloorMod", g.apply("Abs", x), g.const(np.float32(3))),
                                 dtype=dt.int64), dim=1), R0),
    ("gather elements across rows", (None, 3),
     lambda g, x, c: g.apply("GatherD", x, g.apply("Cast", g.apply(
         "FloorMod", g.apply("Abs", x), g.const(np.float32(2))), dtype=dt.int64), dim=0),
     MIXED),
    ("the batch size", (None, 3),
     lambda g, x, c: g.apply("Mul", x, g.apply("Cast", g.apply(
         "Index", g.apply("Shape", x), index=(0,)), dtype=dt.float32)), MIXED),
    ("another dim", (None, 3),
     lambda g, x, c: g.apply("Mul", x, g.apply("Cast", g.apply(
         "Index", g.apply("Shape", x), index=(-1,)), dtype=dt.float32)), R0),
]


@pytest.mark.parametrize("name,shape,build,expected", RULE_CASES,
                         ids=[c[0] for c in RULE_CASES])
def test_each_rule_follows_the_batch_axis(name, shape, build, expected):
    graph = _case(shape, build)
    (state,), problems = batch_states(graph)
    assert not problems
    if expected == MIXED:
        assert isinstance(state, Mixed), state
        return
    assert state == expected
    x = (np.arange(5 * int(np.prod(shape[1:]))).reshape((5,) + shape[1:]) % 4).astype(
        np.float32)
    model = ms.CompiledModel(graph)
    (whole,) = model.run_arrays([x])
    blocks = [np.moveaxis(model.run_arrays([x[a:b]])[0], state.axis, 0)
              for a, b in ((0, 2), (2, 3), (3, 5))]
    assert [len(b) for b in blocks] == [2, 1, 2]
    np.testing.assert_allclose(np.concatenate(blocks), np.moveaxis(whole, state.axis, 0),
                               rtol=1e-6)


# -- the rule's soundness on random graphs -------------------------------------------------
F32 = dt.float32
INPUT_SHAPES = [(None, 3), (None, 2, 3), (None, 1, 3)]
CONST_SHAPES = [(), (3,), (1, 3), (2, 3), (1, 2, 3), (4, 1, 1), (4, 2, 3), (5, 1, 1), (1, 1, 1)]
AXES = [None, 0, 1, -1, (0, 1), (1, 2), ()]
INDEX_ITEMS = [("slice", None, None, None), 0, ("slice", 0, 1, None),
               ("slice", 1, None, None), None]


def _const(g, shape, draw):
    return g.const(np.asarray(draw(st.integers(-2, 2)) + np.arange(int(np.prod(shape)))
                              .reshape(shape) % 3, np.float32))


@st.composite
def random_graphs(draw):
    g = Graph("random")
    vals = [g.add_param(TensorType(F32, draw(st.sampled_from(INPUT_SHAPES))), "x")]
    for _ in range(draw(st.integers(1, 7))):
        v = draw(st.sampled_from(vals[-3:]))
        r = v.type.rank
        mark = len(g.nodes)
        kind = draw(st.sampled_from([
            "unary", "const", "const", "binary", "reduce", "reduce", "transpose", "expand",
            "squeeze", "squeeze",
            "index", "reshape", "flatten", "concat", "stack", "matmul", "softmax", "shape",
            "broadcast", "tile", "gather", "select", "cumsum"]))
        try:
            if kind == "unary":
                out = g.apply(draw(st.sampled_from(["Tanh", "Neg", "Abs", "Square"])), v)
            elif kind == "const":
                c = _const(g, draw(st.sampled_from(CONST_SHAPES)), draw)
                a, b = (v, c) if draw(st.booleans()) else (c, v)
                out = g.apply(draw(st.sampled_from(["Add", "Mul", "Maximum"])), a, b)
            elif kind == "binary":
                out = g.apply("Sub", v, draw(st.sampled_from(vals)))
            elif kind == "reduce":
                out = g.apply(draw(st.sampled_from(["ReduceSum", "ReduceMax", "ReduceMean"])),
                              v, axis=draw(st.sampled_from(AXES)), keep_dims=draw(st.booleans()))
            elif kind == "transpose":
                out = g.apply("Transpose", v, perm=tuple(draw(st.permutations(range(r)))))
            elif kind == "expand":
                out = g.apply("ExpandDims", v, axis=draw(st.integers(-r - 1, r)))
            elif kind == "squeeze":
                out = g.apply("Squeeze", v, axis=draw(st.sampled_from(
                    [None, 0, -1, 1] + [i for i, d in enumerate(v.type.shape) if d == 1])))
            elif kind == "index":
                items = tuple(draw(st.sampled_from(INDEX_ITEMS)) for _ in range(
                    draw(st.integers(1, r))))
                out = g.apply("Index", v, index=items)
            elif kind == "reshape":
                n = int(np.prod([d for d in v.type.shape if d is not None]))
                out = g.apply("Reshape", v, shape=draw(st.sampled_from(
                    [(-1,), (-1, n), (n, -1), (-1, 1, n), (4, -1), (-1, 2, 3)])))
            elif kind == "flatten":
                out = g.apply("Flatten", v, start_dim=draw(st.integers(0, max(r - 1, 0))),
                              end_dim=-1)
            elif kind == "concat":
                out = g.apply("Concat", v, draw(st.sampled_from(vals)),
                              axis=draw(st.integers(-r, r - 1)))
            elif kind == "stack":
                out = g.apply("Stack", v, v, axis=draw(st.integers(0, r)))
            elif kind == "matmul":
                form = draw(st.sampled_from(["const", "const_first", "ta", "tb"]))
                if form == "const":
                    out = g.apply("MatMul", v, _const(g, (v.type.shape[-1] or 4, 2), draw))
                elif form == "const_first":
                    out = g.apply("MatMul", _const(g, (2, v.type.shape[0] or 4), draw), v)
                else:
                    out = g.apply("MatMul", v, v, transpose_a=form == "ta",
                                  transpose_b=form == "tb")
            elif kind == "softmax":
                out = g.apply("Softmax", v, axis=draw(st.integers(-r, r - 1)))
            elif kind == "cumsum":
                out = g.apply("CumSum", v, axis=draw(st.integers(-r, r - 1)))
            elif kind == "shape":
                k = g.apply("Index", g.apply("Shape", v), index=(draw(st.integers(0, r - 1)),))
                out = g.apply("Mul", v, g.apply("Cast", k, dtype=F32))
            elif kind == "broadcast":
                target = tuple(draw(st.sampled_from([-1, -1, 1, 4, 5])) if d in (None, 1)
                               else -1 for d in v.type.shape)
                out = g.apply("BroadcastTo", v, shape=(2,) + target)
            elif kind == "tile":
                out = g.apply("Tile", v, multiples=tuple(draw(st.integers(1, 2))
                                                         for _ in range(r)))
            elif kind == "gather":
                idx = g.const(np.array(draw(st.sampled_from([[0], [1, 0], 0])), np.int64))
                out = g.apply("Gather", v, idx, axis=draw(st.integers(0, r - 1)))
            else:
                zero = g.const(np.float32(0))
                out = g.apply("Select", g.apply("Greater", v, zero), v,
                              _const(g, draw(st.sampled_from(CONST_SHAPES)), draw))
        except (GraphJitError, TypeError, ValueError, IndexError):
            g.truncate(mark)
            continue
        if isinstance(out, tuple) or out.type.rank is None or out.type.rank > 4 or \
                out.type.rank == 0:
            g.truncate(mark)
            continue
        vals.append(out)
    results = [vals[-1]] + ([vals[-2]] if len(vals) > 2 and draw(st.booleans()) else [])
    for k, v in enumerate(results):
        # move the batch axis (as the rule sees it) to the front, so that many graphs
        # are accepted: a wrong rule then shows up as blocks that disagree
        g.set_results([v])
        (state,), _ = batch_states(g)
        if isinstance(state, Rows) and state.axis != 0 and draw(st.booleans()):
            rest = [i for i in range(v.type.rank) if i != state.axis]
            results[k] = g.apply("Transpose", v, perm=(state.axis, *rest))
    g.set_results(results)
    _drop_dead_nodes(g)
    return g


def _drop_dead_nodes(g):
    """Remove the nodes no result needs: a dead node could fail on a block and not on the
    whole batch (predict would raise then, never answer wrongly); this test is about
    the values."""
    live, keep = {id(r) for r in g.results}, []
    for node in reversed(g.nodes):
        if any(id(o) in live for o in node.outputs):
            keep.append(node)
            live.update(id(v) for v in node.inputs)
        else:
            for v in node.inputs:
                v.users.pop(node, None)
    g.nodes[:] = reversed(keep)


SPLITS = {4: [(1, 3), (2, 2), (3, 1)], 5: [(1, 4), (2, 3), (4, 1), (1, 1, 3)]}


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(random_graphs(), st.sampled_from([4, 5]), st.data())
def test_accepted_random_graphs_give_the_same_rows_in_blocks(graph, batch, data):
    dims = tuple(graph.params[0].type.shape[1:])
    x = (np.arange(batch * int(np.prod(dims))).reshape((batch,) + dims) % 7 - 3
         ).astype(np.float32)
    try:
        model = ms.CompiledModel(graph)
        whole = model.run_arrays([x])
    except Exception:
        return                                  # not a program that runs on this batch
    results, problems = batch_states(graph)
    if problems or any(s != Rows(0) for s in results):
        return
    sizes = data.draw(st.sampled_from(SPLITS[batch]))
    start = 0
    for n in sizes:                 # one entry per row: the chunks predict declares
        for out in model.run_arrays([x[start:start + n]]):
            assert out.shape[0] == n, (str(graph), sizes)
        start += n
    parts = blockwise(model, [x], sizes)
    for w, p in zip(whole, parts):
        assert w.dtype == p.dtype and w.shape == p.shape, (str(graph), sizes)
        np.testing.assert_allclose(p, w, rtol=1e-6, atol=0, err_msg=str(graph))


def test_random_graphs_are_often_accepted():
    """The property above is not vacuous: many random graphs are accepted."""
    accepted = []

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(random_graphs())
    def count(graph):
        results, problems = batch_states(graph)
        accepted.append(not problems and all(s == Rows(0) for s in results))
    count()
    assert sum(accepted) >= 40, f"{sum(accepted)} of {len(accepted)}"


def test_random_ops_and_unknown_effects_are_refused():
    g = Graph("g")
    x = g.add_param(TensorType(F32, (None, 3)), "x")
    g.set_results([g.apply("Dropout", x, keep_prob=0.5, seed=1)[0]])
    with pytest.raises(NotBatchwiseError, match="Dropout:? draws random numbers"):
        check_batchwise(ms.CompiledModel(g))
    g = Graph("g")
    x = g.add_param(TensorType(F32, (None, 3)), "x")
    g.apply("Dropout", g.const(np.ones(3, np.float32)), keep_prob=0.5)
    g.set_results([g.apply("Neg", x)])
    with pytest.raises(NotBatchwiseError, match="Dropout draws random numbers"):
        check_batchwise(ms.CompiledModel(g))
    from graphjit.ir.registry import register_op
    register_op("BatchwiseTestCount", ("x",), infer=lambda ts, attrs: ts[0],
                kernel=lambda x: x, family="extern", effects="write", replace=True)
    g = Graph("g")
    x = g.add_param(TensorType(F32, (None, 3)), "x")
    g.set_results([g.apply("Neg", g.apply("BatchwiseTestCount", g.apply("Neg", x)))])
    with pytest.raises(NotBatchwiseError, match=r"BatchwiseTestCount has an effect \(write\)"):
        check_batchwise(ms.CompiledModel(g))


def test_user_ops_follow_their_family_or_are_mixed():
    from graphjit.ir.registry import register_op
    register_op("BatchwiseTestSquare", ("x",), infer=lambda ts, attrs: ts[0],
                kernel=np.square, family="elementwise", replace=True)
    register_op("BatchwiseTestTotal", ("x",), infer=lambda ts, attrs: TensorType(
        ts[0].dtype, ()), kernel=np.sum, family="reduction", replace=True)
    register_op("BatchwiseTestExtern", ("x",), infer=lambda ts, attrs: ts[0],
                kernel=np.sort, family="extern", replace=True)
    g = Graph("g")
    x = g.add_param(TensorType(F32, (None, 3)), "x")
    g.set_results([g.apply("BatchwiseTestSquare", x), g.apply("BatchwiseTestTotal", x),
                   g.apply("BatchwiseTestExtern", x)])
    square, total, extern = batch_states(g)[0]
    assert square == Rows(0)
    assert isinstance(total, Mixed) and "without the attributes" in total.why
    assert isinstance(extern, Mixed) and "does not know whether BatchwiseTestExtern" in \
        extern.why


def test_states_of_simple_values():
    g = Graph("g")
    x = g.add_param(TensorType(F32, (None, 3)), "x")
    w = g.const(np.ones((3, 3), np.float32))
    g.set_results([g.apply("MatMul", x, w), g.apply("Add", w, w), g.apply("Transpose", x)])
    assert batch_states(g)[0] == [Rows(0), INVARIANT, Rows(1)]


class RaiseOnBatch(nn.Cell):
    def construct(self, x):
        if x.sum() > 1000.0:
            raise ValueError(f"too large: {x}")
        return x * 2.0


class RaiseOnFlag(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.array(1.0, np.float32)), name="limit")

    def construct(self, x):
        if self.limit > 5:
            raise ValueError("limit too large")
        return x * 2.0


def test_a_raise_is_a_check_for_batch_scoring():
    """A Raise (a `raise` under a tensor condition) is a check: under a condition
    computed from the batch's rows it is refused, as Assert is; under one that does not
    depend on the batch it is fine."""
    model = ms.compile(RaiseOnBatch(), ms.TensorSpec((None, 3), ms.float32))
    with pytest.raises(NotBatchwiseError, match="Raise runs under a condition"):
        check_batchwise(model)
    ok = ms.compile(RaiseOnFlag(), ms.TensorSpec((None, 3), ms.float32))
    assert "Raise" in str(ok.graph)
    check_batchwise(ok)
