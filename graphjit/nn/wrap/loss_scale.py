"""MindSpore's `mindspore.nn.wrap.loss_scale`: training with a scaled loss
(TrainOneStepWithLossScaleCell) and the Cells that update the scale
(DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell).

One step, as MindSpore 2.10 does it on CPU and GPU:

    loss = network(*inputs)
    grads = grad(network, weights)(*inputs, ones_like(loss) * scale)   # scaled gradients
    grads = grads / scale                                             # unscaled
    overflow = some gradient holds inf or nan
    overflow = update_cell(scale_sense, overflow)     # may change the scale Parameter
    if not overflow: optimizer(grads)                 # an overflowing step is skipped
    return loss, overflow, scale
"""
from __future__ import annotations

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ir import dtypes as mstype
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]


def _positive_number(value, name, cls, low=0.0, inclusive=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', the '{name}' must be a number, but got "
                        f"{type(value).__name__}")
    if value < low or (value == low and not inclusive):
        rel = ">=" if inclusive else ">"
        raise ValueError(f"For '{cls}', the '{name}' must be {rel} {low}, but got {value}")
    return value


def _from_source(fn):
    """Built from source when a construct calls it (subclasses call these methods from
    their own construct, as MindSpore's model zoo does)."""
    fn._graphjit_from_source = True
    return fn


class DynamicLossScaleUpdateCell(Cell):
    """Updates the loss scale Parameter it is given: on overflow the scale is divided by
    `scale_factor` (never below 1); after `scale_window` steps in a row without overflow
    it is multiplied by `scale_factor`. Returns the overflow flag it was given.

    Args:
        loss_scale_value (float): the initial loss scale (get_loss_scale).
        scale_factor (int): the factor of each increase and decrease.
        scale_window (int): steps without overflow before an increase.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        cls = "DynamicLossScaleUpdateCell"
        _positive_number(loss_scale_value, "loss_scale_value", cls)
        _positive_number(scale_factor, "scale_factor", cls)
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or \
                scale_window <= 0:
            raise ValueError(f"For '{cls}', the 'scale_window' must be a positive int, but "
                             f"got {scale_window!r}")
        self.scale_window = Tensor(scale_window, dtype=mstype.int32)
        self.scale_factor = Tensor(scale_factor, dtype=mstype.float32)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(1, dtype=mstype.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(0, dtype=mstype.int32),
                                            name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(1.0, dtype=mstype.float32)

    def get_loss_scale(self):
        """The initial loss scale value (a float)."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        decreased = ops.select(overflow,
                               ops.maximum(loss_scale / self.scale_factor,
                                           self.minimum_loss_scale),
                               loss_scale)
        should_inc = ops.less_equal(self.scale_window, self.cur_iter - self.last_overflow_iter)
        restart = ops.logical_or(overflow, should_inc)
        ops.assign(self.last_overflow_iter,
                   ops.select(restart, self.cur_iter, self.last_overflow_iter))
        grow = ops.logical_and(should_inc, ops.logical_not(overflow))
        ops.assign(loss_scale, ops.select(grow, decreased * self.scale_factor, decreased))
        ops.assign(self.cur_iter, self.cur_iter + 1)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A loss scale that never changes: returns the overflow flag it is given.

    Args:
        loss_scale_value (float): the loss scale (get_loss_scale).
    """

    def __init__(self, loss_scale_value):
        super().__init__()
        _positive_number(loss_scale_value, "loss_scale_value", "FixedLossScaleUpdateCell")
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        """The loss scale value (a float)."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with a scaled loss (see the module docstring).

    Args:
        network (Cell): the network with its loss (one output).
        optimizer (Cell): the optimizer of the weights.
        scale_sense (Union[Tensor, Cell]): a Tensor of shape () or (1,) (the scale, to be
            changed with set_sense_scale), or an update Cell (DynamicLossScaleUpdateCell,
            FixedLossScaleUpdateCell) whose get_loss_scale() is the initial scale.

    Returns (construct):
        (loss, overflow, scale): the loss, a bool scalar (the gradients overflowed and
        the optimizer did not run) and the scale this step used.

    Raises:
        TypeError: scale_sense is neither a Cell nor a Tensor.
        ValueError: a Tensor scale_sense whose shape is neither () nor (1,).
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        # what MindSpore's cell gives the subclasses of the model zoo: the CPU/GPU path
        # of the overflow test (FloatStatus of each gradient, summed, 1 <= sum)
        self.hyper_map = ops.HyperMap()
        self.base = Tensor(1, mstype.float32)
        self.reduce_sum = ops.ReduceSum(keep_dims=False)
        self.less_equal = ops.LessEqual()
        self.is_distributed = False
        self.gpu_target = True
        self.reducer_flag = False
        self.degree = 1
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(),
                                                dtype=mstype.float32), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((1,), ()):
                raise ValueError(f"For 'TrainOneStepWithLossScaleCell', the shape of "
                                 f"'scale_sense' must be (1,) or (), but got "
                                 f"{scale_sense.shape}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be "
                            f"Cell or Tensor, but got 'scale_sense' type: "
                            f"{type(scale_sense)}.")

    def construct(self, *inputs):
        weights = self.weights
        loss = self.network(*inputs)
        # the scale this step uses (the update below changes the Parameter, not this)
        scaling_sens = self.scale_sense * 1
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        sens = ops.ones_like(loss) * ops.cast(scaling_sens, loss.dtype)
        grads = self.grad(self.network, weights)(*inputs, sens)
        grads = tuple(g * ops.cast(ops.reciprocal(scaling_sens), g.dtype) for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            loss = ops.depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens

    def set_sense_scale(self, sens):
        """Set the scale (a Tensor scale_sense only) to `sens`, a Tensor."""
        if self.scale_sense is not None and isinstance(sens, Tensor):
            self.scale_sense.set_data(sens)
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the type of 'sens' must "
                            f"be Tensor, but got {type(sens)}")

    @_from_source
    def start_overflow_check(self, pre_cond, compute_input):
        """(status, compute_input): the status get_overflow_status reads (on CPU there is
        no device status: False) and the input unchanged."""
        return False, compute_input

    @_from_source
    def get_overflow_status(self, status, compute_output):
        """A bool scalar: some tensor of compute_output (the gradients) holds inf or
        nan."""
        flags = [ops.logical_not(ops.isfinite(g).all()) for g in compute_output]
        if not flags:
            return ops.zeros((), mstype.bool_)
        return ops.stack(flags).any()

    @_from_source
    def process_loss_scale(self, overflow):
        """The update Cell's answer (it may change the scale), else `overflow`."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
