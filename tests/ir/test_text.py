"""graphjit.ir.text formats values when a graph runs exactly as eager Tensors format
themselves (str, repr, format specs, %-conversions), and describes exceptions."""
import numpy as np
import pytest

import graphjit as ms
from graphjit.ir import dtypes as D
from graphjit.ir.text import ShownTensor, build_exception, decode, exception_class, sketch

ARRAYS = [np.array(3, np.int64), np.array([1.5, -2.25], np.float32),
          np.array([[True, False]]), np.array(7, np.int32), np.array([0.1], np.float64),
          np.arange(12, dtype=np.int16).reshape(3, 4)]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_a_shown_tensor_prints_as_the_eager_tensor(a):
    t = ms.Tensor(a)
    s = ShownTensor(a, t.dtype)
    assert str(s) == str(t) and repr(s) == repr(t) and f"{s}" == f"{t}"
    assert "%s|%r" % (s, s) == "%s|%r" % (t, t)
    if a.size == 1:
        for spec in (">6", ".2f", "e") if a.dtype.kind == "f" else (">6", "d", "x"):
            assert format(s, spec) == format(t, spec)
        assert "%d %.1f" % (s, s) == "%d %.1f" % (t, t)
        assert int(s) == int(t) and float(s) == float(t)
    else:
        with pytest.raises(ValueError):
            int(s)


def test_decode_builds_strings_and_structures():
    xs = [np.array(4, np.int64), np.array([1.0, 2.0], np.float32), np.array(2.5)]
    dts = [D.int64, D.float32, D.float64]
    tree = ("str", ("n=", ("fmt", ("t", 0), "", ">3"), " v=",
                    ("%", "%s/%r", ("tuple", (("t", 1), ("w", 2)))),
                    ("format", "{}{k}", ("tuple", (("c", "a"),)), ("dict", ((("c", "k"), ("list", (("w", 0),))),)))))
    assert decode(tree, xs, dts) == "n=  4 v=[1. 2.]/2.5a[4]"
    assert sketch(tree) == "n={...} v=%s/%r{}{k}"
    e = build_exception(("KeyError", ("tuple", (("c", "k"), ("t", 0)))), xs, dts)
    assert type(e) is KeyError and e.args[0] == "k" and str(e.args[1]) == "4"
    assert exception_class("ValueError") is ValueError and exception_class("print") is None
