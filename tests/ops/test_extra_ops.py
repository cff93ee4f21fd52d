"""MindSpore 2.x functions, primitives and Tensor methods that realistic model code calls
and graphjit lacked (found by tests/frontend/test_ms_realistic.py): each against numpy,
in PYNATIVE and GRAPH mode, and the composite ones with gradients."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
import graphjit.ops.operations as P
from graphjit.jit.api import compare_results

R = np.random.default_rng(5)
X = R.standard_normal((3, 4)).astype(np.float32)
X4 = R.standard_normal((2, 3, 4, 5)).astype(np.float32)
V = R.standard_normal(5).astype(np.float32)


def _both(fn, *args):
    """fn(*args) eagerly and under ms.jit; they agree; returns the eager result."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*[ms.Tensor(a) for a in args])
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = ms.jit(fn)(*[ms.Tensor(a) for a in args])
    problem = compare_results(graph, eager)
    assert not problem, problem
    return eager


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return np.asarray(x.asnumpy())


def _reflect(x, lo, hi):
    return np.pad(x, [(0, 0)] * (x.ndim - 1) + [(lo, hi)], mode="reflect")


CASES = [
    ("swapaxes", lambda x: ops.swapaxes(x, 0, -1), (X4,),
     lambda x: np.swapaxes(x, 0, -1)),
    ("tensor.swapaxes", lambda x: x.swapaxes(-2, -1), (X4,),
     lambda x: np.swapaxes(x, -2, -1)),
    ("tensor.permute", lambda x: x.permute(2, 0, 1, 3), (X4,),
     lambda x: np.transpose(x, (2, 0, 1, 3))),
    ("tensor.permute tuple", lambda x: x.permute((1, 0)), (X,),
     lambda x: x.T),
    ("tril", lambda x: ops.tril(x), (X,), np.tril),
    ("triu -1", lambda x: ops.triu(x, -1), (X,),
     lambda x: np.triu(x, -1)),
    ("tensor.tril 1", lambda x: x.tril(1), (X4,),
     lambda x: np.tril(x, 1)),
    ("eye", lambda x: ops.eye(3, 4, ms.int32) + 0 * x[0, 0].astype(ms.int32), (X,),
     lambda x: np.eye(3, 4, dtype=np.int32)),
    ("norm", lambda x: ops.norm(x), (X,),
     lambda x: np.linalg.norm(x)),
    ("norm dim", lambda x: x.norm(dim=1, keepdim=True), (X,),
     lambda x: np.linalg.norm(x, axis=1, keepdims=True)),
    ("norm ord 1", lambda x: ops.norm(x, 1, dim=0), (X,),
     lambda x: np.abs(x).sum(0)),
    ("norm inf", lambda x: ops.norm(x, math.inf, dim=-1), (X,),
     lambda x: np.abs(x).max(-1)),
    ("norm ord 3", lambda x: ops.norm(x, 3), (V,),
     lambda x: np.linalg.norm(x, 3)),
    ("var", lambda x: ops.var(x), (X,), np.var),
    ("var ddof", lambda x: ops.var(x, 1, 1, True), (X,),
     lambda x: np.var(x, 1, ddof=1, keepdims=True)),
    ("tensor.std", lambda x: x.std(axis=(0, 1)), (X4,),
     lambda x: np.std(x, (0, 1))),
    ("pad constant", lambda x: ops.pad(x, (1, 2, 0, 1), value=3.0), (X,),
     lambda x: np.pad(x, ((0, 1), (1, 2)), constant_values=3.0)),
    ("pad negative", lambda x: ops.pad(x, (-1, 1)), (X,),
     lambda x: np.pad(x[:, 1:], ((0, 0), (0, 1)))),
    ("pad reflect", lambda x: ops.pad(x, (2, 3), mode="reflect"), (X,),
     lambda x: _reflect(x, 2, 3)),
    ("pad replicate", lambda x: ops.pad(x, (1, 2, 2, 0), mode="replicate"), (X4,),
     lambda x: np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 2)), mode="edge")),
    ("flip", lambda x: ops.flip(x, (0, 2)), (X4,),
     lambda x: np.flip(x, (0, 2))),
    ("roll", lambda x: ops.roll(x, (1, -2), (0, 1)), (X,),
     lambda x: np.roll(x, (1, -2), (0, 1))),
    ("roll flat", lambda x: ops.roll(x, 5), (X,),
     lambda x: np.roll(x, 5)),
    ("bias_add", lambda x, b: ops.bias_add(x, b[:3]), (X4, V),
     lambda x, b: x + b[:3].reshape(1, 3, 1, 1)),
    ("BiasAdd NHWC", lambda x, b: P.BiasAdd("NHWC")(x, b), (X4, V),
     lambda x, b: x + b),
    ("unstack", lambda x: ops.unstack(x, 1), (X,),
     lambda x: list(np.moveaxis(x, 1, 0))),
    ("unbind", lambda x: x.unbind(0), (X,),
     lambda x: list(x)),
    ("sequence_mask", lambda n: ops.sequence_mask(n, 4), (np.array([0, 2, 4], np.int32),),
     lambda n: np.arange(4)[None] < n[:, None]),
    ("strided_slice", lambda x: ops.strided_slice(x, (0, 1, 0, 4), (2, 3, 4, 0), (1, 1, 2, -2),
                                                  begin_mask=0b0100, shrink_axis_mask=0b0001),
     (X4,), lambda x: x[0, 1:3, ::2, 4:0:-2]),
    ("StridedSlice ellipsis", lambda x: P.StridedSlice(ellipsis_mask=1, new_axis_mask=2)(
        x, (0, 0, 1), (0, 0, 3), (1, 1, 1)), (X4,), lambda x: x[..., None, 1:3]),
    ("slice", lambda x: ops.slice(x, (1, 0), (2, -1)), (X,),
     lambda x: x[1:3, 0:]),
    ("Slice", lambda x: P.Slice()(x, (0, 1, 1, 2), (1, 2, 2, 3)), (X4,),
     lambda x: x[0:1, 1:3, 1:3, 2:5]),
    ("index_select", lambda x: ops.index_select(x, 1, ms.Tensor(np.array([3, 0, 3], np.int32))),
     (X,), lambda x: x[:, [3, 0, 3]]),
    ("narrow", lambda x: x.narrow(1, 1, 2), (X,),
     lambda x: x[:, 1:3]),
    ("hstack", lambda x: ops.hstack((x, x)), (X,),
     lambda x: np.hstack((x, x))),
    ("vstack 1-D", lambda v: ops.vstack((v, v)), (V,),
     lambda v: np.vstack((v, v))),
    ("mm", lambda x: ops.mm(x, x.T), (X,),
     lambda x: x @ x.T),
    ("outer", lambda v: ops.outer(v, v[:3]), (V,),
     lambda v: np.outer(v, v[:3])),
    ("isclose", lambda x: ops.isclose(x, x + 1e-7), (X,),
     lambda x: np.isclose(x, x + 1e-7)),
    ("count_nonzero", lambda x: ops.count_nonzero(ops.relu(x), 1), (X,),
     lambda x: (np.maximum(x, 0) != 0).sum(1).astype(np.int32)),
    ("clip_by_norm", lambda x: ops.clip_by_norm(x, 1.0), (X,),
     lambda x: x * min(1.0, 1.0 / (np.linalg.norm(x) + 1e-6))),
    ("clip_by_norm list", lambda x, v: ops.clip_by_norm([x, v], 2.0), (X, V),
     lambda x, v: [t * min(1.0, 2.0 / (np.sqrt((x * x).sum() + (v * v).sum()) + 1e-6))
                   for t in (x, v)]),
    ("clip_by_global_norm", lambda x, v: ops.clip_by_global_norm((x, v), 0.5), (X, V),
     lambda x, v: [t * 0.5 / max(0.5, np.sqrt((x * x).sum() + (v * v).sum())) for t in (x, v)]),
    ("repeat", lambda x: x.repeat(2, 1), (X,),
     lambda x: np.repeat(x, 2, 1)),
    ("repeat_interleave flat", lambda x: ops.repeat_interleave(x, 3), (X,),
     lambda x: np.repeat(x, 3)),
    ("L2Normalize", lambda x: P.L2Normalize(axis=-1)(x), (X,),
     lambda x: x / np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-4))),
    ("Eye", lambda x: P.Eye()(2, 3, ms.float32) + x[:2, :3] * 0, (X,),
     lambda x: np.eye(2, 3)),
    ("MaskedFill", lambda x: P.MaskedFill()(x, x > 0, 0.0), (X,),
     lambda x: np.minimum(x, 0)),
    ("Pack/GatherV2", lambda x: P.GatherV2()(P.Pack()((x, x)), ms.Tensor(1), 0), (X,),
     lambda x: x),
    ("tensor methods", lambda x: (x.view_as(x.T).ravel(), x.ndimension(), x.log_softmax(),
                                  x.isfinite(), x.erf(), x.split(2, 1), x.chunk(3)),
     (X,), None),
    ("tensor.topk/sort/gather", lambda x: (x.topk(2)[0], x.sort()[0],
                                           x.gather(ms.Tensor(np.array([2, 0], np.int32)), 0)),
     (X,), lambda x: [-np.sort(-x, -1)[:, :2], np.sort(x, -1), x[[2, 0]]]),
]


