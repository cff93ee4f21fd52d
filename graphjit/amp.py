"""MindSpore's `mindspore.amp`: loss scaling (the LossScaler classes for functional
training, the managers Model takes), overflow detection (all_finite) and the training
network of an amp level (build_train_network, auto_mixed_precision).

The amp levels follow MindSpore's: O1 computes the convolutions, Dense and recurrent
cells in float16, O2 everything but BatchNorm and LayerNorm, O3 everything
(graphjit.nn.wrap.mixed_precision, on Cell.to_float); "O0" (and "auto", O0 on this CPU
backend) trains in the network's own dtypes, with loss scaling when a loss_scale_manager
is given.

    loss_scaler = amp.DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=50)

    def forward(x, y):
        return loss_scaler.scale(loss_fn(net(x), y))
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        loss, grads = loss_scaler.unscale(loss), loss_scaler.unscale(grads)
        finite = amp.all_finite(grads)
        if finite:
            opt(grads)
        loss_scaler.adjust(finite)
        return loss
"""
from __future__ import annotations

from . import ops
from .common.parameter import Parameter
from .common.tensor import Tensor
from .ir import dtypes as mstype
from .nn.wrap.loss_scale import _from_source
from .nn.wrap import mixed_precision as _mp
from .train.amp_build import build_train_network as _build
from .train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,
                                       LossScaleManager)

__all__ = ["DynamicLossScaleManager", "LossScaleManager", "FixedLossScaleManager",
           "build_train_network", "DynamicLossScaler", "StaticLossScaler", "LossScaler",
           "auto_mixed_precision", "init_status", "all_finite", "get_white_list",
           "get_black_list", "custom_mixed_precision"]



def init_status():
    """The overflow status all_finite may take (only Ascend uses one): float32 zeros of
    shape (8,)."""
    return Tensor([0, 0, 0, 0, 0, 0, 0, 0], mstype.float32)


def all_finite(inputs, status=None):
    """A bool scalar Tensor: every tensor of `inputs` (a tuple or list) is finite (no
    inf, no nan)."""
    if isinstance(inputs, Tensor) or not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    flags = [ops.isfinite(x).all() for x in inputs]
    if not flags:
        return Tensor(True, mstype.bool_)
    return ops.stack(flags).all()


def _times(inputs, scale):
    """inputs (a tensor, or a tuple or list of them) times scale, each in its dtype."""
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_times(x, scale) for x in inputs)
    return inputs * ops.cast(scale, inputs.dtype)


def _divided(inputs, scale):
    """inputs times the reciprocal of scale, each in its dtype (as MindSpore unscales)."""
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_divided(x, scale) for x in inputs)
    return inputs * ops.cast(ops.reciprocal(scale), inputs.dtype)


def _check_scale_value(scale_value):
    if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)):
        raise TypeError(f"For 'scale_value', the type must be float or int, but got "
                        f"{type(scale_value).__name__}")
    if scale_value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")


def _check_positive_int(v, name):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"The argument '{name}' must be a positive int, but got {v!r}")
    return v


class LossScaler:
    """The interface of the loss scalers: scale(inputs), unscale(inputs) (a Tensor or a
    tuple of them) and adjust(grads_finite). A jit_class, as in MindSpore: a construct or
    an @jit function may create and use one."""

    _graphjit_jit_class = True    # what @ms.jit_class sets (amp stands below jit)

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A fixed scale: scale multiplies by it, unscale divides (each result in its input's
    dtype), adjust returns False.

    Args:
        scale_value (Union[float, int]): the scale (>= 1), held as a float32 Parameter.
    """

    def __init__(self, scale_value):
        _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=mstype.float32),
                                     name="scale_value")

    @_from_source
    def scale(self, inputs):
        return _times(inputs, self.scale_value)

    @_from_source
    def unscale(self, inputs):
        return _divided(inputs, self.scale_value)

    @_from_source
    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """A scale multiplied by scale_factor after scale_window finite steps in a row (when
    the product is finite) and divided by it (never below 1) on a step whose gradients
    are not finite, as MindSpore 2.10's amp.DynamicLossScaler.

    Args:
        scale_value (Union[float, int]): the initial scale (>= 1).
        scale_factor (int): the factor.
        scale_window (int): finite steps before an increase.
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=mstype.float32),
                                     name="scale_value")
        self.scale_window = _check_positive_int(scale_window, "scale_window")
        self.scale_factor = _check_positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(0, dtype=mstype.int32), name="counter")

    @_from_source
    def scale(self, inputs):
        return _times(inputs, self.scale_value)

    @_from_source
    def unscale(self, inputs):
        return _divided(inputs, self.scale_value)

    @_from_source
    def adjust(self, grads_finite):
        one = ops.ones((), self.scale_value.dtype)
        grown = self.scale_value * self.scale_factor
        at_window = self.counter == (self.scale_window - 1)
        up = ops.select(at_window, ops.select(ops.isfinite(grown), grown, self.scale_value),
                        self.scale_value)
        new = ops.select(grads_finite, up, ops.maximum(one, self.scale_value /
                                                       self.scale_factor))
        ops.assign(self.scale_value, new)
        counter = ((self.counter + 1) % self.scale_window) * grads_finite
        ops.assign(self.counter, counter)
        return True


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network with MindSpore's automatic mixed precision of amp_level:
    O0 unchanged; O1 the convolutions, Dense and recurrent cells (AMP_WHITE_LIST) in
    float16; O2 all in float16 but BatchNorm and LayerNorm (AMP_BLACK_LIST); O3 all in
    float16 (graphjit.nn.wrap.mixed_precision). Parameter names do not change.

    Raises:
        TypeError: network is not a Cell.
        ValueError: an unknown level; a dtype other than float16.
    """
    return _mp.auto_mixed_precision(network, amp_level, dtype)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training network of MindSpore's amp: network cast as the level says (O2: float16
    but BatchNorm, with a DynamicLossScaleManager; O3: float16), with loss_fn (in float32
    when the network computes in float16) and optimizer in a TrainOneStepWithLossScaleCell
    when the loss scale manager updates the scale, else in a TrainOneStepCell (whose sens
    is the manager's fixed scale). kwargs: cast_model_type, keep_batchnorm_fp32,
    loss_scale_manager override the level's.

    Raises:
        TypeError / ValueError: an unknown level or keyword, a bad keyword value.
    """
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"The argument 'boost_level' must be one of ['O0', 'O1', 'O2'], "
                         f"but got {boost_level!r}")
    return _build(network, optimizer, loss_fn, level, **kwargs)


get_white_list = _mp.get_white_list
get_black_list = _mp.get_black_list
custom_mixed_precision = _mp.custom_mixed_precision
