"""mindspore.nn.loss: the losses of graphjit.nn (LossBase, MSELoss, ...)."""
from graphjit.nn import *  # noqa: F401,F403
from graphjit.nn import __all__  # noqa: F401
