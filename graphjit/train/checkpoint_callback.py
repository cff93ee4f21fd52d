"""MindSpore's checkpoint callback (`mindspore.train.callback.ModelCheckpoint` and
`CheckpointConfig`): during Model.train, save the train network's Parameters every
`save_checkpoint_steps` steps (or `save_checkpoint_seconds`) and once more at the end,
as `<prefix>-<epoch>_<step in epoch>.ckpt` in `directory`, keeping at most
`keep_checkpoint_max` files. MindSpore also writes `<prefix>-graph.meta` (its compiled
graph); graphjit has no such file to write."""
from __future__ import annotations

import os
import re
import time

from .callback import Callback
from .serialization import save_checkpoint

__all__ = ["CheckpointConfig", "ModelCheckpoint"]


def _non_negative_int(v, name):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For 'CheckpointConfig', the type of '{name}' must be int, but got "
                        f"{type(v).__name__}.")
    if v < 0:
        raise ValueError(f"For 'CheckpointConfig', the '{name}' must be >= 0, but got {v}.")
    return v


class CheckpointConfig:
    """When ModelCheckpoint saves and how many files it keeps (MindSpore's defaults:
    every step, the last 5 files). `saved_network` saves that Cell instead of the train
    network; `append_info` ('epoch_num', 'step_num' and/or a dict) adds entries to each
    file.

    Raises:
        ValueError: save_checkpoint_steps and save_checkpoint_seconds, or
            keep_checkpoint_max and keep_checkpoint_per_n_minutes, are both 0 or None.
        TypeError: an argument of the wrong type.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False, format="ckpt",
                 **kwargs):
        steps = _non_negative_int(save_checkpoint_steps, "save_checkpoint_steps")
        seconds = _non_negative_int(save_checkpoint_seconds, "save_checkpoint_seconds")
        keep_max = _non_negative_int(keep_checkpoint_max, "keep_checkpoint_max")
        per_min = _non_negative_int(keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes")
        if not steps and not seconds:
            raise ValueError("The input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds' can't be all None or 0.")
        if not keep_max and not per_min:
            raise ValueError("The input arguments 'keep_checkpoint_max', "
                             "'keep_checkpoint_per_n_minutes' can't be all None or 0.")
        if steps:
            seconds = None
        if keep_max:
            per_min = None
        if saved_network is not None:
            from ..nn.cell import Cell
            if not isinstance(saved_network, Cell):
                raise TypeError(f"For 'CheckpointConfig', the type of 'saved_network' must be "
                                f"None or Cell, but got {type(saved_network).__name__}.")
        if append_info is not None and not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list, "
                            f"but got {type(append_info).__name__}.")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = per_min
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_info = append_info
        self._enc_key, self._enc_mode = enc_key, enc_mode
        self._exception_save, self._crc_check = exception_save, bool(crc_check)
        self._format = format

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    append_info = property(lambda self: self._append_info)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    crc_check = property(lambda self: self._crc_check)
    format = property(lambda self: self._format)

    def get_checkpoint_policy(self):
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}


def _unique_prefix(directory, prefix):
    """prefix, or prefix_N when checkpoint files of that prefix already exist there
    (MindSpore's _chg_ckpt_file_name_if_same_exist)."""
    suffix = 0
    n = len(prefix)
    for name in os.listdir(directory):
        if not name.endswith(".ckpt") or not name.startswith(prefix) or len(name) <= n or \
                name[n].isalpha():
            continue
        index = name[n:].find("-")
        if index == 0:
            suffix = max(suffix, 1)
        elif index != -1 and name[n + 1:n + index].isdigit():
            suffix = max(suffix, int(name[n + 1:n + index]) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


class ModelCheckpoint(Callback):
    """Save the train network's Parameters during Model.train (see the module docstring).

    Raises:
        ValueError: prefix is not a str, is empty or holds '/'.
        TypeError: config is not a CheckpointConfig.
    """

    def __init__(self, prefix="CKP", directory=None, config=None, **kwargs):
        super().__init__()
        if not isinstance(prefix, str) or not prefix or "/" in prefix:
            raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint "
                             f"file name is invalid, it must be string and does not contain "
                             f"'/', but got {prefix!r}.")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', the type of argument 'config' must be "
                            f"'CheckpointConfig', but got {type(config).__name__}.")
        self._directory = os.path.realpath(directory) if directory else os.getcwd()
        os.makedirs(self._directory, exist_ok=True)
        self._config = config
        self._prefix = _unique_prefix(self._directory, prefix)
        self._pattern = re.compile(re.escape(self._prefix) + r"-\d+_\d+\.ckpt$")
        self._latest_ckpt_file_name = ""
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._files = []

    @property
    def latest_ckpt_file_name(self):
        """The path of the last file written ('' before the first)."""
        return self._latest_ckpt_file_name

    def on_train_step_end(self, run_context):
        self._save(run_context.original_args(), force=False)

    def on_train_end(self, run_context):
        self._save(run_context.original_args(), force=True)

    def _due(self, cb, force):
        steps = self._config.save_checkpoint_steps
        if steps:
            return force or cb.cur_step_num >= self._last_triggered_step + steps
        now = time.time()
        if force or now - self._last_time > self._config.save_checkpoint_seconds:
            self._last_time = now
            return True
        return False

    def _save(self, cb, force):
        if cb.cur_step_num == self._last_triggered_step or not self._due(cb, force):
            return
        batch_num = getattr(cb, "batch_num", None)
        in_epoch = (cb.cur_step_num - 1) % batch_num + 1 if batch_num else \
            getattr(cb, "cur_step_in_epoch", cb.cur_step_num)
        name = f"{self._prefix}-{cb.cur_epoch_num}_{in_epoch}.ckpt"
        self._trim()
        append = {}
        for item in self._config.append_info or ():
            if item == "epoch_num":
                append["epoch_num"] = cb.cur_epoch_num
            elif item == "step_num":
                append["step_num"] = cb.cur_step_num
            elif isinstance(item, dict):
                append.update(item)
        path = os.path.join(self._directory, name)
        network = self._config.saved_network or cb.train_network
        save_checkpoint(network, path, append_dict=append or None,
                        crc_check=self._config.crc_check)
        self._last_triggered_step = cb.cur_step_num
        self._latest_ckpt_file_name = path
        if path in self._files:
            self._files.remove(path)
        self._files.append(path)

    def _trim(self):
        """Before a new file: remove the oldest of this prefix's files when
        keep_checkpoint_max are there already."""
        keep = self._config.keep_checkpoint_max
        if not keep:
            return
        files = [os.path.join(self._directory, f) for f in os.listdir(self._directory)
                 if self._pattern.match(f)]
        order = {f: i for i, f in enumerate(self._files)}   # ties of mtime: written order
        files.sort(key=lambda f: (f in order, order.get(f, 0) if f in order else
                                  os.path.getmtime(f)))
        while len(files) >= keep:
            os.remove(files.pop(0))
