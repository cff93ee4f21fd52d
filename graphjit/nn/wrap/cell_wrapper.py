"""MindSpore's `mindspore.nn.wrap.cell_wrapper`: WithLossCell, WithEvalCell and
TrainOneStepCell."""
from __future__ import annotations

import numbers

from ... import ops
from ...ir import dtypes as mstype
from ...ops.function.grad.grad_func import GradFunction
from ..cell import Cell, cast_floats
from ..layer.basic import Identity
from .grad_reducer import data_parallel_reducer

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell"]


class WithLossCell(Cell):
    """loss_fn(backbone(data), label)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        if not isinstance(backbone, Cell) or not isinstance(loss_fn, Cell):
            raise TypeError(f"WithLossCell needs a Cell and a loss Cell, got "
                            f"{type(backbone).__name__} and {type(loss_fn).__name__}")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """(loss, outputs, label) of a network and a loss (for Model.eval's metrics)."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = bool(add_cast_fp32)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:      # a float16 network's outputs, compared in float32
            label = cast_floats(label, mstype.float32)
            outputs = cast_floats(outputs, mstype.float32)
        return self._loss_fn(outputs, label), outputs, label


class TrainOneStepCell(Cell):
    """One training step: the loss of `network` (a network with its loss) on the
    inputs, its gradients with respect to the optimizer's Parameters (scaled by
    `sens`), and the optimizer's update; returns the loss (and the gradients with
    return_grad).

    The loss and the gradients come from one run of the network (value_and_grad), so
    the state it updates (BatchNorm's moving statistics) is updated once per step, as
    in MindSpore; a sens other than 1 scales the gradients of a sensitivity of ones."""

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"TrainOneStepCell needs a Cell, got {type(network).__name__}")
        if not hasattr(optimizer, "parameters"):
            raise TypeError(f"TrainOneStepCell needs an optimizer (nn.SGD, nn.Momentum, ...), "
                            f"got {type(optimizer).__name__}")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.value_and_grad = GradFunction(network, None, self.weights, get_value=True)
        sens = 1.0 if sens is None else sens
        if isinstance(sens, bool) or not isinstance(sens, numbers.Real):
            raise TypeError(f"TrainOneStepCell: sens must be a number, got {sens!r}")
        self.sens = float(sens)
        self.return_grad = bool(return_grad)
        self.grad_reducer = Identity()
        # DATA_PARALLEL: Parameters from rank 0, gradients all-reduced (MindSpore's
        # reducer_flag)
        reducer = data_parallel_reducer(network, self.weights)
        self.reducer_flag = reducer is not None
        if reducer is not None:
            self.grad_reducer = reducer

    def construct(self, *inputs):
        loss, grads = self.value_and_grad(*inputs)
        if self.sens != 1.0:
            grads = _scale(grads, self.sens)
        grads = self.grad_reducer(grads)
        loss = ops.depend(loss, self.optimizer(grads))
        if self.return_grad:
            return loss, grads
        return loss


def _scale(grads, sens):
    return tuple(g * sens for g in grads)
