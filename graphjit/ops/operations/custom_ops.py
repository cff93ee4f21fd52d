"""MindSpore's `mindspore.ops.operations.custom_ops` (ops.Custom's home): user-defined
operators. `register_op` declares one (inputs, attributes, inference, numpy kernel) and
returns a CustomOp that applies it in either mode; `call_op` applies a registered op by name."""
from __future__ import annotations

from .._dispatch import apply, to_tensor
from ...ir import registry as _registry
from ...ir.registry import get_op

__all__ = ["CustomOp", "register_op", "call_op"]


class CustomOp:
    """A registered user operator; calling it runs (or records) the op."""

    def __init__(self, opdef):
        self.opdef = opdef
        self.name = opdef.name

    def __call__(self, *inputs, **attrs):
        return apply(self.name, *[to_tensor(x) for x in inputs], **attrs)

    def __repr__(self):
        return f"<custom op {self.name}>"


def register_op(name, inputs=(), attrs=None, infer=None, kernel=None, family="extern",
                doc="", **kwargs) -> CustomOp:
    """Declare an operator: inputs, attributes, inference function and numpy kernel.

    Returns a callable that applies the op in either mode. See
    graphjit.ir.registry.register_op for the arguments.
    """
    return CustomOp(_registry.register_op(name, inputs, attrs, infer, kernel, family, doc,
                                          **kwargs))


def call_op(name, *inputs, **attrs):
    """Apply a registered op by name."""
    return CustomOp(get_op(name))(*inputs, **attrs)
