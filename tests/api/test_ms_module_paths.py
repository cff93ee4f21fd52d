"""Every MindSpore 2.10 module path that graphjit has names for imports those names from the
file of that name (issue 19): `mindspore.nn.layer.rnns` is graphjit/nn/layer/rnns.py and
holds nn.LSTM, `mindspore.ops.function.math_func` is graphjit/ops/function/math_func.py, and
so on. Each name is the very object graphjit.nn / graphjit.ops / graphjit.common gives, the
file defines it (unless listed in REEXPORTED, as MindSpore re-exports it too), and the path
also resolves to the same module under `sys.modules["mindspore"] = graphjit`."""
from __future__ import annotations

import importlib
import inspect
import sys

import pytest

import graphjit

# MindSpore 2.10 module (under mindspore.) -> the graphjit names it holds
MODULES = {
    "nn.cell": "Cell",
    "nn.layer.container": "CellList SequentialCell",
    "nn.layer.activation": ("ReLU ReLU6 Sigmoid Tanh SiLU LeakyReLU ELU GELU Softmax LogSoftmax "
                            "get_activation HSwish HSigmoid Mish LogSigmoid Softsign SeLU CELU "
                            "Hardtanh PReLU"),
    "nn.layer.basic": "Flatten Identity Dropout Dense Pad Upsample",
    "nn.layer.conv": "Conv2d Conv1d Conv1dTranspose Conv2dTranspose",
    "nn.layer.pooling": "MaxPool2d AvgPool2d AdaptiveAvgPool2d AdaptiveMaxPool2d",
    "nn.layer.normalization": ("BatchNorm1d BatchNorm2d LayerNorm GroupNorm InstanceNorm1d "
                               "InstanceNorm2d InstanceNorm3d"),
    "nn.layer.embedding": "Embedding",
    "nn.layer.padding": "ZeroPad2d ConstantPad2d",
    "nn.layer.rnn_cells": "RNNCell GRUCell LSTMCell",
    "nn.layer.rnns": "RNN GRU LSTM",
    "nn.layer.transformer": ("MultiheadAttention TransformerEncoderLayer TransformerEncoder "
                             "TransformerDecoderLayer TransformerDecoder Transformer"),
    "nn.loss.loss": ("LossBase MSELoss L1Loss SoftmaxCrossEntropyWithLogits CrossEntropyLoss "
                     "NLLLoss BCEWithLogitsLoss BCELoss SmoothL1Loss HuberLoss KLDivLoss "
                     "CosineEmbeddingLoss"),
    "nn.optim.optimizer": "Optimizer",
    "nn.optim.sgd": "SGD",
    "nn.optim.momentum": "Momentum",
    "nn.optim.adam": "Adam AdamWeightDecay",
    "nn.optim.ada_grad": "Adagrad",
    "nn.optim.rmsprop": "RMSProp",
    "nn.dynamic_lr": ("exponential_decay_lr natural_exp_decay_lr inverse_decay_lr "
                      "cosine_decay_lr polynomial_decay_lr piecewise_constant_lr warmup_lr"),
    "nn.wrap.cell_wrapper": "WithLossCell WithEvalCell TrainOneStepCell",
    "nn.wrap.grad_reducer": "DistributedGradReducer",
    "nn.wrap.loss_scale": ("TrainOneStepWithLossScaleCell DynamicLossScaleUpdateCell "
                           "FixedLossScaleUpdateCell"),
    "train.loss_scale_manager": "LossScaleManager FixedLossScaleManager DynamicLossScaleManager",
    "amp": ("all_finite init_status LossScaler StaticLossScaler DynamicLossScaler "
            "build_train_network auto_mixed_precision LossScaleManager FixedLossScaleManager "
            "DynamicLossScaleManager"),
    "nn.metrics": "Metric Accuracy Loss MAE MSE get_metric_fn names",
    "train.metrics": "Metric Accuracy Loss MAE MSE get_metric_fn names",
    "ops.primitive": "Primitive constexpr",
    "ops.function.array_func": ("reshape flatten transpose expand_dims unsqueeze squeeze concat "
                                "cat stack split chunk tile broadcast_to gather shape "
                                "tensor_shape rank size getitem zeros ones full full_like fill "
                                "zeros_like ones_like arange swapaxes swapdims tril triu eye "
                                "unstack unbind strided_slice index_select narrow hstack "
                                "repeat_elements_of repeat_interleave where select masked_fill "
                                "cast scalar_to_tensor tuple_to_array one_hot topk sort unique "
                                "gather_elements"),
    "ops.function.math_func": ("permute numel norm var std roll vstack outer isclose "
                               "count_nonzero add sub mul div true_divide floor_divide floor_div "
                               "remainder floor_mod truncate_div fmod pow maximum minimum neg "
                               "negative abs absolute exp log log1p expm1 sqrt rsqrt reciprocal "
                               "sin cos tanh sigmoid erf relu square floor ceil round trunc sign "
                               "isnan isinf isfinite equal not_equal less less_equal greater "
                               "greater_equal lt le gt ge eq ne logical_and logical_or "
                               "logical_xor logical_not bitwise_and bitwise_or bitwise_xor "
                               "invert sum mean prod amax amin argmin all any logsumexp cumsum "
                               "cumprod einsum cdist matmul bmm batch_dot"),
    "ops.function.nn_func": ("pad flip bias_add dropout cross_entropy nll_loss "
                             "binary_cross_entropy_with_logits binary_cross_entropy mse_loss "
                             "l1_loss smooth_l1_loss huber_loss hardswish hardsigmoid mish "
                             "logsigmoid softsign hardtanh selu celu prelu kl_div "
                             "cosine_similarity dense softmax log_softmax relu6 leaky_relu gelu "
                             "silu softplus elu conv2d max_pool2d avg_pool2d batch_norm "
                             "layer_norm adaptive_avg_pool2d adaptive_max_pool2d interpolate "
                             "upsample conv1d conv_transpose2d group_norm instance_norm relu "
                             "sigmoid"),
    "ops.function.clip_func": "clamp clip clip_by_norm clip_by_global_norm",
    "ops.function.random_func": ("standard_normal randn rand randn_like rand_like uniform normal "
                                 "randint"),
    "ops.function.parameter_func": "assign assign_add assign_sub",
    "ops.function.other_func": "depend",
    "ops.function.debug_func": "print_",
    "ops.function.grad.grad_func": "grad value_and_grad stop_gradient",
    "ops.composite.base": "GradOperation HyperMap Map MultitypeFuncGraph",
    "ops.composite.math_ops": "mm",
    "ops.functional": ("shape cast assign depend identity dtype make_tuple tuple_getitem "
                       "tensor_scatter_update partial"),
    "ops.operations.array_ops": ("ZerosLike OnesLike TensorShape Shape Rank Size Tile "
                                 "Reshape Transpose ExpandDims Cast Argmax Argmin "
                                 "ArgMaxWithValue ArgMinWithValue Squeeze Concat Stack Unstack "
                                 "Split Select Zeros Ones Fill Gather BroadcastTo StridedSlice "
                                 "Slice MaskedFill Eye TopK Sort Unique GatherD DType "
                                 "ScalarToTensor TupleToArray GatherNd ScatterNd "
                                 "TensorScatterUpdate TensorScatterAdd MaskedSelect NonZero "
                                 "ResizeNearestNeighbor"),
    "ops.operations.math_ops": ("Neg Abs Exp Log Log1p Expm1 Sqrt Rsqrt Reciprocal Sin Cos Erf "
                                "Square Floor Ceil Round Trunc Sign LogicalNot Invert IsNan "
                                "IsInf IsFinite Add Sub Mul RealDiv Div FloorDiv FloorMod Mod "
                                "TruncateDiv Pow Maximum Minimum Equal NotEqual Less LessEqual "
                                "Greater GreaterEqual LogicalAnd LogicalOr LogicalXor BitwiseAnd "
                                "BitwiseOr BitwiseXor ReduceSum ReduceMean ReduceMax ReduceMin "
                                "ReduceProd ReduceAll ReduceAny CumSum CumProd MatMul "
                                "BatchMatMul AddN Einsum AssignAdd AssignSub FloatStatus"),
    "ops.operations.nn_ops": ("Flatten Tanh Sigmoid ReLU ReLU6 Softplus GeLU Conv2D MaxPool "
                              "AvgPool "
                              "BatchNorm LayerNorm Dropout KLDivLoss Softmax LogSoftmax Elu "
                              "OneHot BiasAdd L2Normalize ApplyGradientDescent ApplyMomentum "
                              "ApplyAdagrad Adam SGD"),
    "ops.operations.random_ops": "StandardNormal UniformReal",
    "ops.operations.other_ops": ("StopGradient Depend Identity MakeTuple TupleGetItem Assign "
                                 "Partial"),
    "ops.operations.debug_ops": "Print",
    "ops.operations.comm_ops": "ReduceOp AllReduce AllGather Broadcast ReduceScatter",
    "ops.deprecated": "TensorAdd Pack GatherV2 DynamicShape",
    "common.dtype": ("DType as_dtype bool_ float16 float32 float64 int8 int16 int32 int64 uint8 "
                     "float_ int_ half double"),
    "common.tensor": "Tensor TensorSpec SymbolicTensor TensorLike Recorder current_recorder",
    "common.parameter": "Parameter ParameterTuple mutable",
    "common.initializer": ("initializer set_seed get_seed Initializer Normal Uniform HeUniform "
                           "XavierUniform Zero One Constant TruncatedNormal HeNormal "
                           "XavierNormal"),
    "common.api": "jit jit_class ms_function",
    "communication.management": ("init release get_rank get_group_size get_local_rank "
                                 "get_local_rank_size create_group destroy_group "
                                 "get_group_rank_from_world_rank get_world_rank_from_group_rank "
                                 "get_process_group_ranks GlobalComm"),
    "context": ("ParallelMode set_auto_parallel_context get_auto_parallel_context "
                "reset_auto_parallel_context set_context get_context"),
}

