"""Stack in place in straight-line code (backend.stack_plan): an unrolled RNN's rows
are written into the hoisted product's buffer, which becomes the stacked result;
only where nothing else reads that buffer or those rows, with eager mode's bits."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import ops
from graphjit.jit.cache import cache_of
from helpers import run_jit_twice

RNG = np.random.default_rng(11)
f32 = np.float32


@pytest.fixture(autouse=True)
def pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _run_both(fn, *arrays):
    e, _, _, jf = run_jit_twice(fn, *arrays)
    return e, cache_of(jf)[0].plan.source, jf


def _weights(I=4, H=5):
    return (RNG.standard_normal((I, H)).astype(f32) * 0.5,
            RNG.standard_normal((H, H)).astype(f32) * 0.5, RNG.standard_normal(H).astype(f32))


def test_an_unrolled_rnn_writes_its_rows_into_the_stacked_buffer():
    w, u, b = _weights()

    def rnn(x, h):
        outs = []
        for t in range(6):
            h = ops.tanh(ops.matmul(x[t], ms.Tensor(w)) + ops.matmul(h, ms.Tensor(u)) +
                         ms.Tensor(b))
            outs.append(h)
        return ops.stack(outs)

    x, h = RNG.standard_normal((6, 3, 4)).astype(f32), RNG.standard_normal((3, 5)).astype(f32)
    _, src, _ = _run_both(rnn, x, h)
    assert "while" not in src and "_tanh(v" in src
    assert not [ln for ln in src.splitlines() if "= k" in ln], src   # no Stack kernel call


def _stack_call(src):
    return [ln for ln in src.splitlines() if "= k" in ln]


def test_a_graph_input_is_never_written():
    def f(x, h):
        outs = []
        for t in range(4):
            h = ops.tanh(x[t] + h)
            outs.append(h)
        return ops.stack(outs)

    _, src, _ = _run_both(f, RNG.standard_normal((4, 3, 5)).astype(f32), np.zeros((3, 5), f32))
    assert _stack_call(src)


def test_a_buffer_read_again_or_rows_read_twice_or_out_of_order_are_left_alone():
    def read_again(x, h):
        xs = x * 2.0
        outs = []
        for t in range(4):
            h = ops.tanh(xs[t] + h)
            outs.append(h)
        return ops.stack(outs), xs.sum()

    def row_twice(x, h):
        xs = x * 2.0
        outs = []
        for t in range(4):
            h = ops.tanh(xs[t] + h)
            outs.append(h * xs[t])
        return ops.stack(outs)

    def reversed_rows(x, h):
        xs = x * 2.0
        outs = []
        for t in range(4):
            h = ops.tanh(xs[3 - t] + h)
            outs.append(h)
        return ops.stack(outs)

    x, h = RNG.standard_normal((4, 3, 5)).astype(f32), np.zeros((3, 5), f32)
    for fn in (read_again, row_twice, reversed_rows):
        _, src, _ = _run_both(fn, x, h)
        assert _stack_call(src), fn.__name__


def test_a_row_returned_too_keeps_its_own_buffer():
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(4):
            h = ops.tanh(xs[t] + h)
            outs.append(h)
        return ops.stack(outs), h

    x, h = RNG.standard_normal((4, 3, 5)).astype(f32), np.zeros((3, 5), f32)
    _, src, jf = _run_both(f, x, h)
    assert not _stack_call(src) and ".copy()" in src, src     # in place, h a copy
    stacked, last = jf(ms.Tensor(x), ms.Tensor(h))
    before = last.asnumpy()
    stacked[3] = 0.0
    assert last.asnumpy().tobytes() == before.tobytes()


def test_rows_of_the_same_buffer_in_place_are_the_stack():
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(4):
            h = ops.tanh(xs[t] * h) + xs[t]     # the row read again in the same kernel
            outs.append(h)
        return ops.stack(outs)

    x, h = RNG.standard_normal((4, 3, 5)).astype(f32), np.ones((3, 5), f32)
    _, src, _ = _run_both(f, x, h)
    assert not _stack_call(src), src


def test_a_view_of_a_row_returned_keeps_the_row_out_of_the_stacked_buffer():
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(4):
            h = ops.tanh(xs[t] + h)
            outs.append(h)
        return ops.stack(outs), outs[0][1]

    x, h = RNG.standard_normal((4, 3, 5)).astype(f32), np.zeros((3, 5), f32)
    _, _, jf = _run_both(f, x, h)
    stacked, row = jf(ms.Tensor(x), ms.Tensor(h))
    before = row.asnumpy()
    stacked[0] = 0.0
    assert row.asnumpy().tobytes() == before.tobytes()
