"""MindSpore's `mindspore.nn.learning_rate_schedule`: learning rates computed from the
optimizer's step count. Each is a Cell whose construct(global_step) gives the rate of
that step (global_step is the optimizer's int32 counter, from 0); an optimizer given one
as learning_rate calls it at every step, then advances the counter."""
from __future__ import annotations

import math

from .. import ops
from ..ir.dtypes import float32
from .cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


def _positive_float(v, what, cls, zero_ok=False):
    # MindSpore's validator.check_positive_float: an int is a TypeError too
    if not isinstance(v, float):
        raise TypeError(f"For '{cls}', the '{what}' must be float, but got "
                        f"'{type(v).__name__}'")
    if v < 0 or (v == 0 and not zero_ok):
        raise ValueError(f"For '{cls}', the '{what}' must be {'>= 0' if zero_ok else '> 0'}, "
                         f"got {v}")
    return float(v)


def _positive_int(v, what, cls):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For '{cls}', the '{what}' must be an int, got {type(v).__name__}")
    if v <= 0:
        raise ValueError(f"For '{cls}', the '{what}' must be > 0, got {v}")
    return v


class LearningRateSchedule(Cell):
    """Base of the schedules: construct(global_step) returns the learning rate."""

    def construct(self, global_step):
        raise NotImplementedError


class _Decay(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        cls = type(self).__name__
        self.learning_rate = _positive_float(learning_rate, "learning_rate", cls)
        self.decay_rate = _positive_float(decay_rate, "decay_rate", cls)
        self.decay_steps = _positive_int(decay_steps, "decay_steps", cls)
        if not isinstance(is_stair, bool):
            raise TypeError(f"For '{cls}', the 'is_stair' must be a bool")
        self.is_stair = is_stair

    def _p(self, global_step):
        p = ops.cast(global_step, float32) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return p


class ExponentialDecayLR(_Decay):
    """learning_rate * decay_rate ** (step / decay_steps) (floored if is_stair)."""

    def construct(self, global_step):
        return self.learning_rate * ops.pow(self.decay_rate, self._p(global_step))


class NaturalExpDecayLR(_Decay):
    """learning_rate * exp(-decay_rate * step / decay_steps) (floored if is_stair)."""

    def construct(self, global_step):
        return self.learning_rate * ops.exp(-self.decay_rate * self._p(global_step))


class InverseDecayLR(_Decay):
    """learning_rate / (1 + decay_rate * step / decay_steps) (floored if is_stair)."""

    def construct(self, global_step):
        return self.learning_rate / (1 + self.decay_rate * self._p(global_step))


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) /
    decay_steps))."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        cls = "CosineDecayLR"
        self.min_lr = _positive_float(min_lr, "min_lr", cls, zero_ok=True)
        self.max_lr = _positive_float(max_lr, "max_lr", cls)
        if self.min_lr >= self.max_lr:
            raise ValueError(f"For '{cls}', the 'max_lr' must be greater than 'min_lr', got "
                             f"max_lr {max_lr} and min_lr {min_lr}")
        self.decay_steps = _positive_int(decay_steps, "decay_steps", cls)
        self.delta = 0.5 * (self.max_lr - self.min_lr)

    def construct(self, global_step):
        p = ops.cast(ops.minimum(global_step, self.decay_steps), float32)
        return self.min_lr + self.delta * (1.0 + ops.cos(math.pi * p / self.decay_steps))


class PolynomialDecayLR(LearningRateSchedule):
    """(learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power +
    end_learning_rate, step capped at decay_steps; with update_decay_steps, decay_steps
    grows by whole multiples instead."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        cls = "PolynomialDecayLR"
        self.learning_rate = _positive_float(learning_rate, "learning_rate", cls)
        self.end_learning_rate = _positive_float(end_learning_rate, "end_learning_rate", cls,
                                                 zero_ok=True)
        self.decay_steps = _positive_int(decay_steps, "decay_steps", cls)
        self.power = _positive_float(power, "power", cls)
        self.update_decay_steps = bool(update_decay_steps)
        self.diff_learning_rate = self.learning_rate - self.end_learning_rate

    def construct(self, global_step):
        step = ops.cast(global_step, float32)
        decay_steps = self.decay_steps
        if self.update_decay_steps:
            decay_steps = decay_steps * ops.maximum(ops.ceil(step / decay_steps), 1.0)
        else:
            step = ops.minimum(step, float(decay_steps))
        p = step / decay_steps
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """learning_rate * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate = _positive_float(learning_rate, "learning_rate", "WarmUpLR")
        self.warmup_steps = _positive_int(warmup_steps, "warmup_steps", "WarmUpLR")

    def construct(self, global_step):
        p = ops.cast(ops.minimum(global_step, self.warmup_steps), float32) / self.warmup_steps
        return self.learning_rate * p
