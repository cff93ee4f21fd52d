"""Round 2: ms.compile with TensorSpecs of unknown dims, run on several shapes, via
model(*inputs), infer requests (sync and start_async/wait) and export/import; programs
whose results include Python counters; @ms.jit as a Cell class decorator; print in a
jit function's tensor loop."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops, Tensor


def arr(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


class RowNormLoop(nn.Cell):
    def construct(self, x):
        n = x.shape[0]
        out = x
        i = 0
        while i < n:
            if out[i].sum() > 1:
                out = out / 2
            i += 1
        return out, out.sum(axis=1)


class CountSteps(nn.Cell):
    def construct(self, x):
        steps = 0
        while x.sum() < 100:
            x = x * 3
            steps += 1
        return x, steps


@ms.jit
class JitDecoratedCell(nn.Cell):
    def construct(self, x):
        for _ in range(3):
            if x.max() > 4:
                x = x - 4
            else:
                x = x * 2
        return x


@ms.jit
def jit_print_loop(x):
    i = Tensor(0, ms.int32)
    while i < 3:
        if x[0] > 1:
            print("gt", i)
        else:
            print("le", i)
        x = x + 1
        i = i + 1
    return x


class PrintIfInWhile(nn.Cell):
    def construct(self, x):
        while x.sum() < 10:
            if x[0] > 1:
                print("gt", x)
            else:
                print("le")
            x = x + 1
        return x


# (name, make, specs, [make_inputs, ...])
SPEC_COMPILE_CASES = [
    ("r2_spec_row_norm_loop", RowNormLoop, (ms.TensorSpec([None, 3], ms.float32),),
     [lambda: (arr([[1, 2, 3], [0, 0, 0.5]]),), lambda: (arr([[0.1, 0.2, 0.3]]),),
      lambda: (arr(np.arange(15).reshape(5, 3)),)]),
    ("r2_spec_count_steps", CountSteps, (ms.TensorSpec([None], ms.float32),),
     [lambda: (arr([1, 2]),), lambda: (arr([10, 20, 30, 40]),)]),
]

COMPILE_CASES = [
    ("r2_compile_count_steps", CountSteps, lambda: (arr([1, 2]),)),
    ("r2_compile_jit_decorated_cell", JitDecoratedCell, lambda: (arr([1, 5]),)),
]

CASES = [
    ("r2_jit_decorated_cell", JitDecoratedCell, lambda: (arr([1, 5]),)),
    ("r2_row_norm_loop", RowNormLoop, lambda: (arr([[1, 2, 3], [0, 0, 0.5]]),)),
]

PRINT_CASES = [
    ("r2_print_jit_loop", lambda: jit_print_loop, lambda: (arr([0.5, 2]),)),
    ("r2_print_if_in_while", PrintIfInWhile, lambda: (arr([0.5, 2]),)),
]
