"""Programs that MindSpore documents as graph-mode errors: the error class (a
subclass of the builtin MindSpore raises) and a message naming this file and the
offending line's source text."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class SingleIfNet(nn.Cell):
    """The tutorial's ShapeJoin example: shapes () and (2,)."""
    def construct(self, x, y, z):
        if x < y:
            out = x
        else:
            out = z
        out = out + 1
        return out


class ExpandDimsInWhile(nn.Cell):
    """The tutorial's while example: the loop changes the rank."""
    def __init__(self):
        super().__init__()
        self.expand_dims = ops.ExpandDims()

    def construct(self, x, y, i):
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + 1
            out = self.expand_dims(out, -1)
            i = i + 1
        return out


class ConcatInWhile(nn.Cell):
    def construct(self, x):
        while x.sum() < 100:
            x = ops.concat((x, x), 0)
        return x


class ShapeJoinDimMismatch(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = x[:, :4]
        else:
            out = x
        return out


class TypeJoinIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = x.astype(ms.int32)
        else:
            out = x * 2
        return out


class TypeJoinWhile(nn.Cell):
    def construct(self, x, n):
        acc = ops.zeros_like(n)
        while n > 0:
            acc = acc + x
            n = n - 1
        return acc


class NoneJoinIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            best = x
        else:
            best = None
        return best


class UndefinedInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            y = x * 2
        return y


class UndefinedAfterWhile(nn.Cell):
    def construct(self, x):
        while x.sum() < 10:
            last = x
            x = x + 1
        return last


class UndefinedName(nn.Cell):
    def construct(self, x):
        return x + not_defined_anywhere  # noqa: F821


class TryInConstruct(nn.Cell):
    def construct(self, x):
        try:
            x = x + 1
        except ValueError:
            x = x - 1
        return x


class IntFloatScalarJoin(nn.Cell):
    """MindSpore: Type Join Failed for Int64 and Float32 scalars."""
    def construct(self, x, a, b):
        if x.sum() > 0:
            r = a * 2
        else:
            r = b * 3
        return r


_err = ms.ShapeJoinError, ms.TypeJoinError, ms.UndefinedVariableError, ms.UnsupportedSyntaxError

ERROR_CASES = [
    ("err_tutorial_single_if_shape_join", SingleIfNet,
     lambda: (T(0, ms.int32), T(1, ms.int32), T([1, 2], ms.int32)),
     ms.ShapeJoinError, ValueError, "if x < y:"),
    ("err_tutorial_expand_dims_in_while", ExpandDimsInWhile,
     lambda: (T(0, ms.int32), T(1, ms.int32), T(0, ms.int32)),
     ms.ShapeJoinError, ValueError, "out = self.expand_dims(out, -1)"),
    ("err_concat_in_while", ConcatInWhile, lambda: (T([1.0, 2.0]),),
     ms.ShapeJoinError, ValueError, "x = ops.concat((x, x), 0)"),
    ("err_shape_join_dim_mismatch", ShapeJoinDimMismatch, lambda: (T(np.ones((3, 5), np.float32)),),
     ms.ShapeJoinError, ValueError, "out = x[:, :4]"),
    ("err_type_join_if", TypeJoinIf, lambda: (T([1.0, 2.0]),),
     ms.TypeJoinError, TypeError, "out = x.astype(ms.int32)"),
    ("err_type_join_while", TypeJoinWhile, lambda: (T([1.5, 2.0]), T(3, ms.int32)),
     ms.TypeJoinError, TypeError, "acc = acc + x"),
    ("err_none_join_if", NoneJoinIf, lambda: (T([1.0, 2.0]),),
     ms.TypeJoinError, TypeError, "best = None"),
    ("err_undefined_in_if", UndefinedInIf, lambda: (T([1.0, 2.0]),),
     ms.UndefinedVariableError, NameError, "return y"),
    # the loop runs zero times: eager and graph mode raise UnboundLocalError when `last` is
    # read (graph mode when the graph runs); with other inputs both return a value
    ("err_undefined_after_while", UndefinedAfterWhile, lambda: (T([10.0, 2.0]),),
     ms.GraphRuntimeError, UnboundLocalError, "return last"),
    ("err_undefined_name", UndefinedName, lambda: (T([1.0, 2.0]),),
     ms.UndefinedVariableError, NameError, "return x + not_defined_anywhere"),
    ("err_int_float_scalar_join", IntFloatScalarJoin, lambda: (T([1, 2], ms.int32), 1, 1.5),
     ms.TypeJoinError, TypeError, "r = b * 3"),
    ("err_try_unsupported", TryInConstruct, lambda: (T([1.0, 2.0]),),
     ms.UnsupportedSyntaxError, SyntaxError, "try:"),
]
