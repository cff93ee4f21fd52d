"""Quickstart: one Cell, run eagerly and as a graph, and the IR it becomes."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


class Scale(nn.Cell):
    """Scales rows by a factor, clipping large results: straight-line code."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor          # a Python number: folded into the graph
        self.relu = ops.ReLU()

    def construct(self, x, bias):
        y = self.relu(x * self.factor + bias)
        return ops.minimum(y, 10.0), y.sum(axis=1)


def main():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
    bias = ms.Tensor(np.array([1.0, 0.0, -1.0], np.float32))

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = Scale(3.0)(x, bias)
    print("eager :", eager[0], eager[1], sep="\n")

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Scale(3.0)
    graph = net(x, bias)
    print("graph :", graph[0], graph[1], sep="\n")

    print("\nThe graph it was compiled to:")
    print(net.compile_cache()[0].graph)

    assert np.array_equal(eager[0].asnumpy(), graph[0].asnumpy())
    assert np.array_equal(eager[1].asnumpy(), graph[1].asnumpy())
    print("\nboth modes agree")


if __name__ == "__main__":
    main()
