"""The training network of an amp level (mindspore.amp.build_train_network, and Model's
amp_level): the network cast as the level says (nn.wrap.mixed_precision), with its loss
(computed in float32 when the network computes in float16) and the optimizer, in a
TrainOneStepWithLossScaleCell when the loss scale manager updates the scale, else a
TrainOneStepCell whose sens is the manager's scale."""
from __future__ import annotations

from ..ir import dtypes as mstype
from ..nn.cell import Cell, cast_floats
from ..nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
from ..nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from ..nn.wrap.mixed_precision import auto_mixed_precision, keep_batchnorm_fp32
from .loss_scale_manager import DynamicLossScaleManager, LossScaleManager

__all__ = ["check_level", "build_train_network", "KWARGS"]

LEVELS = ("O0", "O1", "O2", "O3", "auto")
KWARGS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


def check_level(level):
    """The level ('auto' is O0 on graphjit's CPU backend)."""
    if not isinstance(level, str):
        raise TypeError(f"The argument `level` must be a string in {list(LEVELS)}, but got "
                        f"type {type(level)}.")
    if level not in LEVELS:
        raise ValueError(f"The argument 'level' must be one of {list(LEVELS)}, but got "
                         f"{level!r}")
    return "O0" if level == "auto" else level


def _config(level, kwargs):
    """MindSpore's per-level defaults, overridden by kwargs."""
    config = {"O0": (False, mstype.float32, None), "O1": (False, mstype.float32, None),
              "O2": (True, mstype.float16, "dynamic"), "O3": (False, mstype.float16, None)}
    keep, cast, manager = config[level]
    for k in kwargs:
        if k not in KWARGS:
            raise ValueError(f"Unsupported arg '{k}'")
    cast = kwargs.get("cast_model_type", cast)
    if cast not in (mstype.float16, mstype.float32):
        raise TypeError(f"The argument 'cast_model_type' must be float16 or float32, but "
                        f"got {cast}")
    keep = kwargs.get("keep_batchnorm_fp32", keep)
    if not isinstance(keep, bool):
        raise TypeError(f"The argument 'keep_batchnorm_fp32' must be bool, but got "
                        f"{type(keep).__name__}")
    manager = kwargs["loss_scale_manager"] if "loss_scale_manager" in kwargs else \
        (DynamicLossScaleManager() if manager == "dynamic" else None)
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"The argument 'loss_scale_manager' must be a LossScaleManager, but "
                        f"got {type(manager).__name__}")
    return keep, cast, manager


class _WithLossFp32(Cell):
    """The loss over the network's output and the label, both cast to float32 (the loss
    of a network that computes in float16)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(cast_floats(out, mstype.float32),
                             cast_floats(label, mstype.float32))


def cast_network(network, level, keep, cast):
    """The network cast as MindSpore's build_train_network casts it."""
    if cast is mstype.float16:
        network.to_float(mstype.float16)
        if keep:
            keep_batchnorm_fp32(network)
    elif not keep and level == "O2":
        network.to_float(mstype.float16)
    elif level not in ("O2", "O3"):
        network = auto_mixed_precision(network, level)
    return network


def build_train_network(network, optimizer, loss_fn=None, level="O0", **kwargs):
    """See mindspore.amp.build_train_network (graphjit.amp)."""
    if not isinstance(network, Cell):
        raise TypeError(f"The network must be a Cell, but got {type(network).__name__}")
    level = check_level(level)
    keep, cast, manager = _config(level, kwargs)
    network = cast_network(network, level, keep, cast)
    if loss_fn is not None:
        if not isinstance(loss_fn, Cell):
            raise TypeError(f"loss_fn must be a Cell, got {type(loss_fn).__name__}")
        network = _WithLossFp32(network, loss_fn) if cast is mstype.float16 else \
            WithLossCell(network, loss_fn)
    if manager is None:
        return TrainOneStepCell(network, optimizer)
    update_cell = manager.get_update_cell()
    if update_cell is not None:
        return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell)
    return TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale())
