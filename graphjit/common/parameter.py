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

    def clone(self, prefix, init="same"):
        """A new ParameterTuple of new Parameters named `prefix.name`, of the same shapes
        and dtypes: copies of the data (init='same') or an initializer's values
        ('zeros', 'ones', a number...), as an optimizer's state."""
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            q.requires_grad = False
            out.append(q)
        return ParameterTuple(out)


__all__ = ["Parameter", "ParameterTuple"]
