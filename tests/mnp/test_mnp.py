"""graphjit.numpy (mindspore.numpy): MindSpore's defaults and dtype rules, each function
against numpy, the same answers eagerly and in a graph, gradients and ONNX export, the
`import mindspore.numpy as mnp` spelling, and the error for a name graphjit lacks."""
from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import graphjit as ms
import graphjit.numpy as mnp
from graphjit import nn, ops
from helpers import run_both

R = np.random.default_rng(0)
A = R.standard_normal((3, 4)).astype(np.float32)
B = R.standard_normal((3, 4)).astype(np.float32)


# -- MindSpore's defaults ------------------------------------------------------------------
@pytest.mark.parametrize("make, dtype, value", [
    (lambda: mnp.array([1.0, 2.0]), ms.float32, [1.0, 2.0]),
    (lambda: mnp.array([1, 2]), ms.int32, [1, 2]),
    (lambda: mnp.array([True, False]), ms.bool_, [True, False]),
    (lambda: mnp.asarray(3), ms.int32, 3),
    (lambda: mnp.asarray(2.5), ms.float32, 2.5),
    (lambda: mnp.asarray(np.arange(3)), ms.int64, [0, 1, 2]),     # numpy arrays keep theirs
    (lambda: mnp.array([1, 2], dtype="float16"), ms.float16, [1, 2]),
    (lambda: mnp.array([1, 2], "int"), ms.int32, [1, 2]),
    (lambda: mnp.zeros((2, 3)), ms.float32, np.zeros((2, 3))),
    (lambda: mnp.ones(3), ms.float32, np.ones(3)),
    (lambda: mnp.ones((2,), mnp.int32), ms.int32, [1, 1]),
    (lambda: mnp.full((2,), 3), ms.int32, [3, 3]),
    (lambda: mnp.full((2,), 0.5), ms.float32, [0.5, 0.5]),
    (lambda: mnp.full((2, 2), [1, 2]), ms.int32, [[1, 2], [1, 2]]),
    (lambda: mnp.full((2,), True), ms.bool_, [True, True]),
    (lambda: mnp.arange(5), ms.int32, np.arange(5)),
    (lambda: mnp.arange(1, 4), ms.int32, [1, 2, 3]),
    (lambda: mnp.arange(0, 3, 0.5), ms.float32, np.arange(0, 3, 0.5)),
    (lambda: mnp.arange(0, 1, 0.1), ms.float32,
     np.arange(10, dtype=np.float32) * np.float32(0.1)),
    (lambda: mnp.arange(6, 0, -2), ms.int32, [6, 4, 2]),
    (lambda: mnp.arange(3, dtype=ms.float16), ms.float16, [0, 1, 2]),
    (lambda: mnp.linspace(0, 5, 6), ms.float32, np.linspace(0, 5, 6)),
    (lambda: mnp.linspace(0, 1, 4, endpoint=False), ms.float32, [0, 0.25, 0.5, 0.75]),
    (lambda: mnp.linspace([0, 1], [2, 3], 3, axis=1), ms.float32,
     np.linspace([0, 1], [2, 3], 3, axis=1)),
    (lambda: mnp.eye(3, 4, 1), ms.float32, np.eye(3, 4, 1)),
    (lambda: mnp.identity(2), ms.float32, np.eye(2)),
    (lambda: mnp.zeros_like(mnp.array([1, 2])), ms.int32, [0, 0]),
    (lambda: mnp.ones_like(ms.Tensor(A), dtype=ms.float16), ms.float16, np.ones((3, 4))),
    (lambda: mnp.full_like(mnp.ones(2), 7), ms.float32, [7, 7]),
    (lambda: mnp.add(mnp.array([1, 2]), 1), ms.int32, [2, 3]),
    (lambda: mnp.add(mnp.array([1, 2]), 0.5), ms.float32, [1.5, 2.5]),
    (lambda: mnp.divide(mnp.array([1, 2]), 2), ms.float32, [0.5, 1.0]),
    (lambda: mnp.mean(mnp.array([1, 2])), ms.int32, 1),          # cast back to the input's
    (lambda: mnp.sum(mnp.array([1, 2])), ms.int32, 3),
    (lambda: mnp.sum(mnp.array([True, True])), ms.int32, 2),
    (lambda: mnp.maximum(ms.Tensor(np.array([1, 5], np.float16)), 2.0), ms.float16, [2, 5]),
    (lambda: mnp.clip(mnp.array([1, 2, 3, -4, 0, 3, 2, 0]), 0, 2), ms.int32,
     [1, 2, 2, 0, 0, 2, 2, 0]),
])
def test_defaults_and_dtypes_follow_mindspore(make, dtype, value):
    out = make()
    assert out.dtype is dtype
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), np.asarray(value, np.float64),
                               rtol=1e-6)


