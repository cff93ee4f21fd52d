"""What a new user tripped on (issue 23, item 6): the fix text of `async def construct`;
len() of a list appended in a loop that depends on a tensor value, inside the loop (the
Loop carries the length), and the counting fix the old message gave, in both modes."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from helpers import run_both

MAX_LEN = 5


class LenInLoop(nn.Cell):
    def construct(self, x):
        tokens = []
        t = x
        while t.sum() > 0:
            t = t - 1
            tokens.append(t)
            if len(tokens) >= MAX_LEN:      # refused: the length is known at run time
                break
        return t


class LenCounted(nn.Cell):
    """The fix the message gives."""

    def construct(self, x):
        tokens = []
        n_tokens = len(tokens)
        t = x
        while t.sum() > 0:
            t = t - 1
            tokens.append(t)
            n_tokens += 1
            if n_tokens >= MAX_LEN:
                break
        return t, len(tokens), n_tokens


class ItemInLoop(nn.Cell):
    def construct(self, x):
        outs = [x]
        t = x
        while t.sum() > 0:
            t = t - 1
            outs.append(t)
            t = outs[-1] * 0.5
        return t


class AsyncConstruct(nn.Cell):
    async def construct(self, x):
        return x * 2


def _graph_error(net, x):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ms.UnsupportedSyntaxError) as info:
            net(ms.Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return info.value


def _line(text):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line(" not in line)


@pytest.mark.parametrize("start", [3.0, 30.0, -1.0])
def test_len_of_a_list_appended_in_a_tensor_loop_works_as_in_eager_mode(start):
    """The issue's decoder: `if len(tokens) >= MAX_LEN: break` inside the loop."""
    graph, eager = run_both(LenInLoop, ms.Tensor(np.array([start], np.float32)))


@pytest.mark.parametrize("start", [3.0, 30.0, -1.0])
def test_the_counting_fix_works_in_both_modes(start):
    graph, eager = run_both(LenCounted, ms.Tensor(np.array([start], np.float32)))
    assert graph[1] == eager[1] == graph[2] == min(max(int(np.ceil(start)), 0), MAX_LEN)


def test_an_item_of_such_a_list_says_to_keep_it_in_a_variable():
    e = _graph_error(ItemInLoop(), np.array([3.0], np.float32))
    assert e.line == _line("t = outs[-1] * 0.5")
    assert "keep the item you need in a variable" in e.hint


def test_async_construct_says_use_a_plain_def():
    e = _graph_error(AsyncConstruct(), np.array([3.0], np.float32))
    assert "coroutine" in str(e) and "returns a coroutine object" in str(e)
    assert e.hint.startswith("define it with a plain `def construct`")
    assert "tuple" not in e.hint


# -- len() of such a list inside the loop: the Loop carries the length ----------------------------
class LenCarried(nn.Cell):
    def construct(self, x):
        tokens = [x * 0]
        t = x
        while t.sum() > 0:
            t = t - 1
            if t.sum() > 2:                 # appended under a tensor condition
                tokens.append(t)
            if len(tokens) >= MAX_LEN:
                break
        return t, len(tokens), ops_stack(tokens)


class LenInCondition(nn.Cell):
    def construct(self, x):
        tokens = []
        t = x
        while t.sum() > 0 and len(tokens) < 4:
            t = t - 1
            tokens.append(t * 2)
            t = t - len(tokens) * 0.0
        return t, len(tokens)


class LenOverRows(nn.Cell):
    def construct(self, rows):
        picked = []
        total = rows[0] * 0
        for row in rows:
            if row.sum() > 0:
                picked.append(row)
            total = total + len(picked)
        return total


class LenAfterInnerLoop(nn.Cell):
    def construct(self, x, n):
        tokens = []
        t = x
        while t.sum() > 0:
            t = t - 1
            k = 0
            while k < n:                    # an inner Loop: its appends run n times
                tokens.append(t)
                k = k + 1
            if len(tokens) > 3:
                break
        return t


def ops_stack(xs):
    from graphjit import ops
    return ops.stack(xs)


@pytest.mark.parametrize("start", [0.0, 2.5, 4.0, 9.0, 40.0])
def test_len_inside_a_tensor_loop_is_carried(start):
    run_both(LenCarried, ms.Tensor(np.array([start], np.float32)))
    run_both(LenInCondition, ms.Tensor(np.array([start], np.float32)))


@pytest.mark.parametrize("rows", [[[1.0, -3.0], [2.0, 2.0], [-1.0, 0.0]], [[-1.0, 0.0]]])
def test_len_inside_a_for_over_rows_is_carried(rows):
    run_both(LenOverRows, ms.Tensor(np.array(rows, np.float32)))


def test_len_after_appends_in_an_inner_loop_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ms.UnsupportedSyntaxError, match="'tokens'"):
            LenAfterInnerLoop()(ms.Tensor(np.array([3.0], np.float32)),
                                ms.Tensor(np.array(2, np.int32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
