"""MindSpore's `mindspore.parallel`, as far as model-zoo training code imports it:
set_algo_parameters / get_algo_parameters / reset_algo_parameters (the sharding search's
options: kept, graphjit trains data-parallel only), and the private helpers its train
cells call (_utils: _get_device_num, _get_gradients_mean, _get_parallel_mode, ...;
_auto_parallel_context: auto_parallel_context())."""
from __future__ import annotations

__all__ = ["set_algo_parameters", "get_algo_parameters", "reset_algo_parameters"]

_ALGO_DEFAULTS = {"fully_use_devices": True, "elementwise_op_strategy_follow": False,
                  "enable_algo_approxi": False, "algo_approxi_epsilon": 0.1,
                  "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
_algo = dict(_ALGO_DEFAULTS)


def set_algo_parameters(**kwargs):
    """Set options of MindSpore's strategy search (kept; nothing here searches).

    Raises:
        ValueError: an unknown option.
    """
    for k, v in kwargs.items():
        if k not in _ALGO_DEFAULTS:
            raise ValueError(f"Set context keyword {k} is not recognized!")
        _algo[k] = v


def get_algo_parameters(attr_key):
    """The value of one strategy-search option.

    Raises:
        ValueError: an unknown option.
    """
    if attr_key not in _ALGO_DEFAULTS:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return _algo[attr_key]


def reset_algo_parameters():
    _algo.clear()
    _algo.update(_ALGO_DEFAULTS)
