"""ms.jit(ms.grad(f)) and ms.jit(ms.value_and_grad(f)) compile the gradient program in
either mode and give the gradients (not f's value, which an earlier JitFunction returned
after copying the gradient function's attributes over its own)."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit.jit.api import compare_results

A = np.arange(6, dtype=np.float32).reshape(2, 3)


def _loss(x, y):
    return (x * y * y).sum()


def test_jit_of_grad_gives_the_gradients_in_both_modes():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        want = ms.grad(_loss, (0, 1))(ms.Tensor(A), ms.Tensor(A + 1))
        got = ms.jit(ms.grad(_loss, (0, 1)))(ms.Tensor(A), ms.Tensor(A + 1))
        assert not compare_results(got, want)
        np.testing.assert_allclose(got[0].asnumpy(), (A + 1) ** 2)
        np.testing.assert_allclose(got[1].asnumpy(), 2 * A * (A + 1))
        value, grads = ms.jit(ms.value_and_grad(_loss))(ms.Tensor(A), ms.Tensor(A + 1))
        assert float(value.asnumpy()) == float(_loss(A, A + 1))
        np.testing.assert_allclose(grads.asnumpy(), (A + 1) ** 2)