@pytest.mark.parametrize("name, fn, args, ref", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy_in_both_modes(name, fn, args, ref):
    out = _both(fn, *args)
    if ref is None:
        return
    want = ref(*args)
    got = _np(out)
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-6)
        assert got.shape == np.shape(want)


def test_grads_flow_through_the_composites():
    def f(x):
        y = ops.pad(ops.roll(ops.tril(x), 1, 0), (1, 1), mode="reflect")
        return (ops.norm(y) + ops.var(y) + ops.clip_by_norm(y, 1.0).sum()
                + y.repeat(2, 0).std())
    g = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        g.append(ms.grad(f)(ms.Tensor(X)).asnumpy())
    np.testing.assert_allclose(g[0], g[1], rtol=1e-5, atol=1e-6)
    eps, num = 1e-3, np.zeros_like(X)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for i in np.ndindex(X.shape):
        d = np.zeros_like(X)
        d[i] = eps
        num[i] = (float(f(ms.Tensor(X + d))) - float(f(ms.Tensor(X - d)))) / (2 * eps)
    np.testing.assert_allclose(g[0], num, rtol=2e-2, atol=2e-2)


def test_graph_mode_refusals_are_build_time_errors_that_say_why():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="maxlen must be given"):
        ms.jit(lambda n: ops.sequence_mask(n))(ms.Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(ValueError, match="matrix norms are not supported"):
        ms.jit(lambda x: ops.norm(x, 2))(ms.Tensor(X))
    with pytest.raises(TypeError, match="repeats must be a Python int"):
        ms.jit(lambda x: x.repeat((1, 2), 0))(ms.Tensor(X))


def test_sequence_mask_without_maxlen_eagerly_uses_the_longest():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    m = ops.sequence_mask(ms.Tensor(np.array([1, 3], np.int32)))
    np.testing.assert_array_equal(m.asnumpy(), [[True, False, False], [True, True, True]])
    ms.set_context(mode=ms.GRAPH_MODE)


def test_clip_by_norm_error_if_nonfinite_raises_in_both_modes():
    def clip(x):
        return ops.clip_by_norm(x, 1.0, error_if_nonfinite=True)
    bad = ms.Tensor(np.array([np.inf, 1.0], np.float32))
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        f = clip if mode == ms.PYNATIVE_MODE else ms.jit(clip)
        np.testing.assert_allclose(f(ms.Tensor(np.ones(4, np.float32))).asnumpy(),
                                   np.full(4, 0.5), rtol=1e-5)
        with pytest.raises(RuntimeError, match="nan or inf"):
            f(bad)


class _SliceByTensor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = ms.Tensor(2)

    def construct(self, x):
        return x[:self.k], x[ms.Tensor(1):4:ms.Tensor(2, ms.int32)]


def test_eager_integer_tensors_as_slice_bounds_as_in_pynative_mindspore():
    x = ms.Tensor(np.arange(6, dtype=np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    m = x.argmax() - 3
    np.testing.assert_array_equal(x[m:m + 2].asnumpy(), [2.0, 3.0])
    y = x.copy()
    y[m:m + 1] = 9.0
    np.testing.assert_array_equal(y.asnumpy(), [0, 1, 9, 3, 4, 5])

    def f(x):
        y = x * 1
        i = ms.Tensor(1)
        y[i:i + 2] = 0.0
        return (y * y).sum()
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), [0, 0, 0, 6, 8, 10])
    with pytest.raises(TypeError, match="only integer tensors"):
        x[ms.Tensor(1.5):]
    # constant tensors (attributes, literals) are slice bounds in graph mode too
    net = _SliceByTensor()
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert not compare_results(net(x), eager)


class _ColumnWrites(nn.Cell):
    def construct(self, x, t, v):
        y = x * 1
        y[:, t] = v
        y[:, :, t, 1] = 7.0
        y[:, t, 0:2] = v.sum()
        return y


@pytest.mark.parametrize("t", [0, 2, -1])
def test_item_assignment_at_a_tensor_position_after_full_slices(t):
    """buf[:, t] = v with t a tensor (a decoding loop's counter): the same in both modes
    (it was refused: only the first axis took a tensor position), gradients too."""
    net = _ColumnWrites()
    x = ms.Tensor(R.standard_normal((2, 3, 4, 5)).astype(np.float32))
    v = ms.Tensor(R.standard_normal((4, 5)).astype(np.float32))
    ti = ms.Tensor(t, ms.int32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x, ti, v)
    want = x.asnumpy().copy()
    want[:, t] = v.asnumpy()
    want[:, :, t, 1] = 7.0
    want[:, t, 0:2] = v.asnumpy().sum()
    np.testing.assert_allclose(eager.asnumpy(), want, rtol=1e-6)
    ge = ms.grad(lambda a, b: (net(a, ti, b) ** 2).sum(), (0, 1))(x, v)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert not compare_results(net(x, ti, v), eager)
    gg = ms.grad(lambda a, b: (net(a, ti, b) ** 2).sum(), (0, 1))(x, v)
    assert not compare_results(gg, ge)
