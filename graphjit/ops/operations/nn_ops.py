"""MindSpore's `mindspore.ops.operations.nn_ops`: the neural-network primitives (Conv2D,
MaxPool, BatchNorm, Softmax, OneHot, the optimizer updates Adam, SGD, ...)."""
from __future__ import annotations

import numpy as np

from .. import functional as _X, functional as F, functional as X
from .._dispatch import apply, apply_update, to_tensor
from ..primitive import Primitive, _prim
from ..function import layer_func as L
from ..function.parameter_func import _like, _param
from ...common.tensor import Tensor, TensorLike

__all__ = ["Tanh", "Sigmoid", "ReLU", "ReLU6", "Softplus", "GeLU", "Flatten", "Conv2D", "MaxPool",
           "AvgPool", "BatchNorm", "LayerNorm", "Dropout", "KLDivLoss", "Softmax", "LogSoftmax",
           "Elu", "OneHot", "BiasAdd", "L2Normalize", "ApplyGradientDescent", "ApplyMomentum",
           "ApplyAdagrad", "Adam", "SGD", "Pad", "MirrorPad", "FastGeLU",
           "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
           "SigmoidCrossEntropyWithLogits"]


# Primitives without arguments: class name, the function it applies.
_UNARY = {
    "Tanh": F.tanh, "Sigmoid": F.sigmoid, "ReLU": F.relu, "ReLU6": F.relu6,
    "Softplus": F.softplus, "GeLU": F.gelu, "Flatten": F.flatten,
}
for _n, _f in _UNARY.items():
    _prim(_n, _f, 1, globals())



class Conv2D(Primitive):
    """Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCHW')(x, weight): 2-D cross-correlation."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel=out_channel, kernel_size=kernel_size, mode=mode,
                         pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                         group=group, data_format=data_format)
        L.check_format(data_format, "Conv2D")
        if mode != 1:
            raise ValueError(f"Conv2D: mode must be 1 (cross-correlation), got {mode!r}")
        self.out_channel, self.group = out_channel, group
        self.kernel_size = L.pair(kernel_size, "Conv2D's kernel_size")
        self.pad_mode = L.pad_mode(pad_mode, "Conv2D")
        self.pad = L.pads(pad, "Conv2D's pad")
        if self.pad_mode != "pad" and any(self.pad):
            raise ValueError(f"Conv2D: pad {pad!r} needs pad_mode='pad'")
        self.stride = L.pair(stride, "Conv2D's stride")
        self.dilation = L.pair(dilation, "Conv2D's dilation")

    def __call__(self, x, weight):
        return apply("Conv2D", to_tensor(x), to_tensor(weight), out_channel=self.out_channel,
                     kernel_size=self.kernel_size, pad_mode=self.pad_mode, pad=self.pad,
                     stride=self.stride, dilation=self.dilation, group=self.group)


class _Pool(Primitive):
    _op = ""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        super().__init__(kernel_size=kernel_size, strides=strides, pad_mode=pad_mode,
                         data_format=data_format)
        L.check_format(data_format, self.name)
        self.kernel_size = L.pair(kernel_size, f"{self.name}'s kernel_size")
        self.strides = L.pair(strides, f"{self.name}'s strides")
        self.pad_mode = L.pad_mode(pad_mode, self.name)
        if self.pad_mode == "pad":
            raise ValueError(f"{self.name}: pad_mode must be 'valid' or 'same'")

    def __call__(self, x):
        return apply(self._op, to_tensor(x), kernel_size=self.kernel_size,
                     strides=self.strides, pad_mode=self.pad_mode)


class MaxPool(_Pool):
    """MaxPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x)."""

    _op = "MaxPool"


class AvgPool(_Pool):
    """AvgPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x); 'same'
    padding is not counted in the mean."""

    _op = "AvgPool"


class BatchNorm(Primitive):
    """BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')(x,
    scale, bias, mean, variance) -> (y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2). In training it normalizes with the batch statistics and updates
    mean and variance in place: new = (1 - momentum) * old + momentum * batch (the
    batch's unbiased variance for the moving one, as MindSpore)."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__(is_training=is_training, epsilon=epsilon, momentum=momentum,
                         data_format=data_format)
        L.check_format(data_format, "BatchNorm")
        self.is_training, self.epsilon, self.momentum = bool(is_training), epsilon, momentum

    def __call__(self, x, scale, bias, mean, variance):
        y, m, v = apply("BatchNorm", to_tensor(x), to_tensor(scale), to_tensor(bias),
                        to_tensor(mean), to_tensor(variance), is_training=self.is_training,
                        epsilon=float(self.epsilon))
        if self.is_training:
            L.update_running(mean, m, 1.0 - self.momentum)
            L.update_running(variance, L.unbiased_variance(to_tensor(x), v),
                             1.0 - self.momentum)
        return y, m, v, m, v


