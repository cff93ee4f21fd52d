"""Loss-scaled training as MindSpore 2.10 does it (nn/wrap/loss_scale.py, amp.py,
train/loss_scale_manager.py): the scale's schedule, overflow skipping the update,
gradients unscaled to the unscaled step's, Model with loss-scale managers, the amp
LossScalers in a functional @jit step, and a model-zoo style subclass; both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import amp, nn, ops, Parameter, Tensor


class Net(nn.Cell):
    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[0.5, -0.5], [0.25, 1.0], [1.0, 0.0]], dtype)),
                           name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)


X = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]], np.float32)
Y = np.zeros((2, 2), np.float32)
BIG = np.full((2, 3), 1e30, np.float32)


def in_modes(run):
    """run() in PYNATIVE and GRAPH mode; the flat numeric results agree; GRAPH's."""
    res = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            res.append([np.asarray(v, np.float64) for v in run()])
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    for e, g in zip(*res):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    return res[1]


def _outs(out):
    loss, cond, scale = out
    assert cond.dtype == ms.bool_ and cond.shape == ()
    return [loss.asnumpy(), cond.asnumpy(), scale.asnumpy()]


def reference_dynamic(scale, factor, window, overflows):
    """MindSpore's DynamicLossScaleUpdateCell over a run of steps: the scale each step
    uses and the scale after the last."""
    cur, last, used = 1, 0, []
    for over in overflows:
        used.append(scale)
        dec = max(scale / factor, 1.0) if over else scale
        inc = window <= cur - last
        if over or inc:
            last = cur
        scale = dec * factor if inc and not over else dec
        cur += 1
    return used, scale


def test_dynamic_update_cell_schedule_and_overflow_skips_the_step():
    seq = [X, X, BIG, X, X, X, BIG]

    def run():
        net = Net()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
        train = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(net, nn.MSELoss()), opt,
            nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2,
                                          scale_window=2))
        out = []
        for x in seq:
            before = net.w.asnumpy().copy()
            loss, cond, scale = _outs(train(Tensor(x), Tensor(Y)))
            if cond:
                np.testing.assert_array_equal(net.w.asnumpy(), before)   # skipped
            out += [cond, scale]
        return out + [train.scale_sense.asnumpy(), net.w.asnumpy()]
    got = in_modes(run)
    overflows = [x is BIG for x in seq]
    used, final = reference_dynamic(2.0 ** 10, 2, 2, overflows)
    np.testing.assert_array_equal(got[0:14:2], overflows)
    np.testing.assert_array_equal(got[1:14:2], used)
    assert got[14] == final


def test_scaled_step_equals_the_plain_step():
    """With no overflow the unscaled gradients are the plain ones: 3 Momentum steps
    give the weights TrainOneStepCell gives."""
    def run(scaled):
        net = Net()
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
        wl = nn.WithLossCell(net, nn.MSELoss())
        train = (nn.TrainOneStepWithLossScaleCell(wl, opt, Tensor(1024.0, ms.float32))
                 if scaled else nn.TrainOneStepCell(wl, opt))
        losses = []
        for _ in range(3):
            out = train(Tensor(X), Tensor(Y))
            losses.append((out[0] if scaled else out).asnumpy())
        return losses + [net.w.asnumpy()]
    a = in_modes(lambda: run(True))
    b = in_modes(lambda: run(False))
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, rtol=1e-6, atol=1e-7)


def test_tensor_scale_sense_and_set_sense_scale():
    def run():
        net = Net()
        train = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
            Tensor([64.0], ms.float32))
        a = _outs(train(Tensor(X), Tensor(Y)))
        train.set_sense_scale(Tensor([8.0], ms.float32))
        b = _outs(train(Tensor(X), Tensor(Y)))
        return a + b
    got = in_modes(run)
    assert got[2].tolist() == [64.0] and got[5].tolist() == [8.0]
    assert not got[1] and not got[4]


