"""Model (mindspore.Model): train a network with a loss and an optimizer over a
dataset, evaluate it with metrics, predict.

    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"accuracy"})
    model.train(3, batches)          # prints one loss line per epoch
    model.eval(batches)              # {"accuracy": 0.97}

A dataset is an iterable of batches, each a tuple (data, label) of arrays or Tensors
(a MindSpore dataset's create_tuple_iterator() is used when it has one); it is read
again at every epoch (a one-shot iterator is kept as a list first).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..nn.metrics import Loss, Metric, get_metric_fn
from ..nn import Cell, WithEvalCell
from ..common.tensor import Tensor
from .callback import Callback, LossMonitor, RunContext, loss_value
from .amp_build import build_train_network, check_level
from .loss_scale_manager import LossScaleManager

__all__ = ["Model"]


def _tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic, list, float, int, bool)):
        return Tensor(np.asarray(x))
    return x


def _batch(b) -> tuple:
    if isinstance(b, dict):
        b = tuple(b.values())
    if not isinstance(b, (tuple, list)):
        b = (b,)
    return tuple(_tensor(x) for x in b)


class _Batches:
    """A dataset read once per epoch."""

    def __init__(self, dataset):
        if dataset is None:
            raise TypeError("Model needs a dataset: an iterable of (data, label) batches")
        self.dataset = dataset
        self.kept = None
        if not hasattr(dataset, "create_tuple_iterator"):
            try:
                it = iter(dataset)
            except TypeError:
                raise TypeError(f"a dataset must be an iterable of batches, got "
                                f"{type(dataset).__name__}") from None
            if it is dataset:            # a one-shot iterator: keep it for every epoch
                self.kept = list(it)

    def __iter__(self):
        if hasattr(self.dataset, "create_tuple_iterator"):
            source = self.dataset.create_tuple_iterator()
        else:
            source = self.kept if self.kept is not None else self.dataset
        for b in source:
            yield _batch(b)

    def size(self) -> int:
        if hasattr(self.dataset, "get_dataset_size"):
            return int(self.dataset.get_dataset_size())
        if self.kept is not None:
            return len(self.kept)
        try:
            return len(self.dataset)
        except TypeError:
            return -1


def _metrics(metrics):
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for k, m in metrics.items():
            if not isinstance(m, Metric):
                raise TypeError(f"metric {k!r} must be a Metric, got {type(m).__name__}")
        return dict(metrics)
    if isinstance(metrics, (set, list, tuple)):
        return {str(n): get_metric_fn(n) for n in metrics}
    raise TypeError(f"metrics must be a dict of Metrics or a set of names, got "
                    f"{type(metrics).__name__}")


class Model:
    """Training, evaluation and prediction of a network (MindSpore 2.x's Model).

    Args:
        network: the Cell; with loss_fn, its outputs and the labels give the loss.
        loss_fn: a loss Cell, or None if network computes its loss itself.
        optimizer: an optimizer (nn.SGD, nn.Momentum, nn.Adam, nn.Adagrad); needed to
            train.
        metrics: a set of metric names ('accuracy', 'loss', 'mae', 'mse') or a dict of
            name to Metric, for eval.
        eval_network: a Cell giving (loss, outputs, label), in place of
            WithEvalCell(network, loss_fn).
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, Cell):
            raise TypeError(f"Model needs an nn.Cell, got {type(network).__name__}")
        if loss_fn is not None and not isinstance(loss_fn, Cell):
            raise TypeError(f"loss_fn must be a Cell, got {type(loss_fn).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_fns = _metrics(metrics)
        self._train_network = None
        self._amp_level = check_level(amp_level)
        manager = kwargs.pop("loss_scale_manager", None)
        keep = kwargs.pop("keep_batchnorm_fp32", None)
        if kwargs:
            raise ValueError(f"Model got unsupported keyword arguments {sorted(kwargs)}")
        if manager is not None and not isinstance(manager, LossScaleManager):
            raise TypeError(f"loss_scale_manager must be a LossScaleManager (FixedLossScale"
                            f"Manager, DynamicLossScaleManager), got {type(manager).__name__}")
        if optimizer is not None:
            # the amp level casts the network in place (its predict network too), as
            # MindSpore's Model does
            amp = {k: v for k, v in (("loss_scale_manager", manager),
                                     ("keep_batchnorm_fp32", keep)) if v is not None}
            self._train_network = build_train_network(network, optimizer, loss_fn,
                                                      self._amp_level, **amp)
        self._eval_network = eval_network if eval_network is not None else (
            WithEvalCell(network, loss_fn, add_cast_fp32=self._amp_level in ("O2", "O3"))
            if loss_fn is not None else None)

    @property
    def train_network(self):
        return self._train_network

    @property
    def predict_network(self):
        return self._network

    @property
    def eval_network(self):
        return self._eval_network

    # -- training ----------------------------------------------------------------------------
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False,
              sink_size=-1, initial_epoch=0):
        """Train for `epoch` epochs (from initial_epoch) over the dataset: one
        TrainOneStepCell call per batch, in the current mode. Prints each epoch's mean
        loss (`epoch: 1, loss is 0.123 (mean of 8 steps)`) unless a LossMonitor does the
        printing; calls the callbacks' hooks.

        Raises:
            RuntimeError: the Model has no optimizer.
            TypeError / ValueError: bad epochs, dataset or callbacks.
        """
        if self._train_network is None:
            raise RuntimeError("Model.train needs an optimizer: Model(network, loss_fn, "
                               "optimizer)")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
            raise ValueError(f"epoch must be an int >= 0, got {epoch!r}")
        cbs = self._callbacks(callbacks)
        print_epochs = not any(isinstance(c, LossMonitor) for c in cbs)
        batches = _Batches(train_dataset)
        net = self._train_network
        net.set_train(True)
        cb = SimpleNamespace(train_network=net, epoch_num=epoch, batch_num=batches.size(),
                             cur_epoch_num=initial_epoch, cur_step_num=0, cur_step_in_epoch=0,
                             net_outputs=None, optimizer=self._optimizer,
                             loss_fn=self._loss_fn, train_dataset=train_dataset)
        ctx = RunContext(cb)
        for c in cbs:
            c.on_train_begin(ctx)
        for e in range(initial_epoch, epoch):
            cb.cur_epoch_num, cb.cur_step_in_epoch = e + 1, 0
            for c in cbs:
                c.on_train_epoch_begin(ctx)
            losses = []
            for data in batches:
                cb.cur_step_num += 1
                cb.cur_step_in_epoch += 1
                for c in cbs:
                    c.on_train_step_begin(ctx)
                cb.net_outputs = net(*data)
                losses.append(loss_value(cb.net_outputs))
                for c in cbs:
                    c.on_train_step_end(ctx)
                if ctx.get_stop_requested():
                    break
            if print_epochs and losses:
                print(f"epoch: {e + 1}, loss is {np.mean(losses):.6f} (mean of {len(losses)} "
                      f"steps)", flush=True)
            for c in cbs:
                c.on_train_epoch_end(ctx)
            if ctx.get_stop_requested():
                break
        for c in cbs:
            c.on_train_end(ctx)

    @staticmethod
    def _callbacks(callbacks):
        if callbacks is None:
            return []
        cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
        for c in cbs:
            if not isinstance(c, Callback):
                raise TypeError(f"callbacks must be Callbacks, got {type(c).__name__}")
        return cbs

    # -- evaluation and prediction ------------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """The metrics over the dataset: {name: value}.

        Raises:
            RuntimeError: the Model has no metrics, or no loss_fn and no eval_network.
        """
        if not self._metric_fns:
            raise RuntimeError("Model.eval needs metrics: Model(..., metrics={'accuracy'})")
        net = self._eval_network
        for m in self._metric_fns.values():
            m.clear()
        if net is not None:
            net.set_train(False)
        else:
            self._network.set_train(False)
        for data in _Batches(valid_dataset):
            if net is not None:
                loss, outputs, label = net(*data)
            else:
                loss, outputs, label = None, self._network(*data[:-1]), data[-1]
            for name, m in self._metric_fns.items():
                if isinstance(m, Loss):
                    if loss is None:
                        raise RuntimeError(f"metric {name!r} needs a loss: give Model a "
                                           f"loss_fn")
                    m.update(loss)
                else:
                    m.update(outputs, label)
        return {name: m.eval() for name, m in self._metric_fns.items()}

    def predict(self, *predict_data, backend=None, config=None):
        """The network's outputs for the inputs (in the current mode)."""
        self._network.set_train(False)
        return self._network(*(_tensor(x) for x in predict_data))

    def __call__(self, *inputs):
        return self.predict(*inputs)
