"""Optimizers (MindSpore 2.x's nn.SGD, nn.Momentum, nn.Adam, nn.Adagrad): Cells whose
construct(gradients) applies an optimizer op to each Parameter, in both modes.

    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    opt(grads)           # one tensor per Parameter, in the order of opt.parameters

The optimizer's own state (moments, accumulators, the learning rate, the step count)
are Parameters too, so a compiled training step reads and updates them when it runs.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import ops
from .common.parameter import ParameterTuple
from .ir.dtypes import float32 as ms_float32
from .nn import Cell
from .parameter import Parameter
from .tensor import Tensor

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "Adagrad", "AdamWeightDecay", "RMSProp",
           "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "piecewise_constant_lr", "warmup_lr"]


def _number(v, what, cls, low=0.0, low_ok=True):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls}: {what} must be a number, got {v!r}")
    v = float(v)
    if v < low or (v == low and not low_ok):
        raise ValueError(f"{cls}: {what} must be {'>=' if low_ok else '>'} {low}, got {v}")
    return v


def _lr_parameter(lr, name, cls):
    """A learning rate as a Parameter: 0-d for a fixed one, 1-D for one per step (a
    list or a 1-D Tensor: step i takes value i, the last one after the end)."""
    if isinstance(lr, Tensor):
        arr = lr.asnumpy().astype(np.float32)
    elif isinstance(lr, (list, tuple)):
        arr = np.asarray(lr, np.float32)
    else:
        arr = np.asarray(_number(lr, "learning_rate", cls), np.float32)
    if arr.ndim > 1 or arr.size == 0 or np.any(arr < 0):
        raise ValueError(f"{cls}: learning_rate must be a non-negative number or a non-empty "
                         f"1-D sequence of them, got {lr!r}")
    return Parameter(arr, name=name, requires_grad=False), arr.ndim == 1


class Optimizer(Cell):
    """Base of optimizers: the Parameters (or groups of them, dicts with 'params' and
    optionally 'lr' and 'weight_decay'; a dict with 'order_params' fixes the order),
    the learning rate (fixed or per step), weight decay (L2, for Parameters whose names
    hold neither 'beta' nor 'gamma' unless grouped) and loss scale (gradients are
    divided by it)."""

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__()
        cls = type(self).__name__
        params, lrs, decays, order = [], [], [], None
        items = list(parameters) if parameters is not None else []
        if not items:
            raise ValueError(f"{cls}: the optimizer got no Parameters")
        grouped = isinstance(items[0], dict)
        weight_decay = _number(weight_decay, "weight_decay", cls)
        self.loss_scale = _number(loss_scale, "loss_scale", cls, 0.0, low_ok=False)
        lr_index = []
        for g in items if grouped else [{"params": items}]:
            if not isinstance(g, dict):
                raise TypeError(f"{cls}: parameter groups are dicts, got {type(g).__name__}")
            if "order_params" in g:
                order = list(g["order_params"])
                continue
            group = list(g["params"])
            for p in group:
                if not isinstance(p, Parameter):
                    raise TypeError(f"{cls}: parameters must be Parameters, got "
                                    f"{type(p).__name__}")
            lrs.append(g.get("lr", learning_rate))
            wd = _number(g.get("weight_decay", weight_decay), "weight_decay", cls)
            for p in group:
                params.append(p)
                lr_index.append(len(lrs) - 1)
                decays.append(wd if grouped or ("beta" not in str(p.name) and
                                                "gamma" not in str(p.name)) else 0.0)
        if order is not None:
            pos = {id(p): i for i, p in enumerate(params)}
            missing = [p.name for p in order if id(p) not in pos]
            if missing or len(order) != len(params):
                raise ValueError(f"{cls}: order_params must hold exactly the grouped "
                                 f"Parameters (not grouped: {missing})")
            perm = [pos[id(p)] for p in order]
            params = [params[i] for i in perm]
            lr_index = [lr_index[i] for i in perm]
            decays = [decays[i] for i in perm]
        made = [_lr_parameter(lr, "learning_rate" if len(lrs) == 1 else
                              f"learning_rate_group_{i}", cls) for i, lr in enumerate(lrs)]
        dynamic = {d for _, d in made}
        if len(dynamic) > 1:
            raise ValueError(f"{cls}: give every group a fixed learning rate or every group "
                             f"one per step, not both")
        self.parameters = self._parameters = ParameterTuple(params)
        self.learning_rates = tuple(p for p, _ in made)
        self.learning_rate = self.learning_rates[0]
        self.dynamic_lr = dynamic.pop()
        self.is_group_lr = len(lrs) > 1
        self.lr_index = tuple(lr_index)
        self.decays = tuple(decays)
        self.weight_decay = weight_decay
        self.exec_weight_decay = any(d > 0 for d in decays)
        self.need_scale = self.loss_scale != 1.0
        self.reciprocal_scale = 1.0 / self.loss_scale
        self.global_step = Parameter(np.zeros((1,), np.int32), name="global_step",
                                     requires_grad=False)

    def decay_weight(self, gradients):
        """gradient + weight_decay * parameter, for the Parameters that decay."""
        if not self.exec_weight_decay:
            return gradients
        out = ()
        for i in range(len(self._parameters)):
            g = gradients[i]
            if self.decays[i] > 0:
                g = g + self._parameters[i] * self.decays[i]
            out += (g,)
        return out

    def scale_grad(self, gradients):
        """The gradients divided by the loss scale."""
        if not self.need_scale:
            return gradients
        return tuple(g * self.reciprocal_scale for g in gradients)

    def flatten_gradients(self, gradients):
        if len(gradients) != len(self._parameters):
            raise ValueError(f"{type(self).__name__} updates {len(self._parameters)} "
                             f"Parameters but got {len(gradients)} gradients")
        return gradients

    def get_lr(self):
        """The learning rate of this step (a tuple of one per group with grouped rates);
        one per step advances the step count."""
        if not self.dynamic_lr:
            return self.learning_rates if self.is_group_lr else self.learning_rate
        step = self.global_step
        lrs = ()
        for lr in self.learning_rates:
            last = lr.shape[0] - 1
            lrs += (ops.reshape(ops.gather(lr, ops.minimum(step, last), 0), ()),)
        ops.assign_add(self.global_step, 1)
        return lrs if self.is_group_lr else lrs[0]

    def lr_of(self, lr, i):
        """The learning rate of Parameter i, from get_lr's value."""
        if self.is_group_lr:
            return lr[self.lr_index[i]]
        return lr

    def prepare(self, gradients):
        """The gradients each update takes: counted, decayed and scaled."""
        gradients = self.flatten_gradients(gradients)
        gradients = self.decay_weight(gradients)
        return self.scale_grad(gradients)


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


