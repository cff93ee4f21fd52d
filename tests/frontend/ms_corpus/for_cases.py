"""for over range/tuples/lists/enumerate/zip/CellList/tensor rows."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor
from graphjit.ops import operations as P
import graphjit.common.dtype as mstype


def T(x, dtype=None):
    return Tensor(np.asarray(x), dtype=dtype)


class IfInFor(nn.Cell):
    """The tutorial's IfInForNet."""
    def construct(self, x, y):
        out = 0
        for i in range(0, 3):
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + 1
        return out


class ForTupleAttr(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weights = (1.0, 2.0, 3.0)
        self.mul = P.Mul()

    def construct(self, x):
        out = ops.zeros_like(x)
        for w in self.weights:
            if out.sum() < 5:
                out = out + self.mul(x, w)
        return out


class ForEnumerateList(nn.Cell):
    def construct(self, xs):
        total = xs[0] * 0
        for i, v in enumerate(xs):
            if v.sum() > i:
                total = total + v * i
            else:
                total = total - v
        return total


class ForZip(nn.Cell):
    def construct(self, a, b):
        outs = []
        for x, y in zip(a, b):
            outs.append(ops.maximum(x, y))
        return ops.stack(outs)


class Block(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.relu = nn.ReLU()

    def construct(self, x):
        if x.sum() > 0:
            return self.relu(x - self.k)
        return x * self.k


class ForCellList(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block(1.0), Block(2.0), Block(0.5)])

    def construct(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


class ForSequentialCellIndex(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])

    def construct(self, x):
        for i in range(len(self.seq)):
            if i == 1 and x.sum() < 0:
                continue
            x = self.seq[i](x)
        return x


class ForTensorRows(nn.Cell):
    def construct(self, x):
        acc = x[0] * 0
        for row in x:
            if row.max() > 2:
                acc = acc + row
            else:
                acc = acc - row
        return acc


class ForBreakNested(nn.Cell):
    def construct(self, x):
        out = x
        for i in range(3):
            for j in range(3):
                if out.sum() > 20:
                    break
                out = out + i + j
            if out.sum() > 40:
                break
        return out


class ForContinue(nn.Cell):
    def construct(self, x):
        out = ops.zeros_like(x)
        for i in range(5):
            if i % 2 == 0:
                continue
            if (x * i).sum() > 10:
                continue
            out = out + x * i
        return out


class ForReturnInside(nn.Cell):
    def construct(self, x):
        for i in range(4):
            x = x * 2
            if x.max() > 10:
                return x, i
        return x, -1


class ForThreeDeep(nn.Cell):
    def construct(self, x):
        out = x
        for i in range(2):
            for j in range(2):
                for k in range(2):
                    if (out > 5).any():
                        out = out - (i + j + k)
                    else:
                        out = out + 1
        return out


class ForAppendStack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.expand_dims = P.ExpandDims()
        self.concat = P.Concat(0)

    def construct(self, x):
        items = []
        for i in range(3):
            if x.sum() > i:
                items.append(self.expand_dims(x * i, 0))
            else:
                items.append(self.expand_dims(x, 0))
        return self.concat(items), ops.stack(items)


class ForRangeOnShape(nn.Cell):
    def construct(self, x):
        out = x[0]
        for i in range(1, x.shape[0]):
            out = ops.where(x[i] > out, x[i], out)
        return out


class ForItemAssign(nn.Cell):
    def construct(self, x):
        for i in range(3):
            if x[i] < 0:
                x[i] = 0
            else:
                x[i] = x[i] * 2
        return x


class ForScalarAccumMixed(nn.Cell):
    def construct(self, x):
        count = 0
        total = 0.0
        for i in range(4):
            if i > 1:
                count += 1
                total = total + i * 0.5
            x = x + count
        return x, count, total


class ForMatmulSoftmax(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = P.MatMul()
        self.w = ms.Parameter(Tensor(np.eye(3, dtype=np.float32) * 0.5), name="w")

    def construct(self, x):
        for _ in range(3):
            x = self.matmul(x, self.w)
            if x.sum() < 1:
                x = ops.softmax(x, -1)
        return x


class ForReshapeInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reshape = P.Reshape()

    def construct(self, x):
        out = self.reshape(x, (2, 3))
        for i in range(2):
            if out[i].sum() > 3:
                out = out * 1.0
            else:
                out = out + 1.0
        return self.reshape(out, (-1,))


class ForIndexList(nn.Cell):
    def __init__(self):
        super().__init__()
        self.thresholds = [1, 3, 5]

    def construct(self, x):
        out = x
        for i in range(len(self.thresholds)):
            if x.sum() > self.thresholds[i]:
                out = out + self.thresholds[i]
        return out


class ForTupleOfTensors(nn.Cell):
    def construct(self, x, y, z):
        res = ()
        for t in (x, y, z):
            if t.sum() > 0:
                res = res + (t * 2,)
            else:
                res = res + (t,)
        return res


def helper_clip(v, lo):
    if v.min() < lo:
        return ops.maximum(v, lo)
    return v


class ForHelperFunction(nn.Cell):
    def construct(self, x):
        for lo in (-1.0, 0.0, 1.0):
            x = helper_clip(x, lo) - 0.5
        return x


CASES = [
    ("if_in_for_tutorial", IfInFor, lambda: (T(0, ms.int32), T(1, ms.int32))),
    ("for_tuple_attr", ForTupleAttr, lambda: (T([1.0, 1.0], ms.float32),)),
    ("for_enumerate_list", ForEnumerateList,
     lambda: ([T([1.0, 2.0]), T([0.1, 0.2]), T([3.0, 0.0])],)),
    ("for_zip_stack", ForZip, lambda: ((T([1, 5]), T([3, 2])), (T([2, 2]), T([1, 7])))),
    ("for_celllist_if", ForCellList, lambda: (T([1.0, -3.0, 4.0], ms.float32),)),
    ("for_celllist_if_neg", ForCellList, lambda: (T([-1.0, -3.0, 0.5], ms.float32),)),
    ("for_sequential_index_continue", lambda: (ms.set_seed(1), ForSequentialCellIndex())[1],
     lambda: (T([[1.0, -2.0, 0.5]], ms.float32),)),
    ("for_tensor_rows", ForTensorRows, lambda: (T(np.arange(12).reshape(4, 3), ms.float32),)),
    ("for_break_nested", ForBreakNested, lambda: (T([1.0, 2.0], ms.float32),)),
    ("for_continue", ForContinue, lambda: (T([1, 2], ms.int32),)),
    ("for_return_inside", ForReturnInside, lambda: (T([1.0, 2.0], ms.float32),)),
    ("for_return_inside_never", ForReturnInside, lambda: (T([0.1, 0.2], ms.float32),)),
    ("for_three_deep", ForThreeDeep, lambda: (T([1, 2], ms.int32),)),
    ("for_append_concat_stack", ForAppendStack, lambda: (T([1.0, 0.5], ms.float32),)),
    ("for_range_on_shape_where", ForRangeOnShape, lambda: (T(np.array([[1, 5], [3, 2], [0, 9]]), ms.int32),)),
    ("for_item_assign", ForItemAssign, lambda: (T([1.0, -2.0, 3.0], ms.float32),)),
    ("for_scalar_accum_mixed", ForScalarAccumMixed, lambda: (T([1, 2], ms.int32),)),
    ("for_matmul_softmax_param", ForMatmulSoftmax, lambda: (T([[1.0, 2.0, 3.0]], ms.float32),)),
    ("for_reshape_in_if", ForReshapeInIf, lambda: (T(np.arange(6), ms.float32),)),
    ("for_index_list_attr", ForIndexList, lambda: (T([1, 2], ms.int32),)),
    ("for_tuple_of_tensors", ForTupleOfTensors,
     lambda: (T([1.0]), T([-1, 2], ms.int32), T(-3.0, ms.float16))),
    ("for_helper_function", ForHelperFunction, lambda: (T([-2.0, 0.5, 3.0], ms.float32),)),
]
