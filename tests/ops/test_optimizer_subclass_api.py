"""What an Optimizer subclass written for MindSpore 2.x (mindcv's AdamW) uses: the
Optimizer's attributes (is_group, decay_flags, optim_filter, use_parallel, hyper_map,
broadcast_params), opt_init_args_register, `from mindspore import _checkparam as
validator`, HyperMap over ParameterTuples, and MultitypeFuncGraph's dispatch (one
registration is called whatever the types, as MindSpore's __call__ does; with several, a
match is needed). The subclass below is ours, in the style of mindcv's AdamW; it trains
the same in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import _checkparam as validator
from graphjit import nn, ops
from graphjit.common.parameter import Parameter, ParameterTuple
from graphjit.nn.optim.optimizer import Optimizer, opt_init_args_register

_update = ops.MultitypeFuncGraph("update")


@_update.register("Tensor", "Tensor", "Tensor", "Tensor", "Bool", "Bool")
def _update_one(lr, weight_decay, param, grad, decay_flag, optim_filter):
    if optim_filter:
        step = grad
        if decay_flag:
            step = step + weight_decay * param
        ops.assign(param, param - lr * step)
    return param


class DecaySGD(Optimizer):
    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        validator.check_non_negative_float(float(weight_decay), "weight_decay", "DecaySGD")
        self.hyper_map = ops.HyperMap()

    def construct(self, gradients):
        lr = self.get_lr()
        out = self.hyper_map(ops.partial(_update, lr, self.weight_decay), self.parameters,
                             gradients, self.decay_flags, self.optim_filter)
        if self.use_parallel:
            self.broadcast_params(out)
        return out


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        self.bn = nn.BatchNorm1d(2)

    def construct(self, x):
        return self.bn(self.dense(x)).sum()


def _train(mode):
    ms.set_context(mode=mode)
    net = Net()
    opt = DecaySGD(net.trainable_params(), 0.1, weight_decay=0.5)
    assert opt.init_args == {"params": opt.init_args["params"], "learning_rate": 0.1,
                             "weight_decay": 0.5}
    assert opt.is_group is False and opt.use_parallel is False
    assert opt.decay_flags == (True, True, False, False)        # not beta / gamma
    assert opt.optim_filter == (True,) * 4
    step = nn.TrainOneStepCell(net, opt)
    step.set_train()
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    step(x)
    return [p.asnumpy().copy() for p in net.trainable_params()]


def test_subclass_trains_alike_in_both_modes():
    g, e = _train(ms.GRAPH_MODE), _train(ms.PYNATIVE_MODE)
    for a, b in zip(g, e):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    # the weight decayed: ones - 0.1 * (grad + 0.5 * ones), and the BN sum's gradient
    # w.r.t. the dense weight is 0 (normalized outputs sum to a constant), so only decay
    np.testing.assert_allclose(g[0], np.full((2, 3), 1 - 0.05), rtol=1e-5, atol=1e-6)


def test_group_flags():
    net = Net()
    params = net.trainable_params()
    opt = DecaySGD([{"params": params[:2], "weight_decay": 0.1},
                    {"params": params[2:]}], 0.1)
    assert opt.is_group is True
    assert opt.decay_flags == (True, True, False, False)


def test_multitype_dispatch():
    one = ops.MultitypeFuncGraph("one")

    @one.register("Tensor")
    def _t(x):
        return ("tensor", x)

    assert one(2.5) == ("tensor", 2.5)          # one registration: called as given
    two = ops.MultitypeFuncGraph("two")
    two.register("Tensor")(lambda x: "tensor")
    two.register("Number")(lambda x: "number")
    assert two(ms.Tensor(1.0)) == "tensor" and two(3) == "number"
    with pytest.raises(TypeError, match="does not support the type"):
        two("text")


def test_hyper_map_over_parameter_tuples():
    ps = ParameterTuple([Parameter(ms.Tensor(np.ones(2, np.float32)), name=f"p{i}")
                         for i in range(3)])
    out = ops.HyperMap()(lambda p, k: p * k, ps, (1.0, 2.0, 3.0))
    assert isinstance(out, tuple)
    np.testing.assert_array_equal(out[2].asnumpy(), [3.0, 3.0])


def test_checkparam_functions():
    assert validator.check_float_range(0.5, 0.0, 1.0, validator.INC_NEITHER, "b", "P") == 0.5
    with pytest.raises(ValueError, match=r"For 'P', the 'b' must be in range of \(0.0, 1.0\)"):
        validator.check_float_range(1.0, 0.0, 1.0, validator.INC_NEITHER, "b", "P")
    assert validator.check_int_range(3, 0, 3, validator.INC_BOTH, "n") == 3
    with pytest.raises(TypeError, match="must be float"):
        validator.check_positive_float(1, "eps", "P")
    with pytest.raises(TypeError, match="must be type of"):
        validator.check_value_type("k", True, [int], "P")
    assert validator.check_value_type("k", 2, [int, float]) == 2
    with pytest.raises(ValueError, match="must be > 0"):
        validator.check_positive_int(0, "n", "P")
    assert validator.check_string("a", ["a", "b"], "s") == "a"
    with pytest.raises(TypeError, match="must be bool"):
        validator.check_bool(1, "flag")


def test_no_match_is_both_value_and_type_error():
    two = ops.MultitypeFuncGraph("pair")
    two.register("Tensor")(lambda x: x)
    two.register("Number")(lambda x: x)
    with pytest.raises(ValueError):          # MindSpore's MultitypeFuncGraph.__call__
        two("s")
    with pytest.raises(TypeError):           # its graph-mode error
        two("s")
