"""mindspore.nn.layer.normalization: the layers of graphjit.nn."""
from graphjit.nn import *  # noqa: F401,F403
from graphjit.nn import __all__  # noqa: F401
