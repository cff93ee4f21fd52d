"""MindSpore's `mindspore.common` spelling: dtype, Tensor, Parameter."""
from . import dtype, parameter
from ..tensor import Tensor
from ..parameter import Parameter

__all__ = ["dtype", "Tensor", "Parameter"]
