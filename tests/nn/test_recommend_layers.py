"""What the model zoo's Wide&Deep and DeepFM need: nn.EmbeddingLookup, nn.FTRL, Adam's
use_lazy, ops.SigmoidCrossEntropyWithLogits and Primitive.shard / set_device."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


def _both(fn):
    out = []
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            out.append(fn())
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    return out


def test_embedding_lookup_targets():
    ids = ms.Tensor(np.array([[0, 3], [5, -1]], np.int32))
    cpu = nn.EmbeddingLookup(4, 2)                    # target 'CPU': out of range -> zeros
    table = cpu.embedding_table.asnumpy()
    assert cpu.embedding_table.name == "embedding_table"
    for got in _both(lambda: cpu(ids).asnumpy()):
        np.testing.assert_array_equal(got[0], table[[0, 3]])
        np.testing.assert_array_equal(got[1], np.zeros((2, 2), np.float32))
    dev = nn.EmbeddingLookup(4, 2, param_init="ones", target="DEVICE", sparse=False)
    for got in _both(lambda: dev(ms.Tensor(np.array([1, 2], np.int32))).asnumpy()):
        np.testing.assert_array_equal(got, np.ones((2, 2), np.float32))
    clipped = nn.EmbeddingLookup(4, 2, param_init="ones", max_norm=0.5)
    np.testing.assert_allclose(np.linalg.norm(clipped(ms.Tensor(np.array([1], np.int32)))
                                              .asnumpy(), axis=-1), [0.5], rtol=1e-6)
    with pytest.raises(ValueError):
        nn.EmbeddingLookup(4, 2, target="GPU")
    with pytest.raises(ValueError):
        nn.EmbeddingLookup(4, 2, sparse=False)        # 'CPU' needs sparse
    assert nn.EmbeddingLookup.TABLE_ROW_SLICE == "table_row_slice"


def _ftrl_reference(w, g, m, u, lr, l1, l2, p):
    m2 = m + g * g
    u = u + g - (m2 ** -p - m ** -p) / lr * w
    w = np.where(np.abs(u) > l1, (np.sign(u) * l1 - u) / (m2 ** -p / lr + 2 * l2), 0.0)
    return w, m2, u


def test_ftrl_matches_apply_ftrl_in_both_modes():
    x = ms.Tensor(np.array([[1.0, -2.0], [0.5, 1.5]], np.float32))
    y = ms.Tensor(np.array([[1.0], [0.0]], np.float32))
    got = []
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros", has_bias=False)
            opt = nn.FTRL(net.trainable_params(), initial_accum=1.0, learning_rate=0.05,
                          l1=0.01, l2=0.001)
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
            step(x, y)
            step(x, y)
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        got.append(net.weight.asnumpy())
    assert [p.name for p in opt.moments] == ["moments.weight"]
    assert [p.name for p in opt.linear] == ["linear.weight"]
    w, m, u = np.ones((1, 2)), np.ones((1, 2)), np.zeros((1, 2))
    xs, ys = x.asnumpy().astype(np.float64), y.asnumpy().astype(np.float64)
    for _ in range(2):
        g = 2 * ((xs @ w.T - ys).T @ xs) / 2
        w, m, u = _ftrl_reference(w, g, m, u, 0.05, 0.01, 0.001, -0.5)
    np.testing.assert_allclose(got[0], w, rtol=1e-5)
    np.testing.assert_allclose(got[1], w, rtol=1e-5)
    with pytest.raises(ValueError):
        nn.FTRL(nn.Dense(2, 1).trainable_params(), lr_power=0.5)


def test_adam_takes_use_lazy_and_refuses_unknown_keywords():
    net = nn.Dense(2, 1)
    assert nn.Adam(net.trainable_params(), use_lazy=True).use_lazy
    with pytest.raises(TypeError):
        nn.Adam(net.trainable_params(), use_lazyy=True)


def test_sigmoid_cross_entropy_with_logits_and_shard():
    x = np.array([[-1.0, 2.0], [30.0, -30.0]], np.float32)
    z = np.array([[1.0, 0.0], [1.0, 0.0]], np.float32)
    op = ops.SigmoidCrossEntropyWithLogits().shard(((1, 1), (1, 1)))
    assert isinstance(op, ops.SigmoidCrossEntropyWithLogits)
    want = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    for got in _both(lambda: op(ms.Tensor(x), ms.Tensor(z)).asnumpy()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError):
        op(ms.Tensor(x), ms.Tensor(z[:1]))
    assert ops.Unique().shard(((1,),)).set_device("CPU").primitive_target == "CPU"
