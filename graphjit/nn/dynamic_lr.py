"""MindSpore's `mindspore.nn.dynamic_lr`: learning-rate lists, one value per step
(exponential_decay_lr, cosine_decay_lr, warmup_lr, ...)."""
from __future__ import annotations

import math

__all__ = ["exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr", "cosine_decay_lr",
           "polynomial_decay_lr", "piecewise_constant_lr", "warmup_lr"]


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
