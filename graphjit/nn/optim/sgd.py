"""MindSpore's `mindspore.nn.optim.sgd`: SGD."""
from __future__ import annotations

import numpy as np

from ... import ops
from .optimizer import _number, Optimizer
from ...common.parameter import Parameter

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, with momentum, dampening and Nesterov momentum
    (MindSpore's SGD op: the first step takes the gradient as the momentum state)."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0,
                 weight_decay=0.0, nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _number(momentum, "momentum", "SGD")
        dampening = _number(dampening, "dampening", "SGD")
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("SGD: nesterov needs momentum > 0 and dampening 0")
        self.momentum = Parameter(np.asarray(momentum, np.float32), name="momentum",
                                  requires_grad=False)
        self.accum = self._parameters.clone(prefix="accum", init="zeros")
        self.stat = self._parameters.clone(prefix="stat", init="ones")
        self.opt = ops.SGD(dampening, 0.0, bool(nesterov))

    def construct(self, gradients):
        params = self._parameters
        gradients = self.prepare(gradients)
        lr = self.get_lr()
        out = ()
        for i in range(len(params)):
            out += (self.opt(params[i], gradients[i], self.lr_of(lr, i), self.accum[i],
                             self.momentum, self.stat[i]),)
        return out
