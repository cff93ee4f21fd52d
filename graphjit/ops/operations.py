"""MindSpore's `mindspore.ops.operations` (often imported as P): the primitive classes."""
from .primitives import *  # noqa: F401,F403
from .primitives import __all__  # noqa: F401
