"""The Loop plan (backend.loop_plan): a stacked output written in place into the
buffer of the input it slices, a matrix product into one buffer for all iterations;
each only where no other reader can see the buffer change, and always with eager
mode's bits."""
import re

import numpy as np
import pytest

import graphjit as ms
from graphjit import ops
from graphjit.jit.cache import cache_of
from helpers import run_jit_twice, newton_sqrt

# the programs use max_unroll=2 on purpose, to get Loops; graphjit says so in a warning
pytestmark = pytest.mark.filterwarnings("ignore:.*exceeds max_unroll:RuntimeWarning")

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def rolled():
    """Ranges past 2 steps are built as Loops (what a long range gives)."""
    ms.set_context(max_unroll=2)
    yield
    ms.set_context(max_unroll=256, mode=ms.PYNATIVE_MODE)


def _arrays(T=6, B=3, I=4, H=5):
    f = np.float32
    return (RNG.standard_normal((T, B, I)).astype(f), RNG.standard_normal((B, H)).astype(f),
            RNG.standard_normal((I, H)).astype(f) * 0.5,
            RNG.standard_normal((H, H)).astype(f) * 0.5, RNG.standard_normal(H).astype(f))


def _run_both(fn, *arrays):
    """(eager outputs, graph outputs, generated source), as numpy arrays; the inputs
    are checked to be unchanged by both runs."""
    e, g, _, jf = run_jit_twice(fn, *arrays)
    return e, g, cache_of(jf)[0].plan.source


def _loop_text(src):
    return src[src.index("while"):]


def test_an_rnns_stacked_output_is_the_hoisted_products_buffer():
    def rnn(x, h, w, u, b):
        outs = []
        for t in range(6):
            h = ops.tanh(ops.matmul(x[t], w) + ops.matmul(h, u) + b)
            outs.append(h)
        return ops.stack(outs)

    _, (out,), src = _run_both(rnn, *_arrays())
    assert "concatenate" not in src and "append" not in src, src
    assert ", buf" in _loop_text(src) and "np.empty" in src, src
    assert out.shape == (6, 3, 5)


def test_a_graph_input_sliced_by_the_loop_is_never_written():
    def f(x, h):
        outs = []
        for t in range(6):
            h = ops.tanh(x[t] + h)
            outs.append(h)
        return ops.stack(outs)

    x, h = RNG.standard_normal((6, 3, 5)).astype(np.float32), np.zeros((3, 5), np.float32)
    _, _, src = _run_both(f, x, h)
    assert "concatenate" in src


def test_a_sliced_buffer_read_after_the_loop_is_not_overwritten():
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(6):
            h = ops.tanh(xs[t] + h)
            outs.append(h)
        return ops.stack(outs), xs

    x, h = RNG.standard_normal((6, 3, 5)).astype(np.float32), np.zeros((3, 5), np.float32)
    (_, xs), _, src = _run_both(f, x, h)
    assert xs.tobytes() == (x * np.float32(2)).tobytes()
    assert "concatenate" in src


def test_a_slice_with_another_reader_is_not_overwritten():
    def f(x, h):
        xs = x * 2.0
        outs = []
        z = h
        for t in range(6):
            h = ops.tanh(xs[t] + h)
            z = ops.matmul(xs[t], ops.transpose(z, (1, 0)))[:, :5] * 0.0 + z + xs[t]
            outs.append(h)
        return ops.stack(outs), z

    x, h = RNG.standard_normal((6, 5, 5)).astype(np.float32), np.zeros((5, 5), np.float32)
    _run_both(f, x, h)


def test_a_slice_read_again_after_the_first_node_keeps_its_value():
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(6):
            h = ops.tanh(xs[t] * h) + xs[t]
            outs.append(h)
        return ops.stack(outs)

    x, h = RNG.standard_normal((6, 3, 5)).astype(np.float32), np.ones((3, 5), np.float32)
    _, _, src = _run_both(f, x, h)
    assert "concatenate" not in src


@pytest.mark.parametrize("limit", [-1e9, 0.5, 1e9])
def test_a_loop_stopping_early_returns_the_rows_it_filled(limit):
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(6):
            h = ops.tanh(xs[t] + h)
            outs.append(h)
            if h.sum() > limit:
                break
        return ops.stack(outs)

    x, h = RNG.standard_normal((6, 3, 5)).astype(np.float32), np.zeros((3, 5), np.float32)
    (out,), _, _ = _run_both(f, x, h)
    assert 1 <= out.shape[0] <= 6


