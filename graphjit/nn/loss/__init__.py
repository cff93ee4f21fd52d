"""MindSpore's `mindspore.nn.loss`: the losses (defined in loss.py)."""
from .loss import *  # noqa: F401,F403

__all__ = ["LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss",
           "NLLLoss", "BCEWithLogitsLoss", "BCELoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
           "CosineEmbeddingLoss"]