def test_fixed_update_cell_keeps_the_scale_and_skips_overflow():
    def run():
        net = Net()
        train = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
            nn.FixedLossScaleUpdateCell(128.0))
        w0 = net.w.asnumpy().copy()
        a = _outs(train(Tensor(BIG), Tensor(Y)))
        assert np.array_equal(net.w.asnumpy(), w0)
        b = _outs(train(Tensor(X), Tensor(Y)))
        return a + b + [net.w.asnumpy()]
    got = in_modes(run)
    assert got[1] and not got[4]
    assert got[2] == got[5] == 128.0


def test_float16_network_overflows_at_a_large_scale_then_recovers():
    """A float16 network: a scale of 2**16 makes its gradients inf (float16 tops out at
    65504), the step is skipped and the scale halves until they fit."""
    def run():
        net = Net(np.float16)
        train = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01),
            nn.DynamicLossScaleUpdateCell(2.0 ** 16, 2, 1000))
        out = []
        for _ in range(4):
            loss, cond, scale = _outs(train(Tensor(X.astype(np.float16)),
                                            Tensor(Y.astype(np.float16))))
            out += [cond, scale]
        return out + [net.w.asnumpy()]
    got = in_modes(run)
    conds = got[0:8:2]
    assert conds[0] and not conds[-1]
    scales = got[1:8:2]
    assert scales[0] == 2.0 ** 16 and all(b == a / 2 for a, b, c in
                                          zip(scales, scales[1:], conds) if c)


