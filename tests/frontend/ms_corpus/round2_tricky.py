"""Round 2: corners — iterating a tensor that the body rebinds, dicts built in branches,
lists grown under tensor conditions, comprehensions with tensor conditions, builtin
max/min/sum/any over tensors, star unpacking, nonlocal counters, isinstance/len in
construct, early return from while True nested in a for, keyword calls of construct."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class RebindIteratedTensor(nn.Cell):
    def construct(self, x):
        for row in x:
            if row > 0:
                x = x * 10
            x = x + row
        return x


class DictFromBranches(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            d = {"a": x, "b": x * 2}
        else:
            d = {"a": -x, "b": x}
        d["c"] = d["a"] + d["b"]
        return d


class ListGrownUnderTensorCond(nn.Cell):
    def construct(self, x):
        items = [x]
        for i in range(3):
            if x.sum() > i:
                items[0] = items[0] + 1
        items.append(x * 3)
        return items


class ComprehensionTensorCond(nn.Cell):
    def construct(self, a, b, c):
        xs = (a, b, c)
        ys = [t * 2 if t.sum() > 0 else t - 1 for t in xs]
        return ops.stack(ys), [t.sum() for t in ys]


class BuiltinMaxMinSum(nn.Cell):
    def construct(self, a, b):
        m = max(a.sum(), b.sum())
        n = min(a.max(), b.max())
        s = sum([a, b, a])
        if m > n:
            s = s - 1
        return m, n, s


class StarUnpack(nn.Cell):
    def construct(self, xs):
        first, *rest = xs
        for t in rest:
            if t.sum() > first.sum():
                first = t
        return first, len(rest)


class NonlocalCounter(nn.Cell):
    def construct(self, x):
        calls = 0

        def bump(t):
            nonlocal calls
            calls += 1
            return t + 1 if t.sum() > 0 else t - 1

        for _ in range(3):
            x = bump(x)
        return x, calls


class IsinstanceLen(nn.Cell):
    def construct(self, x, y):
        if isinstance(y, Tensor):
            x = x + y
        n = len(x)
        for i in range(n):
            if x[i] > 2:
                x = x - i
        return x, n


class ReturnFromWhileTrueInFor(nn.Cell):
    def construct(self, x):
        for i in range(3):
            k = 0
            while True:
                k += 1
                x = x + 1
                if x.sum() > 12:
                    return x, i
                if k >= 2:
                    break
        return x, -1


class AugAssignListItem(nn.Cell):
    def construct(self, x):
        acc = [x * 0, x * 0]
        for i in range(4):
            if x[i % 2] > 0:
                acc[i % 2] += x
            else:
                acc[(i + 1) % 2] -= x
        return acc[0], acc[1]


class TernaryChain(nn.Cell):
    def construct(self, x):
        y = x * 2 if x.sum() > 5 else (x * 3 if x.sum() > 0 else -x)
        z = (x > 0) & (y < 10)
        return y, z, ops.where(z, y, x)


class ShortCircuitMixed(nn.Cell):
    def construct(self, x, flag):
        if flag and x.sum() > 0:
            x = x + 1
        if not flag or x.max() > 2:
            x = x * 2
        if x.sum() > 100 or x.min() < 0:
            x = x - 1
        return x


class NestedCellListIndexed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([nn.SequentialCell([nn.ReLU(), nn.Tanh()]), nn.Sigmoid()])

    def construct(self, x):
        for i in range(len(self.blocks)):
            if x.sum() > i:
                x = self.blocks[i](x)
            else:
                x = self.blocks[-1 - i](x) - 1
        return x


class KeywordConstruct(nn.Cell):
    def construct(self, x, y=None, scale=1.0):
        if y is None:
            y = x
        if (x * y).sum() > 0:
            return x * scale + y
        return x - y * scale


CASES = [
    ("r2_rebind_iterated_tensor", RebindIteratedTensor, lambda: (arr([1, -2, 3]),)),
    ("r2_list_grown_under_tensor_cond", ListGrownUnderTensorCond, lambda: (arr([1, 0.5]),)),
    ("r2_comprehension_tensor_cond", ComprehensionTensorCond, lambda: (arr([1, 2]), arr([-1, -2]), arr([3, -4]))),
    ("r2_builtin_max_min_sum", BuiltinMaxMinSum, lambda: (arr([1, 2]), arr([3, -4]))),
    ("r2_star_unpack", StarUnpack, lambda: ((arr([1, 2]), arr([3, -4]), arr([5, 5])),)),
    ("r2_nonlocal_counter", NonlocalCounter, lambda: (arr([1, -3]),)),
    ("r2_isinstance_len", IsinstanceLen, lambda: (arr([1, 2, 3]), arr([1, 1, 1]))),
    ("r2_isinstance_len_none", IsinstanceLen, lambda: (arr([1, 2, 3]), None)),
    ("r2_return_from_while_true_in_for", ReturnFromWhileTrueInFor, lambda: (arr([1, 2]),)),
    ("r2_return_from_while_true_in_for_late", ReturnFromWhileTrueInFor, lambda: (arr([-5, -4]),)),
    ("r2_aug_assign_list_item", AugAssignListItem, lambda: (arr([1, -2]),)),
    ("r2_ternary_chain", TernaryChain, lambda: (arr([1, -2, 3]),)),
    ("r2_short_circuit_mixed", ShortCircuitMixed, lambda: (arr([1, 2]), True)),
    ("r2_short_circuit_mixed_false", ShortCircuitMixed, lambda: (arr([-1, 2]), False)),
    ("r2_nested_celllist_indexed", NestedCellListIndexed, lambda: (arr([0.5, 0.25]),)),
]

DICT_CASES = [
    ("r2_dict_from_branches", DictFromBranches, lambda: (arr([1, 2]),)),
    ("r2_dict_from_branches_neg", DictFromBranches, lambda: (arr([-1, -2]),)),
]

# (name, make, make_args, make_kwargs): construct called with keyword arguments
KWARG_CASES = [
    ("r2_keyword_construct", KeywordConstruct, lambda: (arr([1, 2]),), lambda: {"scale": 3.0}),
    ("r2_keyword_construct_y", KeywordConstruct, lambda: (), lambda: {"x": arr([1, 2]), "y": arr([-1, -1])}),
]
