"""graphjit.ops: operators as functions and as primitive classes (MindSpore's names),
and `register_op` for user-defined operators."""
from __future__ import annotations

from ..ir.registry import REQUIRED, get_op
from ..ir import registry as _registry
from . import functional
from .functional import *  # noqa: F401,F403
from .functional import max, min, sum, abs, pow, all, any, round  # noqa: F401  (shadow builtins)
from .extra_ops import slice  # noqa: F401  (shadows the builtin, as mindspore.ops.slice)
from .primitives import *  # noqa: F401,F403
from .primitives import Primitive
from .primitive import constexpr  # noqa: F401
from .misc_ops import *  # noqa: F401,F403
from .layer_primitives import *  # noqa: F401,F403
from .more_primitives import *  # noqa: F401,F403
from .state_ops import *  # noqa: F401,F403
from . import composite  # noqa: F401
from .gradients import GradOperation, grad, value_and_grad  # noqa: F401
from ._dispatch import apply


class CustomOp:
    """A registered user operator; calling it runs (or records) the op."""

    def __init__(self, opdef):
        self.opdef = opdef
        self.name = opdef.name

    def __call__(self, *inputs, **attrs):
        from ._dispatch import to_tensor
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