def test_bad_scale_sense():
    net = nn.WithLossCell(Net(), nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), 0.1)
    with pytest.raises(ValueError, match=r"must be \(1,\) or \(\)"):
        nn.TrainOneStepWithLossScaleCell(net, opt, Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be Cell or Tensor"):
        nn.TrainOneStepWithLossScaleCell(net, opt, 1024.0)


class ZooTrainCell(nn.TrainOneStepWithLossScaleCell):
    """A model-zoo style subclass: its own construct over the base's helpers."""

    def construct(self, x, y):
        weights = self.weights
        loss = self.network(x, y)
        scaling_sens = self.scale_sense * 1
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        grads = self.grad(self.network, weights)(x, y, ops.cast(scaling_sens, ms.float32))
        grads = tuple(g / scaling_sens for g in grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens


def test_model_zoo_subclass():
    def run():
        net = Net()
        train = ZooTrainCell(nn.WithLossCell(net, nn.MSELoss()),
                             nn.SGD(net.trainable_params(), 0.1),
                             nn.DynamicLossScaleUpdateCell(2.0 ** 8, 2, 1))
        out = []
        for x in (X, BIG, X):
            out += _outs(train(Tensor(x), Tensor(Y)))
        return out + [net.w.asnumpy()]
    got = in_modes(run)
    assert [got[1], got[4], got[7]] == [0, 1, 0]
    assert [got[2], got[5], got[8]] == [256.0, 512.0, 256.0]


def _batches():
    return [(X, Y), (X * 0.5, Y), (X, Y + 1)]


@pytest.mark.parametrize("manager", [
    lambda: ms.FixedLossScaleManager(1024.0, drop_overflow_update=False),
    lambda: ms.FixedLossScaleManager(1024.0),
    lambda: ms.DynamicLossScaleManager(2 ** 12, 2, 2),
    lambda: None])
def test_model_train_three_steps_with_loss_scale_managers(manager):
    def run(mgr_factory):
        net = Net()
        mgr = mgr_factory()
        scale = 1.0 if mgr is None or mgr.get_update_cell() is not None else \
            mgr.get_loss_scale()
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9, loss_scale=scale)
        kw = {} if mgr is None else {"loss_scale_manager": mgr}
        model = ms.Model(net, nn.MSELoss(), opt, amp_level="O0", **kw)
        model.train(1, _batches())
        return [net.w.asnumpy()]
    got = in_modes(lambda: run(manager))
    plain = in_modes(lambda: run(lambda: None))
    np.testing.assert_allclose(got[0], plain[0], rtol=1e-5, atol=1e-6)


def test_model_kinds_of_train_network():
    net = Net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    m = ms.Model(net, nn.MSELoss(), opt, loss_scale_manager=ms.DynamicLossScaleManager())
    assert isinstance(m.train_network, nn.TrainOneStepWithLossScaleCell)
    m = ms.Model(net, nn.MSELoss(), opt,
                 loss_scale_manager=ms.FixedLossScaleManager(drop_overflow_update=False))
    assert type(m.train_network) is nn.TrainOneStepCell
    with pytest.raises(TypeError, match="LossScaleManager"):
        ms.Model(net, nn.MSELoss(), opt, loss_scale_manager=1024)
    # O2: float16 with a dynamic loss scale, as MindSpore's build_train_network
    m = ms.Model(net, nn.MSELoss(), opt, amp_level="O2")
    assert isinstance(m.train_network, nn.TrainOneStepWithLossScaleCell)


def test_build_train_network_and_auto_mixed_precision():
    net = Net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    t = amp.build_train_network(net, opt, nn.MSELoss(), level="O0",
                                loss_scale_manager=ms.DynamicLossScaleManager(2 ** 10))
    assert isinstance(t, nn.TrainOneStepWithLossScaleCell)
    assert float(t.scale_sense.asnumpy()) == 1024.0
    assert type(amp.build_train_network(net, opt, nn.MSELoss())) is nn.TrainOneStepCell
    assert amp.auto_mixed_precision(net, "O0") is net
    assert amp.auto_mixed_precision(net, "auto") is net
    with pytest.raises(ValueError):
        amp.build_train_network(net, opt, level="O5")


def test_managers_host_side_update():
    m = ms.DynamicLossScaleManager(init_loss_scale=16, scale_factor=2, scale_window=2)
    seen = []
    for over in (False, False, True, False, False):
        m.update_loss_scale(over)
        seen.append(m.get_loss_scale())
    assert seen == [16, 32, 16, 16, 32]
    assert ms.FixedLossScaleManager(8.0).get_update_cell().get_loss_scale() == 8.0
    assert ms.FixedLossScaleManager(8.0, False).get_update_cell() is None
    with pytest.raises(ValueError):
        ms.FixedLossScaleManager(0.5)
    with pytest.raises(ValueError):
        ms.DynamicLossScaleManager(scale_window=0)


# ---- mindspore.amp: all_finite and the LossScalers --------------------------------------

def test_all_finite():
    assert bool(amp.all_finite((Tensor([1.0, 2.0]), Tensor([3.0]))).asnumpy())
    assert not bool(amp.all_finite((Tensor([1.0, np.inf]), Tensor([3.0]))).asnumpy())
    assert not bool(amp.all_finite([Tensor(np.array([np.nan], np.float16))]).asnumpy())
    assert amp.init_status().shape == (8,)


def test_static_loss_scaler():
    s = amp.StaticLossScaler(scale_value=2 ** 10)
    assert s.scale(Tensor([1.0])).asnumpy().tolist() == [1024.0]
    g = s.unscale((Tensor(np.array([1.5, 1.0], np.float16)), Tensor([2048.0])))
    assert g[0].dtype == ms.float16
    np.testing.assert_allclose(g[0].asnumpy(), [1.5 / 1024, 1 / 1024], rtol=1e-3)
    assert g[1].asnumpy().tolist() == [2.0]
    assert s.adjust(Tensor(True)) is False


def test_dynamic_loss_scaler_adjust():
    s = amp.DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=1)
    grads = (Tensor(np.array([np.nan, 1.0], np.float16)),)
    finite = amp.all_finite(s.unscale(grads))
    assert s.adjust(finite) is True
    assert float(s.scale_value.asnumpy()) == 512.0
    s.adjust(Tensor(True))
    assert float(s.scale_value.asnumpy()) == 1024.0
    s2 = amp.DynamicLossScaler(4, 2, 3)
    for f in (True, True, True, True, False):
        s2.adjust(Tensor(f))
    # grows after 3 finite steps (8), then one finite (counter 1) and an overflow: 4
    assert float(s2.scale_value.asnumpy()) == 4.0
    assert int(s2.counter.asnumpy()) == 0


