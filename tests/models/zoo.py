"""The sweep's models, each with its inputs and how it trains: `ZOO[name]` gives a
Spec whose make() builds the model from a fixed seed (so the two modes start from the
same weights), inputs() the forward inputs, and train() a TrainOneStepCell with its
batch."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np

import graphjit as ms
from graphjit import nn
import zoo_cnn as cnn
import zoo_seq as seq

R = np.random.default_rng(42)


def _image(n, c, h):
    return ms.Tensor(R.standard_normal((n, c, h, h)).astype(np.float32))


def _labels(n, k):
    return ms.Tensor(R.integers(0, k, n).astype(np.int32))


@dataclass
class Spec:
    make: Callable[[], nn.Cell]              # the model (seeded)
    inputs: Tuple                            # forward inputs
    train: Callable[[nn.Cell], nn.Cell]      # model -> TrainOneStepCell
    batch: Tuple                             # the training step's inputs
    forward: Callable[[nn.Cell], nn.Cell] = None   # what runs forward (default: the model)
    rtol: float = 2e-5                       # training: losses and parameters, both modes
    make_train: Callable[[], nn.Cell] = None     # the model trained (default: make)


def _seeded(cls, *args, **kwargs):
    def make():
        ms.set_seed(2024)
        return cls(*args, **kwargs)
    return make


def _classifier(net, lr=0.05, opt="momentum"):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    params = net.trainable_params()
    optim = nn.Momentum(params, lr, 0.9) if opt == "momentum" else nn.Adam(params, lr)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), optim)


class _SentimentWithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, ids, lengths, label):
        return self.loss(self.net(ids, lengths), label)


def _with(loss_cls, lr=0.01, opt="adam"):
    def train(net):
        params = net.trainable_params()
        optim = nn.Adam(params, lr) if opt == "adam" else nn.Momentum(params, lr, 0.9)
        return nn.TrainOneStepCell(loss_cls(net), optim)
    return train


_IMG = _image(2, 3, 16)
_LABEL = _labels(2, 10)
_IDS = ms.Tensor(R.integers(1, 40, (3, 5)).astype(np.int32))
_LENS = ms.Tensor(np.array([5, 3, 4], np.int32))
_SRC = ms.Tensor(R.integers(1, 20, (5, 2)).astype(np.int32))
_TRG = ms.Tensor(R.integers(1, 20, (4, 2)).astype(np.int32))
_FORCE = ms.Tensor(np.array([True, True, False, True]))
_TSRC = ms.Tensor(np.array([[3, 4, 5, 6, 0], [7, 8, 9, 0, 0]], np.int32))
_TTGT = ms.Tensor(np.array([[1, 3, 4, 5, 2, 0], [1, 7, 8, 2, 0, 0]], np.int32))
_TEXT = ms.Tensor(R.integers(0, 50, (2, 12)).astype(np.int32))
_TEXT8 = ms.Tensor(R.integers(0, 50, (8, 12)).astype(np.int32))   # dropout 0.5: a larger batch

ZOO = {
    "lenet": Spec(_seeded(cnn.LeNet5), (_image(2, 1, 32),), _classifier,
                  (_image(2, 1, 32), _LABEL)),
    "resnet": Spec(_seeded(cnn.ResNet), (_IMG,), _classifier, (_IMG, _LABEL)),
    "mobilenetv2": Spec(_seeded(cnn.MobileNetV2), (_IMG,), _classifier, (_IMG, _LABEL)),
    "shufflenetv2": Spec(_seeded(cnn.ShuffleNetV2), (_IMG,), _classifier, (_IMG, _LABEL)),
    "convnext": Spec(_seeded(cnn.ConvNeXt), (_IMG,),
                     lambda n: _classifier(n, 1e-3, "adam"), (_IMG, _LABEL)),
    "textcnn": Spec(_seeded(cnn.TextCNN), (_TEXT,), lambda n: _classifier(n, 0.01, "adam"),
                    (_TEXT8, _labels(8, 2))),
    "vit": Spec(_seeded(seq.ViT), (_IMG,), lambda n: _classifier(n, 1e-3, "adam"),
                (_IMG, _LABEL)),
    "lstm_sentiment": Spec(_seeded(seq.SentimentNet), (_IDS, _LENS),
                           _with(_SentimentWithLoss), (_IDS, _LENS, _labels(3, 2))),
    "gru_seq2seq": Spec(_seeded(seq.Seq2Seq), (_SRC, _TRG, _FORCE),
                        _with(seq.Seq2SeqWithLoss), (_SRC, _TRG, _FORCE)),
    "transformer_beam": Spec(_seeded(seq.TinyTransformer), (_TSRC,),
                             _with(seq.TransformerLoss, 0.05, "momentum"), (_TSRC, _TTGT),
                             forward=lambda n: seq.BeamSearch(n),
                             # trained with float32 projections and momentum: the key
                             # bias's gradient is zero in exact arithmetic, rounding noise
                             # (from the order of sums) that float16 and Adam scale up
                             make_train=_seeded(seq.TinyTransformer,
                                                compute_type=ms.float32)),
    "unet": Spec(_seeded(seq.UNetEncoder), (_IMG,), _with(seq.UNetLoss),
                 (_IMG, ms.Tensor(np.tanh(R.standard_normal((2, 3, 16, 16))).astype(
                     np.float32)))),
}
