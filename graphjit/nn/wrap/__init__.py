"""MindSpore's `mindspore.nn.wrap`: the training wrappers (cell_wrapper.py)."""
from .cell_wrapper import *  # noqa: F401,F403

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell"]
