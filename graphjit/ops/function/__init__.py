"""MindSpore's `mindspore.ops.function`: the operator functions, one family per module
(array_func, math_func, nn_func, clip_func, random_func, parameter_func, other_func,
debug_func, grad/grad_func; index_func and layer_func hold the array and nn functions
that stand on several families)."""
from .array_func import *  # noqa: F401,F403
from .index_func import *  # noqa: F401,F403
from .math_func import *  # noqa: F401,F403
from .clip_func import *  # noqa: F401,F403
from .random_func import *  # noqa: F401,F403
from .parameter_func import *  # noqa: F401,F403
from .other_func import *  # noqa: F401,F403
from .debug_func import *  # noqa: F401,F403
from .layer_func import *  # noqa: F401,F403
from .nn_func import *  # noqa: F401,F403
from .grad import *  # noqa: F401,F403
from .math_func_more import *  # noqa: F401,F403
from .array_func_more import *  # noqa: F401,F403
from .linalg_func import *  # noqa: F401,F403
from .misc_func_more import *  # noqa: F401,F403
from .scatter_pool_func import *  # noqa: F401,F403
from . import math_func_more as _math_more, array_func_more as _array_more
from . import linalg_func as _linalg, misc_func_more as _misc_more
from . import scatter_pool_func as _scatter_pool

__all__ = ["reshape", "flatten", "transpose", "expand_dims", "unsqueeze", "squeeze", "concat",
           "cat", "stack", "split", "chunk", "tile", "broadcast_to", "gather", "shape",
           "tensor_shape", "rank", "size", "getitem", "zeros", "ones", "full", "full_like", "fill",
           "zeros_like", "ones_like", "arange", "swapaxes", "swapdims", "tril", "triu", "eye",
           "unstack", "unbind", "strided_slice", "index_select", "narrow", "hstack",
           "repeat_elements_of", "repeat_interleave", "where", "select", "masked_fill", "cast",
           "scalar_to_tensor", "tuple_to_array", "one_hot", "topk", "sort", "unique",
           "gather_elements", "max", "min", "argmax", "sequence_mask", "masked_select", "nonzero",
           "gather_nd", "tensor_scatter_add", "scatter_nd", "permute", "numel", "norm", "var",
           "std", "roll", "vstack", "outer", "isclose", "count_nonzero", "add", "sub", "mul",
           "div", "true_divide", "floor_divide", "floor_div", "remainder", "floor_mod",
           "truncate_div", "fmod", "pow", "maximum", "minimum", "neg", "negative", "abs",
           "absolute", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
           "tanh", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
           "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "sigmoid", "erf", "relu", "square", "floor", "ceil", "round", "trunc", "sign",
           "isnan", "isinf", "isfinite", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or",
           "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
           "sum", "mean", "prod", "amax", "amin", "argmin", "all", "any", "logsumexp", "cumsum",
           "cumprod", "einsum", "cdist", "matmul", "bmm", "batch_dot", "clamp", "clip", "clip_by_value",
           "clip_by_norm", "clip_by_global_norm", "standard_normal", "randn", "rand", "randn_like",
           "rand_like", "uniform", "normal", "randint", "assign", "assign_add", "assign_sub",
           "depend", "addn", "runtime_print", "runtime_assert", "runtime_check", "print_", "conv2d",
           "max_pool2d", "avg_pool2d", "batch_norm", "layer_norm", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "interpolate", "upsample", "conv1d", "conv_transpose2d",
           "group_norm", "instance_norm", "conv3d", "pad", "flip", "bias_add", "dropout", "cross_entropy",
           "nll_loss", "binary_cross_entropy_with_logits", "binary_cross_entropy", "mse_loss",
           "l1_loss", "smooth_l1_loss", "huber_loss", "hardswish", "hardsigmoid", "mish",
           "logsigmoid", "softsign", "hardtanh", "selu", "celu", "prelu", "kl_div",
           "cosine_similarity", "dense", "softmax", "log_softmax", "relu6", "leaky_relu", "gelu",
           "silu", "softplus", "elu", "GradFunction", "grad", "value_and_grad", "tensor_leaves",
           "map_leaves", "stop_gradient", "get_grad"]
__all__ += ["fast_gelu"]
__all__ += (_math_more.__all__ + _array_more.__all__ + _linalg.__all__ +
            _misc_more.__all__ + _scatter_pool.__all__)   # MindSpore 2.x functions composed   # FastGeLU as a function (the sweep of issue 21)
