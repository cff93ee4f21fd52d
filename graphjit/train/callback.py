"""Training callbacks (MindSpore's `mindspore.train.callback`): Model.train calls each
callback's on_train_begin, on_train_epoch_begin, on_train_step_begin,
on_train_step_end, on_train_epoch_end and on_train_end with a RunContext whose
`original_args()` holds the run's facts (cur_epoch_num, cur_step_num, batch_num,
epoch_num, net_outputs, train_network)."""
from __future__ import annotations

import math
import time
from types import SimpleNamespace

import numpy as np

from ..common.tensor import Tensor

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "loss_value"]


def loss_value(outputs) -> float:
    """The loss of a step's outputs (the first of a tuple), as a float."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return float(outputs)


class RunContext:
    """What a callback sees: `original_args()` (the run's facts) and
    `request_stop()`."""

    def __init__(self, params: SimpleNamespace):
        self._params = params
        self._stop = False

    def original_args(self):
        return self._params

    def request_stop(self):
        self._stop = True

    def get_stop_requested(self) -> bool:
        return self._stop


class Callback:
    """Base of callbacks: every hook does nothing; MindSpore 1.x's names (begin,
    epoch_begin, step_begin, step_end, epoch_end, end) are called by the 2.x ones."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        pass

    def on_eval_end(self, run_context):
        pass

    def begin(self, run_context):
        pass

    def epoch_begin(self, run_context):
        pass

    def step_begin(self, run_context):
        pass

    def step_end(self, run_context):
        pass

    def epoch_end(self, run_context):
        pass

    def end(self, run_context):
        pass


class LossMonitor(Callback):
    """Print `epoch: E step: S, loss is L` every per_print_times steps (S counts within
    the epoch); a NaN or infinite loss stops training with ValueError."""

    def __init__(self, per_print_times=1):
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or \
                per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, got "
                             f"{per_print_times!r}")
        self._per_print_times = per_print_times

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        loss = loss_value(cb.net_outputs)
        step = cb.cur_step_in_epoch
        if math.isnan(loss) or math.isinf(loss):
            raise ValueError(f"epoch: {cb.cur_epoch_num} step: {step}. Invalid loss {loss}, "
                             f"terminating training.")
        if self._per_print_times and cb.cur_step_num % self._per_print_times == 0:
            print(f"epoch: {cb.cur_epoch_num} step: {step}, loss is {loss}", flush=True)


class TimeMonitor(Callback):
    """Print the time an epoch took and the time per step."""

    def __init__(self, data_size=None):
        self._data_size = data_size
        self._start = 0.0

    def on_train_epoch_begin(self, run_context):
        self._start = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        ms_ = (time.perf_counter() - self._start) * 1000.0
        steps = self._data_size or cb.cur_step_in_epoch or 1
        print(f"epoch time: {ms_:.3f} ms, per step time: {ms_ / steps:.3f} ms", flush=True)


from .checkpoint_callback import CheckpointConfig, ModelCheckpoint  # noqa: E402,F401
from .summary import SummaryCollector, SummaryLandscape  # noqa: E402,F401

__all__ += ["CheckpointConfig", "ModelCheckpoint", "SummaryCollector", "SummaryLandscape"]
