"""Round 2: Python structure in and out of construct (containers of tensors, kwargs,
defaults, *args, None/str arguments, Python scalars), sub-Cells, helpers, closures,
nested functions, lambdas, recursion, jit functions calling each other, jit methods,
jit_class objects."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def f32(*xs):
    return Tensor(np.asarray(xs, np.float32))


def i32(v):
    return Tensor(np.asarray(v, np.int32))


class TupleIn(nn.Cell):
    def construct(self, pair):
        a, b = pair
        if a.sum() > b.sum():
            return a - b
        return b - a


class ListInDictOut(nn.Cell):
    def construct(self, xs):
        out = {}
        total = xs[0]
        for i in range(1, len(xs)):
            if xs[i].max() > 1:
                total = total + xs[i]
            else:
                total = total - xs[i]
        out["total"] = total
        out["first"] = xs[0]
        return out


class DictIn(nn.Cell):
    def construct(self, d):
        x = d["x"]
        w = d["w"]
        if (x * w).sum() > 0:
            y = x * w
        else:
            y = x + w
        return y, d["x"]


class ReturnList(nn.Cell):
    def construct(self, x):
        res = []
        for i in range(3):
            if x.sum() > i:
                res.append(x * i)
            else:
                res.append(x - i)
        return res


class NestedTupleOut(nn.Cell):
    def construct(self, x, y):
        if x.sum() > y.sum():
            a = x
        else:
            a = y
        return (a, (x + 1, [y * 2, a]), x - y)


class KwDefaults(nn.Cell):
    def construct(self, x, scale=2.0, mode="add", bias=None):
        if bias is not None:
            x = x + bias
        if mode == "add":
            y = x + scale
        else:
            y = x * scale
        if y.sum() > 5:
            y = y - 1
        return y


class StarArgs(nn.Cell):
    def construct(self, *xs):
        acc = xs[0]
        for t in xs[1:]:
            if t.sum() > acc.sum():
                acc = t
        return acc, len(xs)


class NoneArg(nn.Cell):
    def construct(self, x, mask):
        if mask is None:
            return x * 2
        return ops.where(mask, x, ops.zeros_like(x))


class ScalarArgs(nn.Cell):
    def construct(self, x, n, alpha, flag):
        for _ in range(n):
            if flag:
                x = x * alpha
            else:
                x = x + alpha
        if x.sum() > 10:
            x = x - n
        return x


class ScalarResultFromTensorCond(nn.Cell):
    def construct(self, x):
        count = 0
        for i in range(4):
            if x[i] > 0:
                count += 1
        return x * count


class IntResult(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            k = 3
        else:
            k = 5
        return k


class FloatResult(nn.Cell):
    def construct(self, x):
        s = 0.5
        if x.max() > 1.0:
            s = 1.5
        return s, x


class BoolResult(nn.Cell):
    def construct(self, x):
        return x.sum() > 2, x.min() < 0


class Inner(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        i = 0
        while i < self.k:
            if x.sum() > 10:
                break
            x = x * 2
            i += 1
        return x


class SubCellsWithFlow(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Inner(3)
        self.b = Inner(5)

    def construct(self, x):
        y = self.a(x)
        if y.max() > 4:
            y = self.b(y - 4)
        return y


def helper_clip(x, lo):
    if x.min() < lo:
        x = x - x.min() + lo
    return x


def helper_loop(x, n):
    for _ in range(n):
        x = helper_clip(x * 2, -1.0)
    return x


class HelperFunctions(nn.Cell):
    def construct(self, x):
        return helper_loop(x, 3)


class Closure(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 3.0

    def construct(self, x):
        s = self.scale

        def f(t):
            if t.sum() > 0:
                return t * s
            return t - s

        return f(x) + f(-x)


class NestedDefTwoLevels(nn.Cell):
    def construct(self, x):
        def outer(t):
            def inner(u):
                return u + 1 if u.sum() > 0 else u - 1
            return inner(inner(t))
        return outer(x)


class Lambdas(nn.Cell):
    def construct(self, x):
        sq = lambda t: t * t
        pick = lambda a, b: a if a.sum() > b.sum() else b
        return pick(sq(x), x + 10)


def rec_sum(x, depth):
    if depth == 0:
        return x
    if x.sum() > 0:
        return rec_sum(x - 1, depth - 1)
    return rec_sum(x + 2, depth - 1)


class Recursion(nn.Cell):
    def construct(self, x):
        return rec_sum(x, 4)


@ms.jit
def jit_inner(x):
    if x.sum() > 0:
        return x * 2
    return -x


@ms.jit
def jit_outer(x):
    y = jit_inner(x)
    for _ in range(2):
        y = jit_inner(y - 3)
    return y


class WithJitMethod(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2

    @ms.jit
    def step(self, x):
        if x.sum() > self.k:
            return x - self.k
        return x + self.k

    def construct(self, x):
        return self.step(self.step(x))


class JitMethodOnPlain:
    def __init__(self):
        self.w = 1.5

    @ms.jit
    def run(self, x):
        while x.sum() < 20:
            x = x * self.w + 1
        return x


@ms.jit_class
class Counter:
    def __init__(self, start):
        self.start = start

    def bump(self, x):
        if x.sum() > self.start:
            return x - self.start
        return x + self.start


class UsesJitClass(nn.Cell):
    def construct(self, x):
        c = Counter(2)
        y = c.bump(x)
        for _ in range(2):
            y = c.bump(y)
        return y


class KwCallSubCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = KwDefaults()

    def construct(self, x):
        a = self.inner(x, mode="mul", scale=3.0)
        b = self.inner(x, bias=x)
        return a, b


CASES = [
    ("r2_tuple_in", TupleIn, lambda: ((f32(1, 2), f32(0, 5)),)),
    ("r2_dict_in_tuple_out", DictIn, lambda: ({"x": f32(1, 2), "w": f32(-3, 1)},)),
    ("r2_return_list", ReturnList, lambda: (f32(0.5, 1.0),)),
    ("r2_nested_tuple_out", NestedTupleOut, lambda: (f32(1, 2), f32(3, -1))),
    ("r2_kw_defaults", KwDefaults, lambda: (f32(1, 2),)),
    ("r2_star_args", StarArgs, lambda: (f32(1, 2), f32(0, 5), f32(-1, 1))),
    ("r2_none_arg", NoneArg, lambda: (f32(1, 2), None)),
    ("r2_mask_arg", NoneArg, lambda: (f32(1, 2), Tensor(np.array([True, False])))),
    ("r2_scalar_args", ScalarArgs, lambda: (f32(1, 2), 3, 1.5, True)),
    ("r2_scalar_args_false", ScalarArgs, lambda: (f32(1, 2), 2, 0.5, False)),
    ("r2_counter_from_tensor_cond", ScalarResultFromTensorCond, lambda: (f32(1, -2, 3, 0),)),
    ("r2_int_result", IntResult, lambda: (f32(-1, -2),)),
    ("r2_float_result", FloatResult, lambda: (f32(1, 2),)),
    ("r2_bool_result", BoolResult, lambda: (f32(1, 2),)),
    ("r2_subcells_with_flow", SubCellsWithFlow, lambda: (f32(1, 2),)),
    ("r2_helper_functions", HelperFunctions, lambda: (f32(-1, 2),)),
    ("r2_closure", Closure, lambda: (f32(1, -3),)),
    ("r2_nested_def", NestedDefTwoLevels, lambda: (f32(-0.5, 0.2),)),
    ("r2_lambdas", Lambdas, lambda: (f32(4, 1),)),
    ("r2_recursion", Recursion, lambda: (f32(1, 0.5),)),
    ("r2_jit_calls_jit", lambda: jit_outer, lambda: (f32(1, 2),)),
    ("r2_jit_method_on_cell", WithJitMethod, lambda: (f32(1, 0.5),)),
    ("r2_jit_class", UsesJitClass, lambda: (f32(1, 2),)),
    ("r2_kw_call_subcell", KwCallSubCell, lambda: (f32(1, 2),)),
]

# (name, make, make_inputs): a dict result, compared key by key
DICT_CASES = [
    ("r2_list_in_dict_out", ListInDictOut, lambda: ([f32(1, 2), f32(0, 5), f32(0.5, 0.1)],)),
]

# a plain object's @ms.jit method: (name, make_obj, method name, make_inputs)
METHOD_CASES = [
    ("r2_jit_method_on_plain", JitMethodOnPlain, "run", lambda: (f32(1, 2),)),
]


EXPLAIN_CASES = [
    ("r2_explain_helpers", HelperFunctions, lambda: (f32(-1, 2),), (helper_loop, helper_clip)),
    ("r2_explain_closure", Closure, lambda: (f32(1, -3),)),
    ("r2_explain_recursion", Recursion, lambda: (f32(1, 0.5),), (rec_sum,)),
    ("r2_explain_jit_calls_jit", lambda: jit_outer, lambda: (f32(1, 2),), (jit_inner,)),
]
