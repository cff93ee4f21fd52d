"""What a new user tripped on (issue 23, item 6): the fix texts of `async def construct`
and of len() of a list appended in a loop that depends on a tensor value, and the fix
that text gives working in both modes."""
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


def test_len_of_a_list_appended_in_a_tensor_loop_says_how_to_count():
    e = _graph_error(LenInLoop(), np.array([3.0], np.float32))
    assert e.line == _line("if len(tokens) >= MAX_LEN:")
    assert "its length is known only when the graph runs" in str(e)
    assert "`n_tokens = len(tokens)` before the loop, `n_tokens += 1`" in e.hint


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
