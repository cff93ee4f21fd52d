"""MindSpore's `mindspore.nn.optim.ftrl`: FTRL (follow the regularized leader, as
Wide&Deep's wide part trains)."""
from __future__ import annotations

from ... import ops
from .optimizer import _number, Optimizer

__all__ = ["FTRL"]


class FTRL(Optimizer):
    """FTRL-proximal with accumulators `moments` (starting at initial_accum) and `linear`
    (zeros), MindSpore's ApplyFtrl update for each Parameter w with gradient g:

        m' = m + g^2
        u += g - (m'^(-lr_power) - m^(-lr_power)) / lr * w
        w = (sign(u) * l1 - u) / (m'^(-lr_power) / lr + 2 * l2)  if |u| > l1, else 0
        m = m'

    Raises:
        ValueError: initial_accum, l1 or l2 negative, or lr_power positive.
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        cls = "FTRL"
        self.initial_accum = _number(initial_accum, "initial_accum", cls)
        lr_power = float(lr_power) if not isinstance(lr_power, bool) and \
            isinstance(lr_power, (int, float)) else None
        if lr_power is None or lr_power > 0:
            raise ValueError(f"For '{cls}', the 'lr_power' must be a number <= 0, got "
                             f"{lr_power!r}")
        self.lr_power = lr_power
        self.l1 = _number(l1, "l1", cls)
        self.l2 = _number(l2, "l2", cls)
        self.use_locking = bool(use_locking)
        self.moments = self._parameters.clone(prefix="moments", init=self.initial_accum)
        self.linear = self._parameters.clone(prefix="linear", init="zeros")

    def construct(self, grads):
        params = self._parameters
        grads = self.prepare(grads)
        lr = self.get_lr()
        out = ()
        for i in range(len(params)):
            w, g, m, u = params[i], grads[i], self.moments[i], self.linear[i]
            a = self.lr_of(lr, i)
            m_new = m + g * g
            p_new = ops.pow(m_new, -self.lr_power)
            u_new = u + g - (p_new - ops.pow(m, -self.lr_power)) / a * w
            quadratic = p_new / a + 2.0 * self.l2
            w_new = ops.where(ops.abs(u_new) > self.l1,
                              (ops.sign(u_new) * self.l1 - u_new) / quadratic,
                              ops.zeros_like(w))
            ops.assign(m, m_new)
            ops.assign(u, u_new)
            out += (ops.assign(w, w_new),)
        return out