def test_dtype_names_and_constants():
    assert (mnp.float32, mnp.int32, mnp.bool_, mnp.float16) == (
        ms.float32, ms.int32, ms.bool_, ms.float16)
    assert mnp.int_ is ms.int32 and mnp.float_ is ms.float32
    assert mnp.pi == np.pi and np.isnan(mnp.nan) and mnp.inf == np.inf
    assert mnp.dtype_map["int"] is ms.int32


def test_a_name_not_provided_says_so():
    with pytest.raises(AttributeError, match=r"mindspore\.numpy\.fft is not provided by "
                                             r"graphjit"):
        mnp.fft
    with pytest.raises(AttributeError, match="mindspore.numpy.polyfit"):
        getattr(mnp, "polyfit")
    assert not hasattr(mnp, "fftfreq")


def test_bad_arguments_are_clear_errors():
    with pytest.raises(TypeError, match="not a dtype"):
        mnp.zeros(2, "complex1024")
    with pytest.raises(ValueError, match="equal division"):
        mnp.split(mnp.arange(5), 2)
    with pytest.raises(ValueError, match="One of max or min"):
        mnp.clip(mnp.ones(2), None, None)
    with pytest.raises(ValueError, match="same size"):
        mnp.array([[1, 2], [3]])
    with pytest.raises(ValueError, match="out of bounds"):
        mnp.expand_dims(mnp.ones(2), 3)


