"""Parameter.set_data follows MindSpore 2.x (mindspore/common/parameter.py set_data and
_set_data_check_input_valid; mstype.implicit_conversion_seq); load_param_into_net's shape
and dtype checks follow mindspore/train/serialization.py _update_param."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import Parameter, Tensor, nn

RANKED = [ms.bool_, ms.int8, ms.uint8, ms.int16, ms.int32, ms.int64, ms.float16, ms.float32,
          ms.float64]


def param(dtype=ms.float32, shape=(2,)):
    return Parameter(Tensor(np.ones(shape), dtype), name="p")


def test_numpy_list_and_none_are_refused_with_mindspore_type_error():
    p = param()
    for bad in (np.zeros(2, np.float32), [1.0, 2.0], None, np.float32(1.0)):
        with pytest.raises(TypeError, match=r"Parameter data must be \[`Tensor`, `int`, "
                                            r"`float`\] or a kind of `Tensor`"):
            p.set_data(bad)
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 1.0])


def test_a_new_shape_is_refused_unless_slice_shape():
    p = param()
    with pytest.raises(ValueError, match=r"Can not change the shape of Parameter which has "
                                         r"been initialized. Current shape is \(2,\), and "
                                         r"incoming is \(3,\)\."):
        p.set_data(Tensor(np.zeros(3, np.float32)))
    assert p.shape == (2,)
    assert p.set_data(Tensor(np.zeros(3, np.float32)), slice_shape=True) is p
    assert p.shape == (3,) and p.dtype == ms.float32


@pytest.mark.parametrize("mine", RANKED)
@pytest.mark.parametrize("theirs", RANKED)
def test_lower_ranked_dtypes_are_cast_higher_ones_refused(mine, theirs):
    p = param(mine)
    data = Tensor(np.array([1, 0]), theirs)
    if RANKED.index(theirs) > RANKED.index(mine):
        with pytest.raises(TypeError, match=f"Incoming Parameter dtype can not be converted to "
                                            f"current dtype implicitly. Current dtype is {mine}, "
                                            f"and incoming is {theirs}"):
            p.set_data(data)
        np.testing.assert_array_equal(p.asnumpy(), [1, 1])
    else:
        p.set_data(data)
        assert p.dtype == mine and p.asnumpy().dtype == mine.np
        np.testing.assert_array_equal(p.asnumpy(), [1, 0])


def test_unranked_dtypes_are_refused_when_they_differ():
    p = param(ms.float32)
    with pytest.raises(TypeError, match="can not be converted"):
        p.set_data(Tensor(np.array([1, 2]), ms.uint16))
    q = param(ms.uint32)
    q.set_data(Tensor(np.array([7, 8]), ms.uint32))
    np.testing.assert_array_equal(q.asnumpy(), [7, 8])


def test_python_numbers_take_the_parameters_dtype():
    p = Parameter(Tensor(np.ones((2, 2), np.float32)), name="p")
    with pytest.raises(ValueError, match="Can not change the shape"):
        p.set_data(3)              # a number is a 0-d Tensor: a new shape (MindSpore)
    s = Parameter(Tensor(1.0, ms.float32), name="s")
    s.set_data(3)
    assert s.dtype == ms.float32 and float(s.asnumpy()) == 3.0
    s.set_data(2.5)
    assert float(s.asnumpy()) == 2.5
    i = Parameter(Tensor(1, ms.int32), name="i")
    i.set_data(7)
    assert i.dtype == ms.int32 and int(i.asnumpy()) == 7
    with pytest.raises(TypeError, match="(?i)Current dtype is Int32, and incoming is Float32"):
        i.set_data(2.5)


def test_set_data_copies_and_a_graph_reads_the_new_value():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x):
            return x * self.w

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        x = Tensor(np.array([1.0, 1.0], np.float32))
        assert net(x).asnumpy().tolist() == [1.0, 2.0]
        src = np.array([3.0, 4.0], np.float32)
        t = Tensor(src)
        net.w.set_data(t)
        src[0] = 100.0
        assert net(x).asnumpy().tolist() == [3.0, 4.0]
        net.w.set_data(Tensor(np.array([5, 6], np.int32)))     # int32 < float32: cast
        assert net(x).asnumpy().tolist() == [5.0, 6.0]
        assert len(net.compile_cache()) == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class Dense(nn.Cell):
    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((2, 3), dtype)), name="w")

    def construct(self, x):
        return x


def test_load_param_into_net_shape_mismatch_is_mindsporess_runtime_error():
    net = Dense()
    with pytest.raises(RuntimeError, match=r"For 'load_param_into_net', w in the argument "
                                           r"'net' should have the same shape as w in the "
                                           r"argument 'parameter_dict'. But got its shape "
                                           r"\(2, 3\) in the argument 'net' and shape \(3, 2\)"):
        ms.load_param_into_net(net, {"w": Tensor(np.zeros((3, 2), np.float32))})
    np.testing.assert_array_equal(net.w.asnumpy(), np.ones((2, 3)))


def test_load_param_into_net_drops_trailing_unit_dimensions():
    # MindSpore's _special_process_par: (2, 3, 1, 1) in the checkpoint fits (2, 3)
    net = Dense()
    v = np.arange(6, dtype=np.float32).reshape(2, 3, 1, 1)
    ms.load_param_into_net(net, {"w": Tensor(v)})
    np.testing.assert_array_equal(net.w.asnumpy(), v.reshape(2, 3))
    with pytest.raises(RuntimeError, match="should have the same shape"):
        ms.load_param_into_net(net, {"w": Tensor(np.zeros((3, 2, 1), np.float32))})


def test_load_param_into_net_dtype_rules():
    net = Dense()
    ms.load_param_into_net(net, {"w": Tensor(np.full((2, 3), 2.0, np.float64))})
    assert net.w.dtype == ms.float32 and float(net.w.asnumpy()[0, 0]) == 2.0
    with pytest.raises(RuntimeError, match=r"should have the same type as w in the argument "
                                           r"'parameter_dict'. but got its type (?i:Float32)"):
        ms.load_param_into_net(net, {"w": Tensor(np.ones((2, 3), np.float64))},
                               strict_load=True)
    with pytest.raises(RuntimeError, match="should have the same type"):
        ms.load_param_into_net(net, {"w": Tensor(np.ones((2, 3), np.int32))})


def test_checkpoint_round_trip_still_loads(tmp_path):
    net = Dense()
    net.w.set_data(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    path = str(tmp_path / "d.ckpt")
    ms.save_checkpoint(net, path)
    fresh = Dense()
    assert ms.load_param_into_net(fresh, ms.load_checkpoint(path)) == ([], [])
    np.testing.assert_array_equal(fresh.w.asnumpy(), net.w.asnumpy())


class SetsData(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

    def construct(self, x):
        self.w.set_data(Tensor(np.array([5.0, 6.0], np.float32)))
        return x * self.w


def test_set_data_inside_a_compiled_construct_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = SetsData()
        with pytest.raises(ms.UnsupportedSyntaxError, match="Parameter.set_data") as e:
            net(Tensor(np.ones(2, np.float32)))
        assert "ops.assign" in str(e.value)
        np.testing.assert_array_equal(net.w.asnumpy(), [1.0, 1.0])     # left as it was
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    out = SetsData()(Tensor(np.ones(2, np.float32)))                   # eager: runs
    np.testing.assert_array_equal(out.asnumpy(), [5.0, 6.0])
