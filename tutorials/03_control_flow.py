"""Control flow in graph mode: constant and variable conditions, unrolling and Loop, and
what happens when a variable's shape cannot be joined.

Graph mode asks one question of every `if`, `while` and `for`: is its condition known
while the graph is built? A constant condition (a Python number, a `self` attribute, a
static shape) runs as plain Python: the `if` keeps only the branch taken, the loop is
unrolled. A variable condition (one that depends on a tensor's value) becomes an `If`
or a `Loop` node, and every variable assigned in it must have one dtype and shape on
every path (the ShapeJoin rules). Each step below prints the IR it compiled to.
"""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


def banner(text):
    print(f"\n=== {text} " + "=" * max(0, 70 - len(text)))


# -- 1. constant conditions fold --------------------------------------------------------------
class Scaled(nn.Cell):
    """`self.double` is known when the graph is built: no If node, one branch kept."""

    def __init__(self, double):
        super().__init__()
        self.double = double

    def construct(self, x):
        if self.double:
            x = x * 2
        else:
            x = x - 1
        return x


# -- 2. variable conditions become If ----------------------------------------------------------
class Clip(nn.Cell):
    """The condition depends on x's values: both branches are built, joined by an If."""

    def construct(self, x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = -x
        return y + 1


# -- 3. constant loops unroll, tensor loops become Loop ------------------------------------------
class Unrolled(nn.Cell):
    """range(3) is a constant: the body is copied three times."""

    def construct(self, x):
        for i in range(3):
            x = x * 2 + i
        return x


class Rolled(nn.Cell):
    """`while i < n` with a tensor n: one Loop node that carries x and i."""

    def construct(self, x, n):
        i = 0
        while i < n:
            x = x * 2 + i
            i = i + 1
        return x


class RowsToList(nn.Cell):
    """A for over a tensor slices it row by row; appends become a concatenated output."""

    def construct(self, xs):
        outs = []
        for row in xs:
            outs.append(ops.relu(row) * 2)
        return ops.stack(outs)


# -- 4. a join that fails ------------------------------------------------------------------------
class Grow(nn.Cell):
    """The same loop with a shape that changes every iteration: ShapeJoin refuses it."""

    def construct(self, x, n):
        i = 0
        while i < n:
            x = ops.concat((x, x))
            i = i + 1
        return x


class GrowFixed(nn.Cell):
    """The fix: keep the carried shape, collect what each iteration makes in a list."""

    def construct(self, x, n):
        i = 0
        parts = []
        while i < n:
            parts.append(x * i)
            i = i + 1
        return ops.stack(parts)


def show(net, *inputs):
    out = net(*inputs)
    print("result:", out)
    print(net.compile_cache()[-1].graph)
    return out


def main():
    x = ms.Tensor(np.array([1.0, -2.0, 3.0], np.float32))
    n = ms.Tensor(np.array(3, np.int32))

    banner("1. constant condition: folded, no If")
    show(Scaled(True), x)
    show(Scaled(False), x)

    banner("2. variable condition: an If node")
    show(Clip(), x)

    banner("3a. constant loop: unrolled three times")
    show(Unrolled(), x)

    banner("3b. tensor loop: one Loop node, x and i carried")
    rolled = Rolled()
    show(rolled, x, n)
    print(ms.explain(rolled, x, n))

    banner("3c. for over a tensor: sliced input, concatenated output")
    show(RowsToList(), ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2) - 2))

    banner("4. a carried shape that changes: ShapeJoinError")
    try:
        Grow()(x, n)
    except ms.ShapeJoinError as e:       # a ValueError, as in MindSpore
        print(e)
    print("\nThe fix, a list of per-iteration values:")
    show(GrowFixed(), x, n)

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = Rolled()(x, n)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert np.array_equal(eager.asnumpy(), Rolled()(x, n).asnumpy())
    print("\nRolled gives the same answer eagerly and as a graph:", eager)


if __name__ == "__main__":
    main()