class Adam(Optimizer):
    """Adam: moments m and v per Parameter and the powers of beta1 and beta2, all
    Parameters updated each step (MindSpore's nn.Adam over the Adam op)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
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



def _unit(v, name, cls):
    v = _number(v, name, cls)
    if not 0.0 <= v < 1.0:
        raise ValueError(f"{cls}: {name} must be in [0, 1), got {v}")
    return v


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


# -- learning rate schedules (MindSpore's nn.*_lr: a list with one rate per step) ---------
def _steps(total_step, step_per_epoch, decay_epoch, fn):
    for name, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                    ("decay_epoch", decay_epoch)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{fn}: {name} must be a positive int, got {v!r}")


def _decayed(fn, total_step, step_per_epoch, decay_epoch, is_stair, rate):
    """[rate(p) for each step], p the epoch over decay_epoch (floored with is_stair)."""
    _steps(total_step, step_per_epoch, decay_epoch, fn)
    out = []
    for i in range(total_step):
        p = (i // step_per_epoch) / decay_epoch
        out.append(rate(math.floor(p) if is_stair else p))
    return out


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch,
                         decay_epoch, is_stair=False):
    """lr * decay_rate ^ (epoch / decay_epoch) for each step (floored with is_stair)."""
    return _decayed("exponential_decay_lr", total_step, step_per_epoch, decay_epoch,
                    is_stair, lambda p: learning_rate * decay_rate ** p)


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch,
                         decay_epoch, is_stair=False):
    """lr * e ^ (-decay_rate * epoch / decay_epoch) for each step."""
    return _decayed("natural_exp_decay_lr", total_step, step_per_epoch, decay_epoch,
                    is_stair, lambda p: learning_rate * math.exp(-decay_rate * p))


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """lr / (1 + decay_rate * epoch / decay_epoch) for each step."""
    return _decayed("inverse_decay_lr", total_step, step_per_epoch, decay_epoch, is_stair,
                    lambda p: learning_rate / (1 + decay_rate * p))


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + (max_lr - min_lr) (1 + cos(pi * epoch / decay_epoch)) / 2 for each step,
    the epoch held at decay_epoch once it gets there."""
    _steps(total_step, step_per_epoch, decay_epoch, "cosine_decay_lr")
    out = []
    for i in range(total_step):
        e = min(i // step_per_epoch, decay_epoch)
        out.append(min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * e / decay_epoch)))
    return out


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    """(lr - end) (1 - epoch / decay_epoch) ^ power + end for each step."""
    _steps(total_step, step_per_epoch, decay_epoch, "polynomial_decay_lr")
    out = []
    for i in range(total_step):
        e = i // step_per_epoch
        d = decay_epoch
        if update_decay_epoch:
            d = decay_epoch * max(1, math.ceil(e / decay_epoch))
        else:
            e = min(e, decay_epoch)
        out.append((learning_rate - end_learning_rate) * (1 - e / d) ** power
                   + end_learning_rate)
    return out


def piecewise_constant_lr(milestone, learning_rates):
    """learning_rates[k] for the steps before milestone[k] (milestones increasing)."""
    if len(milestone) != len(learning_rates):
        raise ValueError("piecewise_constant_lr: milestone and learning_rates must have "
                         "the same length")
    out, last = [], 0
    for m, lr in zip(milestone, learning_rates):
        if not isinstance(m, int) or m <= last:
            raise ValueError(f"piecewise_constant_lr: milestones must be increasing "
                             f"positive ints, got {list(milestone)}")
        out += [lr] * (m - last)
        last = m
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(epoch, warmup_epoch) / warmup_epoch for each step (epoch from 0)."""
    _steps(total_step, step_per_epoch, warmup_epoch, "warmup_lr")
    return [learning_rate * min(i // step_per_epoch, warmup_epoch) / warmup_epoch
            for i in range(total_step)]
