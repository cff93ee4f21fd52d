"""MindSpore's `mindspore.nn.metrics` (also `mindspore.train.metrics`): Accuracy, Loss,
MAE, MSE: `clear()`, `update(...)` per batch, `eval()` for the result."""
from __future__ import annotations

import numpy as np

from ..common.tensor import Tensor

__all__ = ["Metric", "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn", "names"]


def _np(x) -> np.ndarray:
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


class Metric:
    """Base of metrics."""

    def __init__(self):
        self.clear()

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError

    def _nothing(self):
        return RuntimeError(f"{type(self).__name__}.eval() before any update(); evaluate on "
                            f"a dataset with at least one batch")


class Accuracy(Metric):
    """The fraction of samples whose largest logit (y_pred (N, C)) is their class
    (y: indices (N,) or one-hot / probabilities (N, C))."""

    def __init__(self, eval_type="classification"):
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type is 'classification' or 'multilabel', got "
                             f"{eval_type!r}")
        self.eval_type = eval_type
        super().__init__()

    def clear(self):
        self._correct, self._total = 0, 0

    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"Accuracy.update needs (y_pred, y), got {len(inputs)} inputs")
        pred, y = _np(inputs[0]), _np(inputs[1])
        if self.eval_type == "multilabel":
            hits = np.all((pred > 0.5) == (y > 0.5), axis=-1)
        else:
            labels = y.argmax(-1) if y.ndim == pred.ndim else y
            hits = pred.argmax(-1) == labels.astype(np.int64)
        self._correct += int(np.sum(hits))
        self._total += int(hits.size)

    def eval(self):
        if not self._total:
            raise self._nothing()
        return self._correct / self._total


class Loss(Metric):
    """The mean of the losses of the batches."""

    def clear(self):
        self._sum, self._count = 0.0, 0

    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"Loss.update needs one loss, got {len(inputs)} inputs")
        self._sum += float(np.mean(_np(inputs[0])))
        self._count += 1

    def eval(self):
        if not self._count:
            raise self._nothing()
        return self._sum / self._count


class _Error(Metric):
    _fn = None

    def clear(self):
        self._sum, self._count = 0.0, 0

    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"{type(self).__name__}.update needs (y_pred, y), got "
                             f"{len(inputs)} inputs")
        pred, y = _np(inputs[0]).astype(np.float64), _np(inputs[1]).astype(np.float64)
        err = type(self)._fn(pred - y.reshape(pred.shape))
        per_sample = err.reshape(err.shape[0], -1).sum(-1) if err.ndim else err.reshape(1)
        self._sum += float(per_sample.sum())
        self._count += per_sample.shape[0]

    def eval(self):
        if not self._count:
            raise self._nothing()
        return self._sum / self._count


class MAE(_Error):
    """The mean over samples of the summed absolute error."""
    _fn = staticmethod(np.abs)


class MSE(_Error):
    """The mean over samples of the summed squared error."""
    _fn = staticmethod(np.square)


names = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE}


def get_metric_fn(name):
    """A new metric of this name ('accuracy', 'acc', 'loss', 'mae', 'mse')."""
    cls = names.get(str(name).lower())
    if cls is None:
        raise ValueError(f"unknown metric {name!r}; the metrics are {', '.join(names)}")
    return cls()
