"""Small adapted versions of MindSpore's tests/st/fallback system tests (control flow,
list in-place, raise) that once gave a wrong answer in graph mode. Each runs the same
function eagerly (plain Python) and compiled, and expects the same outcome."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import Tensor, jit, mutable, nn, Parameter


@pytest.fixture(autouse=True)
def _graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield


def _raised(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return type(info.value), str(info.value)


# test_graph_fallback_runtime_list_inplace.py::test_list_in_joined_str: a raise on a path
# chosen by a tensor, then an unconditional raise after it. The second one used to be
# raised while building, so the first never got its chance.
def _two_raises(x, y, z):
    if z >= 1:
        raise TypeError(f"The input is {x}")
    raise TypeError(f"The input is {y}")


@pytest.mark.parametrize("z, want", [(1, "The input is [1, 2, 3]"), (0, "The input is [4, 5]")])
def test_raise_after_tensor_dependent_raise(z, want):
    args = (mutable([1, 2, 3]), mutable([4, 5]), Tensor([z]))
    eager = _raised(_two_raises, [1, 2, 3], [4, 5], Tensor([z]))
    graph = _raised(jit(_two_raises), *args)
    assert eager == graph == (TypeError, want)


def test_raise_after_tensor_dependent_raise_repeated_calls():
    f = jit(_two_raises)
    for z in (1, 0, 1, 0):
        want = "[1, 2, 3]" if z else "[4, 5]"
        assert _raised(f, [1, 2, 3], [4, 5], Tensor([z]))[1] == f"The input is {want}"


def test_raise_after_print_prints_first(capsys):
    """What the graph does before an unconditional raise happens, as in eager mode."""
    @jit
    def f(z):
        print("before", z)
        raise ValueError("after")

    assert _raised(f, Tensor([3])) == (ValueError, "after")
    assert "before" in capsys.readouterr().out


def test_raise_after_parameter_update_keeps_update():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.float32(1)), name="w")

        def construct(self, x):
            self.w += x
            raise ValueError("done")

    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = Net()
        assert _raised(net, Tensor(np.float32(2))) == (ValueError, "done")
        results.append(float(net.w.asnumpy()))
    assert results == [3.0, 3.0]


def test_unconditional_raise_with_nothing_before_still_raises_while_building():
    @jit
    def f(x):
        raise ValueError("now")

    assert _raised(f, Tensor([1])) == (ValueError, "now")


# test_graph_fallback_runtime_list_inplace.py::test_list_inplace_with_graph_input*: a list
# (or dict) the caller passed, returned, is the caller's own object, as eager Python
# returns it (it used to be a new list with the same contents).
def _ident(x):
    return x


def _reverse_and_return(x):
    x.reverse()
    return x


def _first_reversed(x):
    y = x[0]
    y.reverse()
    return y


def test_returned_argument_list_is_the_callers():
    f = jit(_ident)
    for _ in range(2):          # the second call hits the cache: a new list each time
        x = [1, 2, 3, 4]
        assert f(x) is x


def test_returned_argument_inside_tuple_is_the_callers():
    x = ([1, 2, 3, 4], 2, 3)
    ret = jit(_ident)(x)
    assert ret[0] is x[0] and ret == x


def test_returned_argument_dict_is_the_callers():
    d = {"a": Tensor([1.0]), "b": 2}
    ret = jit(_ident)(d)
    assert ret is d


@pytest.mark.parametrize("fn, make, want", [
    (_reverse_and_return, lambda: [1, 2, 3, 4], [4, 3, 2, 1]),
    (_first_reversed, lambda: ([1, 2, 3, 4], 2, 3), [4, 3, 2, 1]),
])
def test_changed_argument_returned_is_the_callers(fn, make, want):
    f = jit(fn)
    for _ in range(2):
        x, ref = make(), make()
        out, eager = f(x), fn(ref)
        assert out == eager == want
        assert x == ref
        assert out is (x if isinstance(x, list) else x[0])


def test_returned_argument_list_with_tensors_is_the_callers():
    @jit
    def foo(x, t):
        return x, t + 1

    x = [Tensor([1.0]), 2]
    out, y = foo(x, Tensor([1.0]))
    assert out is x and float(y.asnumpy()[0]) == 2.0


class _MyError(Exception):
    pass


def test_raise_of_own_exception_class_after_print_still_raises_it(capsys):
    """A class a Raise node cannot rebuild is raised while building, as before."""
    @jit
    def f(z):
        print("before", z)
        raise _MyError("mine")

    assert _raised(f, Tensor([3])) == (_MyError, "mine")
