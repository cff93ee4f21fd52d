"""MindSpore's `mindspore.nn.loss.loss`: LossBase and the losses (MSELoss,
CrossEntropyLoss, KLDivLoss, ...)."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss",
           "NLLLoss", "BCEWithLogitsLoss", "BCELoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
           "CosineEmbeddingLoss"]


_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """Base of losses: `get_loss(x, weights=1.0)` weights the elementwise loss x and
    reduces it as `reduction` ('mean', 'sum' or 'none') says."""

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of "
                             f"{', '.join(_REDUCTIONS)}, got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x, weights=1.0):
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = x * weights
        if self.reduction == "mean":
            return ops.mean(x)
        if self.reduction == "sum":
            return ops.sum(x)
        return x



class _Loss(LossBase):
    """MindSpore's deprecated name of LossBase (model-zoo losses still subclass it:
    `from mindspore.nn.loss.loss import _Loss`)."""


class MSELoss(LossBase):
    """(logits - labels) ** 2, reduced."""

    def construct(self, logits, labels):
        return self.get_loss(ops.square(logits - labels))


class L1Loss(LossBase):
    """|logits - labels|, reduced."""

    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """-sum(labels * log_softmax(logits), -1) per sample, logits (N, C). With sparse,
    labels are class indices (N,) (ints); otherwise probabilities (N, C). MindSpore's
    default reduction is 'none' (one loss per sample)."""

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = bool(sparse)

    def construct(self, logits, labels):
        logp = ops.log_softmax(logits, -1)
        if self.sparse:
            labels = ops.one_hot(labels, logits.shape[-1], 1.0, 0.0)
            labels = ops.cast(labels, logp.dtype)
        return self.get_loss(-ops.sum(labels * logp, -1))


class CrossEntropyLoss(LossBase):
    """Cross entropy of logits (N, C) and class indices (N,) or class probabilities
    (N, C), with per-class `weight`, `ignore_index` (indices only) and
    `label_smoothing`, as MindSpore's (and PyTorch's): 'mean' divides by the summed
    weights of the samples counted."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got "
                             f"{label_smoothing!r}")
        self.weight = weight
        self.ignore_index = int(ignore_index)
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits, labels):
        logp = ops.log_softmax(logits, -1)
        n_classes = logits.shape[-1]
        w = self.weight
        if labels.dtype.is_floating:         # class probabilities
            target = labels
            if self.label_smoothing > 0:
                target = target * (1.0 - self.label_smoothing) + \
                    self.label_smoothing / n_classes
            per = -ops.sum(target * logp * (1.0 if w is None else w), -1)
            return self.get_loss(per)
        keep = ops.cast(ops.not_equal(labels, self.ignore_index), logp.dtype)
        safe = ops.where(ops.not_equal(labels, self.ignore_index), labels, 0)
        target = ops.cast(ops.one_hot(safe, n_classes, 1.0, 0.0), logp.dtype)
        if self.label_smoothing > 0:
            target = target * (1.0 - self.label_smoothing) + \
                self.label_smoothing / n_classes
        cw = 1.0 if w is None else w
        per = -ops.sum(target * logp * cw, -1) * keep
        if self.reduction == "none":
            return per
        if self.reduction == "sum":
            return ops.sum(per)
        sample_w = keep if w is None else ops.gather(w, safe, 0) * keep
        return ops.sum(per) / ops.sum(sample_w)


class NLLLoss(LossBase):
    """The negative log likelihood of log-probabilities (N, C) at class indices (N,)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = int(ignore_index)

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy of logits (sigmoid inside, computed stably), with an
    elementwise weight and a positive-class pos_weight."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy_with_logits(logits, labels, self.weight,
                                                    self.pos_weight, self.reduction)


class BCELoss(LossBase):
    """Binary cross entropy of probabilities."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 * d ** 2 / beta where |d| < beta, else |d| - 0.5 * beta; MindSpore's default
    reduction is 'none'."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if not beta > 0:
            raise ValueError(f"SmoothL1Loss: beta must be positive, got {beta!r}")
        self.beta = float(beta)

    def construct(self, logits, labels):
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """0.5 * d ** 2 where |d| < delta, else delta * (|d| - 0.5 * delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        if not delta > 0:
            raise ValueError(f"HuberLoss: delta must be positive, got {delta!r}")
        self.delta = float(delta)

    def construct(self, logits, labels):
        return ops.huber_loss(logits, labels, self.reduction, self.delta)


class KLDivLoss(LossBase):
    """ops.kl_div(logits, labels, reduction) as a loss: reduction 'mean' (the default),
    'sum', 'none' or 'batchmean'."""

    def __init__(self, reduction="mean"):
        if reduction not in ("none", "sum", "mean", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'sum', 'mean' or "
                             f"'batchmean', got {reduction!r}")
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.kl_reduction = reduction

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.kl_reduction)


class CosineEmbeddingLoss(LossBase):
    """For each row pair of logits_x1 and logits_x2 (N, D) with label 1 or -1: 1 - cos
    where the label is 1, max(0, cos - margin) where it is -1; reduced by reduction."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or \
                not -1.0 <= margin <= 1.0:
            raise ValueError(f"CosineEmbeddingLoss: margin must be a float in [-1.0, 1.0], got "
                             f"{margin!r}")
        self.margin = float(margin)

    def construct(self, logits_x1, logits_x2, labels):
        prod = ops.sum(logits_x1 * logits_x2, (1,))
        sq1 = ops.sum(logits_x1 * logits_x1, (1,))
        sq2 = ops.sum(logits_x2 * logits_x2, (1,))
        cosine = prod / (ops.sqrt(sq1) * ops.sqrt(sq2))
        zeros = ops.zeros_like(cosine)
        pos = ops.where(labels == 1, 1.0 - cosine, zeros)
        neg = ops.where(labels == -1, ops.maximum(cosine - self.margin, 0.0), zeros)
        return self.get_loss(pos + neg)
