"""MindSpore's `mindspore.train.metrics` spelling."""
from ..metrics import *  # noqa: F401,F403
from ..metrics import __all__  # noqa: F401
