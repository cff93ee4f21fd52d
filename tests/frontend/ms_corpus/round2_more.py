"""Round 2: more Python results from tensor-conditioned code (bools, floats, strings),
promotion of small dtypes, int8 wrap-around in loops, item assignment in loops, argmax as
an index, zipped and enumerated tensors, Fibonacci-style swaps, float modulo, jit
functions with keyword and default arguments."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class FoundFlag(nn.Cell):
    def construct(self, m):
        found = False
        for row in m:
            if row.sum() > 5:
                found = True
        return found


class StringFromTensorCond(nn.Cell):
    def construct(self, x):
        tag = "neg"
        if x.sum() > 0:
            tag = "pos"
        return tag


class SmallDtypePromotion(nn.Cell):
    def construct(self, a, b, h):
        c = a + b                    # int8 + uint8 -> int16
        if c.sum() > 0:
            c = c * 2
        d = h * 0.5                  # float16 keeps float16
        e = a / 2                    # int8 / int -> float32
        f = (a > 0).sum()            # bool sum -> int64
        g = (a > 0) + 1              # bool + int -> int64
        return c, d, e, f, g, (a > 0).mean()


class Int8Wrap(nn.Cell):
    def construct(self, x):
        for _ in range(3):
            if x.min() > -100:
                x = x * 3
        return x


class ItemAssignInLoop(nn.Cell):
    def construct(self, x):
        y = x.copy() if hasattr(x, "copy") else x * 1
        for i in range(3):
            if y[i] > 1:
                y[i] = y[i] * 10
            else:
                y[i] = -1.0
        return y


class ArgmaxIndex(nn.Cell):
    def construct(self, x):
        i = x.argmax()
        if x[i] > 3:
            y = x - x[i]
        else:
            y = x + x[i]
        return y, i


class ZipTwoTensors(nn.Cell):
    def construct(self, a, b):
        acc = a[0] * 0
        for s, t in zip(a, b):
            if s > t:
                acc = acc + s
            else:
                acc = acc - t
        return acc


class EnumerateStart(nn.Cell):
    def construct(self, x):
        acc = x[0] * 0
        for i, v in enumerate(x, 1):
            acc = acc + v * i
        return acc


class FibSwap(nn.Cell):
    def construct(self, limit):
        a = Tensor(0, ms.int32)
        b = Tensor(1, ms.int32)
        n = 0
        while b < limit:
            a, b = b, a + b
            n += 1
        return a, b, n


class FloatModulo(nn.Cell):
    def construct(self, x):
        r = x % -2.5
        q = x // 2.5
        if (r < -1).any():
            r = r + 2.5
        return r, q


@ms.jit
def jit_with_kw(x, n=2, scale=1.0, tag="a"):
    for _ in range(n):
        if x.sum() > 0:
            x = x * scale
        else:
            x = x + scale
    if tag == "b":
        x = -x
    return x


@ms.jit
def jit_caller(x):
    return jit_with_kw(x, scale=2.0, tag="b") + jit_with_kw(x, n=3)


class ReverseRangeStatic(nn.Cell):
    def construct(self, x):
        out = []
        for i in reversed(range(x.shape[0])):
            out.append(x[i] * 2 if x[i] > 0 else x[i])
        return ops.stack(out)


class ClampMaxIntFloat(nn.Cell):
    def construct(self, a, b):
        if a.sum() > 0:
            r = ops.maximum(a, b)
        else:
            r = ops.minimum(a, b)
        return r, ops.clamp(a, 0, 3)


CASES = [
    ("r2_found_flag", FoundFlag, lambda: (arr([[1, 2], [3, 4]]),)),
    ("r2_found_flag_false", FoundFlag, lambda: (arr([[1, 2], [0, 1]]),)),
    ("r2_small_dtype_promotion", SmallDtypePromotion,
     lambda: (arr([1, -2, 3], np.int8), arr([200, 2, 3], np.uint8), arr([1, 2, 3], np.float16))),
    ("r2_int8_wrap", Int8Wrap, lambda: (arr([5, -2, 50], np.int8),)),
    ("r2_item_assign_in_loop", ItemAssignInLoop, lambda: (arr([1, 2, 3]),)),
    ("r2_argmax_index", ArgmaxIndex, lambda: (arr([1, 5, 2]),)),
    ("r2_zip_two_tensors", ZipTwoTensors, lambda: (arr([1, 5, 2]), arr([2, 1, 2]))),
    ("r2_enumerate_start", EnumerateStart, lambda: (arr([1, 5, 2]),)),
    ("r2_fib_swap", FibSwap, lambda: (Tensor(100, ms.int32),)),
    ("r2_float_modulo", FloatModulo, lambda: (arr([-7, 7, 1.5, -0.5]),)),
    ("r2_jit_kw_defaults", lambda: jit_caller, lambda: (arr([1, -2]),)),
    ("r2_reverse_range_static", ReverseRangeStatic, lambda: (arr([1, -5, 2]),)),
    ("r2_clamp_max_int_float", ClampMaxIntFloat, lambda: (arr([1, 5, -2], np.int32), arr([0.5, 6, 1]))),
    # a string chosen by a tensor condition: the If gives which one, picked after the run
    ("r2_string_from_tensor_cond", StringFromTensorCond, lambda: (arr([1, 2]),)),
    ("r2_string_from_tensor_cond_neg", StringFromTensorCond, lambda: (arr([-1, -2]),)),
]

class NoneOrTensor(nn.Cell):
    def construct(self, x):
        y = None
        if x.sum() > 0:
            y = x * 2
        return y


# (name, make, make_inputs, error class, builtin base, source text of the line)
ERROR_CASES = [
    ("r2_none_or_tensor", NoneOrTensor, lambda: (arr([1, 2]),),
     ms.TypeJoinError, TypeError, "if x.sum() > 0:"),
]

KWARG_CASES = [
    ("r2_jit_kw_call", lambda: jit_with_kw, lambda: (arr([1, -2]),), lambda: {"n": 3, "tag": "b", "scale": 0.5}),
]
