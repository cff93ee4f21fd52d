"""eliminate_dead_values keeps the back edge of a carried value that only feeds other
carried values (found by the front-end fuzz test: c feeds b, b feeds t5, and only t5
is used after the loop; dropping c's back edge gave every iteration c's first value)."""
import numpy as np

import graphjit as ms
from graphjit import ops
from helpers import run_both


def carried_through_another(x, y, s):
    a = x
    b = y
    c = x * 0
    if b.sum() > s:
        w5 = 0
        while w5 < 3 and y.sum() > -2:
            w5 = w5 + 1
            t5 = b * 0.5 + b
            b = ops.maximum(a, c)
            c = y
        c = t5 * 0.5
    b = a * 0.5 + a
    return a + b * c


def test_a_carried_value_needed_only_through_another_keeps_its_back_edge():
    for xs, ys, s in [([0.5, -1.0, 2.0], [1.0, 0.25, -0.5], 0.5),
                      ([-2.0, -1.0, -0.5], [3.0, 1.0, 0.0], -1.0)]:
        run_both(lambda: carried_through_another, ms.Tensor(np.asarray(xs, np.float32)),
                 ms.Tensor(np.asarray(ys, np.float32)), ms.Tensor(np.float32(s)))
