"""MindSpore's `mindspore.common` spelling: dtype (and its names: float32, ...), Tensor,
Parameter, ParameterTuple, mutable, initializer, set_seed / get_seed."""
from . import dtype, initializer, parameter
from .dtype import *  # noqa: F401,F403  (mindspore.common.float32, ...)
from .tensor import Tensor
from .parameter import Parameter, ParameterTuple, mutable
from .initializer import set_seed, get_seed
from .jit_config import JitConfig

__all__ = ["dtype", "initializer", "Tensor", "Parameter", "ParameterTuple", "mutable",
           "JitConfig", "set_seed", "get_seed"] + dtype.__all__
