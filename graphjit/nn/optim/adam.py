"""MindSpore's `mindspore.nn.optim.adam`: Adam and AdamWeightDecay."""
from __future__ import annotations

import numpy as np

from ... import ops
from ...ir.dtypes import float32 as ms_float32
from .optimizer import _number, Optimizer
from ...common.parameter import Parameter

__all__ = ["Adam", "AdamWeightDecay"]


class Adam(Optimizer):
    """Adam: moments m and v per Parameter and the powers of beta1 and beta2, all
    Parameters updated each step (MindSpore's nn.Adam over the Adam op)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise TypeError(f"Adam() got an unexpected keyword argument "
                            f"'{sorted(unknown)[0]}'")
        # use_lazy updates only the rows a sparse gradient touches and use_offload runs
        # the update on the host: with dense gradients both give Adam's values
        self.use_lazy = bool(kwargs.get("use_lazy", False))
        self.use_offload = bool(kwargs.get("use_offload", False))
        if use_amsgrad:
            raise ValueError("Adam: use_amsgrad=True is not supported by graphjit")
        for name, v in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 < _number(v, name, "Adam") < 1.0:
                raise ValueError(f"Adam: {name} must be in (0, 1), got {v}")
        eps = _number(eps, "eps", "Adam", 0.0, low_ok=False)
        self.beta1 = Parameter(np.asarray(beta1, np.float32), name="beta1", requires_grad=False)
        self.beta2 = Parameter(np.asarray(beta2, np.float32), name="beta2", requires_grad=False)
        self.eps = Parameter(np.asarray(eps, np.float32), name="eps", requires_grad=False)
        self.beta1_power = Parameter(np.asarray(1.0, np.float32), name="beta1_power",
                                     requires_grad=False)
        self.beta2_power = Parameter(np.asarray(1.0, np.float32), name="beta2_power",
                                     requires_grad=False)
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")
        self.opt = ops.Adam(use_locking=bool(use_locking), use_nesterov=bool(use_nesterov))

    def construct(self, gradients):
        params = self._parameters
        gradients = self.prepare(gradients)
        lr = self.get_lr()
        self.beta1_power = self.beta1_power * self.beta1
        self.beta2_power = self.beta2_power * self.beta2
        out = ()
        for i in range(len(params)):
            out += (self.opt(params[i], self.moment1[i], self.moment2[i], self.beta1_power,
                             self.beta2_power, self.lr_of(lr, i), self.beta1, self.beta2,
                             self.eps, gradients[i])[0],)
        return out


class AdamWeightDecay(Optimizer):
    """Adam with decoupled weight decay and no bias correction, as MindSpore's
    nn.AdamWeightDecay: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
    update = m / (sqrt(v) + eps) (+ weight_decay * parameter for the Parameters that
    decay: names without 'beta' or 'gamma', or as grouped); parameter -= lr * update."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        cls = "AdamWeightDecay"
        for name, v in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 < _number(v, name, cls) < 1.0:
                raise ValueError(f"{cls}: {name} must be in (0, 1), got {v}")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps = _number(eps, "eps", cls, 0.0, low_ok=False)
        self.moments1 = self._parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self._parameters.clone(prefix="adam_v", init="zeros")

    def construct(self, gradients):
        params = self._parameters
        gradients = self.scale_grad(self.flatten_gradients(gradients))
        lr = self.get_lr()
        out = ()
        for i in range(len(params)):
            g = ops.cast(gradients[i], ms_float32)
            p = params[i]
            m = self.moments1[i] * self.beta1 + g * (1.0 - self.beta1)
            v = self.moments2[i] * self.beta2 + ops.square(g) * (1.0 - self.beta2)
            update = m / (ops.sqrt(v) + self.eps)
            if self.decays[i] > 0:
                update = update + p * self.decays[i]
            ops.assign(self.moments1[i], m)
            ops.assign(self.moments2[i], v)
            out += (ops.assign(p, p - self.lr_of(lr, i) * update),)
        return out
