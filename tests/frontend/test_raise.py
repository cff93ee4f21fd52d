"""raise and assert under conditions that depend on tensor values: a run-time check in
graph mode, with the type and message eager mode raises; a path known while building
raises then. And strings formatted from tensor values (f-strings, %, format)."""
import re

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both, T


def raises_both(make, exc, match, *args, same_text=True):
    """make() raises exc (message matching `match`) in eager and in graph mode; returns
    the graph-mode exception."""
    found = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        target = make()
        if mode == ms.GRAPH_MODE and not isinstance(target, nn.Cell):
            target = ms.jit(target)
        with pytest.raises(exc, match=match) as info:
            target(*args)
        found.append(info.value)
    eager, graph = found
    assert type(graph) is type(eager), (type(graph), type(eager))
    if same_text:    # (pytest rewrites the asserts of this file: their eager text differs)
        assert str(graph) == str(eager)
    return graph


def _big():
    def f(x):
        if x > 5:
            raise ValueError("big")
        return x + 1
    return f


def test_raise_under_a_tensor_condition_runs_only_where_it_holds():
    g, _ = run_both(_big, T(1, ms.int32))
    assert g.asnumpy() == 2 and g.dtype == ms.int32
    raises_both(_big, ValueError, "^big$", T(7, ms.int32))


def test_the_message_is_formatted_from_the_run_values():
    def make():
        def f(x, y):
            if x > y:
                raise RuntimeError(f"The input {x} should not be greater than {y}.")
            if x == y:
                raise IndexError("equal: %d and %s" % (x, y))
            return x - y
        return f
    run_both(make, T(1), T(2))
    raises_both(make, RuntimeError, "The input 3 should not be greater than 2.", T(3), T(2))
    raises_both(make, IndexError, "equal: 2 and 2", T(2), T(2))


def test_a_tensor_in_the_exception_args_as_python_shows_it():
    def make():
        def f(x):
            if x.sum() > 0:
                raise ValueError("The input should not be ", x, [x, 1.5], "{}".format(x + 1))
            return x
        return f
    raises_both(make, ValueError, "should not be", T([1.0, 2.0]))
    run_both(make, T([-1.0, 0.0]))


def test_raise_in_nested_ifs_and_a_loop_body():
    def make():
        def f(x, n):
            y = x
            i = 0
            while i < n:
                if y > 2:
                    if i > 1:
                        raise KeyError(f"step {i}: {y}")
                    y = y - 1
                else:
                    y = y * 3
                i += 1
            return y, i
        return f
    run_both(make, T(1.0), T(3))
    raises_both(make, KeyError, "step 2", T(9.0), T(5))


def test_raise_in_a_for_over_a_tensor_and_in_an_unrolled_loop():
    def make_for():
        def f(x):
            s = x[0] * 0
            for v in x:
                if v < 0:
                    raise ValueError("negative", v)
                s = s + v
            return s
        return f
    run_both(make_for, T([1, 2, 3]))
    raises_both(make_for, ValueError, "negative", T([1, -2, 3]))

    def make_unrolled():
        def f(x):
            for i in range(3):
                if x + i > 3:
                    raise ValueError(f"at {i}")
            return x
        return f
    run_both(make_unrolled, T(1))
    raises_both(make_unrolled, ValueError, "^at 1$", T(3))


def test_the_other_path_keeps_its_values_whatever_the_raising_path_assigned():
    def make():
        def f(x):
            if x > 0:
                y = "not a tensor"
                raise ValueError(y)
            else:
                y = x * 2
            return y
        return f
    g, _ = run_both(make, T(-2.0))
    assert g.asnumpy() == -4.0
    raises_both(make, ValueError, "not a tensor", T(2.0))


def test_a_function_that_always_raises_called_on_one_path():
    def helper(x):
        raise ValueError(f"exception in helper: {x}")

    class Net(nn.Cell):
        def construct(self, x):
            y = ms.Tensor(0)
            if x > 0:
                y = ms.Tensor(1)
            elif x == 0:
                y = ms.Tensor(2)
            else:
                helper(x)
            return y
    run_both(Net, T(1))
    raises_both(Net, ValueError, "exception in helper: -1", T(-1))


def test_both_paths_raise():
    def make():
        def f(x):
            if x > 0:
                raise ValueError("positive")
            else:
                raise TypeError("not positive")
            return x
        return f
    raises_both(make, ValueError, "positive", T(1))
    raises_both(make, TypeError, "not positive", T(-1))


