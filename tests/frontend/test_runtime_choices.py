"""What a tensor condition chooses when the graph runs: which function a name holds,
how long a list is, how deep a recursion goes. Graph mode matches eager mode (as an
@jit function and as a Cell), or refuses with a clear error at the user's line."""
import re

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both

f32 = np.float32

VALUES = [([1.0, 2.0, -0.5], [0.5, -0.5, 0.25]), ([-1.0, -2.0, 0.5], [0.5, 0.5, 0.5]),
          ([3.0, -4.0, 1.0], [-2.0, 1.0, 0.0])]


def _t(v):
    return ms.Tensor(np.asarray(v, f32))


def both_forms(fn, *args):
    """fn as an @jit function and inside a Cell's construct."""
    run_both(lambda: fn, *args)

    class Net(nn.Cell):
        def construct(self, *a):
            return fn(*a)
    run_both(Net, *args)


# -- function values --------------------------------------------------------------------------
def double(t):
    return t * 2


def chosen_by_ifexp(x, y):
    f = ops.tanh if x.sum() > y.sum() else double
    return f(x) + f(y)


def chosen_in_branches(x, y):
    if x[0] > 0:
        f = abs
    elif x[1] > 0:
        f = double
    else:
        f = lambda t: t - 1
    return f(x - y)


def chosen_then_passed(x, y):
    act = ops.relu if x.sum() > 0 else ops.sigmoid
    return apply_twice(act, y)


def apply_twice(g, t):
    return g(g(t))


def chosen_inside_a_loop(x, y):
    acc = x * 0
    for row in ops.stack([x, y, x - y]):
        g = double if row.sum() > 0 else ops.tanh
        acc = acc + g(row)
    return acc


class Methods(nn.Cell):
    def add(self, x, y):
        return x + y

    def mul(self, x, y):
        return x * y

    def construct(self, x, y):
        f = self.add if x.sum() > y.sum() else self.mul
        return f(x, y)


class SubCells(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.dense = nn.Dense(3, 3)

    def construct(self, x, y):
        if x.sum() > 0:
            layer = self.relu
        else:
            layer = self.dense
        return layer(y)


@pytest.mark.parametrize("fn", [chosen_by_ifexp, chosen_in_branches, chosen_then_passed,
                                chosen_inside_a_loop], ids=lambda f: f.__name__)
@pytest.mark.parametrize("xs,ys", VALUES)
def test_a_function_value_chosen_by_a_tensor_condition(fn, xs, ys):
    both_forms(fn, _t(xs), _t(ys))


@pytest.mark.parametrize("xs,ys", VALUES)
def test_methods_and_cells_chosen_by_a_tensor_condition(xs, ys):
    run_both(Methods, _t(xs), _t(ys))
    ms.set_seed(0) if hasattr(ms, "set_seed") else None
    net = SubCells()
    run_both(lambda: net, _t(xs), _t(ys))


def chosen_or_none(x):
    f = None
    if x.sum() > 0:
        f = double
    return f(x)


def returns_the_chosen_function(x):
    f = double if x.sum() > 0 else ops.tanh
    return f


def cat_or_add(x, y):
    f = double if x.sum() > 0 else (lambda t: ops.concat([t, t]))
    return f(y)


def _graph_error(fn, *args):
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.GraphJitError) as info:
        ms.jit(fn)(*args)
    return info.value


def test_messages_about_function_values_name_them_without_internal_reprs():
    x, y = _t([1.0, 2.0, 3.0]), _t([0.5, 0.5, 0.5])
    for fn, pattern in [
            (chosen_or_none, r"it is the function 'double' .* in the if-branch and None"),
            (returns_the_chosen_function, r"returns a function chosen by a tensor value"),
            (cat_or_add, r"in the call of the function 'double' and .* in the call of the "
                         r"function '<lambda>' \(defined inside the compiled function\)")]:
        e = _graph_error(fn, x, y) if fn is cat_or_add else _graph_error(fn, x)
        text = str(e)
        assert re.search(pattern, text), text
        assert " at 0x" not in text and "graphjit." not in text, text
        assert e.loc is not None


# -- lists of different lengths ----------------------------------------------------------------
def make_list(x, y):
    if x.sum() > 0:
        xs = [x, y]
    else:
        xs = [x, y, x * 2]
    return xs


def list_len(x, y):
    xs = make_list(x, y)
    return x * len(xs), len(xs)


def list_index(x, y):
    xs = make_list(x, y)
    return xs[0] + xs[1] + xs[-1]


def list_iterate(x, y):
    acc = x * 0
    for v in make_list(x, y):
        acc = acc * 0.5 + v
    return acc


def list_stack(x, y):
    return ops.stack(make_list(x, y)), ops.stack(make_list(y, x), 1)


def list_returned(x, y):
    return make_list(x, y)


def list_appended_after(x, y):
    xs = make_list(x, y)
    xs.append(y - 1)
    return ops.stack(xs).sum(0), len(xs)


def list_nested_conditions(x, y):
    xs = []
    if x[0] > 0:
        xs = [x]
        if y[0] > 0:
            xs = [x, y, y * 3]
    elif x[1] > 0:
        xs = [y, y]
    return xs


def list_sum_and_slice(x, y):
    xs = make_list(x, y)
    return sum(xs), ops.stack(xs[1:]), ops.concat(xs)


