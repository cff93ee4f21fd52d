"""MindSpore's `mindspore.amp`: loss scaling (the LossScaler classes for functional
training, the managers Model takes), overflow detection (all_finite) and the training
network of an amp level (build_train_network, auto_mixed_precision).

On this numpy CPU backend the amp levels that compute in float16 (O1, O2, O3) are not
available: they raise NotImplementedError rather than train in another precision than
MindSpore would. "O0" (and "auto", which is O0 on CPU as in MindSpore) trains in the
network's own dtypes, with loss scaling when a loss_scale_manager is given.

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
from .nn.cell import Cell
from .nn.loss.loss import LossBase
from .nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
from .nn.wrap.loss_scale import TrainOneStepWithLossScaleCell, _from_source
from .train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,
                                       LossScaleManager)

__all__ = ["DynamicLossScaleManager", "LossScaleManager", "FixedLossScaleManager",
           "build_train_network", "DynamicLossScaler", "StaticLossScaler", "LossScaler",
           "auto_mixed_precision", "init_status", "all_finite"]

_LEVELS = ("O0", "O1", "O2", "O3", "auto")


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


def _check_level(level):
    if not isinstance(level, str) or level not in _LEVELS:
        raise ValueError(f"The argument 'level' must be one of {list(_LEVELS)}, but got "
                         f"{level!r}")
    if level == "auto":
        return "O0"          # "auto" is O0 on CPU in MindSpore
    if level != "O0":
        raise NotImplementedError(
            f"amp level {level!r} computes in float16, which graphjit's numpy CPU backend "
            f"does not do; use amp_level='O0' (float32 training, loss scaling still works)")
    return level


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network for an amp level: O0 (and "auto" on CPU) returns it unchanged.

    Raises:
        TypeError: network is not a Cell.
        ValueError: an unknown level.
        NotImplementedError: O1, O2 or O3 (float16 computation).
    """
    if not isinstance(network, Cell):
        raise TypeError(f"The network must be a Cell, but got {type(network).__name__}")
    _check_level(amp_level)
    return network


_KWARGS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training network of MindSpore's amp: network (with loss_fn, if given) and
    optimizer in a TrainOneStepWithLossScaleCell when `loss_scale_manager` gives an
    update Cell, else in a TrainOneStepCell (whose sens is the manager's fixed scale).

    Raises:
        ValueError: an unknown level or keyword; a loss_scale_manager that is not one.
        NotImplementedError: levels O1, O2 and O3 (float16 computation).
    """
    if not isinstance(network, Cell):
        raise TypeError(f"The network must be a Cell, but got {type(network).__name__}")
    _check_level(level)
    for k in kwargs:
        if k not in _KWARGS:
            raise ValueError(f"Unsupported arg '{k}' for build_train_network: the keywords "
                             f"are {list(_KWARGS)}")
    cast = kwargs.get("cast_model_type", mstype.float32)
    if cast not in (None, mstype.float32):
        raise NotImplementedError("cast_model_type other than float32 computes in float16, "
                                  "which graphjit's numpy CPU backend does not do")
    manager = kwargs.get("loss_scale_manager")
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise ValueError(f"The argument 'loss_scale_manager' must be a LossScaleManager, "
                         f"but got {type(manager).__name__}")
    if loss_fn is not None:
        if not isinstance(loss_fn, (Cell, LossBase)):
            raise TypeError(f"loss_fn must be a Cell, got {type(loss_fn).__name__}")
        network = WithLossCell(network, loss_fn)
    if manager is None:
        return TrainOneStepCell(network, optimizer)
    update_cell = manager.get_update_cell()
    if update_cell is not None:
        return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell)
    return TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale())
