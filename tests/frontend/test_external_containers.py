"""Lists and dicts from outside a compiled function (a global's, a closure's, a Cell's or a
@jit_class object's attribute) changed in place inside it: graph mode changes them at
every call as eager mode does (MindSpore 2.10 JIT Fallback, st tests
fallback/test_graph_fallback_runtime_list_inplace.py, ..._dict_inplace.py and
syntax/simple_expression/test_list_*), and builds the graph again when their contents
differ from those it was built with. Refused under a tensor condition, in a gradient
program and in a compiled model."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import Tensor, jit, nn
from graphjit.jit.cache import cache_of


def _plain(x):
    """A container's contents as plain Python values (tensors as lists of numbers)."""
    if isinstance(x, Tensor):
        return ("T", x.asnumpy().tolist())
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_plain(v) for v in x])
    if isinstance(x, dict):
        return ("dict", [(k, _plain(v)) for k, v in x.items()])
    return x


def _three_calls(make, call):
    """make() -> (callable, container); runs call(callable, i) 3 times in PYNATIVE and in
    GRAPH mode, each on its own fresh container: the results and the container's
    contents after each call are the same, and a returned container is the very one."""
    seen = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        f, box = make()
        if mode == ms.PYNATIVE_MODE and hasattr(f, "__wrapped__"):
            f = f.__wrapped__       # a @jit function compiles in PYNATIVE mode too
        steps = []
        for i in range(3):
            out = call(f, i)
            if isinstance(out, (list, dict)):
                assert out is box, "the container returned is the very object"
            steps.append((_plain(out), _plain(box)))
        seen[mode] = steps
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert seen[ms.GRAPH_MODE] == seen[ms.PYNATIVE_MODE]
    return seen[ms.GRAPH_MODE]


def test_cell_attribute_list_append_tensor():
    # fallback list_inplace: test_list_inplace_with_attribute (self.lst.append(x))
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lst = [1, 2]

        def construct(self, x):
            self.lst.append(x + 1)
            return self.lst

    def make():
        net = Net()
        return net, net.lst

    steps = _three_calls(make, lambda f, i: f(Tensor([i], ms.float32)))
    assert len(steps[-1][1][1]) == 5


def test_cell_attribute_dict_setitem_and_count():
    # fallback dict_inplace: self.d[k] = v, the value read back at the next call
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = {"n": 0}

        def construct(self, x):
            self.d["n"] = self.d["n"] + 1
            self.d["last"] = x * 2
            return x + self.d["n"]

    def make():
        net = Net()
        return net, net.d

    steps = _three_calls(make, lambda f, i: f(Tensor([1.0, 2.0])))
    # the count baked in at build time must follow the dict: 1, 2, 3
    assert [s[0] for s in steps] == [("T", [2.0, 3.0]), ("T", [3.0, 4.0]), ("T", [4.0, 5.0])]


G_LIST = []
G_DICT = {}


def test_global_list_reverse_pop_extend_insert():
    # syntax list_reverse / list_pop / list_extend / list_insert on a global list
    @jit
    def f(x):
        G_LIST.reverse()
        y = G_LIST.pop()
        G_LIST.extend([y, 10])
        G_LIST.insert(0, len(G_LIST))
        return x * y

    def make():
        G_LIST[:] = [1, 2, 3]
        return f, G_LIST

    _three_calls(make, lambda f, i: f(Tensor([2.0])))


def test_global_dict_update_and_pop():
    @jit
    def f(x):
        G_DICT["k"] = G_DICT.get("k", 0) + 1
        old = G_DICT.pop("gone", 5)
        G_DICT.update({"x": x})
        return x + old + G_DICT["k"]

    def make():
        G_DICT.clear()
        G_DICT["gone"] = 7
        return f, G_DICT

    _three_calls(make, lambda f, i: f(Tensor([float(i)])))


def test_closure_list():
    def make():
        acc = [0]

        @jit
        def f(x):
            acc.append(len(acc))
            return x * len(acc)

        return f, acc

    steps = _three_calls(make, lambda f, i: f(Tensor([1.0])))
    assert [s[0] for s in steps] == [("T", [2.0]), ("T", [3.0]), ("T", [4.0])]


