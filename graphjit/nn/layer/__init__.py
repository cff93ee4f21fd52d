"""MindSpore's `mindspore.nn.layer`: the layers, one family per module (container,
activation, basic, conv, pooling, normalization, embedding, padding, rnn_cells, rnns,
transformer)."""
from .container import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403
from .rnns import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .tensor_array import TensorArray  # noqa: F401
from .image import *  # noqa: F401,F403
from .math_layers import ClipByNorm, Norm  # noqa: F401

__all__ = ["CellList", "SequentialCell", "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "LeakyReLU",
           "ELU", "GELU", "Softplus", "Softmax", "LogSoftmax", "get_activation", "HSwish",
           "HSigmoid", "Mish", "LogSigmoid", "Softsign", "SeLU", "CELU", "Hardtanh", "PReLU",
           "Flatten", "Identity", "Dropout", "Dense", "Pad", "Upsample", "Conv2d", "Conv1d",
           "Conv1dTranspose", "Conv2dTranspose", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "Embedding", "ZeroPad2d",
           "ConstantPad2d", "RNNCell", "GRUCell", "LSTMCell", "RNN", "GRU", "LSTM",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer", "TensorArray"]
# layers published models use (the sweep of issue 21): basic, pooling and padding
__all__ += ["ResizeBilinear", "MaxPool1d", "AvgPool1d", "ReflectionPad1d", "ReflectionPad2d"]
__all__ += ["FastGelu", "Tanhshrink", "Softmin", "SoftShrink", "HShrink", "Threshold", "GLU",
            "OneHot", "Dropout1d", "Dropout2d", "Dropout3d", "Roll", "PixelShuffle",
            "PixelUnshuffle"]
__all__ += ["ClipByNorm", "Norm", "CentralCrop", "EmbeddingLookup"]
