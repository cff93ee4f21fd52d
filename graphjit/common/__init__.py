"""MindSpore's `mindspore.common` spelling: dtype, Tensor, Parameter, mutable, initializer."""
from . import dtype, initializer, parameter
from .tensor import Tensor
from .parameter import Parameter, mutable
from .jit_config import JitConfig

__all__ = ["dtype", "initializer", "Tensor", "Parameter", "mutable", "JitConfig"]