def test_functional_jit_step_with_dynamic_loss_scaler():
    def run():
        net = Net()
        opt = nn.SGD(net.trainable_params(), 0.05)
        loss_fn = nn.MSELoss()
        scaler = amp.DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=2)

        def forward(x, y):
            return scaler.scale(loss_fn(net(x), y))
        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        @ms.jit
        def step(x, y):
            loss, grads = grad_fn(x, y)
            loss = scaler.unscale(loss)
            grads = scaler.unscale(grads)
            finite = amp.all_finite(grads)
            if finite:
                opt(grads)
            scaler.adjust(finite)
            return loss, finite
        out = []
        for x in (X, X, BIG, X):
            loss, finite = step(Tensor(x), Tensor(Y))
            out += [finite.asnumpy(), scaler.scale_value.asnumpy()]
        return out + [net.w.asnumpy()]
    got = in_modes(run)
    assert [bool(v) for v in got[0:8:2]] == [True, True, False, True]
    assert got[1:8:2] == [1024.0, 2048.0, 1024.0, 1024.0]


# ---- the model zoo's combinators: MultitypeFuncGraph, HyperMap, F.partial ----------------

from graphjit.ops import composite as C, functional as F  # noqa: E402

_grad_scale = C.MultitypeFuncGraph("grad_scale")
_reciprocal = ops.Reciprocal()


@_grad_scale.register("Tensor", "Tensor")
def _tensor_grad_scale(scale, grad):
    return grad * F.cast(_reciprocal(scale), F.dtype(grad))


_clip = C.MultitypeFuncGraph("clip")


@_clip.register("Number", "Number", "Tensor")
def _clip_tensor(clip_type, clip_value, grad):
    if clip_type == 0:
        return ops.clip_by_value(grad, -clip_value, clip_value) if hasattr(
            ops, "clip_by_value") else ops.clamp(grad, -clip_value, clip_value)
    return grad