# names a module holds without defining them (MindSpore's module re-exports them as well)
REEXPORTED = {
    "train.metrics": "*",                 # mindspore.train.metrics <- graphjit.nn.metrics
    "amp": "LossScaleManager FixedLossScaleManager DynamicLossScaleManager",  # as MindSpore's
    "common.dtype": "*", "common.api": "*",
    "ops.functional": "*",                # F gathers every function of ops/function/
    "ops.deprecated": "*",                # 1.x aliases of operations classes
    "ops.function.nn_func": "conv2d max_pool2d avg_pool2d batch_norm layer_norm "
                            "adaptive_avg_pool2d adaptive_max_pool2d interpolate upsample conv1d "
                            "conv_transpose2d group_norm instance_norm relu sigmoid",
    "ops.function.math_func": "numel",    # numel = size (array_func), as graphjit always had
    "common.tensor": "TensorLike",        # defined in common/tensor_like.py (file size)
}


def _public(path, name):
    """The object graphjit's public namespace gives `name` for a module of `path`."""
    if path.endswith("metrics"):
        home = graphjit.nn.metrics
    elif path.startswith("nn."):
        home = graphjit.nn
    elif path.startswith("ops."):
        home = graphjit.ops
    else:
        home = importlib.import_module(f"graphjit.{path}")
    return getattr(home, name)


