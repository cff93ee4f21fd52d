"""graphjit: write models as ordinary Python, run them as graphs.

    import graphjit as ms
    from graphjit import nn, ops
"""
from ._module_alias import install as _install_module_alias
from .ir import dtypes as _dtypes
from .ir.dtypes import (DType, bool_, int8, int16, int32, int64, uint8, uint16, uint32,
                        uint64, float16, float32, float64)
from .ir.errors import (GraphJitError, ShapeJoinError, TypeJoinError, UnsupportedSyntaxError,
                        UndefinedVariableError, ShapeInferenceError, OpNotFoundError,
                        MissingInferenceError, MissingGradientError, GraphVerificationError,
                        GraphRuntimeError, UnregisteredParameterError,
                        EquivalenceError, ModelFileError, RaiseError)
from .context import GRAPH_MODE, PYNATIVE_MODE, set_context, get_context
from .context import STRICT, COMPATIBLE, LAX
from .common.jit_config import JitConfig
from .common.tensor import Tensor, TensorSpec
from .common.parameter import Parameter, mutable
from .context import ParallelMode, set_auto_parallel_context, get_auto_parallel_context, \
    reset_auto_parallel_context
from . import ops, nn, common
from .common.initializer import set_seed, get_seed
from .jit.api import jit, jit_class, explain
from . import train, dataset
from . import numpy, log   # mindspore.numpy (mnp) and mindspore.log
from . import mint   # mindspore.mint: PyTorch-spelled functions and mint.nn layers
from .train import Model, Callback, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig
from .train import SummaryCollector, SummaryLandscape, SummaryRecord  # noqa: E402
from .train import save_checkpoint, load_checkpoint, load_param_into_net
from .mindir import export, load
# mindspore.train.serialization.export / load (model-zoo export.py scripts import them
# from there): the same functions, wired from the top (train may not import mindir)
train.serialization.export, train.serialization.load = export, load
train.export, train.load = export, load
from .common.parameter import ParameterTuple
from .common.dtype import (dtype_to_nptype, dtype_to_pytype, pytype_to_dtype,  # noqa: E402
                           get_py_obj_dtype)
from .train.loss_scale_manager import (LossScaleManager, FixedLossScaleManager,
                                       DynamicLossScaleManager)
from . import amp
from . import parallel  # noqa: E402  (mindspore.parallel)
from .parallel import set_algo_parameters, get_algo_parameters, reset_algo_parameters  # noqa: E402
from .amp import all_finite, build_train_network
ms_function = jit   # MindSpore 1.x name
ms_class = jit_class   # MindSpore 1.x name


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False):
    """MindSpore's `mindspore.tensor`: a Tensor (the function spelling of the class)."""
    return Tensor(input_data, dtype=dtype, shape=shape, init=init, const_arg=const_arg)
from .jit.compiled_model import compile, import_model, CompiledModel, InferRequest
from .ops.function.grad.grad_func import get_grad, grad, value_and_grad
from .ops.composite.base import GradOperation

dtype = _dtypes
_install_module_alias()   # `mindspore.nn.layer.conv` is graphjit.nn.layer.conv under an alias
float_ = float32
int_ = int64


__version__ = "0.1.0"

__all__ = ["Tensor", "TensorSpec", "Parameter", "mutable", "GRAPH_MODE", "PYNATIVE_MODE", "set_context",
           "get_context", "ParallelMode", "set_auto_parallel_context",
           "get_auto_parallel_context", "reset_auto_parallel_context", "jit", "jit_class", "compile", "import_model", "explain",
           "CompiledModel", "InferRequest", "nn", "ops", "set_seed", "get_seed", "bool_",
           "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "ShapeJoinError",
           "TypeJoinError", "UnsupportedSyntaxError", "UndefinedVariableError", "Model",
           "train", "dataset", "Callback", "LossMonitor", "TimeMonitor", "ParameterTuple",
           "grad", "value_and_grad", "GradOperation", "get_grad", "save_checkpoint", "load_checkpoint", "export", "load",
           "load_param_into_net", "amp", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager", "all_finite", "build_train_network"]
__all__ += ["numpy", "log", "mint", "tensor", "JitConfig", "STRICT", "COMPATIBLE", "LAX"]