def list_in_a_loop_body(x, y):
    acc = x * 0
    for row in ops.stack([x, y]):
        if row.sum() > 0:
            rs = [row]
        else:
            rs = [row, row * 2]
        acc = acc + ops.stack(rs).sum(0)
    return acc


@pytest.mark.parametrize("fn", [list_len, list_index, list_iterate, list_stack, list_returned,
                                list_appended_after, list_nested_conditions,
                                list_sum_and_slice, list_in_a_loop_body],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("xs,ys", VALUES)
def test_lists_of_different_lengths_joined_at_a_tensor_condition(fn, xs, ys):
    both_forms(fn, _t(xs), _t(ys))


def list_index_out_of_range(x, y):
    xs = make_list(x, y)
    return xs[2]


def test_an_index_past_the_run_time_length_raises_index_error():
    x, y = _t([1.0, 2.0, 3.0]), _t([0.5, 0.5, 0.5])   # the list has two items
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(IndexError):
        list_index_out_of_range(x, y)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(IndexError, match="list index out of range"):
        ms.jit(list_index_out_of_range)(x, y)
    run_both(lambda: list_index_out_of_range, -x, y)   # three items


def list_of_different_lengths_with_a_string(x, y):
    xs = [x, "a"] if x.sum() > 0 else [x]
    return xs[0]


def test_lists_of_other_lengths_with_items_that_are_not_tensors_are_refused():
    e = _graph_error(list_of_different_lengths_with_a_string, _t([1.0, 2, 3]), _t([1.0, 2, 3]))
    assert isinstance(e, ms.TypeJoinError)
    assert "lists of different lengths join only when all their items are tensors" in str(e)


# -- recursion whose depth depends on a tensor ---------------------------------------------------
class TailRecursion(nn.Cell):
    def halve(self, x, steps=0):
        if x.sum() > 1:
            return self.halve(x * 0.5, steps + 1)
        return x, steps

    def construct(self, x):
        return self.halve(x)


def countdown(x, k):
    if (x > 0).all():
        return countdown(x - 1, k=k * 2)
    elif x.sum() < -5:
        return countdown(x + 1, k)
    return x * k


def python_depth(x, n):
    """The depth is a Python number: the recursion ends while the graph is built."""
    if n == 0:
        return x
    if x.sum() > 0:
        return python_depth(x - 1, n - 1)
    return python_depth(x * 2, n - 1)


class NotTail(nn.Cell):
    def count(self, x):
        if x.sum() > 0:
            return self.count(x - 1) + 1
        return x

    def construct(self, x):
        return self.count(x)


def endless(x):
    return endless(x)


@pytest.mark.parametrize("xs", [[3.0, 1.0, 0.5], [-1.0, 0.0, 0.5], [0.2, 0.3, 0.1],
                                [-9.0, 1.0, 0.0]])
def test_tail_recursion_under_a_tensor_condition_becomes_a_loop(xs):
    run_both(TailRecursion, _t(xs))
    run_both(lambda: countdown, _t(xs), 1)

    class Net(nn.Cell):
        def construct(self, x):
            return countdown(x, 1)
    run_both(Net, _t(xs))
    run_both(lambda: lambda x: python_depth(x, 4), _t(xs))


def test_tail_recursion_builds_one_loop():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = TailRecursion()
    net(_t([3.0, 1.0, 0.5]))
    report = ms.explain(net, _t([3.0, 1.0, 0.5]))
    assert "Loop" in str(report)


class TwoCalls(nn.Cell):
    def count(self, x):
        if x.sum() > 0:
            return self.count(x - 1) + self.count(x - 2)
        return x

    def construct(self, x):
        return self.count(x)


@pytest.mark.parametrize("xs", [[3.0, 1.0, 0.5], [-1.0, 0.0, 0.5]])
def test_recursion_calling_itself_once_per_call_is_a_pair_of_loops(xs):
    run_both(NotTail, _t(xs))


def test_recursion_calling_itself_twice_is_refused_naming_the_function_and_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.UnsupportedSyntaxError) as info:
        TwoCalls()(_t([3.0, 1.0, 0.5]))
    e = info.value
    assert "'count' calls itself under a condition that depends on a tensor value" in str(e)
    assert "more than once" in str(e)
    assert e.loc.text.strip() == "return self.count(x - 1) + self.count(x - 2)"
    assert "nests too deeply" not in str(e)


def test_recursion_that_never_ends_is_refused():
    e = _graph_error(endless, _t([1.0, 2.0, 3.0]))
    assert isinstance(e, ms.UnsupportedSyntaxError)
    assert "'endless' calls itself with the same arguments" in str(e)
    assert e.loc.text.strip() == "return endless(x)"


def list_truth(x, y):
    xs = [x] if x.sum() > 0 else []
    if xs:
        return xs[0] * 2
    return y


def list_truth_in_and(x, y):
    xs = [x, y] if x[0] > 0 else [y]
    return (len(xs) > 1 and xs[1].sum() > 0) or not xs


@pytest.mark.parametrize("xs,ys", VALUES)
def test_the_truth_of_a_list_of_run_time_length(xs, ys):
    both_forms(list_truth, _t(xs), _t(ys))
    both_forms(list_truth_in_and, _t(xs), _t(ys))
