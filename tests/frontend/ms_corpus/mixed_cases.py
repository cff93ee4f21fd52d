"""Scalars, tuples, dtypes, sub-Cells, closures, Parameters, set_inputs, @ms.jit."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor, context
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype
from graphjit.common.parameter import Parameter


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class Gate(nn.Cell):
    def __init__(self, thr):
        super().__init__()
        self.thr = thr

    def construct(self, x):
        while x.max() > self.thr:
            x = x * 0.5
        return x


class ParentWithGates(nn.Cell):
    def __init__(self):
        super().__init__()
        self.g1 = Gate(4.0)
        self.g2 = Gate(1.0)
        self.use_second = True

    def construct(self, x):
        y = self.g1(x)
        if self.use_second and y.sum() > 2:
            y = self.g2(y) + y
        return y


class ClosureNet(nn.Cell):
    def construct(self, x, k):
        def scale(v):
            if v.sum() > 0:
                return v * k
            return v - k

        out = scale(x)
        out = scale(out - 10)
        return out


class DtypePromotion(nn.Cell):
    def construct(self, a, b, c):
        # a int32, b float16, c bool
        if a.sum() > 2:
            x = a + b
        else:
            x = b - a
        y = c + 1
        z = a / 2
        w = a // 2
        m = a % 3
        return x, y, z, w, m, (a * 2.5)


class DtypeInLoop(nn.Cell):
    def construct(self, a):
        acc = ops.zeros_like(a)
        i = 0
        while i < 3:
            acc = acc + a * i
            i += 1
        return acc, acc.sum(), acc.mean(), acc.max()


class ParamRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.array([1.0, -1.0, 2.0], np.float32)), name="weight")
        self.bias = Parameter(Tensor(np.array(0.5, np.float32)), name="bias")

    def construct(self, x):
        if (self.weight > 0).all():
            out = x * self.weight
        else:
            out = x * ops.relu(self.weight) + self.bias
        for _ in range(2):
            if out.sum() < 10:
                out = out + self.bias
        return out


def jit_plain_fn(x, y):
    if x.sum() > y.sum():
        z = x - y
    else:
        z = y - x
    i = 0
    while i < 2:
        z = z * 2
        i += 1
    return z


@ms.jit
def jit_decorated_fn(x, n):
    out = x
    for _ in range(n):
        if out.max() > 5:
            out = out - 1
        else:
            out = out * 2
    return out


@ms.jit
def jit_while_return(x):
    while x < 10:
        x = x + 3
        if x == 7:
            return x * 10
    return x


class TupleAccum(nn.Cell):
    def construct(self, xs):
        mx = xs[0]
        mn = xs[0]
        for v in xs[1:]:
            mx = ops.maximum(mx, v)
            mn = ops.minimum(mn, v)
        total = 0
        for v in xs:
            total = total + v
        return (mx, mn), total


class ListSetItem(nn.Cell):
    def construct(self, x):
        outs = [x, x, x]
        for i in range(3):
            if x.sum() > i:
                outs[i] = x * (i + 1)
        return ops.stack(outs)


class ListSetItemConst(nn.Cell):
    def construct(self, x):
        outs = [x, x, x]
        for i in range(3):
            outs[i] = outs[i] * (i + 1)
        return ops.stack(outs, 1)


class ShapeDrivenLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reduce_sum = P.ReduceSum(keep_dims=True)

    def construct(self, x):
        while x.ndim > 1:
            x = self.reduce_sum(x, 0).squeeze(0)
        return x


class ExpandSqueezeInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.expand_dims = P.ExpandDims()

    def construct(self, x):
        y = self.expand_dims(x, 0)
        if y.sum() > 0:
            y = y * 2
        else:
            y = ops.transpose(y, (0, 2, 1)).transpose(0, 2, 1)
        return y.squeeze(0)


class WhereSoftmaxCond(nn.Cell):
    def construct(self, x):
        p = ops.softmax(x, -1)
        if p.max() > 0.5:
            out = ops.where(p > 0.5, x, ops.zeros_like(x))
        else:
            out = ops.matmul(p, ops.transpose(x, (1, 0)))
            out = out.sum(1, keepdims=False)[0] * ops.ones_like(x)
        return out


class MixedFloatIntScalars(nn.Cell):
    def construct(self, x, a, b):
        s = a + b
        if s > 2:
            x = x * s
        else:
            x = x + s
        if x.sum() > 0:
            r = a * 2.0
        else:
            r = b * 3
        return x, r


class StopOnNegativeSum(nn.Cell):
    def construct(self, x):
        outs = []
        for row in x:
            outs.append(row.sum())
        res = ops.stack(outs)
        if (res < 0).any():
            return res.min()
        return res.max()


class ItemAssignSlice(nn.Cell):
    def construct(self, x):
        if x[0, 0] > 0:
            x[0] = x[1] + 1
        else:
            x[1, :] = 0
        return x


class CastBool(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cast = P.Cast()

    def construct(self, x):
        m = self.cast(x > 0, mstype.int32)
        if m.sum() >= 2:
            out = self.cast(m, mstype.float32) * x
        else:
            out = x * 0
        return out, m


@ms.jit_class
class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if x.sum() > 0:
            return x * self.k
        return x


class UsesJitClass(nn.Cell):
    def __init__(self):
        super().__init__()
        self.s = Scaler(3)

    def construct(self, x):
        for _ in range(2):
            x = self.s.apply(x) - 1
        return x


CASES = [
    ("subcell_while_in_if", ParentWithGates, lambda: (T([3.0, 9.0], ms.float32),)),
    ("closure_capture_scalar", ClosureNet, lambda: (T([1.0, 2.0], ms.float32), 3)),
    ("dtype_promotion_if", DtypePromotion,
     lambda: (T([1, 4], ms.int32), T([0.5, 1.5], ms.float16), T([True, False], ms.bool_))),
    ("dtype_promotion_if_else", DtypePromotion,
     lambda: (T([1, 0], ms.int32), T([0.5, 1.5], ms.float16), T([True, False], ms.bool_))),
    ("dtype_int_loop_reductions", DtypeInLoop, lambda: (T([1, 2], ms.int32),)),
    ("dtype_f16_loop_reductions", DtypeInLoop, lambda: (T([1, 2], ms.float16),)),
    ("parameter_read", ParamRead, lambda: (T([1.0, 2.0, 3.0], ms.float32),)),
    ("jit_plain_fn", lambda: jit_plain_fn, lambda: (T([1.0, 2.0]), T([0.5, 0.5]))),
    ("jit_decorated_fn", lambda: jit_decorated_fn, lambda: (T([1.0, 2.0]), 4)),
    ("jit_while_return_hit", lambda: jit_while_return, lambda: (T(1, ms.int32),)),
    ("jit_while_return_miss", lambda: jit_while_return, lambda: (T(2, ms.int32),)),
    ("tuple_accum_slice", TupleAccum, lambda: ((T([1, 5]), T([3, 2]), T([0, 9])),)),
    ("list_setitem_tensor_if", ListSetItem, lambda: (T([1.0, 0.5], ms.float32),)),
    ("list_setitem_const", ListSetItemConst, lambda: (T([1.0, 0.5], ms.float32),)),
    ("shape_driven_while", ShapeDrivenLoop, lambda: (T(np.arange(24).reshape(2, 3, 4), ms.float32),)),
    ("expand_squeeze_in_if", ExpandSqueezeInIf, lambda: (T([[1.0, -2.0], [3.0, -4.0]], ms.float32),)),
    ("where_softmax_cond", WhereSoftmaxCond, lambda: (T([[1.0, 3.0], [0.0, 0.1]], ms.float32),)),
    ("where_softmax_cond_else", WhereSoftmaxCond, lambda: (T([[1.0, 1.0], [1.0, 1.0]], ms.float32),)),
    ("mixed_float_int_scalars", MixedFloatIntScalars, lambda: (T([1, 2], ms.int32), 1, 1.5)),
    ("mixed_float_int_scalars_small", MixedFloatIntScalars, lambda: (T([-1, -2], ms.int32), 1, 0.5)),
    ("rows_to_stack_then_return", StopOnNegativeSum, lambda: (T([[1.0, -3.0], [2.0, 2.0]], ms.float32),)),
    ("item_assign_slice", ItemAssignSlice, lambda: (T([[1.0, 2.0], [3.0, 4.0]], ms.float32),)),
    ("item_assign_slice_else", ItemAssignSlice, lambda: (T([[-1.0, 2.0], [3.0, 4.0]], ms.float32),)),
    ("cast_bool", CastBool, lambda: (T([1.0, -2.0, 3.0], ms.float32),)),
    ("jit_class_method_if", UsesJitClass, lambda: (T([1, -3], ms.int32),)),
]


class DynShapeLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))

    def construct(self, x):
        while x.sum() > 1:
            x = x * 0.5
        if x.shape[0] > 1:
            x = x[1:]
        return x


class DynShapeIfJoin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None], dtype=ms.float32))

    def construct(self, x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = ops.zeros_like(x)
        return y, y.shape


class StaticCacheScalar(nn.Cell):
    def construct(self, x, n):
        for i in range(n):
            if x.sum() > i:
                x = x - 1
        return x


TWICE_CASES = [
    ("dyn_shape_set_inputs_loop", DynShapeLoop,
     [lambda: (T(np.ones((4, 3)), ms.float32),), lambda: (T(np.ones((1, 3)), ms.float32),)]),
    ("dyn_shape_set_inputs_if", DynShapeIfJoin,
     [lambda: (T([1.0, 2.0], ms.float32),), lambda: (T([-1.0, 2.0, -5.0], ms.float32),)]),
    ("cache_per_python_scalar", StaticCacheScalar,
     [lambda: (T([3.0, 1.0]), 2), lambda: (T([3.0, 1.0]), 4), lambda: (T([3, 1], ms.int32), 2)]),
]
