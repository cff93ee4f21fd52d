"""MindSpore's `mindspore.nn.optim.momentum`: Momentum."""
from __future__ import annotations

import numpy as np

from ... import ops
from .optimizer import _number, Optimizer
from ...common.parameter import Parameter

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """accum = accum * momentum + gradient; parameter -= lr * accum (use_nesterov:
    lr * (gradient + momentum * accum))."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = Parameter(np.asarray(_number(momentum, "momentum", "Momentum"),
                                             np.float32), name="momentum", requires_grad=False)
        self.moments = self._parameters.clone(prefix="moments", init="zeros")
        self.use_nesterov = bool(use_nesterov)
        self.opt = ops.ApplyMomentum(use_nesterov=self.use_nesterov)

    def construct(self, gradients):
        params = self._parameters
        gradients = self.prepare(gradients)
        lr = self.get_lr()
        out = ()
        for i in range(len(params)):
            out += (self.opt(params[i], self.moments[i], self.lr_of(lr, i), gradients[i],
                             self.momentum),)
        return out
