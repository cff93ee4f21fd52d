"""MindSpore's `mindspore.nn.wrap`: the training wrappers (cell_wrapper.py), loss scaling
(loss_scale.py) and the data-parallel gradient reducer (grad_reducer.py)."""
from .cell_wrapper import *  # noqa: F401,F403
from .grad_reducer import DistributedGradReducer  # noqa: F401
from .loss_scale import *  # noqa: F401,F403

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "DistributedGradReducer"]
