"""mindspore.nn.optim: the optimizers of graphjit.nn (Optimizer, SGD, Adam, ...)."""
from graphjit.nn import *  # noqa: F401,F403
from graphjit.nn import __all__  # noqa: F401
