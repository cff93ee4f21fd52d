"""Names MindSpore programs use that graphjit has under MindSpore's spelling: ms_class,
Tensor.from_numpy, the unsigned dtypes, and (ops) HyperMap, Map, tuple_div, typeof,
nn.TensorArray."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from helpers import run_both, T
from optional import require


def test_ms_class_is_the_old_name_of_jit_class():
    @ms.ms_class
    class Inner:
        def __init__(self):
            self.value = ms.Tensor(np.array([1, 2, 3]))

    class Net(nn.Cell):
        def construct(self, x):
            return Inner().value + x
    g, _ = run_both(Net, T([1, 1, 1]))
    assert g.asnumpy().tolist() == [2, 3, 4]


def test_tensor_from_numpy_shares_memory_and_works_in_construct():
    a = np.array([1.0, 2.0], np.float32)
    t = ms.Tensor.from_numpy(a)
    a[0] = 5.0
    assert t.dtype == ms.float32 and t.asnumpy().tolist() == [5.0, 2.0]
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ms.Tensor.from_numpy([1, 2])

    class Net(nn.Cell):
        def construct(self, x):
            return x + ms.Tensor.from_numpy(np.array([1, 2], np.int32))
    assert run_both(Net, T(np.array([1, 1], np.int32)))[0].asnumpy().tolist() == [2, 3]


@pytest.mark.parametrize("dtype", [ms.uint16, ms.uint32, ms.uint64], ids=str)
def test_unsigned_dtypes_in_both_modes(dtype):
    assert ms.dtype.uint16 is ms.uint16 and ms.common.dtype.uint64 is ms.uint64

    def make():
        def f(x):
            y = x + 1
            if y.sum() > 3:
                y = y * 2
            return y, ops.cast(y, ms.float32), x.max(), x // 2, x % 3, ops.cast(x, dtype)
        return f
    x = ms.Tensor(np.array([1, 2, 300], dtype.np))
    g, _ = run_both(make, x)
    assert g[0].dtype == dtype and g[0].asnumpy().tolist() == [4, 6, 602]
    assert ms.Tensor([1, 2], dtype).dtype == dtype


@pytest.mark.extra("onnx")
@pytest.mark.parametrize("dtype", [ms.uint16, ms.uint32, ms.uint64], ids=str)
def test_onnx_export_refuses_an_unsigned_dtype_it_lacks(dtype, tmp_path):
    require("onnx", "onnx")
    import graphjit.onnx as gx

    def f(x):
        return x + 1
    with pytest.raises(ValueError, match=f"dtype {dtype}, which ONNX export does not support"):
        gx.export(ms.jit(f), tmp_path / "m.onnx", ms.Tensor(np.array([1], dtype.np)))