# -- every function against numpy, eager and in a graph ------------------------------------
CASES = {
    "reshape": (lambda x, y: mnp.reshape(x, (4, 3)), lambda x, y: x.reshape(4, 3)),
    "ravel": (lambda x, y: mnp.ravel(x), lambda x, y: x.ravel()),
    "transpose": (lambda x, y: mnp.transpose(x), lambda x, y: x.T),
    "swapaxes": (lambda x, y: mnp.swapaxes(x, 0, 1), lambda x, y: np.swapaxes(x, 0, 1)),
    "moveaxis": (lambda x, y: mnp.moveaxis(mnp.expand_dims(x, 0), 0, -1),
                 lambda x, y: np.moveaxis(x[None], 0, -1)),
    "expand_dims": (lambda x, y: mnp.expand_dims(x, (0, 2)),
                    lambda x, y: np.expand_dims(x, (0, 2))),
    "squeeze": (lambda x, y: mnp.squeeze(mnp.expand_dims(x, 1), 1), lambda x, y: x),
    "concatenate": (lambda x, y: mnp.concatenate((x, y), 1),
                    lambda x, y: np.concatenate((x, y), 1)),
    "concat_none": (lambda x, y: mnp.concatenate((x, y), None),
                    lambda x, y: np.concatenate((x, y), None)),
    "stack": (lambda x, y: mnp.stack([x, y], -1), lambda x, y: np.stack([x, y], -1)),
    "hstack": (lambda x, y: mnp.hstack((x, y)), lambda x, y: np.hstack((x, y))),
    "vstack": (lambda x, y: mnp.vstack((x, y)), lambda x, y: np.vstack((x, y))),
    "split": (lambda x, y: mnp.split(x, 2, 1), lambda x, y: tuple(np.split(x, 2, 1))),
    "split_at": (lambda x, y: mnp.split(x, [1, 3], 1),
                 lambda x, y: tuple(np.split(x, [1, 3], 1))),
    "tile": (lambda x, y: mnp.tile(x, (2, 1, 2)), lambda x, y: np.tile(x, (2, 1, 2))),
    "repeat": (lambda x, y: mnp.repeat(x, 2, 0), lambda x, y: np.repeat(x, 2, 0)),
    "repeat_list": (lambda x, y: mnp.repeat(x, [1, 0, 2], 0),
                    lambda x, y: np.repeat(x, [1, 0, 2], 0)),
    "repeat_flat": (lambda x, y: mnp.repeat(x, 2), lambda x, y: np.repeat(x, 2)),
    "flip": (lambda x, y: mnp.flip(x), lambda x, y: np.flip(x)),
    "flip1": (lambda x, y: mnp.flip(x, 1), lambda x, y: np.flip(x, 1)),
    "where": (lambda x, y: mnp.where(x > y, x, y), lambda x, y: np.where(x > y, x, y)),
    "where_scalar": (lambda x, y: mnp.where(x > 0, x, 0.0), lambda x, y: np.where(x > 0, x, 0)),
    "add": (lambda x, y: mnp.add(x, y), np.add),
    "subtract": (lambda x, y: mnp.subtract(x, 2), lambda x, y: x - 2),
    "multiply": (lambda x, y: mnp.multiply(x, y), np.multiply),
    "divide": (lambda x, y: mnp.divide(x, 2.0), lambda x, y: x / 2),
    "power": (lambda x, y: mnp.power(mnp.abs(x), 2.5), lambda x, y: np.abs(x) ** 2.5),
    "exp": (lambda x, y: mnp.exp(x), lambda x, y: np.exp(x)),
    "log": (lambda x, y: mnp.log(mnp.abs(x)), lambda x, y: np.log(np.abs(x))),
    "sqrt": (lambda x, y: mnp.sqrt(mnp.absolute(x)), lambda x, y: np.sqrt(np.abs(x))),
    "square": (lambda x, y: mnp.square(x), lambda x, y: np.square(x)),
    "negative": (lambda x, y: mnp.negative(x), lambda x, y: -x),
    "maximum": (lambda x, y: mnp.maximum(x, y), np.maximum),
    "minimum": (lambda x, y: mnp.minimum(x, 0.0), lambda x, y: np.minimum(x, 0)),
    "tanh": (lambda x, y: mnp.tanh(x), lambda x, y: np.tanh(x)),
    "sum": (lambda x, y: mnp.sum(x), lambda x, y: x.sum()),
    "sum_axis": (lambda x, y: mnp.sum(x, 1, keepdims=True),
                 lambda x, y: x.sum(1, keepdims=True)),
    "mean": (lambda x, y: mnp.mean(x, (0, 1)), lambda x, y: x.mean()),
    "var": (lambda x, y: mnp.var(x, 0, ddof=1), lambda x, y: x.var(0, ddof=1)),
    "std": (lambda x, y: mnp.std(x, 1), lambda x, y: x.std(1)),
    "amax": (lambda x, y: mnp.amax(x, 0), lambda x, y: x.max(0)),
    "amin": (lambda x, y: mnp.amin(x), lambda x, y: x.min()),
    "argmax": (lambda x, y: mnp.argmax(x, 1), lambda x, y: x.argmax(1)),
    "argmin": (lambda x, y: mnp.argmin(x), lambda x, y: x.argmin()),
    "cumsum": (lambda x, y: mnp.cumsum(x, 1), lambda x, y: np.cumsum(x, 1)),
    "cumsum_flat": (lambda x, y: mnp.cumsum(x), lambda x, y: np.cumsum(x)),
    "matmul": (lambda x, y: mnp.matmul(x, mnp.transpose(y)), lambda x, y: x @ y.T),
    "dot": (lambda x, y: mnp.dot(x, mnp.transpose(y)), lambda x, y: np.dot(x, y.T)),
    "dot_vec": (lambda x, y: mnp.dot(x, y[0]), lambda x, y: np.dot(x, y[0])),
    "outer": (lambda x, y: mnp.outer(x[0], y[1]), lambda x, y: np.outer(x[0], y[1])),
    "clip": (lambda x, y: mnp.clip(x, -0.5, 0.5), lambda x, y: np.clip(x, -0.5, 0.5)),
    "isclose": (lambda x, y: mnp.isclose(x, x + 1e-7), lambda x, y: np.isclose(x, x + 1e-7)),
    "zeros_like": (lambda x, y: mnp.zeros_like(x) + mnp.ones((3, 4)),
                   lambda x, y: np.ones((3, 4))),
    "full_like": (lambda x, y: mnp.full_like(x, 2.0) * x, lambda x, y: 2 * x),
    "arange_use": (lambda x, y: x * mnp.arange(4), lambda x, y: x * np.arange(4)),
    "linspace_use": (lambda x, y: x + mnp.linspace(0, 1, 4),
                     lambda x, y: x + np.linspace(0, 1, 4, dtype=np.float32)),
}


