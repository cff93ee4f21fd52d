"""MindSpore's `mindspore.nn.wrap`: the training wrappers (cell_wrapper.py) and loss
scaling (loss_scale.py)."""
from .cell_wrapper import *  # noqa: F401,F403
from .loss_scale import *  # noqa: F401,F403

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell"]
