"""mindspore.nn.metrics: the metrics of graphjit.nn (Accuracy, MAE, MSE, Loss)."""
from graphjit.nn import *  # noqa: F401,F403
from graphjit.nn import __all__  # noqa: F401
