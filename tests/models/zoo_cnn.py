"""Convolutional models in the shape of published MindSpore ones (model zoo LeNet-5,
mindcv ResNet, MobileNetV2, ShuffleNetV2, ConvNeXt, TextCNN), written as a MindSpore
user writes them with only the import changed. Small sizes: the tests train each three
steps in both modes."""
from __future__ import annotations

import numpy as np

import graphjit as ms
import graphjit.numpy as mnp
from graphjit import nn, ops
from graphjit.common import initializer as init
from graphjit.common.initializer import HeNormal, HeUniform, Normal, TruncatedNormal


# -- shared pieces (mindcv's helpers) ------------------------------------------------------
class DropPath(nn.Cell):
    """Stochastic depth per sample: a mask made from mnp.ones through Dropout (which
    scales by 1 / keep), as mindcv's drop_path helper."""

    def __init__(self, drop_prob=0.0, scale_by_keep=True):
        super().__init__()
        self.keep_prob = 1.0 - drop_prob
        self.scale_by_keep = scale_by_keep
        self.dropout = nn.Dropout(p=drop_prob)

    def construct(self, x):
        if self.keep_prob == 1.0 or not self.training:
            return x
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = self.dropout(mnp.ones(shape))
        if not self.scale_by_keep:
            random_tensor = ops.mul(random_tensor, self.keep_prob)
        return x * random_tensor


def init_weights(net):
    """mindcv's _initialize_weights: He normal (fan_out, relu) for convolutions, truncated
    normal for dense layers, ones and zeros for the norms."""
    for _, cell in net.cells_and_names():
        if isinstance(cell, nn.Conv2d):
            cell.weight.set_data(init.initializer(HeNormal(mode="fan_out", nonlinearity="relu"),
                                                  cell.weight.shape, cell.weight.dtype))
        elif isinstance(cell, nn.Dense):
            cell.weight.set_data(init.initializer(TruncatedNormal(0.02), cell.weight.shape,
                                                  cell.weight.dtype))
            if cell.bias is not None:
                cell.bias.set_data(init.initializer("zeros", cell.bias.shape, cell.bias.dtype))
        elif isinstance(cell, (nn.BatchNorm2d, nn.LayerNorm)):
            gamma = cell.gamma
            beta = cell.beta
            gamma.set_data(init.initializer("ones", gamma.shape, gamma.dtype))
            beta.set_data(init.initializer("zeros", beta.shape, beta.dtype))


# -- LeNet-5 (model zoo) -------------------------------------------------------------------
class LeNet5(nn.Cell):
    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


# -- ResNet (mindcv) -----------------------------------------------------------------------
class BasicBlock(nn.Cell):
    expansion = 1

    def __init__(self, in_channels, channels, stride=1, down_sample=None, drop_path=0.0):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels, 3, stride=stride, padding=1,
                               pad_mode="pad")
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(channels, channels, 3, stride=1, padding=1, pad_mode="pad")
        self.bn2 = nn.BatchNorm2d(channels)
        self.down_sample = down_sample
        self.drop_path = DropPath(drop_path)

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample is not None:
            identity = self.down_sample(x)
        out = self.drop_path(out) + identity
        return self.relu(out)


class ResNet(nn.Cell):
    def __init__(self, layers=(1, 1), widths=(8, 16), num_classes=10, drop_path=0.2):
        super().__init__()
        self.input_channels = widths[0]
        self.conv1 = nn.Conv2d(3, widths[0], 3, stride=1, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU()
        self.max_pool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        stages = []
        for i, (n, w) in enumerate(zip(layers, widths)):
            stages.append(self._make_layer(w, n, 1 if i == 0 else 2, drop_path))
        self.layer1, self.layer2 = stages
        self.fc = nn.Dense(widths[-1], num_classes)
        init_weights(self)

    def _make_layer(self, channels, block_nums, stride, drop_path):
        down_sample = None
        if stride != 1 or self.input_channels != channels:
            down_sample = nn.SequentialCell([
                nn.Conv2d(self.input_channels, channels, 1, stride=stride),
                nn.BatchNorm2d(channels)])
        layers = [BasicBlock(self.input_channels, channels, stride, down_sample, drop_path)]
        self.input_channels = channels
        for _ in range(1, block_nums):
            layers.append(BasicBlock(channels, channels, drop_path=drop_path))
        return nn.SequentialCell(layers)

    def construct(self, x):
        x = self.max_pool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = ops.mean(x, (2, 3))
        return self.fc(x)


# -- MobileNetV2 (mindcv) ------------------------------------------------------------------
def _make_divisible(v, divisor=4, min_value=None):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBNReLU(nn.Cell):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        super().__init__()
        padding = (kernel_size - 1) // 2
        self.features = nn.SequentialCell([
            nn.Conv2d(in_planes, out_planes, kernel_size, stride, pad_mode="pad",
                      padding=padding, group=groups, has_bias=False),
            nn.BatchNorm2d(out_planes),
            nn.ReLU6()])

    def construct(self, x):
        return self.features(x)


class InvertedResidual(nn.Cell):
    def __init__(self, in_channels, out_channels, stride, expand_ratio):
        super().__init__()
        hidden_dim = round(in_channels * expand_ratio)
        self.use_res_connect = stride == 1 and in_channels == out_channels
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(in_channels, hidden_dim, kernel_size=1))
        layers.extend([
            ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),  # depthwise
            nn.Conv2d(hidden_dim, out_channels, 1, has_bias=False),
            nn.BatchNorm2d(out_channels)])
        self.layers = nn.SequentialCell(layers)

    def construct(self, x):
        if self.use_res_connect:
            return x + self.layers(x)
        return self.layers(x)


