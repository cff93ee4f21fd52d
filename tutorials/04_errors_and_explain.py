"""Errors that explain themselves, and ms.explain.

Three mistakes that run in eager mode but cannot become one graph, the message graph
mode prints for each (the file, line and column, the source line underlined, the
variable, both sides with the line that assigned each, and a fix), the fix, and then the
explain report of the fixed model: what became of each if/while/for, and why each
compile-cache entry was compiled. docs/errors.md lists every error class.
"""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


def banner(text):
    print(f"\n=== {text} " + "=" * max(0, 70 - len(text)))


# -- mistake 1: two shapes for one variable ------------------------------------------------------
class PadOrKeep(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = x
        else:
            out = ops.concat((x, ops.zeros((1,), ms.float32)))   # one element longer
        return out * 2


class PadOrKeepFixed(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            out = ops.concat((x, ops.zeros((1,), ms.float32)))
        else:
            out = ops.concat((x, ops.zeros((1,), ms.float32)))
        return out * 2


# -- mistake 2: an accumulator of the wrong dtype in a loop ----------------------------------------
class RowSum(nn.Cell):
    def construct(self, rows):
        total = ops.zeros((3,), ms.int32)      # int32; the rows are float32
        for row in rows:
            total = total + row
        return total


class RowSumFixed(nn.Cell):
    def construct(self, rows):
        total = ops.zeros((3,), ms.float32)
        for row in rows:
            total = total + row
        return total


# -- mistake 3: a name assigned on one path only ----------------------------------------------
class Scale(nn.Cell):
    def construct(self, x):
        if x.max() > 10:
            scale = 0.1
        return x * scale


class ScaleFixed(nn.Cell):
    def construct(self, x):
        scale = 1.0
        if x.max() > 10:
            scale = 0.1
        return x * scale


# -- the model explained -------------------------------------------------------------------------
class Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.normalize = True

    def construct(self, x, rows, steps):
        if self.normalize:
            x = x / (ops.abs(x).max() + 1)
        total = ops.zeros((3,), ms.float32)
        for row in rows:
            total = total + row
        i = 0
        while i < steps:
            total = total * 0.5 + x
            i = i + 1
        for k in range(2):
            total = total + k
        return ScaleFixed()(total)


def try_both(broken, fixed, *inputs):
    """Run the broken Cell in graph mode (it fails), then the fixed one in both modes."""
    try:
        broken()(*inputs)
        raise AssertionError("expected a graphjit error")
    except ms.GraphJitError as e:
        print(f"{type(e).__name__} (an instance of "
              f"{[c.__name__ for c in type(e).__mro__ if c.__module__ == 'builtins'][0]}):")
        print(e)
        print(f"\n  e.line = {e.line}, e.names = {e.names}")
    out = fixed()(*inputs)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fixed()(*inputs)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert np.allclose(out.asnumpy(), eager.asnumpy())
    print(f"\nFixed: {out} (eager mode agrees)")


def main():
    x = ms.Tensor(np.array([-1.0, -2.0, 0.5], np.float32))
    rows = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    steps = ms.Tensor(np.array(3, np.int32))

    banner("Mistake 1: `out` is (3) in one branch and (4) in the other")
    try_both(PadOrKeep, PadOrKeepFixed, x)

    banner("Mistake 2: an int32 accumulator that adds float32 rows in a Loop")
    try_both(RowSum, RowSumFixed, rows)

    banner("Mistake 3: `scale` is assigned only when the condition holds")
    try_both(Scale, ScaleFixed, x)

    banner("explain: what each if/while/for became")
    model = Model()
    model(x, rows, steps)
    print(ms.explain(model, x, rows, steps))

    banner("explain: why each compile-cache entry exists")
    more_rows = ms.Tensor(np.ones((5, 3), np.float32))
    model(x, more_rows, steps)                  # rows has a new shape: compiled again
    model.normalize = False                     # a constant the graph folded changed
    print(ms.explain(model, x, more_rows, steps))

    banner("check_equivalence: run each new signature eagerly too and compare")
    ms.set_context(check_equivalence=True)
    print(Model()(x, rows, steps), "(graph mode and eager mode agree)")
    ms.set_context(check_equivalence=False)


if __name__ == "__main__":
    main()