def _np_dtype(v):
    return v.dtype if isinstance(v, np.ndarray) else None


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy_in_both_modes(name):
    f, ref = CASES[name]
    graph, eager = run_both(lambda: (lambda x, y: f(x, y)), ms.Tensor(A), ms.Tensor(B))
    want = ref(A, B)
    got = graph
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-5, atol=1e-6)
    if np.asarray(want).dtype.kind == "f":
        assert got.dtype is ms.float32
    elif np.asarray(want).dtype.kind == "b":
        assert got.dtype is ms.bool_


class _DropPath(nn.Cell):
    """mindcv's drop-path: a per-sample mask from mnp.ones, scaled by 1 / keep."""

    def __init__(self, keep):
        super().__init__()
        self.keep = keep
        self.dropout = nn.Dropout(p=1 - keep)

    def construct(self, x):
        mask = mnp.ones((x.shape[0],) + (1,) * (x.ndim - 1), dtype=mnp.float32)
        return x * mnp.where(mnp.greater(mask, 0.5), mask, 0.0) / self.keep


def test_used_inside_a_cell_in_both_modes():
    run_both(lambda: _DropPath(0.8), ms.Tensor(A))


def test_gradients_through_mnp_functions_match_in_both_modes():
    def loss(x, y):
        z = mnp.matmul(mnp.tanh(x), mnp.transpose(y))
        return mnp.mean(mnp.square(z)) + mnp.sum(mnp.clip(x, -0.3, 0.3) * mnp.exp(y))

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(loss, (0, 1))(ms.Tensor(A), ms.Tensor(B))
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = ms.grad(loss, (0, 1))(ms.Tensor(A), ms.Tensor(B))
    x, y = A.astype(np.float64), B.astype(np.float64)
    eps = 1e-6
    num = np.zeros_like(x)
    f = lambda x: np.mean((np.tanh(x) @ y.T) ** 2) + np.sum(np.clip(x, -0.3, 0.3) * np.exp(y))  # noqa: E731
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        num[i] = (f(x + d) - f(x - d)) / (2 * eps)
    for g in (eager, graph):
        np.testing.assert_allclose(g[0].asnumpy(), num, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(graph[1].asnumpy(), eager[1].asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.extra("onnx")
def test_exports_to_onnx(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    import graphjit.onnx as gx

    def f(x, y):
        return mnp.concatenate((mnp.cumsum(x, 1), mnp.maximum(y, 0.0) * mnp.arange(4)), 0), \
            mnp.var(x, 1), mnp.argmax(y, 0)
    model = ms.compile(f, ms.Tensor(A), ms.Tensor(B))
    gx.export(model, tmp_path / "mnp.onnx")
    sess = ort.InferenceSession(str(tmp_path / "mnp.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), (A, B))})
    want = [o.asnumpy() for o in model(ms.Tensor(A), ms.Tensor(B))]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# -- the mindspore.numpy spelling ----------------------------------------------------------
def test_import_mindspore_numpy_under_the_alias(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", ms)
    monkeypatch.setitem(sys.modules, "mindspore.nn", nn)
    monkeypatch.setitem(sys.modules, "mindspore.ops", ops)
    for name in ("mindspore.numpy", "mindspore.log"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    m = importlib.import_module("mindspore.numpy")
    assert m is mnp
    from mindspore.numpy import ones   # noqa: E402  (mindcv's drop-path spelling)
    assert ones is mnp.ones
    import mindspore.numpy as np_alias
    assert np_alias is mnp
    from mindspore import log as logger
    assert logger is ms.log
    model = importlib.import_module("_alias_model")
    assert model.np is mnp
    graph, _ = run_both(lambda: model.Reverse(1), ms.Tensor(A))
    np.testing.assert_allclose(graph.asnumpy(), A[:, ::-1] + A.mean(), rtol=1e-6)
    for name in [n for n in sys.modules if n.startswith("mindspore.") or n == "_alias_model"]:
        monkeypatch.delitem(sys.modules, name, raising=False)


MORE = {
    "diag": (lambda x, y: mnp.diag(x, 1), lambda x, y: np.diag(x, 1)),
    "diag_neg": (lambda x, y: mnp.diag(x, -1), lambda x, y: np.diag(x, -1)),
    "diag_1d": (lambda x, y: mnp.diag(x[0], -1), lambda x, y: np.diag(x[0], -1)),
    "take_along_axis": (lambda x, y: mnp.take_along_axis(x, mnp.argsort(x, 1), 1),
                        lambda x, y: np.sort(x, 1)),
    "diff": (lambda x, y: mnp.diff(x, 2, 1), lambda x, y: np.diff(x, 2, 1)),
    "sort": (lambda x, y: mnp.sort(x, 0), lambda x, y: np.sort(x, 0)),
    "argsort": (lambda x, y: mnp.argsort(y), lambda x, y: np.argsort(y)),
    "trace": (lambda x, y: mnp.trace(x, 1), lambda x, y: np.trace(x, 1)),
    "trace_neg": (lambda x, y: mnp.trace(x, -1), lambda x, y: np.trace(x, -1)),
    "tensordot": (lambda x, y: mnp.tensordot(x, y, ([0, 1], [0, 1])),
                  lambda x, y: np.tensordot(x, y, ([0, 1], [0, 1]))),
    "tensordot_1": (lambda x, y: mnp.tensordot(x, mnp.transpose(y), 1),
                    lambda x, y: np.tensordot(x, y.T, 1)),
    "array_equal": (lambda x, y: mnp.array_equal(x, x + 0.0),
                    lambda x, y: np.array_equal(x, x)),
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_more_functions_against_numpy_in_both_modes(name):
    f, ref = MORE[name]
    graph, _ = run_both(lambda: (lambda x, y: f(x, y)), ms.Tensor(A), ms.Tensor(B))
    np.testing.assert_allclose(graph.asnumpy(), ref(A, B), rtol=1e-6)


def test_random_constructors_follow_mindspore_shapes_and_dtypes():
    ms.set_seed(1)
    a = mnp.rand(2, 3)
    assert a.shape == (2, 3) and a.dtype is ms.float32
    assert 0 <= float(a.asnumpy().min()) and float(a.asnumpy().max()) < 1
    assert mnp.randn((4,), dtype=ms.float16).dtype is ms.float16
    r = mnp.randint(1, 10, (2, 3))
    assert r.dtype is ms.int32 and r.asnumpy().min() >= 1 and r.asnumpy().max() < 10
    assert mnp.randint(5).shape == (1,)
    with pytest.raises(ValueError, match="float type"):
        mnp.rand(2, dtype=ms.int32)
    with pytest.raises(ValueError, match="minval must be > 0"):
        mnp.randint(0)
