"""mindspore.nn.wrap: the training wrappers of graphjit.nn (WithLossCell, TrainOneStepCell)."""
from graphjit.nn import *  # noqa: F401,F403
from graphjit.nn import __all__  # noqa: F401
