"""MindSpore's F and C names model-zoo code calls (ops/functional_scalar.py,
ops/composite/flags.py, clip_by_value in ops/function/clip_func.py) and the dtype helpers
of mindspore.common.dtype."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.common import dtype as mstype
from graphjit.ops import composite as C, functional as F


def test_make_range_and_scalar_primitives():
    assert F.make_range(3) == (0, 1, 2)
    assert F.make_range(1, 7, 2) == (1, 3, 5)
    with pytest.raises(TypeError):
        F.make_range(2.0)
    with pytest.raises(ValueError):
        F.make_range(0, 3, 0)
    assert F.scalar_add(2, 3) == 5 and F.scalar_div(3, 2) == 1.5 and F.scalar_lt(1, 2)
    assert F.bool_and(True, False) is False and F.bool_or(False, True) is True
    assert F.shape_mul((2, 3, 4)) == 24 and F.shape_mul(()) == 1
    assert F.scalar_cast(3.7, ms.int32) == 3 and isinstance(F.scalar_cast(3, ms.float32), float)
    assert F.isconstant(3) and not F.isconstant(ms.Tensor(3))


def test_tensor_aliases_are_the_operators():
    a, b = ms.Tensor(np.array([5, 7], np.int32)), ms.Tensor(np.array([2, 3], np.int32))
    np.testing.assert_array_equal(F.tensor_add(a, b).asnumpy(), [7, 10])
    np.testing.assert_array_equal(F.tensor_floordiv(a, b).asnumpy(), [2, 2])
    np.testing.assert_array_equal(F.tensor_mod(a, b).asnumpy(), [1, 1])
    assert F.tensor_div(a, b).dtype is ms.float32
    np.testing.assert_array_equal(F.tensor_gt(a, 6).asnumpy(), [False, True])


class Offsets(nn.Cell):
    """GetMaskedLMOutput's flat offsets: F.make_range over a static shape in construct."""

    def construct(self, x, positions):
        shape = ops.shape(x)
        rng = F.tuple_to_array(F.make_range(shape[0]))
        flat = ops.reshape(rng * shape[1], (-1, 1))
        return ops.reshape(positions + flat, (-1,))


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_make_range_in_construct(mode):
    ms.set_context(mode=mode)
    try:
        out = Offsets()(ms.Tensor(np.zeros((3, 5, 2), np.float32)),
                        ms.Tensor(np.array([[1], [2], [0]], np.int32)))
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(out.asnumpy(), [1, 7, 10])


def test_clip_by_value_keeps_dtype_and_takes_tuples():
    x = ms.Tensor(np.array([1, 5, 9], np.int32))
    y = ops.clip_by_value(x, 2.5, 7)
    assert y.dtype is ms.int32                      # the bounds are cast to x's dtype
    np.testing.assert_array_equal(y.asnumpy(), [2, 5, 7])
    f = ms.Tensor(np.array([0.1, 2.0], np.float32))
    out = C.clip_by_value((x, f), ms.Tensor(1.5), None)
    assert isinstance(out, tuple) and out[0].dtype is ms.int32
    np.testing.assert_array_equal(out[0].asnumpy(), [1, 5, 9])
    np.testing.assert_allclose(out[1].asnumpy(), [1.5, 2.0])
    with pytest.raises(ValueError):
        ops.clip_by_value(x)
    with pytest.raises(TypeError):
        ops.clip_by_value(x, "1")


def test_add_flags_and_core_mark_the_function():
    @C.add_flags(has_effect=True)
    def f(x):
        return x
    assert f._func_graph_flags == {"has_effect": True} and f(3) == 3
    g = C.core(lambda x: x)
    assert g._func_graph_flags["core"] is True
    assert C.clip_by_global_norm is ops.clip_by_global_norm and C.zeros_like is ops.zeros_like


def test_dtype_helpers():
    assert mstype.dtype_to_nptype(ms.float16) is np.float16
    assert float(np.finfo(mstype.dtype_to_nptype(ms.float32)).max) > 3e38
    assert mstype.dtype_to_pytype(ms.int32) is int and mstype.dtype_to_pytype(ms.bool_) is bool
    assert mstype.pytype_to_dtype(int) is ms.int64 and mstype.pytype_to_dtype(float) is ms.float32
    assert mstype.pytype_to_dtype(np.dtype("int8")) is ms.int8
    with pytest.raises(TypeError):
        mstype.pytype_to_dtype(3)
    assert mstype.get_py_obj_dtype(ms.Tensor([1.0])) is ms.float32
    assert ms.dtype_to_nptype is mstype.dtype_to_nptype
    assert ms.int32 in mstype.int_type and ms.float32 in mstype.float_type


def test_scalar_to_array_and_deprecated_loss_base():
    assert F.scalar_to_array(1.0).dtype is ms.float32 and F.scalar_to_array(2).dtype is ms.int64
    with pytest.raises(TypeError):
        F.scalar_to_array("1")
    from graphjit.nn.loss.loss import _Loss

    class NLL(_Loss):        # the GRU model's loss, as model-zoo code writes it
        def construct(self, logits, label):
            hot = ops.one_hot(label, F.shape(logits)[-1], F.scalar_to_array(1.0),
                              F.scalar_to_array(0.0))
            return self.get_loss(ops.ReduceSum()(-1.0 * logits * hot, (1,)))

    logits = ms.Tensor(np.log(np.array([[0.2, 0.8], [0.6, 0.4]], np.float32)))
    label = ms.Tensor(np.array([1, 0], np.int32))
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            out = NLL()(logits, label).asnumpy()
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(out, -(np.log(0.8) + np.log(0.6)) / 2, rtol=1e-6)


def test_hyper_map_over_a_parameter_tuple_as_bert_accumulation_cells():
    """C.HyperMap maps over a ParameterTuple (weights.clone(prefix='accu_grads')) beside
    a tuple of gradients, as over a tuple, in both modes."""
    accumulate = C.MultitypeFuncGraph("accumulate")

    @accumulate.register("Tensor", "Tensor")
    def _acc(accu, grad):
        return F.depend(True, F.assign_add(accu, ops.cast(grad, ms.float32)))

    class Acc(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
            self.weights = ms.ParameterTuple(self.net.trainable_params())
            self.accu = self.weights.clone(prefix="accu_grads", init="zeros")
            self.grad = C.GradOperation(get_by_list=True)
            self.hyper_map = C.HyperMap()

        def construct(self, x):
            grads = self.grad(self.net, self.weights)(x)
            succ = self.hyper_map(accumulate, self.accu, grads)
            return F.depend(self.net(x).sum(), succ)

    x = ms.Tensor(np.ones((2, 3), np.float32))
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            acc = Acc()
            acc(x)
            acc(x)
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        assert [p.name for p in acc.accu] == ["accu_grads.net.weight", "accu_grads.net.bias"]
        np.testing.assert_array_equal(acc.accu[0].asnumpy(), np.full((2, 3), 4.0))
        np.testing.assert_array_equal(acc.accu[1].asnumpy(), np.full((2,), 4.0))
