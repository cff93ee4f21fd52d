"""mindspore.nn.dynamic_lr: the learning-rate lists of graphjit.nn (exponential_decay_lr, ...)."""
from graphjit.nn import *  # noqa: F401,F403
from graphjit.nn import __all__  # noqa: F401