CASES = [(path, name) for path, names in MODULES.items() for name in names.split()]


@pytest.mark.parametrize("path", sorted(MODULES))
def test_the_module_is_the_file_of_that_name(path):
    module = importlib.import_module(f"graphjit.{path}")
    file = path.replace(".", "/")
    assert module.__file__.replace("\\", "/").endswith(
        (f"graphjit/{file}.py", f"graphjit/{file}/__init__.py")), module.__file__


@pytest.mark.parametrize("path, name", CASES)
def test_each_name_imports_from_its_module(path, name):
    module = importlib.import_module(f"graphjit.{path}")
    obj = getattr(module, name)
    assert obj is _public(path, name)
    skip = REEXPORTED.get(path, "")
    if skip == "*" or name in skip.split():
        return
    if inspect.isclass(obj) or inspect.isfunction(obj):
        assert obj.__module__ == f"graphjit.{path}", (name, obj.__module__)


def test_mindspore_spellings_are_graphjits_modules(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", graphjit)
    monkeypatch.setitem(sys.modules, "mindspore.nn", graphjit.nn)
    monkeypatch.setitem(sys.modules, "mindspore.ops", graphjit.ops)
    try:
        for path in MODULES:
            alias = importlib.import_module(f"mindspore.{path}")
            assert alias is importlib.import_module(f"graphjit.{path}"), path
        from mindspore.nn.layer.rnns import LSTM             # noqa: E402
        from mindspore.ops.operations.math_ops import MatMul  # noqa: E402
        assert LSTM is graphjit.nn.LSTM and MatMul is graphjit.ops.MatMul
        assert graphjit.nn.layer.rnns.__spec__.name == "graphjit.nn.layer.rnns"
    finally:
        for name in [n for n in sys.modules if n.startswith("mindspore.")]:
            del sys.modules[name]


def test_an_unknown_submodule_is_still_an_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", graphjit)
    monkeypatch.setitem(sys.modules, "mindspore.nn", graphjit.nn)
    with pytest.raises(ImportError):
        importlib.import_module("mindspore.nn.layer.no_such_module")
