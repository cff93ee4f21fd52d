"""PYNATIVE operators keep what they work out per signature (op, attributes, input
dtypes and shapes): the kept kernel must give what working it out again gives."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import ops
from graphjit.ir.types import TensorType
from graphjit.ops import _dispatch


@pytest.fixture(autouse=True)
def pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def bits(t):
    return t.asnumpy().tobytes(), t.dtype, t.shape


def test_attributes_equal_under_eq_are_kept_apart():
    # 0.0 == -0.0 and 1 == 1.0 == True, but they are other attributes
    assert np.signbit(ops.fill(ms.float32, (2,), -0.0).asnumpy()).all()
    assert not np.signbit(ops.fill(ms.float32, (2,), 0.0).asnumpy()).any()
    assert np.signbit(ops.fill(ms.float32, (2,), -0.0).asnumpy()).all()
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.sum(axis=1, keepdims=True).shape == (2, 1)
    assert x.sum(axis=1).shape == (2,)
    assert x.sum(axis=(0,)).shape == (3,)


def test_each_signature_gets_its_own_kernel():
    for dtype in (np.int32, np.float32, np.float64, np.int64):
        for shape in ((), (3,), (2, 3)):
            a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) + 1
            t = ms.Tensor(a)
            for _ in range(2):      # worked out, then kept
                got = t * t + t - t * 2
                want = a * a + a - a * dtype(2)
                assert got.asnumpy().dtype == want.dtype and got.shape == want.shape
                assert np.array_equal(got.asnumpy(), want)


def test_a_replaced_op_is_worked_out_again():
    def infer(ts, attrs):
        return TensorType(ts[0].dtype, ts[0].shape)
    op = ops.register_op("TestEagerTwice", inputs=("x",), infer=infer,
                         kernel=lambda x: x * 2, family="elementwise", replace=True)
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    assert op(x).asnumpy().tolist() == [2.0, 4.0]
    op = ops.register_op("TestEagerTwice", inputs=("x",), infer=infer,
                         kernel=lambda x: x * 3, family="elementwise", replace=True)
    assert op(x).asnumpy().tolist() == [3.0, 6.0]


def test_random_ops_draw_at_every_call():
    x = ms.Tensor(np.ones(1000, np.float32))
    a, b = ops.dropout(x, p=0.5), ops.dropout(x, p=0.5)
    assert not np.array_equal(a.asnumpy(), b.asnumpy())


def test_bad_inputs_still_raise_the_op_errors():
    a = ms.Tensor(np.ones((2, 3), np.float32))
    b = ms.Tensor(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError):
        ops.matmul(a, b)
    with pytest.raises(ValueError):
        ops.matmul(a, b)    # the failure is not kept as if it were a kernel
    with pytest.raises(ValueError, match="no data"):
        _dispatch.apply("Add", ms.Tensor(dtype=ms.float32, shape=(2,)), a)


def test_the_table_is_bounded(monkeypatch):
    monkeypatch.setattr(_dispatch, "_EAGER_LIMIT", 8)
    for n in range(1, 30):
        t = ms.Tensor(np.ones(n, np.float32))
        assert (t + t).asnumpy().sum() == 2 * n
    assert len(_dispatch._EAGER) <= 8