class LayerNorm(Primitive):
    """LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta) ->
    (y, mean, variance), normalizing over the axes from begin_norm_axis."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis,
                         epsilon=epsilon)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon

    def __call__(self, x, gamma, beta):
        return apply("LayerNorm", to_tensor(x), to_tensor(gamma), to_tensor(beta),
                     begin_norm_axis=self.begin_norm_axis,
                     begin_params_axis=self.begin_params_axis, epsilon=float(self.epsilon))


class Dropout(Primitive):
    """Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x) -> (output, mask): always drops (the
    primitive has no inference mode); a non-zero seed gives the op its own generator."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__(keep_prob=keep_prob, Seed0=Seed0, Seed1=Seed1)
        self.keep_prob = keep_prob
        self.seed = (Seed0 * 1000003 + Seed1) if (Seed0 or Seed1) else None

    def __call__(self, x):
        return L.apply_random("Dropout", to_tensor(x), keep_prob=float(self.keep_prob),
                              seed=self.seed)


class KLDivLoss(Primitive):
    """KLDivLoss(reduction='mean')(logits, labels); see ops.kl_div."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'mean', 'sum' or "
                             f"'batchmean', got {reduction!r}")
        self.reduction = reduction

    def __call__(self, logits, labels):
        return X.kl_div(logits, labels, self.reduction)


class Softmax(Primitive):
    """Softmax(axis=-1)(x)."""

    _fn = staticmethod(F.softmax)

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return type(self)._fn(x, self.axis)


class LogSoftmax(Softmax):
    """LogSoftmax(axis=-1)(x)."""

    _fn = staticmethod(F.log_softmax)


class Elu(Primitive):
    """Elu(alpha=1.0)(x)."""

    def __init__(self, alpha=1.0):
        super().__init__(alpha=alpha)
        self.alpha = alpha

    def __call__(self, x):
        return F.elu(x, self.alpha)


class OneHot(Primitive):
    """OneHot(axis=-1)(indices, depth, on_value, off_value)."""

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class BiasAdd(Primitive):
    """BiasAdd(data_format='NCHW')(x, bias)."""

    def __init__(self, data_format="NCHW"):
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, x, bias):
        return _X.bias_add(x, bias, self.data_format)


class L2Normalize(Primitive):
    """L2Normalize(axis=0, epsilon=1e-4)(x): x / sqrt(max(sum(x * x, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__(axis=axis, epsilon=epsilon)
        self.axis, self.epsilon = axis, epsilon

    def __call__(self, x):
        x = to_tensor(x)
        s = F.sum(x * x, self.axis if not isinstance(self.axis, list) else tuple(self.axis),
                  True)
        return x / F.sqrt(F.maximum(s, to_tensor(float(self.epsilon), s.dtype)))


def _flag(op, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{op}', '{name}' must be a bool, got {v!r}")
    return v


class ApplyGradientDescent(Primitive):
    """var -= alpha * delta; returns the new var."""

    def __init__(self, use_locking=False):
        super().__init__(use_locking=use_locking)
        self.use_locking = _flag("ApplyGradientDescent", "use_locking", use_locking)

    def __call__(self, var, alpha, delta):
        _param(var, "ApplyGradientDescent", "var")
        return apply_update("ApplyGradientDescent", var, _like(alpha, var), _like(delta, var),
                            use_locking=self.use_locking)


class ApplyMomentum(Primitive):
    """accumulation = accumulation * momentum + gradient * gradient_scale;
    variable -= learning_rate * accumulation (use_nesterov: learning_rate * (gradient +
    momentum * accumulation)); returns the new variable."""

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        super().__init__(use_nesterov=use_nesterov, use_locking=use_locking,
                         gradient_scale=gradient_scale)
        self.use_nesterov = _flag("ApplyMomentum", "use_nesterov", use_nesterov)
        self.use_locking = _flag("ApplyMomentum", "use_locking", use_locking)
        if isinstance(gradient_scale, bool) or not isinstance(gradient_scale, (int, float)):
            raise TypeError(f"For 'ApplyMomentum', 'gradient_scale' must be a float, got "
                            f"{gradient_scale!r}")
        self.gradient_scale = float(gradient_scale)

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        op = "ApplyMomentum"
        _param(variable, op, "variable")
        _param(accumulation, op, "accumulation")
        return apply_update(op, variable, accumulation, _like(learning_rate, variable),
                            _like(gradient, variable), _like(momentum, variable),
                            use_nesterov=self.use_nesterov, use_locking=self.use_locking,
                            gradient_scale=self.gradient_scale)


class ApplyAdagrad(Primitive):
    """accum += grad * grad (if update_slots); var -= lr * grad / sqrt(accum); returns
    (var, accum). use_locking=True (graphjit's, from the seed's ResourceApplyAdagrad)
    makes concurrent updates of one Parameter safe."""

    def __init__(self, update_slots=True, use_locking=False):
        super().__init__(update_slots=update_slots, use_locking=use_locking)
        self.update_slots = _flag("ApplyAdagrad", "update_slots", update_slots)
        self.use_locking = _flag("ApplyAdagrad", "use_locking", use_locking)

    def __call__(self, var, accum, lr, grad):
        _param(var, "ApplyAdagrad", "var")
        _param(accum, "ApplyAdagrad", "accum")
        return apply_update("ApplyAdagrad", var, accum, _like(lr, var), _like(grad, var),
                            update_slots=self.update_slots, use_locking=self.use_locking)


class Adam(Primitive):
    """The Adam update of var and its moments m and v; returns (var, m, v)."""

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)
        self.use_locking = _flag("Adam", "use_locking", use_locking)
        self.use_nesterov = _flag("Adam", "use_nesterov", use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                 gradient):
        for x, name in ((var, "var"), (m, "m"), (v, "v")):
            _param(x, "Adam", name)
        scalars = [_like(x, var) for x in (beta1_power, beta2_power, lr, beta1, beta2,
                                            epsilon)]
        return apply_update("Adam", var, m, v, *scalars, _like(gradient, var),
                            use_locking=self.use_locking, use_nesterov=self.use_nesterov)


class SGD(Primitive):
    """Stochastic gradient descent with optional momentum, dampening, weight decay and
    Nesterov momentum (MindSpore's op; `stat` > 0 marks the first step); returns the
    new parameters."""

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        super().__init__(dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)
        for name, v in (("dampening", dampening), ("weight_decay", weight_decay)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'SGD', '{name}' must be a float, got {v!r}")
        self.dampening, self.weight_decay = float(dampening), float(weight_decay)
        self.nesterov = _flag("SGD", "nesterov", nesterov)

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        for x, name in ((parameters, "parameters"), (accum, "accum"), (stat, "stat")):
            _param(x, "SGD", name)
        return apply_update("SGD", parameters, _like(gradient, parameters),
                            _like(learning_rate, parameters), accum,
                            _like(momentum, parameters), stat, dampening=self.dampening,
                            weight_decay=self.weight_decay, nesterov=self.nesterov)


# -- padding and losses published models call as primitives ------------------------
class Pad(Primitive):
    """Pad(paddings)(x): zeros added before and after each dim, paddings ((before,
    after), ...) from the first dim."""

    def __init__(self, paddings):
        super().__init__(paddings)
        pairs = tuple(tuple(int(v) for v in p) for p in paddings)
        if any(len(p) != 2 or min(p) < 0 for p in pairs):
            raise ValueError(f"Pad: paddings must be non-negative pairs, got {paddings!r}")
        self.paddings = pairs

    def __call__(self, x):
        x = to_tensor(x)
        if len(self.paddings) != x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} pairs of paddings for a tensor of "
                             f"rank {x.ndim}")
        flat = ()
        for lo, hi in reversed(self.paddings):
            flat += (lo, hi)
        return F.pad(x, flat, "constant")


class MirrorPad(Primitive):
    """MirrorPad(mode='REFLECT')(x, paddings): paddings an (rank, 2) tensor of ints known
    while the graph is built; 'REFLECT' mirrors without the edge, 'SYMMETRIC' with it."""

    def __init__(self, mode="REFLECT"):
        super().__init__(mode)
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"MirrorPad: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
        self.mode = mode

    def __call__(self, x, paddings):
        x = to_tensor(x)
        if isinstance(paddings, TensorLike) and not isinstance(paddings, Tensor):
            raise TypeError("MirrorPad: paddings must be known while the graph is built (a "
                            "constant tensor), not a graph value")
        p = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings)
        if p.shape != (x.ndim, 2):
            raise ValueError(f"MirrorPad: paddings must have shape ({x.ndim}, 2), got "
                             f"{p.shape}")
        out = x
        for axis in range(x.ndim):
            lo, hi = int(p[axis, 0]), int(p[axis, 1])
            if self.mode == "REFLECT":
                out = F.pad(out, _pads_for(axis, x.ndim, lo, hi), "reflect")
            else:
                out = _symmetric(out, axis, lo, hi)
        return out


def _pads_for(axis, rank, lo, hi):
    """ops.pad's flat padding (last dim first) that pads only `axis`."""
    flat = []
    for a in range(rank - 1, axis - 1, -1):
        flat += [lo, hi] if a == axis else [0, 0]
    return tuple(flat)


def _symmetric(x, axis, lo, hi):
    n = x.shape[axis]
    if lo > n or hi > n:
        raise ValueError(f"MirrorPad: 'SYMMETRIC' padding {max(lo, hi)} exceeds the size {n} "
                         f"of axis {axis}")
    key = [slice(None)] * x.ndim
    parts = []
    if lo:
        key[axis] = slice(0, lo)
        parts.append(F.flip(x[tuple(key)], (axis,)))
    parts.append(x)
    if hi:
        key[axis] = slice(n - hi, n)
        parts.append(F.flip(x[tuple(key)], (axis,)))
    return F.concat(tuple(parts), axis) if len(parts) > 1 else x


class FastGeLU(Primitive):
    """FastGeLU()(x); see fast_gelu."""

    def __call__(self, x):
        return F.fast_gelu(x)


class SoftmaxCrossEntropyWithLogits(Primitive):
    """SoftmaxCrossEntropyWithLogits()(logits, labels) for (N, C) logits and dense labels:
    (loss (N,), backprop (N, C) = softmax(logits) - labels)."""

    def __call__(self, logits, labels):
        logits, labels = to_tensor(logits), to_tensor(labels)
        logp = F.log_softmax(logits, -1)
        loss = F.neg(F.sum(F.mul(labels, logp), -1))
        return loss, F.sub(F.exp(logp), labels)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels): the mean cross
    entropy of (N, C) logits against (N,) class indices; with is_grad, its gradient with
    respect to the logits, (softmax - one_hot) / N."""

    def __init__(self, is_grad=False):
        super().__init__(is_grad=is_grad)
        self.is_grad = bool(is_grad)

    def __call__(self, logits, labels):
        logits, labels = to_tensor(logits), to_tensor(labels)
        c = logits.shape[-1]
        onehot = F.one_hot(labels, c, F.ones((), logits.dtype), F.zeros((), logits.dtype))
        logp = F.log_softmax(logits, -1)
        if self.is_grad:
            return F.div(F.sub(F.exp(logp), onehot), logits.shape[0])
        return F.mean(F.neg(F.sum(F.mul(onehot, logp), -1)))


class SigmoidCrossEntropyWithLogits(Primitive):
    """SigmoidCrossEntropyWithLogits()(logits, label): the elementwise binary cross
    entropy of logits x against labels z, unreduced: max(x, 0) - x * z + log(1 +
    exp(-|x|)) (Wide&Deep's and DeepFM's loss). logits and label have one shape."""

    def __call__(self, logits, label):
        x, z = to_tensor(logits), to_tensor(label)
        if tuple(x.shape) != tuple(z.shape):
            raise ValueError(f"For 'SigmoidCrossEntropyWithLogits', the shape of 'logits' and "
                             f"'label' must be the same, but got {tuple(x.shape)} and "
                             f"{tuple(z.shape)}")
        return F.binary_cross_entropy_with_logits(x, z, reduction="none")
