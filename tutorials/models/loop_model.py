"""The model of tutorials/06_command_line.py: a recurrent cell run over the rows of a
sequence, then shrunk until it is small: how many times depends on the data.

    graphjit inspect tutorials/models/loop_model.py:Shrink --input 'float32[None,4]'
"""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


class Shrink(nn.Cell):
    def __init__(self):
        super().__init__()
        w = np.linspace(-0.5, 0.5, 16, dtype=np.float32).reshape(4, 4)
        self.w = ms.Parameter(ms.Tensor(w), name="w")

    def construct(self, x):
        h = ops.zeros((4,), ms.float32)
        hs = []
        for row in x:                       # rows of x: a Loop that slices x
            h = ops.tanh(ops.matmul(row, self.w) + h)
            hs.append(h)                    # stacked into one output of the Loop
        out = ops.stack(hs)
        steps = 0
        while ops.abs(out).sum() > 1.0:     # runs until the data says stop: a Loop
            if out.max() > 0.5:             # depends on the data: an If
                out = out * 0.5
            else:
                out = out * 0.9
            steps += 1
        return out, steps


if __name__ == "__main__":                  # not run by `graphjit ...`
    net = Shrink()
    print(net(ms.Tensor(np.ones((3, 4), np.float32))))
