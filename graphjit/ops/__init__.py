"""graphjit.ops: operators as functions and as primitive classes (MindSpore's names),
and `register_op` for user-defined operators. Laid out as MindSpore's `mindspore.ops`:

    _dispatch.py      apply/binary/to_tensor: the bottom every other module stands on
    _utils.py         private argument helpers (ints, axes, known shapes)
    primitive.py      Primitive, constexpr
    function/         the functions by family: array_func, math_func, nn_func, clip_func,
                      random_func, parameter_func, other_func, debug_func, grad/grad_func,
                      index_func (max/min, gather_nd, scatter_nd, ...), layer_func
                      (conv, pooling, normalization; re-exported by nn_func)
    functional.py     every function (F), and index_update, identity, dtype, make_tuple, ...
    composite/        GradOperation (base.py), mm (math_ops.py)
    operations/       the primitive classes by family: array_ops, math_ops, nn_ops,
                      random_ops, other_ops, debug_ops, custom_ops (register_op)
    deprecated.py     TensorAdd, Pack, GatherV2, DynamicShape
"""
from __future__ import annotations

from ..ir.registry import REQUIRED, get_op  # noqa: F401
from . import functional
from .functional import *  # noqa: F401,F403
from .functional import max, min, sum, abs, pow, all, any, round  # noqa: F401
from .function.index_func import slice  # noqa: F401  (shadows the builtin, as mindspore.ops.slice)
from .function.debug_func import print_  # noqa: F401
from .primitive import Primitive, constexpr  # noqa: F401
from . import operations  # noqa: F401
from .operations import *  # noqa: F401,F403
# MindSpore's functional module holds primitive instances under these names (F.reduce_sum
# is P.ReduceSum(): keep_dims False, the axis its second argument, () for all)
for _name, _prim in (("reduce_sum", operations.ReduceSum), ("reduce_mean", operations.ReduceMean),
                     ("reduce_max", operations.ReduceMax), ("reduce_min", operations.ReduceMin),
                     ("reduce_prod", operations.ReduceProd)):
    if not hasattr(functional, _name):
        setattr(functional, _name, _prim())
        functional.__all__.append(_name)
from . import composite  # noqa: F401
from .composite import GradOperation, HyperMap, Map, MultitypeFuncGraph  # noqa: F401
from .function.grad.grad_func import get_grad, grad, value_and_grad  # noqa: F401
from ._dispatch import apply  # noqa: F401
from .operations.custom_ops import CustomOp, register_op, call_op  # noqa: F401
