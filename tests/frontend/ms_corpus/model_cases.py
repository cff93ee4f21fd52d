"""MindSpore's own test style (tests/st/control/test_cont_break.py and friends):
net.construct(numpy_input) as plain Python against Model(net).predict(Tensor)."""
import numpy as np

import graphjit as ms
from graphjit import nn, Tensor
from graphjit.nn import Cell


class for_loop_with_break(Cell):
    def construct(self, x):
        for i in range(8):
            if i > 5:
                x *= 3
                break
            x = x * 2
        return x


class for_loop_with_continue(Cell):
    def construct(self, x):
        for i in range(8):
            if i > 5:
                x *= 3
                continue
            x = x * 2
        return x


class for_loop_with_cont_break(Cell):
    def construct(self, x):
        for i in range(8):
            if i < 3:
                i *= 2
                continue
            if i > 5:
                x *= 3
                break
            x *= 2
        x = x * 2
        return x


class for_nested_loop_with_break(Cell):
    def construct(self, x):
        for i in range(3):
            for j in range(5):
                if j > 3:
                    x *= 2
                    break
                x = x * 1.5
        return x


class while_with_break(Cell):
    def construct(self, x):
        i = 0
        while i < 5:
            if i > 3:
                x *= 3
                break
            x = x * 2
            i += 1
        return x


class while_with_continue(Cell):
    def construct(self, x):
        i = 0
        while i < 5:
            if i > 3:
                x *= 3
                i += 1
                continue
            x = x * 2
            i += 1
        return x


class while_with_cont_break(Cell):
    def construct(self, x):
        i = 0
        while i < 5:
            if i < 3:
                i *= 2
                i += 1
                continue
            if i > 3:
                x *= 3
                break
            x *= 2
            i += 1
        x = x * 2
        return x


class while_by_while_with_break_on_value(Cell):
    """Condition on the input's value: a variable condition in graph mode,
    a numpy comparison in plain Python."""
    def construct(self, x):
        while x.sum() < 20:
            x = x * 2
            if x.max() > 12:
                break
        while x.sum() > 1:
            x = x - 7
        return x


MODEL_CASES = [
    ("ms_for_loop_with_break", for_loop_with_break, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_for_loop_with_continue", for_loop_with_continue, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_for_loop_with_cont_break", for_loop_with_cont_break, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_for_nested_loop_with_break", for_nested_loop_with_break, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_while_with_break", while_with_break, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_while_with_continue", while_with_continue, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_while_with_cont_break", while_with_cont_break, lambda: (np.ones([2, 2]).astype(np.float32),)),
    ("ms_while_value_cond_break", while_by_while_with_break_on_value,
     lambda: (np.array([1.0, 2.5], np.float32),)),
]

# the same programs also go through the eager/graph comparison on Tensors
CASES = [(name.replace("ms_", "tensor_"), make,
          (lambda mi: (lambda: tuple(Tensor(a) for a in mi())))(mi))
         for name, make, mi in MODEL_CASES]
