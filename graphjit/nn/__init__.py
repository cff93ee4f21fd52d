"""graphjit.nn: MindSpore's `mindspore.nn`, laid out as MindSpore lays it out.

    cell.py            Cell, the base of everything below
    layer/             the layers, one family per module: container, activation, basic
                       (Dense, Dropout, Flatten, Pad, Upsample), conv, pooling,
                       normalization, embedding, padding, rnn_cells, rnns (LSTM, GRU, RNN),
                       transformer (MultiheadAttention, Transformer*)
    loss/loss.py       LossBase and the losses
    optim/             optimizer.py (Optimizer), sgd, momentum, adam, ada_grad, rmsprop
    dynamic_lr.py      learning-rate lists (exponential_decay_lr, warmup_lr, ...)
    learning_rate_schedule.py  learning-rate Cells of the step (PolynomialDecayLR, WarmUpLR, ...)
    wrap/cell_wrapper.py  WithLossCell, WithEvalCell, TrainOneStepCell
    wrap/grad_reducer.py  DistributedGradReducer (data-parallel training)
    wrap/loss_scale.py    TrainOneStepWithLossScaleCell, Dynamic/FixedLossScaleUpdateCell
    metrics.py         Metric, Accuracy, Loss, MAE, MSE (also graphjit.train.metrics)
"""
from .cell import Cell
from .graph_cell import GraphCell
from .layer import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .optim import *  # noqa: F401,F403
from .dynamic_lr import *  # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .wrap import *  # noqa: F401,F403
from .metrics import MAE, MSE, Accuracy, Loss, Metric  # MindSpore 1.x's nn names
from . import layer, loss, optim, wrap, dynamic_lr, metrics  # noqa: F401
from . import learning_rate_schedule  # noqa: F401

__all__ = ["Cell", "GraphCell", "CellList", "SequentialCell", "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU",
           "LeakyReLU", "ELU", "GELU", "Softplus", "Softmax", "LogSoftmax", "Flatten", "Identity",
           "Dropout", "Dense", "get_activation", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "LayerNorm", "Embedding", "HSwish", "HSigmoid", "Mish",
           "LogSigmoid",
           "Softsign", "SeLU", "CELU", "Hardtanh", "PReLU", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool2d", "ZeroPad2d", "ConstantPad2d", "Pad", "RNNCell", "GRUCell",
           "LSTMCell", "RNN", "GRU", "LSTM", "LossBase", "MSELoss", "L1Loss",
           "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss",
           "BCELoss", "SmoothL1Loss", "HuberLoss", "Optimizer", "SGD", "Momentum", "Adam",
           "Adagrad", "AdamWeightDecay", "RMSProp", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "piecewise_constant_lr",
           "warmup_lr", "WithLossCell", "WithEvalCell", "TrainOneStepCell",
           "DistributedGradReducer", "TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell",
           "FixedLossScaleUpdateCell", "Conv1d",
           "Conv1dTranspose", "Conv2dTranspose", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "Upsample", "KLDivLoss", "CosineEmbeddingLoss", "MultiheadAttention",
           "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer", "Accuracy", "Loss", "MAE", "MSE", "Metric",
           "TensorArray"]
__all__ += ["FastGelu", "Tanhshrink", "Softmin", "SoftShrink", "HShrink", "Threshold", "GLU",
            "OneHot", "Dropout1d", "Dropout2d", "Dropout3d", "Roll", "PixelShuffle",
            "PixelUnshuffle", "LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR",
            "InverseDecayLR", "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR",
            "ClipByNorm", "Norm", "CentralCrop", "EmbeddingLookup", "FTRL"]
