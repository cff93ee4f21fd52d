"""Control flow in graph mode gives eager mode's answers (values, dtypes, shapes)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import T, run_both

f32 = np.float32


def vec(*xs):
    return ms.Tensor(np.asarray(xs, f32))


def sc(x, dtype=ms.int32):
    return ms.Tensor(np.array(x), dtype=dtype)


# -- if ------------------------------------------------------------------------------------
def if_variable(x, y):
    if x.sum() > y.sum():
        out = x * 2
    else:
        out = y - 1
    return out


def if_elif(x):
    s = x.sum()
    if s > 10:
        r = x + 1
    elif s > 0:
        r = x * 3
    else:
        r = -x
    return r


def if_nested_and_or(x, y):
    if (x > 0).all() and y > 1 or x.sum() < -5:
        r = x + y
    else:
        r = x - y
    if not (y > 3):
        r = r * 2
    return r


def if_expression(x):
    return x * 2 if x.sum() > 0 else x - 1


def if_scalar_join(x):
    if x.sum() > 0:
        n = 1
    else:
        n = 2
    return x * n


def if_python_and_tensor_join(x):
    if x.sum() > 0:
        out = 0
    else:
        out = x.sum()
    return out + 1


@pytest.mark.parametrize("a", [[1.0, 2.0], [-3.0, 0.5], [-9.0, -1.0]])
def test_if_forms(a):
    x = vec(*a)
    run_both(lambda: if_variable, x, vec(0.5, 0.5))
    run_both(lambda: if_elif, x)
    for yv in (0.0, 2.0, 5.0):
        run_both(lambda: if_nested_and_or, x, ms.Tensor(np.float32(yv)))
    run_both(lambda: if_expression, x)
    run_both(lambda: if_scalar_join, x)
    run_both(lambda: if_python_and_tensor_join, x)


# -- for -------------------------------------------------------------------------------------
def for_range_with_break(x):
    out = x
    for i in range(5):
        if out.sum() > 20:
            break
        out = out * 2 + i
    return out


def for_continue(x):
    acc = ops.zeros_like(x)
    for i in range(4):
        if (x + i).sum() < 3:
            continue
        acc = acc + x * i
    return acc


def for_over_tensor_rows(m):
    acc = ops.zeros((3,), ms.float32)
    for row in m:
        acc = acc + row
    return acc


def for_enumerate_zip(a, b):
    out = 0.0
    for i, (u, v) in enumerate(zip([1.0, 2.0, 3.0], [a, b, a])):
        out = out + u * v.sum() + i
    return out


def for_return_inside(x):
    for i in range(4):
        if x.sum() > i * 3:
            return x + i
    return x * 0


def for_tensor_range(x, n):
    acc = x
    for i in range(n):
        acc = acc + i
    return acc


def for_tensor_range_break(x, n):
    acc = x
    for i in range(n):
        if acc.sum() > 10:
            break
        acc = acc * 2
    return acc


def for_else(x):
    for i in range(3):
        if x.sum() > 100 + i:
            x = x - 1
            break
    else:
        x = x + 10
    return x


def test_for_forms():
    x = vec(1.0, 2.0)
    run_both(lambda: for_range_with_break, x)
    run_both(lambda: for_range_with_break, vec(30.0, 1.0))
    run_both(lambda: for_continue, vec(0.5, 0.25))
    run_both(lambda: for_over_tensor_rows, ms.Tensor(np.arange(12, dtype=f32).reshape(4, 3)))
    run_both(lambda: for_enumerate_zip, x, vec(3.0, -1.0))
    for v in ([1.0, 2.0], [5.0, 5.0], [-1.0, 0.0]):
        run_both(lambda: for_return_inside, vec(*v))
    for n in (0, 1, 4):
        run_both(lambda: for_tensor_range, x, sc(n, ms.int64))
        run_both(lambda: for_tensor_range_break, x, sc(n, ms.int64))
    run_both(lambda: for_else, x)
    run_both(lambda: for_else, vec(200.0, 0.0))


# -- while -----------------------------------------------------------------------------------
def while_variable(x, n):
    i = 0
    while i < n:
        x = x + i
        i = i + 1
    return x, i


def while_break_continue(x, n):
    i = 0
    total = ops.zeros_like(x)
    while i < n:
        i = i + 1
        if i % 2 == 0:
            continue
        if total.sum() > 30:
            break
        total = total + x * i
    return total


def while_return(x, limit):
    while x.sum() < limit:
        x = x * 2
        if x.sum() > 50:
            return x - 1
    return x


def while_nested(x, n):
    i = 0
    out = x
    while i < n:
        j = 0
        while j < i:
            out = out + 1
            j = j + 1
        i = i + 1
    return out


def while_in_if(x, n):
    if x.sum() > 0:
        while n > 0:
            x = x * 2
            n = n - 1
    else:
        x = x - 1
    return x


def while_true_break(x):
    while True:
        x = x * 3
        if x.sum() > 100:
            break
    return x


def test_while_forms():
    x = vec(1.0, 2.0)
    for n in (0, 1, 5):
        run_both(lambda: while_variable, x, sc(n))
        run_both(lambda: while_break_continue, x, sc(n))
        run_both(lambda: while_nested, x, sc(n))
        run_both(lambda: while_in_if, x, sc(n))
        run_both(lambda: while_in_if, vec(-1.0, -1.0), sc(n))
    for lim in (1.0, 10.0, 1000.0):
        run_both(lambda: while_return, x, ms.Tensor(np.float32(lim)))
    run_both(lambda: while_true_break, x)


# -- lists in loops ----------------------------------------------------------------------------
def append_in_variable_loop(xs):
    outs = []
    for row in xs:
        outs.append(row * 2)
    return ops.stack(outs)


def append_in_while(x, n):
    outs = []
    i = 0
    while i < n:
        x = x + 1
        outs.append(x)
        i = i + 1
    return ops.stack(outs), x


def append_unrolled(x):
    outs = []
    for i in range(3):
        if x.sum() > i:
            y = x + i
        else:
            y = x - i
        outs.append(y)
    return ops.concat(outs)


def test_lists_in_loops():
    m = ms.Tensor(np.arange(6, dtype=f32).reshape(3, 2))
    run_both(lambda: append_in_variable_loop, m)
    run_both(lambda: append_in_while, vec(1.0, 2.0), sc(3))
    run_both(lambda: append_unrolled, vec(1.0, 0.5))


# -- cells, calls, constants -------------------------------------------------------------------
def helper(a, b):
    if a.sum() > b:
        return a - b
    return a + b


class Block(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


class Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block(1.0), Block(2.0), Block(0.5)])
        self.use_relu = True
        self.scales = (1, 2, 3)

    def construct(self, x):
        for blk in self.blocks:
            x = blk(x)
        if self.use_relu:
            x = ops.relu(x)
        if len(self.scales) > 2 and x.shape[0] == 2:
            x = helper(x, 1.0)
        return x


def test_cells_and_helpers():
    run_both(lambda: Model(), vec(1.0, -2.0))
    run_both(lambda: Model(), vec(3.0, 2.0))


class ConstraintOne(nn.Cell):
    def __init__(self):
        super().__init__()
        self.nums = [1, 2, 3]

    def construct(self, x, y, i):
        j = 0
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + self.nums[j]
            i = i + 1
            j = j + 1
        return out


def test_constraint_one_matches_eager():
    for iv in (0, 1, 2, 3):
        g, e = run_both(lambda: ConstraintOne(), sc(0), sc(1), sc(iv))


def counter_returned(x, n):
    j = 0
    while x.sum() < n:
        x = x + 1
        j = j + 1
    return x, j


def test_python_scalar_carried_is_returned_as_python_number():
    g, e = run_both(lambda: counter_returned, vec(1.0, 1.0), ms.Tensor(np.float32(9.0)))
    assert isinstance(g[1], int) and g[1] == e[1]


# -- appends under tensor conditions inside loops ---------------------------------------------
def rnn_with_early_stop(xs, h, w):
    outs = []
    for x in xs:
        h = ops.tanh(ops.matmul(x, w) + h)
        if h.sum() > 3:
            break
        outs.append(h)
    return ops.stack(outs), h


def keep_positive_rows(xs):
    keep = []
    for x in xs:
        if x.sum() > 0:
            keep.append(x * 2)
    return ops.stack(keep) if len(keep) > 0 else xs


@pytest.mark.parametrize("scale", [1.0, 0.1])
def test_appends_under_tensor_conditions_in_loops(scale):
    xs = ms.Tensor(np.ones((4, 2, 3), f32) * scale)
    h = ms.Tensor(np.zeros((2, 3), f32))
    w = ms.Tensor(np.eye(3, dtype=f32) * 0.5)
    run_both(lambda: rnn_with_early_stop, xs, h, w)
    rows = ms.Tensor(np.array([[1.0, 2], [-3, 1], [0.5, 0.5]], f32) * scale)
    run_both(lambda: keep_positive_rows, rows)
    run_both(lambda: keep_positive_rows, -rows)


def appends_in_unrolled_loop(x):
    outs = [x]
    for j in range(3):
        x = x * 0.5 + j
        if x.sum() > 1:
            outs.append(x * j)
    outs.append(x)
    return ops.stack(outs).sum(0), len(outs), outs[-1]


def keep_some(x):
    keep = []
    for j in range(3):
        if (x + j).sum() > 2:
            keep.append(x + j)
    return keep


@pytest.mark.parametrize("v", [[1.0, 2.0], [0.1, 0.1], [-5.0, 1.0]])
def test_appends_on_one_path_give_lists_of_run_time_length(v):
    run_both(lambda: appends_in_unrolled_loop, vec(*v))
    run_both(lambda: keep_some, vec(*v))


def weak_unary_and_minmax(V, U, n, k, z):
    if n > 1:
        k = k + 1
        z = z * 0.5
    return V + abs(k), V - k, V + min(k, 3), U * abs(z), U + (-z), U + max(z, 0.1)


def test_python_numbers_joined_by_a_tensor_condition_stay_weak_through_unary_ops():
    args = (ms.Tensor(np.array([1, 2, 3], np.int32)), vec(1.0, 2.0, 3.0),
            sc(2), 1, 0.5)
    run_both(lambda: weak_unary_and_minmax, *args)
