"""MindSpore's `mindspore.nn.optim.ada_grad`: Adagrad."""
from __future__ import annotations

from ... import ops
from .optimizer import _number, Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: accum += gradient ** 2; parameter -= lr * gradient / sqrt(accum), the
    accumulators starting at `accum`."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum = self._parameters.clone(prefix="accum",
                                            init=_number(accum, "accum", "Adagrad"))
        self.opt = ops.ApplyAdagrad(update_slots=bool(update_slots))

    def construct(self, gradients):
        params = self._parameters
        gradients = self.prepare(gradients)
        lr = self.get_lr()
        out = ()
        for i in range(len(params)):
            out += (self.opt(params[i], self.accum[i], self.lr_of(lr, i), gradients[i])[0],)
        return out
