"""Round 2 follow-ups on the fixes made during the round: dicts carried through loops and
joined across branches, nonlocal counters under tensor conditions, dict and keyword
inputs in several orders, dynamic ranges with other steps."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class DictCarriedByWhile(nn.Cell):
    def construct(self, x):
        d = {"s": x * 0, "p": x * 0 + 1}
        while d["s"].sum() < 10:
            d = {"s": d["s"] + x, "p": d["p"] * 2}
        return d["s"], d["p"]


class DictItemSetInBranch(nn.Cell):
    def construct(self, x):
        d = {"a": x, "b": x}
        if x.sum() > 0:
            d["a"] = x * 3
        else:
            d["b"] = x - 3
        return d["a"], d["b"]


class DictDifferentKeyOrder(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            d = {"a": x, "b": x * 2}
        else:
            d = {"b": x, "a": -x}
        return d["a"] - d["b"]


class NonlocalUnderTensorCond(nn.Cell):
    def construct(self, x):
        hits = 0

        def visit(t):
            nonlocal hits
            if t.sum() > 0:
                hits += 1
            return t - 1

        for _ in range(3):
            x = visit(x)
        return x, hits


class DictInputReversedKeys(nn.Cell):
    def construct(self, d):
        if d["b"].sum() > d["a"].sum():
            return d["b"] - d["a"], d["a"]
        return d["a"], d["b"]


class ManyKwInputs(nn.Cell):
    def construct(self, a, b, c=None, d=None):
        out = a
        if c is not None and c.sum() > 0:
            out = out + c
        if d is not None:
            out = out * d
        return out - b


class DynRangeStep2(nn.Cell):
    def __init__(self):
        super().__init__()
        self.set_inputs(Tensor(shape=[None], dtype=ms.float32))

    def construct(self, x):
        s = x[0] * 0
        for i in range(1, x.shape[0], 2):
            s = s + x[i]
        for i in range(x.shape[0] - 1, 0, -3):
            s = s * 2 - x[i]
        return s


CASES = [
    ("r2_dict_carried_by_while", DictCarriedByWhile, lambda: (arr([1, 2]),)),
    ("r2_dict_item_set_in_branch", DictItemSetInBranch, lambda: (arr([1, 2]),)),
    ("r2_dict_item_set_in_branch_neg", DictItemSetInBranch, lambda: (arr([-1, -2]),)),
    ("r2_dict_different_key_order", DictDifferentKeyOrder, lambda: (arr([1, 2]),)),
    ("r2_nonlocal_under_tensor_cond", NonlocalUnderTensorCond, lambda: (arr([2, 0.5]),)),
    ("r2_dict_input_reversed_keys", DictInputReversedKeys, lambda: ({"b": arr([5, 6]), "a": arr([1, 2])},)),
    ("r2_dyn_range_step2", DynRangeStep2, lambda: (arr([1, 2, 3, 4, 5, 6, 7]),)),
]

KWARG_CASES = [
    ("r2_many_kw_inputs", ManyKwInputs, lambda: (arr([1, 2]),),
     lambda: {"d": arr([2, 2]), "b": arr([0.5, 0.5]), "c": arr([1, -3])}),
    ("r2_many_kw_inputs_partial", ManyKwInputs, lambda: (),
     lambda: {"b": arr([0.5, 0.5]), "a": arr([1, 2]), "c": arr([1, 3])}),
]

TWICE_CASES = [
    ("r2_dyn_range_step2_twice", DynRangeStep2, [lambda: (arr([1, 2, 3]),), lambda: (arr([1]),),
                                                 lambda: (arr(np.arange(10)),)]),
    ("r2_dict_input_order_twice", DictInputReversedKeys,
     [lambda: ({"b": arr([5, 6]), "a": arr([1, 2])},), lambda: ({"a": arr([5, 6]), "b": arr([1, 2])},)]),
]
