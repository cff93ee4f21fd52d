"""MindSpore's `mindspore.train`: Model (train, eval, predict), callbacks and metrics."""
from ..nn.metrics import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn
from .callback import Callback, LossMonitor, RunContext, TimeMonitor
from .checkpoint_callback import CheckpointConfig, ModelCheckpoint
from .summary import SummaryCollector, SummaryLandscape, SummaryRecord
from . import summary  # noqa: F401  (mindspore.train.summary)
from .model import Model
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["Model", "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "Callback", "LossMonitor", "ModelCheckpoint", "CheckpointConfig", "SummaryCollector", "SummaryLandscape", "SummaryRecord", "TimeMonitor", "RunContext", "Metric",
           "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn", "save_checkpoint",
           "load_checkpoint", "load_param_into_net"]
