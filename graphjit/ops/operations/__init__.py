"""MindSpore's `mindspore.ops.operations` (often imported as P): the primitive classes, one
family per module (array_ops, math_ops, nn_ops, random_ops, other_ops, debug_ops,
custom_ops), and the 1.x names of ops/deprecated.py (TensorAdd, Pack, GatherV2,
DynamicShape)."""
from ..primitive import Primitive
from .array_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .random_ops import *  # noqa: F401,F403
from .other_ops import *  # noqa: F401,F403
from .debug_ops import *  # noqa: F401,F403
from .custom_ops import *  # noqa: F401,F403
from .comm_ops import *  # noqa: F401,F403
from .more_ops import *  # noqa: F401,F403
from . import more_ops as _more_ops
from ..deprecated import TensorAdd, Pack, GatherV2, DynamicShape  # noqa: F401

__all__ = ["Primitive", "ZerosLike", "OnesLike", "Flatten", "TensorShape", "Shape", "Rank", "Size",
           "Tile", "Reshape", "Transpose", "ExpandDims", "Cast", "Argmax", "Argmin",
           "ArgMaxWithValue", "ArgMinWithValue", "Squeeze", "Concat", "Stack", "Unstack", "Split",
           "Select", "Zeros", "Ones", "Fill", "FillV2", "Gather", "BroadcastTo", "StridedSlice", "Slice",
           "MaskedFill", "Eye", "TopK", "Sort", "Unique", "GatherD", "DType", "ScalarToTensor",
           "TupleToArray", "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
           "MaskedSelect", "NonZero", "ResizeNearestNeighbor", "Neg", "Abs", "Exp", "Log", "Log1p",
           "Expm1", "Sqrt", "Rsqrt", "Reciprocal", "Sin", "Cos", "Tan", "Asin", "ACos", "Atan",
           "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Square", "Floor", "Ceil",
           "Round", "Trunc", "Sign", "LogicalNot", "Invert", "IsNan", "IsInf", "IsFinite", "Add",
           "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "Pow",
           "Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
           "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "BitwiseAnd", "BitwiseOr",
           "BitwiseXor", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
           "ReduceAll", "ReduceAny", "CumSum", "CumProd", "MatMul", "BatchMatMul", "AddN",
           "Einsum", "AssignAdd", "AssignSub", "Tanh", "Sigmoid", "ReLU", "ReLU6", "Softplus",
           "GeLU", "Conv2D", "MaxPool", "AvgPool", "BatchNorm", "LayerNorm", "Dropout",
           "KLDivLoss", "Softmax", "LogSoftmax", "Elu", "OneHot", "BiasAdd", "L2Normalize",
           "ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "Adam", "SGD",
           "StandardNormal", "UniformReal", "StopGradient", "Depend", "Identity", "MakeTuple",
           "TupleGetItem", "Assign", "Partial", "FloatStatus", "Print", "ReduceOp", "AllReduce", "AllGather", "Broadcast",
           "ReduceScatter", "CustomOp", "register_op", "call_op", "TensorAdd",
           "Pack", "GatherV2", "DynamicShape"]
# primitives published models call (the sweep of issue 21)
__all__ += ["ReverseV2", "ReverseSequence", "Pad", "MirrorPad", "FastGeLU",
            "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits"]
# primitives over the functions of ops/function/*_more.py and linalg_func.py
__all__ += _more_ops.__all__
# the model zoo's Wide&Deep and DeepFM losses
__all__ += ["SigmoidCrossEntropyWithLogits"]