def test_jit_class_attribute_list():
    @ms.jit_class
    class Holder:
        def __init__(self):
            self.items = [1]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.h = Holder()

        def construct(self, x):
            self.h.items.append(self.h.items[-1] * 2)
            return x + self.h.items[-1]

    def make():
        net = Net()
        return net, net.h.items

    steps = _three_calls(make, lambda f, i: f(Tensor([0.0])))
    assert steps[-1][1] == ("list", [1, 2, 4, 8])


def test_list_changed_outside_between_calls_rebuilds():
    # the graph holds the contents it was built from: a list changed by the user between
    # calls (not by the program) is read again
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lst = [1]

        def construct(self, x):
            self.lst.append(2)
            return x * sum(self.lst)

    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = Net()
        assert net(Tensor([1.0])).asnumpy().tolist() == [3.0]
        net.lst[:] = [10]
        assert net(Tensor([1.0])).asnumpy().tolist() == [12.0]
        assert net.lst == [10, 2]
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_cache_does_not_grow_at_every_call():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lst = []

        def construct(self, x):
            self.lst.append(1)
            return x * len(self.lst)

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    for i in range(5):
        assert net(Tensor([1.0])).asnumpy().tolist() == [float(i + 1)]
    assert len(cache_of(net)) == 1
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_failed_build_gives_the_list_its_contents_back():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lst = [1]

        def construct(self, x):
            self.lst.append(5)
            if x > 0:
                self.lst.append(x)
            return x

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    with pytest.raises(ms.UnsupportedSyntaxError, match="a list that outlives the call"
                                                        ".*depends on a tensor value"):
        net(Tensor([1.0]))
    assert net.lst == [1]
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_refused_in_a_gradient_program():
    hist = []

    def f(x):
        hist.append(1)
        return (x * x).sum()

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ms.UnsupportedSyntaxError, match="a list that outlives the call"):
        jit(ms.grad(f))(Tensor([1.0, 2.0]))
    with pytest.raises(ms.UnsupportedSyntaxError, match="a list that outlives the call"):
        ms.grad(f)(Tensor([1.0, 2.0]))

    class Net(nn.Cell):
        def construct(self, x):
            return ms.grad(f)(x) * 2

    with pytest.raises(ms.UnsupportedSyntaxError, match="a list that outlives the call"):
        Net()(Tensor([1.0, 2.0]))
    assert hist == []
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_refused_by_a_compiled_model():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lst = []

        def construct(self, x):
            self.lst.append(x)
            return x * 2

    net = Net()
    with pytest.raises(ms.UnsupportedSyntaxError, match="changes a list or dict from outside"):
        ms.compile(net, Tensor([1.0]))
    assert net.lst == []


def test_refused_in_a_tensor_loop():
    store = {}

    @jit
    def f(x, n):
        i = 0
        while i < n:
            store.update({0: i})
            i = i + 1
        return x

    with pytest.raises(ms.UnsupportedSyntaxError, match="a dict that outlives the call"):
        f(Tensor([1.0]), Tensor(3))
    assert store == {}


def test_setitem_refused_in_a_tensor_loop():
    # `store[k] = v` does not make `store` local (Python binds no name): the change
    # to the closure's dict is refused as such, not reported as an undefined name
    store = {}

    @jit
    def f(x, n):
        i = 0
        while i < n:
            store["k"] = x
            i = i + 1
        return x

    with pytest.raises(ms.UnsupportedSyntaxError, match="a dict that outlives the call"):
        f(Tensor([1.0]), Tensor(3))
    assert store == {}


def test_contents_that_stop_changing_reuse_the_graph():
    # after the second call the dict holds what the program writes: the third call runs
    # the graph built for those contents (guard holds), still giving eager mode's answer
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = {}

        def construct(self, x):
            n = len(self.d)
            self.d["mode"] = "train"
            return x * (n + 1)

    def make():
        net = Net()
        return net, net.d

    steps = _three_calls(make, lambda f, i: f(Tensor([1.0])))
    assert [s[0] for s in steps] == [("T", [1.0]), ("T", [2.0]), ("T", [2.0])]
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    for _ in range(2):
        net(Tensor([1.0]))
    built = cache_of(net)
    assert len(built) == 1
    assert net(Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert [id(e) for e in cache_of(net)] == [id(e) for e in built]
    assert net.d == {"mode": "train"}
    ms.set_context(mode=ms.PYNATIVE_MODE)
