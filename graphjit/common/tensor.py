"""MindSpore's `mindspore.common.tensor`: Tensor."""
from ..tensor import Tensor  # noqa: F401

__all__ = ["Tensor"]
