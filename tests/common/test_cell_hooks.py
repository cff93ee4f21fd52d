"""Cell.register_forward_pre_hook / register_forward_hook (MindSpore 2.10 signatures):
run eagerly and in graph mode (around a compiled Cell, and built into the graph for a
sub-Cell), with the same results; handles remove them; graphs are rebuilt when hooks
change; gradients see them."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


def vec(*v):
    return ms.Tensor(np.array(v, np.float32))


class Scale(nn.Cell):
    def __init__(self, k=2.0):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Scale(3.0)

    def construct(self, x):
        return self.inner(x) + 1


def add_one_pre(cell, args):
    return args[0] + 1                     # one value: wrapped into a tuple


def double_out(cell, args, output):
    return output * 2


def keep_out(cell, args, output):
    return None


def pre_with_kwargs(cell, args, kwargs):
    return (args[0] - 1,), kwargs


def fwd_with_kwargs(cell, args, kwargs, output):
    return output + args[0]


@pytest.mark.parametrize("mode", MODES)
def test_top_level_hooks(mode):
    ms.set_context(mode=mode)
    net = Scale()
    x = vec(1.0, 2.0)
    h1 = net.register_forward_pre_hook(add_one_pre)
    h2 = net.register_forward_hook(double_out)
    np.testing.assert_array_equal(net(x).asnumpy(), [8.0, 12.0])     # ((x+1)*2)*2
    h2.remove()
    np.testing.assert_array_equal(net(x).asnumpy(), [4.0, 6.0])
    h1.remove()
    h1.remove()                                                        # a second time: nothing
    np.testing.assert_array_equal(net(x).asnumpy(), [2.0, 4.0])


@pytest.mark.parametrize("mode", MODES)
def test_sub_cell_hooks_registered_after_first_call(mode):
    ms.set_context(mode=mode)
    net = Outer()
    x = vec(1.0, 2.0)
    np.testing.assert_array_equal(net(x).asnumpy(), [4.0, 7.0])
    h = net.inner.register_forward_pre_hook(add_one_pre)    # the graph is built again
    g = net.inner.register_forward_hook(double_out)
    np.testing.assert_array_equal(net(x).asnumpy(), [13.0, 19.0])    # (x+1)*3*2 + 1
    h.remove()
    np.testing.assert_array_equal(net(x).asnumpy(), [7.0, 13.0])
    g.remove()
    np.testing.assert_array_equal(net(x).asnumpy(), [4.0, 7.0])


@pytest.mark.parametrize("mode", MODES)
def test_order_none_and_kwargs_variants(mode):
    ms.set_context(mode=mode)
    net = Outer()
    x = vec(1.0, 2.0)
    net.inner.register_forward_hook(keep_out)
    net.inner.register_forward_pre_hook(pre_with_kwargs, with_kwargs=True)
    net.inner.register_forward_hook(fwd_with_kwargs, with_kwargs=True)
    net.inner.register_forward_hook(double_out)
    # x-1 -> *3 -> + (x-1) (the args after the pre-hook) -> *2 -> +1
    np.testing.assert_array_equal(net(x).asnumpy(), [1.0, 9.0])


calls = []


def record_pre(cell, args):
    calls.append(("pre", type(cell).__name__, len(args)))


def record_fwd(cell, args, output):
    calls.append(("fwd", type(cell).__name__, output.shape))


def test_eager_hooks_see_the_cell_args_and_output():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    calls.clear()
    net = Outer()
    net.inner.register_forward_pre_hook(record_pre)
    net.inner.register_forward_hook(record_fwd)
    net(vec(1.0, 2.0))
    net(vec(1.0, 2.0))
    assert calls == [("pre", "Scale", 1), ("fwd", "Scale", (2,))] * 2


def test_graph_top_level_hooks_run_at_every_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    calls.clear()
    net = Scale()
    net.register_forward_pre_hook(record_pre)
    net.register_forward_hook(record_fwd)
    for _ in range(3):
        net(vec(1.0, 2.0))
    assert calls == [("pre", "Scale", 1), ("fwd", "Scale", (2,))] * 3


def test_graph_sub_cell_hook_changing_a_global_list_runs_at_every_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    calls.clear()
    net = Outer()
    net.inner.register_forward_hook(record_fwd)    # appends to a module-level list
    for _ in range(3):
        assert net(vec(1.0, 2.0)).asnumpy().tolist() == [4.0, 7.0]
    assert calls == [("fwd", "Scale", (2,))] * 3      # as eager mode appends


def record_fwd_if_positive(cell, args, output):
    if output.sum() > 0:        # a tensor condition: graph mode cannot change calls here
        calls.append(("fwd", type(cell).__name__, output.shape))


def test_graph_sub_cell_hook_that_graph_mode_cannot_build_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Outer()
    net.inner.register_forward_hook(record_fwd_if_positive)
    with pytest.raises(ms.UnsupportedSyntaxError) as e:
        net(vec(1.0, 2.0))
    assert "calls.append" in str(e.value)
    assert "forward hook 'record_fwd_if_positive' registered on Cell 'Scale'" in str(e.value)


def test_register_type_errors():
    net = Scale()
    with pytest.raises(TypeError, match="python function"):
        net.register_forward_pre_hook(object())
    with pytest.raises(TypeError, match="python function"):
        net.register_forward_hook(Scale())
    with pytest.raises(TypeError, match="with_kwargs"):
        net.register_forward_hook(double_out, with_kwargs=1)


def bad_pre_kwargs(cell, args, kwargs):
    return args[0]


@pytest.mark.parametrize("mode", MODES)
def test_with_kwargs_pre_hook_must_return_pair(mode):
    ms.set_context(mode=mode)
    net = Outer()
    net.inner.register_forward_pre_hook(bad_pre_kwargs, with_kwargs=True)
    with pytest.raises(TypeError, match="new_kwargs"):
        net(vec(1.0, 2.0))


class Lin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(vec(1.0, 2.0), name="w")

    def construct(self, x):
        return (x * self.w).sum()


class Wrap(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lin = Lin()

    def construct(self, x):
        return self.lin(x)


def square_out(cell, args, output):
    return output * output


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("top", [True, False])
def test_gradients_see_hooks(mode, top):
    ms.set_context(mode=mode)
    net = Lin() if top else Wrap()
    cell = net if top else net.lin
    x = vec(3.0, 4.0)
    g0 = ms.grad(net)(x)
    np.testing.assert_allclose(g0.asnumpy(), [1.0, 2.0])
    h = cell.register_forward_hook(square_out)     # out = (x.w)^2: d/dx = 2 (x.w) w
    g1 = ms.grad(net)(x)
    np.testing.assert_allclose(g1.asnumpy(), [22.0, 44.0])
    h.remove()
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [1.0, 2.0])


class Holder(nn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def construct(self, x):
        return self.cell(x)


def test_compiled_model_of_a_hooked_cell():
    net = Scale()
    h = net.register_forward_hook(double_out)
    with pytest.raises(ms.UnsupportedSyntaxError, match="Cell 'Scale' has forward hooks"):
        ms.compile(net, vec(1.0, 2.0))
    model = ms.compile(Holder(net), vec(1.0, 2.0))     # a sub-Cell's hooks are built in
    np.testing.assert_array_equal(model(vec(1.0, 2.0)).asnumpy(), [4.0, 8.0])
    h.remove()
    np.testing.assert_array_equal(ms.compile(net, vec(1.0, 2.0))(vec(1.0, 2.0)).asnumpy(),
                                  [2.0, 4.0])


def test_set_grad_forward_then_gradient_keeps_the_hook():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Lin()
    net.set_grad()
    net.register_forward_hook(square_out)
    x = vec(3.0, 4.0)
    np.testing.assert_allclose(net(x).asnumpy(), 121.0)
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [22.0, 44.0])
