"""MindSpore's `mindspore.common.parameter` spelling."""
from ..parameter import Parameter


class ParameterTuple(tuple):
    """A tuple of Parameters."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, got {type(p).__name__}")
        return super().__new__(cls, items)


__all__ = ["Parameter", "ParameterTuple"]
