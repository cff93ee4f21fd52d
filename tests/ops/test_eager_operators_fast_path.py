"""The eager Tensor's operators (+ - * / // % ** < <= > >=) take the kernel apply
cached for their signature straight away (common.eager_fast._binary_method): the same
values, dtypes and errors as ops' binary() with MindSpore's promotion, first call or
later, Tensor or Python number on either side."""
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphjit as ms
from graphjit.common import eager_fast
from graphjit.ops import _dispatch

OPS = {operator.add: "Add", operator.sub: "Sub", operator.mul: "Mul",
       operator.truediv: "RealDiv", operator.floordiv: "FloorDiv", operator.mod: "FloorMod",
       operator.pow: "Pow", operator.lt: "Less", operator.le: "LessEqual",
       operator.gt: "Greater", operator.ge: "GreaterEqual"}
DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64]
NUMBERS = [0.5, -0.0, 0.0, 2, -3, True, False, 300, 2 ** 40, float("nan"), 1e30]


def _outcome(fn):
    with np.errstate(all="ignore"):
        try:
            r = fn()
        except Exception as e:      # the same class either way
            return type(e)
    return (r.dtype, r.shape, r.asnumpy().tobytes())


@st.composite
def operands(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.sampled_from([(), (3,), (2, 3)]))
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    x = ms.Tensor((rng.standard_normal(shape) * 4).astype(dtype))
    kind = draw(st.sampled_from(["number", "tensor", "tensor_other"]))
    if kind == "number":
        other = draw(st.sampled_from(NUMBERS))
    else:
        odt = dtype if kind == "tensor" else draw(st.sampled_from(DTYPES))
        other = ms.Tensor((rng.standard_normal(draw(st.sampled_from([(), shape]))) * 4)
                          .astype(odt))
    return x, other, draw(st.booleans())


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(xs=operands(), fn=st.sampled_from(list(OPS)))
def test_operators_agree_with_binary_first_call_and_cached(xs, fn):
    x, other, swap = xs
    op = OPS[fn]
    a, b = (other, x) if swap else (x, other)
    want = _outcome(lambda: _dispatch.binary(op, a, b))
    first = _outcome(lambda: fn(a, b))
    again = _outcome(lambda: fn(a, b))          # the signature is in the table now
    assert first == want and again == want, (op, a, b)


def test_the_cached_path_runs_without_binary(monkeypatch):
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    x * 0.5, 2 - x, x < x                      # noqa: B018  (fills the table)
    monkeypatch.setattr(eager_fast, "BINARY", None)      # binary() would fail now
    assert (x * 0.5).asnumpy().tolist() == [0, 0.5, 1, 1.5]
    assert (2 - x).asnumpy().tolist() == [2, 1, 0, -1]
    assert (x < x).asnumpy().tolist() == [False] * 4
    with pytest.raises(TypeError):
        x * 1j                                  # not a number it takes: binary() again


def test_a_recording_tape_takes_the_general_path():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    x * x                                       # noqa: B018
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = ms.grad(lambda v: (v * v * 3.0).sum())(x)
    assert g.asnumpy().tolist() == [6.0, 12.0]


def test_cached_numbers_are_read_only_and_keep_negative_zero():
    x = ms.Tensor(np.array([1.0], np.float32))
    assert np.signbit((x * -0.0).asnumpy()).all() and not np.signbit((x * 0.0).asnumpy()).all()
    assert np.signbit((x * -0.0).asnumpy()).all()
    x * 0.25                                     # noqa: B018
    cached = eager_fast._SCALARS[(0.25, float, ms.float32)]
    assert not cached.flags.writeable


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", [0.1, 1e30, 7, 2 ** 40, True])
def test_a_number_takes_the_dtype_promotion_gives_it_whatever_the_table_holds(dtype, number):
    """Signatures for 0-d operands of every dtype are in the table, so picking the
    number's dtype wrongly would find a kernel and give other bits."""
    x = ms.Tensor((np.arange(6).reshape(2, 3) - 2).astype(dtype))
    for d in DTYPES:
        for fn in (operator.mul, operator.add, operator.lt):
            _outcome(lambda: fn(x, ms.Tensor(np.asarray(1, d))))
            _outcome(lambda: fn(ms.Tensor(np.asarray(1, d)), x))
    for fn, op in ((operator.mul, "Mul"), (operator.add, "Add"), (operator.lt, "Less")):
        assert _outcome(lambda: fn(x, number)) == _outcome(lambda: _dispatch.binary(op, x, number))
        assert _outcome(lambda: fn(number, x)) == _outcome(lambda: _dispatch.binary(op, number, x))


@pytest.mark.parametrize("name", sorted(__import__(
    "graphjit.ops.function.math_func", fromlist=["_UNARY_FUNCTIONS"])._UNARY_FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float16, np.float32, np.float64])
def test_unary_functions_take_the_cached_kernel_with_the_same_outcome(name, dtype):
    from graphjit.ops.function import math_func
    op = math_func._UNARY_FUNCTIONS[name]
    x = ms.Tensor((np.arange(-3, 3).reshape(2, 3) * 0.7).astype(dtype))
    fn = getattr(math_func, name)
    want = _outcome(lambda: _dispatch.apply(op, x))          # fills the table
    assert _outcome(lambda: fn(x)) == want and _outcome(lambda: fn(x)) == want
