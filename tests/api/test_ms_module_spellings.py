"""The module spellings MindSpore scripts import from, under graphjit's names:
graphjit.common.initializer (initializer, Normal, TruncatedNormal, HeNormal,
XavierNormal, ...), graphjit.common.tensor, graphjit.common.api (jit, ms_function),
graphjit.ops.primitive (Primitive, constexpr) and ops.constexpr used in construct."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.common.api import jit, ms_function
from graphjit.common.initializer import (HeNormal, Normal, One, TruncatedNormal,
                                         XavierNormal, XavierUniform, Zero, initializer)
from graphjit.common.tensor import Tensor
from graphjit.ops.primitive import Primitive, constexpr
from graphjit.jit.api import compare_results


@constexpr
def _flat_size(shape):
    n = 1
    for d in shape[1:]:
        n *= d
    return n


@constexpr(reuse_result=False)
def _half(n):
    return n // 2


class Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(12, 4, weight_init=TruncatedNormal(0.02),
                           bias_init=Zero())
        self.proj = nn.Dense(4, 4, weight_init=XavierNormal(), has_bias=False)

    def construct(self, x):
        x = ops.reshape(x, (x.shape[0], _flat_size(x.shape)))
        y = self.proj(self.fc(x))
        k = _half(y.shape[-1])
        if y[:, :k].sum() > 0:
            y = y * 2
        return y


def test_model_zoo_imports_build_and_run_in_both_modes():
    ms.set_seed(0)
    net = Head()
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert not compare_results(net(x), eager)
    w = net.fc.weight.asnumpy()
    assert np.abs(w).max() <= 0.04 and 0.01 < w.std() < 0.02
    assert ms_function is jit and issubclass(ops.Primitive, object) and Primitive is ops.Primitive
    assert ops.constexpr is constexpr


@pytest.mark.parametrize("init, std", [(HeNormal(), (2 / 32) ** 0.5),
                                       (HeNormal(mode="fan_out", nonlinearity="relu"),
                                        (2 / 64) ** 0.5),
                                       (XavierNormal(2.0), 2 * (2 / 96) ** 0.5),
                                       (Normal(0.5), 0.5), ("he_normal", (2 / 32) ** 0.5)])
def test_normal_initializers_have_mindspores_spread(init, std):
    ms.set_seed(1)
    t = initializer(init, (64, 32), ms.float32)
    assert t.dtype == ms.float32 and t.shape == (64, 32)
    assert abs(float(t.asnumpy().std()) - std) < 0.1 * std


def test_constant_initializers_and_bad_arguments():
    np.testing.assert_array_equal(initializer(One(), (2,)).asnumpy(), [1.0, 1.0])
    assert initializer(XavierUniform(), (3, 3)).shape == (3, 3)
    with pytest.raises(ValueError, match="'mode' fan not supported"):
        initializer(HeNormal(mode="fan"), (3, 3))
