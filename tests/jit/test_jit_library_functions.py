"""ms.jit over one of graphjit's own functions (ms.jit(ops.sin)) builds a graph that
calls it on graph values, as a construct calling it does; its source (eager fast
paths) is not parsed as the program."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import ops


@pytest.mark.parametrize("fn, args", [
    (ops.sin, (np.array([0.1, 0.5], np.float32),)),
    (ops.matmul, (np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))),
    (ops.concat, ((np.ones(2, np.float32), np.zeros(3, np.float32)),)),
    (ops.softmax, (np.array([[1.0, 2.0, 3.0]], np.float32),)),
])
def test_graph_mode_gives_eager_modes_answer(fn, args):
    def tensors(a):
        return tuple(tensors(v) for v in a) if isinstance(a, tuple) else ms.Tensor(a)
    inputs = [tensors(a) for a in args]
    got = ms.jit(fn)(*inputs)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        want = fn(*inputs)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