def test_raise_from_a_cause_and_from_none():
    def make():
        def f(x):
            if x > 0:
                raise ValueError("outer") from KeyError("inner")
            if x < -5:
                raise ValueError("alone") from None
            return x
        return f
    e = raises_both(make, ValueError, "outer", T(1))
    assert isinstance(e.__cause__, KeyError) and e.__cause__.args == ("inner",)
    e = raises_both(make, ValueError, "alone", T(-9))
    assert e.__cause__ is None and e.__suppress_context__
    run_both(make, T(-1))


def test_a_constant_condition_raises_while_building():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flag = [1, 2]

        def construct(self, x):
            if len(self.flag) == 2:
                raise ValueError("Not expected value, x is {}".format(self.flag))
            return x
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    with pytest.raises(ValueError, match=re.escape("Not expected value, x is [1, 2]")):
        net(T(1))


def test_a_tensor_message_on_a_constant_path_is_refused_as_mindspore_does():
    class Net(nn.Cell):
        def construct(self, x):
            raise ValueError(f"The input can not be {x}.")
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="Should not raise with variable under a constant "
                                           "condition") as info:
        Net()(T(11))
    assert isinstance(info.value, ms.RaiseError)
    assert "raise ValueError" in str(info.value)      # the user's line


def test_exception_classes_that_graph_mode_cannot_raise_at_run_time():
    class MyError(ValueError):
        pass

    def f(x):
        if x > 0:
            raise MyError("mine")
        return x
    with pytest.raises(RuntimeError, match="Unsupported exception type: MyError"):
        ms.jit(f)(T(1))


def test_a_bare_raise_is_refused_clearly():
    def f(x):
        if x > 0:
            raise
        return x
    with pytest.raises(ms.UnsupportedSyntaxError, match="bare 'raise'"):
        ms.jit(f)(T(1))


def test_raise_of_a_variable_exception_class():
    class Net(nn.Cell):
        def construct(self, x, kind=ValueError):
            y = kind
            if x > 10:
                raise y(f"The input can not be {x}.")
            return x
    run_both(Net, T(1))
    raises_both(Net, ValueError, "The input can not be 11.", T(11))


def test_assert_under_tensor_conditions():
    def make():
        def f(x):
            if x > 0:
                assert x < 5, f"too big: {x}"
            if x < -10:
                assert False, "far too small"
            assert x != 3
            return x * 2
        return f
    run_both(make, T(1.0))
    raises_both(make, AssertionError, "too big: 7.0", T(7.0), same_text=False)
    raises_both(make, AssertionError, "far too small", T(-20.0), same_text=False)
    with pytest.raises(AssertionError):
        ms.jit(make())(T(3.0))


def test_the_graph_keeps_the_raise_as_a_node_and_runs_again_without_rebuilding():
    f = ms.jit(_big())
    assert f(T(2, ms.int32)).asnumpy() == 3
    with pytest.raises(ValueError, match="big"):
        f(T(9, ms.int32))
    assert f(T(3, ms.int32)).asnumpy() == 4
    model = ms.compile(_big(), T(2, ms.int32))
    assert "Raise" in str(model.graph)
    with pytest.raises(ValueError, match="big"):
        model(T(6, ms.int32))


def test_export_and_import_keep_the_raise(tmp_path):
    model = ms.compile(_big(), T(2, ms.int32))
    model.export(tmp_path / "m.gjm")
    back = ms.import_model(tmp_path / "m.gjm")
    assert back(T(1, ms.int32)).asnumpy() == 2
    with pytest.raises(ValueError, match="big"):
        back(T(8, ms.int32))


# -- strings formatted from tensor values ----------------------------------------------------
def test_print_formats_tensor_values_when_the_graph_runs(capsys):
    def make():
        def f(x):
            print(f"x = {x}, twice {x * 2!r:>4}", "%d items" % x, "{} and {}".format(x, 1),
                  str(x), repr(x + 1), (x, [x]))
            return x
        return f
    run_both(make, T(3))
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0] == out[1]
    assert out[0].startswith("x = 3, twice Tensor(6, dtype=int64) 3 items 3 and 1 3")


