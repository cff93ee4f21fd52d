"""MindSpore's `mindspore.common.api`: jit (and its 1.x name ms_function), jit_class."""
from ..jit.api import jit, jit_class  # noqa: F401

ms_function = jit
__all__ = ["jit", "jit_class", "ms_function"]
