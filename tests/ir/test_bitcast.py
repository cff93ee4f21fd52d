"""BitCast: x's bits read as another dtype of the same width (ONNX BitCast); other widths
are refused while building."""
import numpy as np
import pytest

from graphjit.ir import dtypes as D
from graphjit.ir.errors import ShapeInferenceError
from graphjit.ir.graph import Graph
from graphjit.ir.types import TensorType
from graphjit.jit.compiled_model import CompiledModel


def _run(x, to):
    g = Graph("bc")
    p = g.add_param(TensorType(D.from_numpy(x.dtype), x.shape), "x")
    g.set_results([g.apply("BitCast", p, dtype=to)])
    return CompiledModel(g).run_arrays([x])[0]


@pytest.mark.parametrize("src,to", [(np.float32, D.int32), (np.int64, D.float64),
                                    (np.bool_, D.uint8), (np.int8, D.uint8)])
def test_bits_are_read_as_the_other_dtype(src, to):
    x = np.array([[1, 0, 3], [-2, 5, 7]]).astype(src)
    got = _run(x, to)
    assert got.dtype == to.np and got.shape == x.shape
    np.testing.assert_array_equal(got, x.view(to.np))


def test_a_scalar_and_a_strided_input():
    x = np.float32(1.5)
    got = _run(np.asarray(x), D.int32)
    assert np.shape(got) == () and int(got) == int(np.asarray(x).view(np.int32))
    y = np.arange(12, dtype=np.float32).reshape(3, 4).T
    np.testing.assert_array_equal(_run(y, D.int32), np.ascontiguousarray(y).view(np.int32))


def test_different_widths_are_refused():
    g = Graph("bc")
    p = g.add_param(TensorType(D.float32, (2,)), "x")
    with pytest.raises(ShapeInferenceError, match="BitCast.*one width.*float32.*int64"):
        g.apply("BitCast", p, dtype=D.int64)
