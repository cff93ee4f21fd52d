"""`with` on @jit_class objects: __enter__ and __exit__ built from source, in Python's
order (side effects included), with return/break/continue inside the block and
exceptions reaching __exit__."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from helpers import run_both, T


@ms.jit_class
class Doubler:
    def __init__(self):
        self.num = ms.Tensor([2])

    def __enter__(self):
        return self.num * 2

    def __exit__(self, exc_type, exc_value, traceback):
        print("exit:", exc_type, exc_value, traceback)
        return self.num * 4


@ms.jit_class
class Counter:
    """__enter__ and __exit__ update a Parameter: their order shows in the results."""

    def __init__(self):
        self.p = ms.Parameter(ms.Tensor([2]), name="counter")

    def __enter__(self):
        self.p *= 2
        return 0

    def __exit__(self, exc_type, exc_value, traceback):
        self.p *= 4
        return self.p


def test_with_as_binds_what_enter_returns(capsys):
    class Net(nn.Cell):
        def construct(self):
            res = 1
            obj = Doubler()
            with obj as sample:
                res += sample
            with obj:
                res = res + obj.num
            return res, obj.num
    g, _ = run_both(Net)
    assert g[0].asnumpy().tolist() == [7] and g[1].asnumpy().tolist() == [2]
    out = capsys.readouterr().out.splitlines()
    assert out == ["exit: None None None"] * 4       # twice per mode


def test_enter_and_exit_run_in_order_with_the_block_between():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.param = ms.Parameter(ms.Tensor([1]), name="param2")

        def construct(self):
            res = 1
            obj = Counter()
            self.param += 3
            with obj as sample:
                res += obj.p + self.param
                self.param -= sample
            self.param *= 2
            res -= self.param
            return res, obj.p - self.param
    g, _ = run_both(Net)
    assert g[0].asnumpy().tolist() == [1] and g[1].asnumpy().tolist() == [8]


def test_return_inside_the_block_still_exits():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.obj = None

        def construct(self, x):
            res = 2
            obj = Doubler()
            with obj as s:
                res = x + s
                if x > 0:
                    return res
            res *= 2
            return res
    assert run_both(Net, T([1]))[0].asnumpy().tolist() == [5]
    assert run_both(Net, T([-1]))[0].asnumpy().tolist() == [6]


def test_break_continue_nested_and_parallel_withs():
    class Net(nn.Cell):
        def construct(self, x):
            res = x * 0 + 2
            obj = Doubler()
            with obj as s1, Doubler() as s2:
                y = 1
                for i in [1, 2, 3, 0, 5]:
                    if i == 3:
                        continue
                    if i == 0:
                        break
                    y += i
                with obj as s3:
                    res += s1 * y + s2 * s3
            return res
    assert run_both(Net, T([1]))[0].asnumpy().tolist() == [34]


def test_an_exception_raised_in_the_block_reaches_exit():
    @ms.jit_class
    class Swallow:
        def __init__(self, swallow):
            self.swallow = swallow

        def __enter__(self):
            return self

        def __exit__(self, exc_type, exc_value, traceback):
            print("exit got", exc_type.__name__ if exc_type else None)
            return self.swallow

    def make(swallow):
        class Net(nn.Cell):
            def construct(self, x):
                a = x + 1
                with Swallow(swallow):
                    a = a * 2
                    a = a + [1, 2][5]
                return a
        return Net
    g, _ = run_both(make(True), T([1]))
    assert g.asnumpy().tolist() == [4]
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        with pytest.raises(IndexError):
            make(False)()(T([1]))


def test_with_on_an_object_that_is_not_a_jit_class_is_refused():
    class Plain:
        def __enter__(self):
            return 1

        def __exit__(self, *a):
            return False

    class Net(nn.Cell):
        def construct(self, x):
            with Plain() as p:
                x = x + p
            return x
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.UnsupportedSyntaxError, match="only objects of @jit_class"):
        Net()(T([1]))


def test_a_run_time_raise_inside_a_with_block_is_refused():
    class Net(nn.Cell):
        def construct(self, x):
            with Doubler():
                if x > 0:
                    raise ValueError("positive")
            return x
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.UnsupportedSyntaxError, match="cannot receive it"):
        Net()(T([1]))
