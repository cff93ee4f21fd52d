"""MindSpore's `mindspore.train`: Model (train, eval, predict), callbacks and metrics."""
from ..metrics import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn
from .callback import Callback, LossMonitor, RunContext, TimeMonitor
from .model import Model

__all__ = ["Model", "Callback", "LossMonitor", "TimeMonitor", "RunContext", "Metric",
           "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn"]