class ZooClipTrainCell(nn.TrainOneStepWithLossScaleCell):
    """BERT-style: HyperMap over F.partial of registered functions, clipping, a sens
    given as a Tensor argument."""

    def __init__(self, network, optimizer, scale_update_cell):
        super().__init__(network, optimizer, scale_update_cell)
        self.hyper_map = C.HyperMap()
        self.cast = ops.Cast()

    def construct(self, x, y, sens=None):
        weights = self.weights
        loss = self.network(x, y)
        scaling_sens = self.scale_sense * 1 if sens is None else sens
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        grads = self.grad(self.network, weights)(x, y, self.cast(scaling_sens, ms.float32))
        grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
        cond = self.get_overflow_status(status, grads)
        grads = self.hyper_map(F.partial(_clip, 0, 1.0), grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens


def test_model_zoo_hyper_map_partial_multitype():
    def run():
        net = Net()
        train = ZooClipTrainCell(nn.WithLossCell(net, nn.MSELoss()),
                                 nn.SGD(net.trainable_params(), 0.1),
                                 nn.DynamicLossScaleUpdateCell(2.0 ** 8, 2, 1))
        out = []
        for x in (X * 10, BIG, X):
            out += _outs(train(Tensor(x), Tensor(Y)))
            out.append(net.w.asnumpy().copy())
        return out
    got = in_modes(run)
    assert [got[1], got[5], got[9]] == [0, 1, 0]
    # the first step's gradient is clipped to [-1, 1] before SGD
    net = Net()
    w0 = net.w.asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        g = ms.grad(nn.WithLossCell(net, nn.MSELoss()), None, net.trainable_params())(
            Tensor(X * 10), Tensor(Y))[0].asnumpy()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    assert np.abs(g).max() > 1
    np.testing.assert_allclose(got[3], w0 - 0.1 * np.clip(g, -1, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[7], got[3])      # the overflowing step is skipped


def test_combinators():
    assert C.HyperMap()(lambda a, b: a + b, (1, [2, 3]), (10, [20, 30])) == (11, [22, 33])
    assert C.HyperMap(lambda a: a * 2)((1, 2)) == (2, 4)
    assert C.Map()(lambda a: a + 1, [1, 2]) == [2, 3]
    assert ops.Partial()(lambda a, b: a - b, 5)(2) == 3
    # one registration is called whatever the arguments' types (MindSpore's
    # MultitypeFuncGraph.__call__); here F.dtype(2.0) inside it refuses the float
    with pytest.raises(TypeError, match="must be a Tensor"):
        _grad_scale(1.0, 2.0)


_grad_overflow = C.MultitypeFuncGraph("_grad_overflow")
_float_status = ops.FloatStatus()


@_grad_overflow.register("Tensor")
def _tensor_grad_overflow(grad):
    return _float_status(grad)


class GpuPathTrainCell(nn.TrainOneStepWithLossScaleCell):
    """An older zoo subclass: the overflow test written out on the GPU path."""

    def construct(self, x, y):
        weights = self.weights
        loss = self.network(x, y)
        scaling_sens = self.scale_sense * 1
        grads = self.grad(self.network, weights)(x, y, ops.ones_like(loss) * scaling_sens)
        grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
        if self.gpu_target:
            flag_sum = self.hyper_map(F.partial(_grad_overflow), grads)
            flag_sum = ops.AddN()(flag_sum)
            flag_sum = ops.Reshape()(flag_sum, ())
        else:
            flag_sum = self.reduce_sum(ops.zeros((8,), ms.float32), (0,))
        cond = self.less_equal(self.base, flag_sum)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens


def test_float_status_and_the_gpu_path_subclass():
    assert ops.FloatStatus()(Tensor([1.0, np.inf])).asnumpy().tolist() == [1.0]
    assert ops.FloatStatus()(Tensor([1.0, 2.0])).asnumpy().tolist() == [0.0]

    def run():
        net = Net()
        train = GpuPathTrainCell(nn.WithLossCell(net, nn.MSELoss()),
                                 nn.SGD(net.trainable_params(), 0.1),
                                 nn.DynamicLossScaleUpdateCell(2.0 ** 8, 2, 1))
        out = []
        for x in (X, BIG, X):
            out += _outs(train(Tensor(x), Tensor(Y)))
        return out + [net.w.asnumpy()]
    got = in_modes(run)
    assert [got[1], got[4], got[7]] == [0, 1, 0]
    assert [got[2], got[5], got[8]] == [256.0, 512.0, 256.0]


class LeNet5(nn.Cell):
    """The model zoo's LeNet5 (on 1x16x16 inputs)."""

    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 3, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 2 * 2, 32)
        self.fc2 = nn.Dense(32, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        return self.fc2(x)


def test_lenet_model_three_steps_dynamic_loss_scale_equals_plain():
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((4, 1, 16, 16)).astype(np.float32),
             rng.integers(0, 10, 4).astype(np.int32)) for _ in range(3)]

    def run(manager):
        ms.set_seed(1)
        net = LeNet5()
        for i, p in enumerate(net.trainable_params()):   # the same weights in every run
            p.set_data(Tensor(np.random.default_rng(i).standard_normal(p.shape).astype(
                np.float32) * 0.1))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        kw = {} if manager is None else {"loss_scale_manager": manager()}
        model = ms.Model(net, loss, opt, metrics={"acc"}, amp_level="O0", **kw)
        model.train(1, data)
        return [p.asnumpy() for p in net.trainable_params()]
    scaled = in_modes(lambda: run(lambda: ms.DynamicLossScaleManager(2 ** 12, 2, 2)))
    plain = in_modes(lambda: run(None))
    for a, b in zip(scaled, plain):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
