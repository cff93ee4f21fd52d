"""graphjit.parallel: the mindspore.parallel names model-zoo training code imports
(graphjit/parallel/)."""
import sys

import pytest

import graphjit as ms
from graphjit.parallel import _utils
from graphjit.parallel._auto_parallel_context import auto_parallel_context


def test_private_helpers_follow_the_parallel_context():
    try:
        assert _utils._get_parallel_mode() == ms.ParallelMode.STAND_ALONE
        assert _utils._get_device_num() == 1 and _utils._get_gradients_mean() is False
        assert not auto_parallel_context().get_device_num_is_set()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, device_num=4)
        assert _utils._get_parallel_mode() == "data_parallel"
        assert _utils._get_device_num() == 4 and _utils._get_gradients_mean() is True
        assert auto_parallel_context().get_device_num_is_set()
        assert not _utils._is_in_auto_parallel_mode()
    finally:
        ms.reset_auto_parallel_context()
    assert _utils._get_device_num() == 1


def test_algo_parameters_and_import_under_mindspore_names():
    ms.set_algo_parameters(elementwise_op_strategy_follow=True)
    assert ms.get_algo_parameters("elementwise_op_strategy_follow") is True
    ms.reset_algo_parameters()
    assert ms.get_algo_parameters("elementwise_op_strategy_follow") is False
    with pytest.raises(ValueError):
        ms.set_algo_parameters(no_such_option=1)
    saved = sys.modules.get("mindspore")
    sys.modules["mindspore"] = ms
    try:
        from mindspore.parallel._utils import _get_device_num   # noqa: F401
        from mindspore.parallel import set_algo_parameters
        assert set_algo_parameters is ms.set_algo_parameters
    finally:
        if saved is None:
            del sys.modules["mindspore"]
        else:
            sys.modules["mindspore"] = saved


def test_mindspore_common_names_model_zoo_imports():
    from graphjit.common import ParameterTuple, float16, get_seed, set_seed
    set_seed(7)
    assert get_seed() == 7 and float16 is ms.float16 and ParameterTuple is ms.ParameterTuple
