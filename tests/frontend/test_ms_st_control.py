"""Cases from MindSpore's own system tests (tests/st/control, tests/st/syntax), imports
changed, that graphjit once answered differently: the message MindSpore's test matches."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import jit


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_for_over_an_int_is_a_type_error_in_graph_mode(mode):
    # tests/st/control/inner/test_002_single_for.py: test_single_for_with_not_iterable_object
    ms.set_context(mode=mode)

    @jit
    def control_flow_for_with_not_iterable_object():
        ret = 0
        a = 1
        for i in a:
            ret = ret + i
        return ret

    with pytest.raises(TypeError, match="object is not iterable in graph mode"):
        control_flow_for_with_not_iterable_object()
    ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/syntax/simple_expression/test_operator.py: MindSpore's messages (Python's follow)
from graphjit import Tensor, Parameter, nn
from graphjit.ops import operations as P
from graphjit.ops import functional as F


def _net(body):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.param_a = Parameter(Tensor(5, ms.int32), name="param_a")
            self.mod = P.Mod()

        construct = body
    return Net()


@pytest.mark.parametrize("body, cls, message", [
    (lambda self, x: x + self.param_a + 5 / 0, ZeroDivisionError,
     "The divisor could not be zero."),
    (lambda self, x: x + self.param_a + 5 / 0, ValueError,        # MindSpore's class
     "The divisor could not be zero."),
    (lambda self, x: x + self.param_a + 5 % 0, ZeroDivisionError,
     "Cannot perform modulo operation on zero."),
    (lambda self, x: x + self.param_a + self.mod(5), TypeError,
     "For 'S_Prim_Mod', the size of input should be 2"),
    (lambda self, x: F.typeof(x, x), TypeError,
     "The Typeof operator must requires 1 argument, but the size of arguments is 2."),
    (lambda self, x: x[1.01:None:None], TypeError, "Slice indices must be integers or bool."),
    (lambda self, x: F.tuple_div((8, 14, 20), (2, 2)), ValueError,
     "The size of inputs of 'tuple_div' operator must be the same"),
    (lambda self, x: F.tuple_div((8, 14, 20), (2, 2, 2.0)), TypeError,
     "The data type of inputs of 'tuple_div' operator should be an int64 number,"),
    (lambda self, x: F.tuple_div((8, 14, 20), (2, 2, 0)), ValueError,
     "The divisor value should not be 0"),
    (lambda self, x: F.tuple_div((8, 14), (2, 3)), ValueError,
     "The inputs of 'tuple_div' operator should be divisible,"),
], ids=["div0", "div0_value_error", "mod0", "prim_arity", "typeof", "slice_float", "tuple_div_len",
        "tuple_div_type", "tuple_div_zero", "tuple_div_divisible"])
def test_mindspore_messages_for_bad_constants(body, cls, message):
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(cls, match=message):
        _net(body)(Tensor([8, 10, 12], ms.int32))


class RangeNone(nn.Cell):
    def construct(self, x, y):
        for _ in range():
            x += y
        return x


class RangeFour(nn.Cell):
    def construct(self, x, y):
        for _ in range(1, 2, 3, 4):
            x += y
        return x


class RangeStep0(nn.Cell):
    def construct(self, x, y):
        for _ in range(1, 2, 0):
            x += y
        return x


class RangeFloatStop(nn.Cell):
    def construct(self, x, y):
        for _ in range(0, 0.02):
            x += y
        return x


class RangeFloat(nn.Cell):
    def construct(self, x, y):
        for _ in range(3.00):
            x += y
        return x


@pytest.mark.parametrize("net, cls, message", [
    (RangeNone, RuntimeError, r"For 'make_range', the input size should within \[1, 3\] "
                              r"but got0"),
    (RangeFour, TypeError, r"the input size should within \[1, 3\] but got4"),
    (RangeStep0, ValueError, "For 'range', the argument 'step' could not be 0."),
    (RangeFloatStop, TypeError,
     "For 'make_range', the 1th input should be a int scalar but got AbstractScalar"),
    (RangeFloat, TypeError,
     "For 'make_range', the 0th input should be a int scalar but got AbstractScalar"),
], ids=["none", "four", "step0", "float_stop", "float_only"])
def test_mindspore_messages_for_bad_ranges(net, cls, message):
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(cls, match=message):
        net()(Tensor(2, ms.int32), Tensor(4, ms.int32))


# tests/st/syntax/simple_expression/test_math_ops.py: arithmetic primitives on two
# Python numbers are a TypeError in MindSpore (with one tensor they compute)
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
@pytest.mark.parametrize("prim", ["Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod"])
def test_arithmetic_primitives_refuse_two_numbers(mode, prim):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = getattr(P, prim)()

        def construct(self, x, y):
            return self.op(x, y)
    with pytest.raises(TypeError, match=f"Failed calling {prim} with.*For '{prim}', the "
                                        f"element of 'x' must be one of Tensor"):
        Net()(4, 2)
    out = Net()(Tensor([4.0, 6.0], ms.float32), 2)
    assert out.dtype == ms.float32
    ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/syntax/simple_expression: test_logic_and, test_member_in, test_zip_operation
class LogicAnd(nn.Cell):
    def construct(self, x, y):
        return x and y


def test_and_of_2x2_tensors_names_the_shape():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.ones([2, 2], np.int32))
    with pytest.raises(ValueError, match=r"Only tensor which shape is \(\) or \(1,\) can be "
                                         r"converted to bool, but got tensor shape is \(2, 2\)"):
        LogicAnd()(x, x)


class MemberIn(nn.Cell):
    def construct(self, x, y):
        return x in y


def test_int_in_int_message():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match=r"argument of type 'int' is not iterable\."):
        MemberIn()(1, 2)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_zip_over_a_scalar_parameter(mode):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.params1 = (Tensor(np.ones(2), ms.float32),)
            self.param = Parameter(Tensor(5, ms.float32), name="param")

        def construct(self, x):
            out = x
            for p1, p2 in zip(self.params1, self.param):
                out = out + p1 + p2
            return out
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor."):
        Net()(Tensor(np.ones([1], np.float32)))
    ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/control/test_control_flow_for_mindrt.py: F.switch
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
@pytest.mark.parametrize("flag, want", [(False, 5), (True, 2)])
def test_functional_switch(mode, flag, want):
    ms.set_context(mode=mode)

    @jit
    def switch_op(x, y):
        z1 = y + 1
        z2 = Tensor(5, ms.int32)
        return F.switch(x, z1, z2)

    out = switch_op(Tensor(flag, ms.bool_), Tensor(1, ms.int32))
    assert out.dtype == ms.int32 and out.shape == () and int(out) == want
    assert F.switch(flag, 1, 2) == (1 if flag else 2)
    with pytest.raises(TypeError, match="one dtype and shape"):
        F.switch(Tensor(flag, ms.bool_), Tensor([1, 2]), Tensor([1.0, 2.0]))
    ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/control/test_dde.py: ms.tensor and F.reduce_sum (a primitive instance, as
# MindSpore's functional module holds it)
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_tensor_function_and_functional_reductions(mode):
    ms.set_context(mode=mode)
    t = ms.tensor([1., 2., 3.])
    assert isinstance(t, Tensor) and t.dtype == ms.float32
    assert ms.tensor([1, 2], ms.int32).dtype == ms.int32

    @jit
    def f(x):
        return F.reduce_sum(x), F.reduce_sum(x, 0), F.reduce_mean(x, 1), F.reduce_max(x), \
            F.reduce_min(x), F.reduce_prod(x, (0, 1))
    x = ms.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) + 1)
    s, s0, m1, mx, mn, p = f(x)
    assert float(s) == 21.0 and s0.asnumpy().tolist() == [5.0, 7.0, 9.0]
    assert m1.asnumpy().tolist() == [2.0, 5.0] and float(mx) == 6.0 and float(mn) == 1.0
    assert float(p) == 720.0
    ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/syntax/test_list_pop.py: MindSpore's words for a pop out of range
@pytest.mark.parametrize("index", [4, -5, None])
def test_list_pop_out_of_range(index):
    ms.set_context(mode=ms.GRAPH_MODE)

    @jit
    def pop_at(x):
        lst = [1, 2, 3, 4] if index is not None else []
        y = lst.pop(index) if index is not None else lst.pop()
        return x + y

    with pytest.raises(IndexError, match="The pop index out of range."):
        pop_at(Tensor(1, ms.int32))


# tests/st/control/test_cont_grad.py: test_while_grad writes x[idx, :, 0:2] = max(x[idx])
# into the input x inside a while; the gradient is x's as it came in (PYNATIVE answered
# the gradient of x's final value, all ones, while GRAPH_MODE answered this)
class _WriteRowMaxes(nn.Cell):
    def construct(self, idx, end, x):
        while idx < end:
            x[idx, :, 0:2] = P.ReduceMax()(x[idx, :, :])
            idx = idx + 1
        return x


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_gradient_of_an_input_written_in_place(mode):
    ms.set_context(mode=mode)
    try:
        from graphjit.ops import composite as C
        x = np.array([[[1, 7], [2, 3]], [[9, 0], [4, 5]]], np.float32)
        grads = C.GradOperation(get_all=True)(_WriteRowMaxes())(
            Tensor(0, ms.int32), Tensor(2, ms.int32), Tensor(x))
        want = np.zeros_like(x)
        want[0, 0, 1] = want[1, 0, 0] = 4.0      # each row's max fed 4 outputs
        np.testing.assert_array_equal(grads[2].asnumpy(), want)

        def first_is_max(v):
            v[0] = v.max()
            return v * v
        g = ms.grad(first_is_max)(Tensor(np.array([1., 3., 2.], np.float32)))
        np.testing.assert_array_equal(g.asnumpy(), [0., 12., 4.])
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/control/test_recrusive_fun.py: test_recrusive_endless; a recursion that never
# ends raised RecursionError in eager Python but built (or ran) forever in graph mode
@jit
def _down_then_up(x):
    if x > 0:
        return _down_then_up(x - 1)
    return _down_then_up(x + 1)


@jit
def _until_big(x):
    if x > 10:
        return x
    return _until_big(x * 1)


def test_endless_tail_recursion_raises_runtime_error():
    # the loop's exit never depends on x: found while building
    with pytest.raises(RuntimeError, match="recursion depth exceeded.*endless loop"):
        _down_then_up(Tensor([5], ms.int32))
    # the exit depends on x: the Loop counts its calls when it runs
    assert _until_big(Tensor([11], ms.int32)).asnumpy().tolist() == [11]
    with pytest.raises(RuntimeError, match="_until_big called itself more than"):
        _until_big(Tensor([1], ms.int32))


def test_deep_tail_recursion_below_the_limit_still_runs():
    @jit
    def count(x, n):
        if n > 0:
            return count(x + 1, n - 1)
        return x
    assert count(Tensor([0], ms.int32), Tensor(900, ms.int32)).asnumpy().tolist() == [900]


# a Parameter written in place (self.w[0] = v) while a gradient is taken is a state update,
# as ops.assign: PYNATIVE differentiated it as an op on the weight's slot, GRAPH_MODE
# follows the assign rule (v not differentiated; later reads of w are reads of w)
class _WritesItsWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1., 2., 3.], np.float32)), name="w")

    def construct(self, x):
        y = self.w * x
        self.w[0] = x.sum()
        return y + self.w * x


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_gradient_with_a_parameter_written_in_place(mode):
    ms.set_context(mode=mode)
    try:
        net = _WritesItsWeight()
        out, (dx, (dw,)) = ms.value_and_grad(net, grad_position=0,
                                             weights=net.trainable_params())(
            Tensor(np.array([1., 1., 2.], np.float32)))
        np.testing.assert_array_equal(out.asnumpy(), [5., 4., 12.])
        np.testing.assert_array_equal(dx.asnumpy(), [5., 4., 6.])    # w, then w written
        np.testing.assert_array_equal(dw.asnumpy(), [2., 2., 4.])    # x at both reads
        np.testing.assert_array_equal(net.w.asnumpy(), [4., 2., 3.])
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


# tests/st/control/test_recrusive_fun.py: recursion that is not a tail call, its depth
# chosen by a tensor (test_f_ok, test_recrusive_fun), is two Loops over a stack of frames
_ONE = Tensor([1], ms.int32)
_ZERO = Tensor([0], ms.int32)


def _count_up(x):
    if x > 0:
        return _count_up(x - 1) + 1
    return _ONE


def _mixed(x):
    y = _ZERO
    if x < 0:
        y = _ONE
    elif x < 3:
        y = x * _mixed(x - 1)
    elif x < 5:
        y = x * _mixed(x - 2)
    else:
        y = _mixed(x - 4)
    z = y + 1
    return z


def _python(fn, v):
    """fn run on Python ints (its tensors' ops on a 1-element int)."""
    if fn is _count_up:
        return v + 1 if v > 0 else 1
    if v < 0:
        y = 1
    elif v < 3:
        y = v * _python(fn, v - 1)
    elif v < 5:
        y = v * _python(fn, v - 2)
    else:
        y = _python(fn, v - 4)
    return y + 1


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
@pytest.mark.parametrize("fn", [_count_up, _mixed])
def test_linear_recursion_of_tensor_depth(mode, fn):
    ms.set_context(mode=mode)
    try:
        compiled = jit(fn)
        for v in (-2, 0, 3, 4, 5, 7, 10):
            assert compiled(Tensor([v], ms.int32)).asnumpy().tolist() == [_python(fn, v)], v
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


class _ScaledSum(nn.Cell):
    def construct(self, x, n):
        return self.step(x, n)

    def step(self, x, n, scale=2):
        if n > 0:
            y = self.step(x, n - 1, scale) * scale
            return y + x
        return x


def test_linear_recursion_in_a_method_with_a_default():
    out = _ScaledSum()(Tensor(np.array([1., 2.], np.float32)), Tensor(3, ms.int32))
    np.testing.assert_array_equal(out.asnumpy(), [15., 30.])     # ((x*2+x)*2+x)*2+x


def test_recursion_that_never_returns_raises_runtime_error():
    @jit
    def down(x):
        if x < 0:
            y = down(x - 3)
        else:
            y = x * down(x - 1)
        return y + 1
    with pytest.raises(RuntimeError, match="recursion depth exceeded.*endless loop"):
        down(Tensor([5], ms.int32))


def test_two_recursive_calls_on_a_path_are_still_refused():
    @jit
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)
    with pytest.raises(ms.UnsupportedSyntaxError, match="fib"):
        fib(Tensor(5, ms.int32))


def test_recursive_call_in_an_if_test_is_refused():
    @jit
    def deeper(x):
        if x > 0:
            if deeper(x - 1) > 2:
                return x
        return x * 0
    with pytest.raises(ms.UnsupportedSyntaxError, match="calls itself in an `if` test"):
        deeper(Tensor([3], ms.int32))