class MobileNetV2(nn.Cell):
    def __init__(self, num_classes=10, width=0.5):
        super().__init__()
        setting = [[1, 8, 1, 1], [4, 12, 2, 2]]   # t, c, n, s
        c_in = _make_divisible(16 * width)
        features = [ConvBNReLU(3, c_in, stride=2)]
        for t, c, n, s in setting:
            c_out = _make_divisible(c * width * 2)
            for i in range(n):
                features.append(InvertedResidual(c_in, c_out, s if i == 0 else 1, t))
                c_in = c_out
        last = _make_divisible(32 * width)
        features.append(ConvBNReLU(c_in, last, kernel_size=1))
        self.features = nn.SequentialCell(features)
        self.classifier = nn.SequentialCell([nn.Dropout(p=0.2), nn.Dense(last, num_classes)])
        init_weights(self)

    def construct(self, x):
        x = self.features(x)
        x = ops.mean(x, (2, 3), keep_dims=False)
        return self.classifier(x)


# -- ShuffleNetV2 (mindcv) -----------------------------------------------------------------
class ShuffleV2Block(nn.Cell):
    def __init__(self, in_channels, out_channels, mid_channels, kernel_size, stride):
        super().__init__()
        self.stride = stride
        pad = kernel_size // 2
        out_channels = out_channels - in_channels
        self.branch_main = nn.SequentialCell([
            nn.Conv2d(in_channels, mid_channels, 1, 1, pad_mode="pad", padding=0),
            nn.BatchNorm2d(mid_channels), nn.ReLU(),
            nn.Conv2d(mid_channels, mid_channels, kernel_size, stride, pad_mode="pad",
                      padding=pad, group=mid_channels),
            nn.BatchNorm2d(mid_channels),
            nn.Conv2d(mid_channels, out_channels, 1, 1, pad_mode="pad", padding=0),
            nn.BatchNorm2d(out_channels), nn.ReLU()])
        if stride == 2:
            self.branch_proj = nn.SequentialCell([
                nn.Conv2d(in_channels, in_channels, kernel_size, stride, pad_mode="pad",
                          padding=pad, group=in_channels),
                nn.BatchNorm2d(in_channels),
                nn.Conv2d(in_channels, in_channels, 1, 1, pad_mode="pad", padding=0),
                nn.BatchNorm2d(in_channels), nn.ReLU()])
        else:
            self.branch_proj = None

    def construct(self, old_x):
        if self.stride == 1:
            x_proj, x = self.channel_shuffle(old_x)
            return ops.concat((x_proj, self.branch_main(x)), axis=1)
        return ops.concat((self.branch_proj(old_x), self.branch_main(old_x)), axis=1)

    def channel_shuffle(self, x):
        batch_size, num_channels, height, width = x.shape
        x = ops.reshape(x, (batch_size * num_channels // 2, 2, height * width))
        x = ops.transpose(x, (1, 0, 2))
        x = ops.reshape(x, (2, -1, num_channels // 2, height, width))
        return x[0], x[1]


class ShuffleNetV2(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.first_conv = nn.SequentialCell([
            nn.Conv2d(3, 8, 3, 2, pad_mode="pad", padding=1), nn.BatchNorm2d(8), nn.ReLU()])
        self.max_pool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.features = nn.SequentialCell([
            ShuffleV2Block(8, 16, 8, 3, 2),
            ShuffleV2Block(8, 16, 8, 3, 1)])
        self.conv_last = nn.SequentialCell([nn.Conv2d(16, 32, 1), nn.BatchNorm2d(32),
                                            nn.ReLU()])
        self.classifier = nn.Dense(32, num_classes, has_bias=False)

    def construct(self, x):
        x = self.max_pool(self.first_conv(x))
        x = self.conv_last(self.features(x))
        x = ops.mean(x, (2, 3))
        return self.classifier(x)


# -- ConvNeXt (mindcv) ---------------------------------------------------------------------
class ConvNextLayerNorm(nn.LayerNorm):
    """LayerNorm over the channels of (N, C, H, W) or of the last axis."""

    def __init__(self, normalized_shape, epsilon, norm_axis=-1):
        super().__init__(normalized_shape=normalized_shape, epsilon=epsilon)
        self.norm_axis = norm_axis

    def construct(self, x):
        if self.norm_axis == -1:
            return super().construct(x)
        x = ops.transpose(x, (0, 2, 3, 1))
        x = super().construct(x)
        return ops.transpose(x, (0, 3, 1, 2))


class ConvNextBlock(nn.Cell):
    def __init__(self, dim, drop_path=0.0, layer_scale_init_value=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, group=dim, has_bias=True)
        self.norm = ConvNextLayerNorm((dim,), epsilon=1e-6)
        self.pwconv1 = nn.Dense(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Dense(4 * dim, dim)
        self.gamma_ = ms.Parameter(ms.Tensor(layer_scale_init_value * np.ones((dim,)),
                                             ms.float32), requires_grad=True)
        self.drop_path = DropPath(drop_path)

    def construct(self, x):
        downsample = x
        x = self.dwconv(x)
        x = ops.transpose(x, (0, 2, 3, 1))
        x = self.norm(x)
        x = self.pwconv2(self.act(self.pwconv1(x)))
        x = self.gamma_ * x
        x = ops.transpose(x, (0, 3, 1, 2))
        return downsample + self.drop_path(x)


class ConvNeXt(nn.Cell):
    def __init__(self, num_classes=10, dims=(8, 16), drop_path_rate=0.2):
        super().__init__()
        self.downsample_layers = nn.CellList()
        self.downsample_layers.append(nn.SequentialCell([
            nn.Conv2d(3, dims[0], kernel_size=4, stride=4, has_bias=True),
            ConvNextLayerNorm((dims[0],), epsilon=1e-6, norm_axis=1)]))
        self.downsample_layers.append(nn.SequentialCell([
            ConvNextLayerNorm((dims[0],), epsilon=1e-6, norm_axis=1),
            nn.Conv2d(dims[0], dims[1], kernel_size=2, stride=2, has_bias=True)]))
        rates = list(np.linspace(0, drop_path_rate, 2))
        self.stages = nn.CellList([nn.SequentialCell([ConvNextBlock(d, float(r))])
                                   for d, r in zip(dims, rates)])
        self.norm = ConvNextLayerNorm((dims[-1],), epsilon=1e-6)
        self.head = nn.Dense(dims[-1], num_classes)
        init_weights(self)

    def construct(self, x):
        for i in range(2):
            x = self.downsample_layers[i](x)
            x = self.stages[i](x)
        return self.head(self.norm(x.mean([-2, -1])))


# -- TextCNN (model zoo) -------------------------------------------------------------------
class TextCNN(nn.Cell):
    def __init__(self, vocab_len=50, word_len=12, num_classes=2, vec_length=16):
        super().__init__()
        self.vec_length = vec_length
        self.word_len = word_len
        self.unsqueeze = ops.ExpandDims()
        self.embedding = nn.Embedding(vocab_len, self.vec_length, embedding_table="uniform")
        self.slice = ops.Slice()
        self.layer1 = self.make_layer(kernel_height=2)
        self.layer2 = self.make_layer(kernel_height=3)
        self.layer3 = self.make_layer(kernel_height=4)
        self.concat = ops.Concat(1)
        self.fc = nn.Dense(4 * 3, num_classes)
        self.drop = nn.Dropout(keep_prob=0.5)
        self.reducemax = ops.ReduceMax(keep_dims=False)

    def make_layer(self, kernel_height):
        return nn.SequentialCell([
            nn.Conv2d(1, 4, kernel_size=(kernel_height, self.vec_length), pad_mode="pad",
                      weight_init=HeUniform(mode="fan_in", nonlinearity="relu")),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=(self.word_len - kernel_height + 1, 1))])

    def construct(self, x):
        x = self.unsqueeze(x, 1)
        x = self.embedding(x)
        x1 = self.reducemax(self.layer1(x), (2, 3))
        x2 = self.reducemax(self.layer2(x), (2, 3))
        x3 = self.reducemax(self.layer3(x), (2, 3))
        x = self.concat((x1, x2, x3))
        x = self.drop(x)
        return self.fc(x)
