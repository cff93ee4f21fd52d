"""MindSpore's `mindspore.common` spelling: dtype, Tensor, Parameter, initializer."""
from . import dtype, initializer, parameter
from .tensor import Tensor
from .parameter import Parameter

__all__ = ["dtype", "initializer", "Tensor", "Parameter"]
