"""Membership and count over lists holding tensors, lists indexed by a bool decided at
run time, round() of tensors: the same values in both modes."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both, T


class _Members(nn.Cell):
    def __init__(self, x, y):
        super().__init__()
        self.x, self.y = x, y

    def construct(self):
        return self.x in [self.y, "a"], self.x not in [self.y, "a"], self.x in [self.x, "a"]


def test_a_tensor_is_in_a_list_by_identity_or_by_a_decidable_equality():
    g, _ = run_both(lambda: _Members(T(1), T(2)))
    assert g == (False, True, True)
    g, _ = run_both(lambda: _Members(T(3), T(3)))
    assert g == (True, False, True)


def test_equality_of_several_elements_is_not_a_truth_value_in_either_mode():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = _Members(T([[1, 2], [3, 4]]), T([[1, 2], [3, 5]]))
        with pytest.raises(ValueError, match="truth value of a Tensor with 4 elements"):
            net()


def test_membership_of_a_graph_value():
    def make():
        def f(x, y):
            return x in [y, "a", 3], "a" in [x, "a"], x in (x,), 2 in [x, y]
        return f
    for a, b in ((1, 2), (3, 3), (2, 9), (3, 0)):
        run_both(make, T(a), T(b))


def test_count_skips_strings_and_counts_identity_and_equal_tensors():
    def make():
        def f(t):
            return ["a", 20, t, ms.Tensor(1)].count(t), (t, t, 5).count(5)
        return f
    g, _ = run_both(make, T(1))
    assert g[0] == 2 and g[1] == 1
    g, _ = run_both(make, T(5))
    assert g[0] == 1 and g[1] == 3
    g, _ = run_both(make, T(20))
    assert g[0] == 2


def test_a_tuple_indexed_by_a_bool_chosen_at_run_time():
    def make():
        def f(x):
            index = True if x > 0 else False
            return (x, x + 1, x + 2)[index]
        return f
    assert run_both(make, T(1))[0].asnumpy() == 2
    assert run_both(make, T(-1))[0].asnumpy() == -1


def test_a_list_indexed_by_a_bool_tensor():
    def make():
        def f(x):
            m = [x * 10, x * 20]
            fs = (ops.relu, ops.neg)
            return m[x > 0], fs[x > 0](x)
        return f
    g, _ = run_both(make, T(1.0))
    assert g[0].asnumpy() == 20 and g[1].asnumpy() == -1
    g, _ = run_both(make, T(-1.0))
    assert g[0].asnumpy() == -10 and g[1].asnumpy() == 0


def test_round_of_a_tensor_rounds_halves_to_even_and_keeps_the_dtype():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    r = round(ms.Tensor(np.array([0.1, 4.51, 9.9], np.float32)))
    assert r.dtype == ms.float32 and r.asnumpy().tolist() == [0, 5, 10]

    def make():
        def f(x):
            return round(x), round(ms.Tensor([0.1, 4.51, 9.9])), round(x, 1)
        return f
    g, _ = run_both(make, T(np.array([0.5, 1.5, 2.45, -0.5], np.float32)))
    assert g[0].asnumpy().tolist() == [0, 2, 2, 0] and g[1].asnumpy().tolist() == [0, 5, 10]


def test_round_of_a_python_number_a_condition_chose():
    def make():
        def f(x):
            y = 2.5
            if x > 0:
                y = 3.5
            return round(y), round(y, 0)
        return f
    assert run_both(make, T(1))[0] == (4, 4.0)
    assert run_both(make, T(-1))[0] == (2, 2.0)


def test_all_and_any_over_a_tensor_and_over_a_list_of_tensors():
    def make():
        def f(x):
            return (all(x), any(x), all([x[0], x[1]]), any((x[0] > 5, x[1] > 5)), all([]),
                    any([x[0], 0]), all([1, x[0] > 0]), any([0, x[1]]))
        return f
    g, _ = run_both(make, T([1, 2]))
    assert g == (True, True, True, False, True, True, True, True)
    g, _ = run_both(make, T([0, 7]))
    assert g == (False, True, False, True, True, False, False, True)


def test_min_and_max_over_the_rows_of_a_tensor():
    def make():
        def f(x):
            return max(x), min(x)
        return f
    g, _ = run_both(make, T([3, 9, 2]))
    assert g[0].asnumpy() == 9 and g[1].asnumpy() == 2 and g[0].dtype == ms.int64
    g, _ = run_both(make, T([[3.0], [9.0], [2.0]]))
    assert g[0].shape == (1,) and g[0].asnumpy().tolist() == [9.0]


def test_rows_of_several_elements_have_no_truth_in_either_mode():
    for fn in (all, max):
        def f(x, fn=fn):
            return fn(x)
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            ms.set_context(mode=mode)
            g = f if mode == ms.PYNATIVE_MODE else ms.jit(f)
            with pytest.raises(ValueError, match="truth value of a Tensor with 2 elements"):
                g(T([[1, 2], [3, 4]]))


def test_a_dict_indexed_by_a_string_a_tensor_condition_chose():
    """`k = "a" if n > 1 else "b"; d[k]`: the If picks the value as it picks the name
    (it leaked a KeyError for '<a string made when the graph runs>' while building)."""
    def make():
        def f(x, n):
            d = {"a": x, "b": x * 2, "c": x - 1}
            k = "a" if n > 1 else "b"
            return d[k] + len(d)
        return f
    assert run_both(make, T([1.0, 2.0]), T(2))[0].asnumpy().tolist() == [4.0, 5.0]
    assert run_both(make, T([1.0, 2.0]), T(0))[0].asnumpy().tolist() == [5.0, 7.0]


def test_a_dict_indexed_by_a_chosen_string_it_may_not_have_is_refused_clearly():
    def f(x, n):
        d = {"a": x}
        k = "a" if n > 1 else "z"
        return d[k]
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.UnsupportedSyntaxError, match=r"\('z'\) the dict does not have"):
        ms.jit(f)(T([1.0]), T(2))


def test_in_with_a_string_a_tensor_condition_chose():
    """`k in d` decided by the If that chose k (it was False, a lookup by identity)."""
    def make():
        def f(x, n):
            d = {"a": x, "z": x}
            k = "a" if n > 1 else "b"
            return k in d, k not in ("b", "c"), k in "ab", x
        return f
    for n, expected in ((2, (True, True, True)), (0, (False, False, True))):
        got, _ = run_both(make, T([1.0]), T(n))
        assert tuple(bool(v) for v in got[:3]) == expected, (n, got)


def test_other_lookups_of_a_chosen_string_are_refused_not_missed():
    """d.get(k) and d[k] = v with k made when the graph runs: a clear refusal (the
    lookup hashed it by identity and silently missed)."""
    def get(x, n):
        d = {"a": x, "b": x * 2}
        k = "a" if n > 1 else "b"
        return d.get(k, x)

    def store(x, n):
        d = {}
        k = "a" if n > 1 else "b"
        d[k] = x
        return d["a"]
    ms.set_context(mode=ms.GRAPH_MODE)
    for f in (get, store):
        with pytest.raises(ms.UnsupportedSyntaxError, match="looking up"):
            ms.jit(f)(T([1.0]), T(0))
