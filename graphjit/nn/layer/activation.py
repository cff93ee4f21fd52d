"""MindSpore's `mindspore.nn.layer.activation`: activation Cells (ReLU, GELU, Softmax,
PReLU, ...) and get_activation."""
from __future__ import annotations

from ... import ops
from ..._checkparam import _positive_int
from ...ir.dtypes import float32
from ..cell import Cell
from ...ops._dispatch import to_tensor
from ...common.parameter import Parameter

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "LeakyReLU", "ELU", "GELU", "Softplus",
           "Softmax", "LogSoftmax", "get_activation", "HSwish", "HSigmoid", "Mish", "LogSigmoid",
           "Softsign", "SeLU", "CELU", "Hardtanh", "PReLU"]


class _Activation(Cell):
    """An activation: construct applies `_fn`, an ops function (called directly)."""

    _fn = None

    def construct(self, x):
        return self._fn(x)


class ReLU(_Activation):
    _fn = staticmethod(ops.relu)


class ReLU6(_Activation):
    _fn = staticmethod(ops.relu6)


class Sigmoid(_Activation):
    _fn = staticmethod(ops.sigmoid)


class Tanh(_Activation):
    _fn = staticmethod(ops.tanh)


class SiLU(_Activation):
    _fn = staticmethod(ops.silu)


class LeakyReLU(Cell):
    """x where x >= 0, else alpha * x."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class ELU(Cell):
    """x where x > 0, else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(x, self.alpha)


class GELU(Cell):
    """x * Phi(x); approximate=True uses the tanh form (MindSpore's default)."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return ops.gelu(x, self.approximate)


class Softplus(Cell):
    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


# Activation names (nn.get_activation, Dense's `activation=`) and their Cells.
_ACTIVATIONS = {"relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh,
                "silu": SiLU, "leakyrelu": LeakyReLU, "elu": ELU, "gelu": GELU,
                "softplus": Softplus, "softmax": Softmax, "logsoftmax": LogSoftmax}


def get_activation(name):
    """The activation Cell of this name ('relu', 'gelu', ...); None gives None."""
    if name is None:
        return None
    cls = _ACTIVATIONS.get(str(name).lower())
    if cls is None:
        raise KeyError(f"unknown activation '{name}'; use one of {', '.join(_ACTIVATIONS)}")
    return cls()


# -- more activations ------------------------------------------------------------------------
class _Fn(Cell):
    """An activation Cell that applies one ops function."""
    _fn = None

    def construct(self, x):
        return self._fn(x)


class HSwish(_Fn):
    """x * relu6(x + 3) / 6."""
    _fn = staticmethod(ops.hardswish)


class HSigmoid(_Fn):
    """relu6(x + 3) / 6."""
    _fn = staticmethod(ops.hardsigmoid)


class Mish(_Fn):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(ops.mish)


class LogSigmoid(_Fn):
    """log(sigmoid(x))."""
    _fn = staticmethod(ops.logsigmoid)


class Softsign(_Fn):
    """x / (1 + |x|)."""
    _fn = staticmethod(ops.softsign)


class SeLU(_Fn):
    """The scaled exponential linear unit."""
    _fn = staticmethod(ops.selu)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        super().__init__()
        if alpha == 0:
            raise ValueError("CELU: alpha cannot be 0")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.celu(x, self.alpha)


class Hardtanh(Cell):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must not exceed max_val {max_val}")
        self.min_val, self.max_val = min_val, max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class PReLU(Cell):
    """x where x > 0, else w * x, with a learned w per channel (channel=1: one for all),
    initialized to w (MindSpore's Parameter name 'a')."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        _positive_int(channel, "channel", "PReLU")
        if isinstance(w, (int, float)):
            data = [float(w)] * channel
        else:
            data = w
        self.w = Parameter(to_tensor(data, float32) if not isinstance(data, Parameter)
                           else data, name="a")
        if tuple(self.w.shape) != (channel,):
            raise ValueError(f"PReLU: w must have shape ({channel},), got {self.w.shape}")

    def construct(self, x):
        if x.ndim < 2:
            return ops.where(x > 0, x, x * self.w)
        return ops.prelu(x, self.w)


# -- the rest of MindSpore 2.10's activation Cells ------------------------------------------
class FastGelu(_Fn):
    """MindSpore's FastGelu: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""
    _fn = staticmethod(ops.fast_gelu)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def construct(self, x):
        return x - ops.tanh(x)


class Softmin(Cell):
    """softmax(-x) along axis."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(-x, self.axis)


class SoftShrink(Cell):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        if lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be no less than 0, got {lambd}")
        self.lambd = float(lambd)

    def construct(self, x):
        zero = ops.zeros_like(x)
        return ops.where(x > self.lambd, x - self.lambd,
                         ops.where(x < -self.lambd, x + self.lambd, zero))


class HShrink(Cell):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, x):
        return ops.where(ops.abs(x) > self.lambd, x, ops.zeros_like(x))


class Threshold(Cell):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold, self.value = float(threshold), float(value)

    def construct(self, x):
        return ops.where(x > self.threshold, x, ops.full_like(x, self.value))


class GLU(Cell):
    """a * sigmoid(b), a and b the two halves of the input along axis."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        a, b = ops.chunk(x, 2, self.axis)
        return a * ops.sigmoid(b)


_ACTIVATIONS.update({"fast_gelu": FastGelu, "tanhshrink": Tanhshrink, "softmin": Softmin,
                     "softshrink": SoftShrink, "hshrink": HShrink, "hswish": HSwish,
                     "hsigmoid": HSigmoid, "mish": Mish, "logsigmoid": LogSigmoid,
                     "softsign": Softsign, "selu": SeLU, "hardtanh": Hardtanh,
                     "prelu": PReLU})
__all__ += ["FastGelu", "Tanhshrink", "Softmin", "SoftShrink", "HShrink", "Threshold", "GLU"]
