"""Loop counters as Python ints (backend.loop_ints): the same integers, comparisons and
overflow error as the int64 scalars they replace, only where nothing else reads them."""
import re

import numpy as np
import pytest

import graphjit as ms
from graphjit.jit.cache import cache_of
from helpers import newton_sqrt


@pytest.fixture(autouse=True)
def pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _run_both(fn, *arrays):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*[ms.Tensor(a) for a in arrays])
    ms.set_context(mode=ms.GRAPH_MODE)
    jf = ms.jit(fn)
    graph = jf(*[ms.Tensor(a) for a in arrays])
    as_np = lambda x: x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)  # noqa: E731
    flat = lambda o: [as_np(x) for x in o] if isinstance(o, (tuple, list)) else [as_np(o)]  # noqa: E731
    e, g = flat(eager), flat(graph)
    assert len(e) == len(g)
    for a, b in zip(e, g):
        assert a.shape == b.shape and a.tolist() == b.tolist()
        if a.dtype.kind == "f":
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return cache_of(jf)[0].plan.source


def _python_int_step(src) -> bool:
    return re.search(r"= p\d+ \+ 1\n", src) is not None


def test_a_counter_tested_by_the_loop_condition_is_a_python_int():
    src = _run_both(newton_sqrt, np.random.default_rng(0).uniform(1, 100, 32))
    assert _python_int_step(src) and "int(" in src, src


@pytest.mark.parametrize("limit", [0, 3, 7])
def test_comparisons_either_way_round_decide_like_eager_mode(limit):
    def f(x):
        it = 2
        while x.sum() < 40:
            if 5 > it:
                x = x + 1.0
            else:
                x = x * 2.0
            it = it + 1
            if it >= limit:
                x = x + 0.5
        return x

    src = _run_both(f, np.ones(3, np.float32))
    assert _python_int_step(src), src


def test_a_counter_read_as_a_value_stays_an_int64_scalar():
    def scaled(x):
        it = 0
        while x.sum() < 100:
            x = x * 1.5 + it
            it = it + 1
        return x

    def returned(x):
        it = 0
        while x.sum() < 100:
            x = x * 1.5
            it = it + 1
        return x, it

    def flag_used(x):
        it = 0
        while x.sum() < 100:
            x = x * 1.5 + (it < 3)
            it = it + 1
        return x

    def flag_twice(x):
        it = 0
        while x.sum() < 100:
            flag = it < 3
            x = x * 1.5 + flag
            if flag:
                x = x + 1.0
            it = it + 1
        return x

    for fn in (scaled, returned, flag_used, flag_twice):
        src = _run_both(fn, np.ones(3, np.float32))
        assert not _python_int_step(src), (fn.__name__, src)


def test_leaving_int64_raises_eager_modes_overflow_error():
    def f(x, n):
        it = 9223372036854775790
        while x.sum() < n:
            x = x + 1.0
            it = it + 1
        return x

    ms.set_context(mode=ms.GRAPH_MODE)
    jf = ms.jit(f)
    x = ms.Tensor(np.zeros(2, np.float32))
    assert jf(x, ms.Tensor(np.float32(10))).asnumpy().tolist() == [5.0, 5.0]
    assert _python_int_step(cache_of(jf)[0].plan.source)
    with pytest.raises(OverflowError, match=r"left int64: 9223372036854775807 \+ 1 = "
                                            r"9223372036854775808"):
        jf(x, ms.Tensor(np.float32(60)))