def test_a_returned_string_is_made_after_each_run_as_eager_makes_it():
    def make():
        def f(x):
            return str(x), f"x={x!r} {x.sum():.2f}", x + 1, ["%s" % (x * 2,)]
        return f
    g, e = run_both(make, T(np.array([1.5, 2.0], np.float32)))
    assert g[0] == "[1.5 2. ]" and g[1] == e[1] and g[3] == e[3]
    f = ms.jit(make())
    assert f(T(np.array([1.0, 2.0], np.float32)))[0] == "[1. 2.]"      # each run's values


def test_a_string_made_from_tensors_is_refused_where_its_text_is_needed():
    def compares(x):
        s = f"{x}"
        return s == "1"

    def measures(x):
        return len(str(x))
    with pytest.raises(ms.UnsupportedSyntaxError, match="comparing of a string made from"):
        ms.jit(compares)(T(1))
    with pytest.raises(ms.UnsupportedSyntaxError, match="len"):
        ms.jit(measures)(T(1))


def test_a_constant_tensor_is_formatted_while_building():
    class Net(nn.Cell):
        def construct(self):
            x = ms.Tensor(1)
            if x == 1:
                raise ValueError(f"The input should not be {x}.")
            return x
    raises_both(Net, ValueError, "The input should not be 1.")


def test_strings_made_from_tensors_join_concatenate_and_print_in_branches_and_loops(capsys):
    def make():
        def f(x):
            s = f"x={x}"
            if x > 0:
                print(s + "!")
            i = 0
            while i < x:
                print("i", s, f"{i}")
                i += 1
            s += "?"
            return "-".join([s, str(x * 2), "end"])
        return f
    g, e = run_both(make, T(2))
    assert g == e == "x=2?-4-end"
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == out[3:] == ["x=2!", "i x=2 0", "i x=2 1"]


def test_raising_an_undefined_exception_class_is_a_name_error_and_mindspores_runtime_error():
    class Net(nn.Cell):
        def construct(self, x):
            if x == 1:
                raise NotSupportError(f"The input should not be 1.")  # noqa: F821
            return x
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(NameError):
        Net()(1)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="Unsupported exception type: NotSupportError") as e:
        Net()(1)
    assert isinstance(e.value, NameError)


def test_a_string_chosen_by_a_tensor_condition_is_picked_when_the_graph_runs(capsys):
    def make():
        def f(x):
            s = "pos" if x > 0 else "neg"
            if x > 5:
                s = f"big {x}"
            print("sign:", s)
            if x < -5:
                raise ValueError(s + " and small")
            return s, x
        return f
    for v, want in ((1, "pos"), (-1, "neg"), (7, "big 7")):
        assert run_both(make, T(v))[0][0] == want
    raises_both(make, ValueError, "^neg and small$", T(-7))
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == ["sign: pos", "sign: pos", "sign: neg", "sign: neg", "sign: big 7",
                       "sign: big 7"]


def test_string_methods_on_a_string_made_from_tensors_are_refused_clearly():
    def f(x):
        return f"{x}".upper()
    with pytest.raises(ms.UnsupportedSyntaxError, match=r"str.upper\(\) of a string made from"):
        ms.jit(f)(T(1))


def test_the_users_exception_comes_as_it_is_on_every_call_and_from_a_compiled_model():
    """From the second call on a Cell or @jit function runs through its entry's
    generated fast call (jit/entry.py); a compiled model runs the plan directly. Each
    raises the user's exception itself (same class, same text), as the first call does."""
    @ms.jit
    def f(x):
        if x > 5:
            raise ValueError(f"big: {x}")
        return x + 1

    class Net(nn.Cell):
        def construct(self, x):
            if x > 5:
                raise KeyError("too big")
            return x * 2

    net = Net()
    model = ms.compile(Net(), ms.TensorSpec((), ms.int32))
    for _ in range(3):                       # first call, then the fast path, twice
        assert int(f(ms.Tensor(1, ms.int32)).asnumpy()) == 2
        with pytest.raises(ValueError) as e:
            f(ms.Tensor(7, ms.int32))
        assert type(e.value) is ValueError and str(e.value) == "big: 7"
        assert int(net(ms.Tensor(2, ms.int32)).asnumpy()) == 4
        with pytest.raises(KeyError) as e:
            net(ms.Tensor(9, ms.int32))
        assert type(e.value) is KeyError and e.value.args == ("too big",)
        with pytest.raises(KeyError) as e:
            model(ms.Tensor(9, ms.int32))
        assert type(e.value) is KeyError and e.value.args == ("too big",)
