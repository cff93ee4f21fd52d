"""MindSpore's `mindspore.train.metrics` spelling of graphjit.nn.metrics."""
from ..nn.metrics import *  # noqa: F401,F403
from ..nn.metrics import __all__  # noqa: F401
