"""MindSpore's `mindspore.nn.optim.rmsprop`: RMSProp."""
from __future__ import annotations

from ... import ops
from .optimizer import _number, Optimizer

__all__ = ["RMSProp"]


def _unit(v, name, cls):
    v = _number(v, name, cls)
    if not 0.0 <= v < 1.0:
        raise ValueError(f"{cls}: {name} must be in [0, 1), got {v}")
    return v


class RMSProp(Optimizer):
    """RMSProp as MindSpore's nn.RMSProp: ms = decay ms + (1 - decay) g^2 (centered: also
    mg = decay mg + (1 - decay) g, and ms - mg^2 under the root);
    mom = momentum mom + lr g / sqrt(ms + epsilon); parameter -= mom."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        cls = "RMSProp"
        self.decay = _unit(decay, "decay", cls)
        self.momentum = _number(momentum, "momentum", cls)
        self.epsilon = _number(epsilon, "epsilon", cls, 0.0, low_ok=False)
        self.centered = bool(centered)
        self.ms = self._parameters.clone(prefix="mean_square", init="zeros")
        self.moment = self._parameters.clone(prefix="moment", init="zeros")
        if self.centered:
            self.mg = self._parameters.clone(prefix="mean_grad", init="zeros")

    def construct(self, gradients):
        params = self._parameters
        gradients = self.prepare(gradients)
        lr = self.get_lr()
        out = ()
        for i in range(len(params)):
            g = gradients[i]
            ms_ = self.ms[i] * self.decay + ops.square(g) * (1.0 - self.decay)
            ops.assign(self.ms[i], ms_)
            denom = ms_
            if self.centered:
                mg = self.mg[i] * self.decay + g * (1.0 - self.decay)
                ops.assign(self.mg[i], mg)
                denom = ms_ - ops.square(mg)
            mom = self.moment[i] * self.momentum + self.lr_of(lr, i) * g / ops.sqrt(
                denom + self.epsilon)
            ops.assign(self.moment[i], mom)
            out += (ops.assign(params[i], params[i] - mom),)
        return out
