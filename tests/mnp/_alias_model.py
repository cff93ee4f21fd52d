"""A model written against MindSpore's names, imported by test_mnp under the module
alias (sys.modules["mindspore"] is graphjit): numpy here is mindspore.numpy, as the model
zoo's GRU utilities write it."""
import mindspore
import mindspore.nn as nn
import mindspore.numpy as np
import mindspore.ops as ops
from mindspore import log as logger


class Reverse(nn.Cell):
    """Reverse along a dim with an index from np.arange counting down."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        logger.info("Reverse along dim %d", dim)

    def construct(self, x):
        dim_size = x.shape[self.dim]
        reversed_indexes = np.arange(dim_size - 1, -1, -1)
        out = ops.Gather()(x, reversed_indexes, self.dim)
        return out + np.ones(x.shape, mindspore.float32) * np.mean(x)