def test_the_last_value_returned_too_keeps_its_own_buffer():
    def f(x, h):
        xs = x * 2.0
        outs = []
        for t in range(6):
            h = ops.tanh(xs[t] + h)
            outs.append(h)
        return ops.stack(outs), h

    x, h = RNG.standard_normal((6, 3, 5)).astype(np.float32), np.zeros((3, 5), np.float32)
    (stacked, last), _, _ = _run_both(f, x, h)
    assert last.tobytes() == stacked[-1].tobytes()
    ms.set_context(mode=ms.GRAPH_MODE)
    stacked, last = ms.jit(f)(ms.Tensor(x), ms.Tensor(h))
    before = last.asnumpy()
    stacked[5] = 0.0                     # writes the Tensor's array in place
    assert last.asnumpy().tobytes() == before.tobytes()


def test_products_that_escape_the_iteration_get_new_arrays():
    def appended(h, u):
        outs = []
        for t in range(5):
            m = ops.matmul(h, u)
            outs.append(m)
            h = m * 0.5
        return ops.stack(outs)

    def carried(h, u, b):
        for t in range(5):
            h = ops.tanh(ops.matmul(h, u) + b)
        return h

    def carried_and_appended(h, u, b):
        outs = []
        for t in range(5):
            h = ops.tanh(ops.matmul(h, u) + b)
            outs.append(h)
        return ops.stack(outs)

    def reduced(h, u):
        s = ops.zeros((), ms.float32)
        for t in range(5):
            m = ops.matmul(h, u)
            s = s + m.sum()
            h = ops.tanh(m)
        return s, h

    _, h, _, u, b = _arrays()
    (stacked,), _, src = _run_both(appended, h, u)
    assert len({stacked[t].tobytes() for t in range(5)}) == 5
    _, _, src = _run_both(carried, h, u, b)
    assert ", buf" in _loop_text(src)       # the product dies in the iteration
    (stacked,), _, src = _run_both(carried_and_appended, h, u, b)
    assert ", buf" in _loop_text(src)       # ... but tanh's result is a new array
    assert len({stacked[t].tobytes() for t in range(5)}) == 5
    _run_both(reduced, h, u)


def test_newtons_difference_lives_in_one_buffer():
    a = RNG.uniform(1, 100, 64)
    (x,), _, src = _run_both(newton_sqrt, a)
    loop = _loop_text(src)
    assert re.search(r"_subtract\(\w+, \w+, buf\d+\)", loop), src
    assert np.allclose(x, np.sqrt(a))


def test_a_value_read_through_a_view_gets_a_new_array_each_iteration():
    def f(x):
        prev = x[0]
        acc = x[0] * 0.0
        y = x
        for t in range(5):
            y = y * 1.5
            d = y + 1.0
            acc = acc + prev          # the previous iteration's d[0]
            prev = d[0]
        return acc, prev

    _run_both(f, RNG.standard_normal((3, 4)).astype(np.float32))


def test_a_carried_value_alternates_between_two_buffers_only_if_nothing_keeps_it():
    def newton(a):
        x = a
        for t in range(6):
            x = 0.5 * (x + a / x)
        return x

    def viewed(x):
        prev = x[0] * 0.0
        acc = x[0] * 0.0
        for t in range(6):
            y = x * 0.5 + 1.0
            acc = acc + prev          # x[0] of the iteration before
            prev = x[0]
            x = y
        return acc, x

    def appended(x):
        outs = []
        for t in range(6):
            y = x * 0.5 + 1.0
            outs.append(y)
            x = y
        return ops.stack(outs)

    def carried_twice(x):
        prev = x
        acc = x * 0.0
        for t in range(6):
            y = x * 0.5 + 1.0
            acc = acc + prev          # x of the iteration before
            prev = x
            x = y
        return acc, x

    a = RNG.uniform(1, 100, 16)
    (x,), _, src = _run_both(newton, a)
    assert re.search(r"(\w+) = (buf\d+) if \w+ is (buf\d+) else \3", src), src
    x = RNG.standard_normal((3, 4))
    _run_both(viewed, x)
    (stacked,), _, _ = _run_both(appended, x)
    assert len({s.tobytes() for s in stacked}) == 6
    _run_both(carried_twice, x)


def test_a_stacked_output_in_place_inside_an_outer_loop():
    def f(x, h):
        total = x[0] * 0.0
        k = x.sum() * 0.0
        while k < 3:                  # a Loop: its body holds the RNN's Loop
            xs = x * (k + 1.0)
            k = k + 1.0
            outs = []
            for t in range(6):
                h = ops.tanh(xs[t] + h * 0.5)
                outs.append(h)
            total = total + ops.stack(outs).sum(0)
        return total, h

    x, h = RNG.standard_normal((6, 3, 5)).astype(np.float32), np.zeros((3, 5), np.float32)
    _, _, src = _run_both(f, x, h)
    assert src.count("while") == 2 and "concatenate" not in src, src
