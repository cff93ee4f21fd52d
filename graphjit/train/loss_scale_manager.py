"""MindSpore's `mindspore.train.loss_scale_manager`: the loss-scale managers Model takes
(`loss_scale_manager=`), each giving the update Cell of TrainOneStepWithLossScaleCell."""
from __future__ import annotations

from ..nn.wrap.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


def _number(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"The argument '{name}' must be a number, but got {type(v).__name__}")
    return v


class LossScaleManager:
    """The interface: get_loss_scale, update_loss_scale(overflow), get_update_cell."""

    def get_loss_scale(self):
        """The current loss scale."""

    def update_loss_scale(self, overflow):
        """Update the loss scale after a step that did (or did not) overflow."""

    def get_update_cell(self):
        """The Cell TrainOneStepWithLossScaleCell calls to update the scale."""


class FixedLossScaleManager(LossScaleManager):
    """A fixed loss scale.

    Args:
        loss_scale (float): the scale (>= 1). Default 128.0.
        drop_overflow_update (bool): skip the optimizer on a step whose gradients
            overflow (True), or run it anyway with the optimizer's own loss_scale
            dividing the gradients (False: no update Cell, Model uses TrainOneStepCell).
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        _number(loss_scale, "loss_scale")
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"The argument 'drop_overflow_update' must be bool, but got "
                            f"{type(drop_overflow_update).__name__}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """The scale is fixed: nothing to do."""

    def get_update_cell(self):
        """FixedLossScaleUpdateCell, or None when drop_overflow_update is False."""
        if not self._drop_overflow_update:
            return None
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by scale_factor on overflow (never below 1) and multiplied
    by it after scale_window steps without one.

    Args:
        init_loss_scale (float): the initial scale (>= 1). Default 2**24.
        scale_factor (int): Default 2.
        scale_window (int): Default 2000.
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        _number(init_loss_scale, "init_loss_scale")
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got "
                             f"{init_loss_scale}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or \
                scale_window <= 0:
            raise ValueError(f"For 'DynamicLossScaleManager', the 'scale_window' must be a "
                             f"positive int, but got {scale_window!r}")
        _number(scale_factor, "scale_factor")
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.loss_scale = init_loss_scale
        self.scale_window = scale_window
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        """The host-side update (MindSpore's): used by code that manages the scale
        itself; Model uses get_update_cell."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale Continuous overflow {self.bad_step} "
                               f"times, has exceeded maximum threshold.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor,
                                          self.scale_window)
