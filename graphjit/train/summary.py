"""MindSpore's summary callbacks and writer (`mindspore.train.callback.SummaryCollector`,
`mindspore.train.summary.SummaryRecord`), which model-zoo train scripts create to record
scalars and graphs for MindInsight. graphjit writes no summary files: these keep their
arguments, make the summary directory as MindSpore does, and record nothing, so a script
that creates them trains unchanged."""
from __future__ import annotations

import os

from .callback import Callback

__all__ = ["SummaryCollector", "SummaryRecord", "SummaryLandscape"]


def _summary_dir(summary_dir, cls):
    if not isinstance(summary_dir, str) or not summary_dir:
        raise TypeError(f"For '{cls}', the 'summary_dir' must be a non-empty str, but got "
                        f"{summary_dir!r}.")
    path = os.path.realpath(summary_dir)
    os.makedirs(path, exist_ok=True)
    return path


class SummaryCollector(Callback):
    """Keeps MindSpore's arguments (summary_dir, collect_freq, collect_specified_data,
    keep_default_action, custom_lineage_data, collect_tensor_freq, max_file_size,
    export_options); records nothing (see the module docstring).

    Raises:
        TypeError: summary_dir is not a non-empty str.
        ValueError: collect_freq is not a positive int.
    """

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None,
                 max_file_size=None, export_options=None):
        super().__init__()
        if isinstance(collect_freq, bool) or not isinstance(collect_freq, int) or \
                collect_freq <= 0:
            raise ValueError(f"For 'SummaryCollector', the 'collect_freq' must be a positive "
                             f"int, but got {collect_freq!r}.")
        self.summary_dir = _summary_dir(summary_dir, "SummaryCollector")
        self.collect_freq = collect_freq
        self.collect_specified_data = collect_specified_data
        self.keep_default_action = keep_default_action
        self.custom_lineage_data = custom_lineage_data
        self.collect_tensor_freq = collect_tensor_freq
        self.max_file_size = max_file_size
        self.export_options = export_options


class SummaryLandscape:
    """MindSpore's loss-landscape tool: keeps its summary_dir; computes nothing."""

    def __init__(self, summary_dir):
        self.summary_dir = _summary_dir(summary_dir, "SummaryLandscape")

    def gen_landscapes_with_multi_process(self, *args, **kwargs):
        """MindSpore computes loss landscapes for MindInsight here: nothing to compute."""

    def clean_ckpt(self):
        """MindSpore removes the checkpoints it saved for landscapes: none were saved."""


class SummaryRecord:
    """MindSpore's summary file writer, usable as a context manager; add_value, record and
    flush accept what MindSpore's do and write nothing."""

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32,
                 network=None, max_file_size=None, raise_exception=False, export_options=None):
        self.log_dir = _summary_dir(log_dir, "SummaryRecord")
        self.file_prefix, self.file_suffix = file_prefix, file_suffix
        self.network = network
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def add_value(self, plugin, name, value):
        if plugin not in ("scalar", "image", "tensor", "histogram", "graph", "train_lineage",
                          "eval_lineage", "custom_lineage_data", "dataset_graph", "landscape"):
            raise ValueError(f"For 'add_value', the 'plugin' {plugin!r} is not supported.")

    def record(self, step, train_network=None, plugin_filter=None):
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"For 'record', the 'step' must be int, but got "
                            f"{type(step).__name__}.")
        return True

    def flush(self):
        pass

    def close(self):
        self.closed = True

    @property
    def log_dir_path(self):
        return self.log_dir
