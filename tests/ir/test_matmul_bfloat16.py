"""MatMul of bfloat16 keeps bfloat16 (numpy's matmul of ml_dtypes' bfloat16 gives
float32): the kernel and the graph plan's expression both round back."""
import numpy as np
import pytest

from graphjit.ir import dtypes as D
from graphjit.ir.graph import Graph
from graphjit.ir.registry import get_op
from graphjit.ir.types import TensorType
from graphjit.jit.compiled_model import CompiledModel

pytestmark = pytest.mark.skipif(D.bfloat16 is None, reason="needs ml_dtypes")


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((2, 3, 4), (2, 4, 5)), ((4,), (4, 3))])
def test_matmul_of_bfloat16_keeps_the_dtype(shapes):
    bf = D.bfloat16
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(bf.np) for s in shapes)
    want = np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(bf.np)
    types = [TensorType(bf, s) for s in shapes]
    out = get_op("MatMul").infer_types(types, {"transpose_a": False, "transpose_b": False})
    kernel = get_op("MatMul").make_kernel(types, out, {"transpose_a": False,
                                                      "transpose_b": False})
    got = kernel(a, b)
    assert got.dtype == bf.np
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))
    g = Graph("mm")
    x, y = (g.add_param(t, n) for t, n in zip(types, "xy"))
    g.set_results([g.apply("MatMul", x, y)])
    (res,) = CompiledModel(g).run_arrays([a, b])
    assert res.dtype == bf.np
    np.testing.assert_array_equal(res.astype(np.float32), want.astype(np.float32))
