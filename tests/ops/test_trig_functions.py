"""ops.tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh (and the arc* names), the
Tensor methods, mindspore.numpy's spellings and the primitives, in both modes against
numpy, with MindSpore's derivatives."""
import numpy as np
import pytest

import graphjit as ms
import graphjit.numpy as mnp
from graphjit import ops
from graphjit.ops import operations as P

CASES = [  # (ops name, numpy function, mnp name, primitive, values in the domain)
    ("tan", np.tan, "tan", P.Tan, [-1.2, -0.3, 0.0, 0.7, 1.3]),
    ("asin", np.arcsin, "arcsin", P.Asin, [-0.9, -0.2, 0.0, 0.5, 0.99]),
    ("acos", np.arccos, "arccos", P.ACos, [-0.9, -0.2, 0.0, 0.5, 0.99]),
    ("atan", np.arctan, "arctan", P.Atan, [-5.0, -0.2, 0.0, 0.5, 30.0]),
    ("sinh", np.sinh, "sinh", P.Sinh, [-3.0, -0.2, 0.0, 0.5, 4.0]),
    ("cosh", np.cosh, "cosh", P.Cosh, [-3.0, -0.2, 0.0, 0.5, 4.0]),
    ("asinh", np.arcsinh, "arcsinh", P.Asinh, [-3.0, -0.2, 0.0, 0.5, 40.0]),
    ("acosh", np.arccosh, "arccosh", P.Acosh, [1.0, 1.2, 2.0, 7.5, 40.0]),
    ("atanh", np.arctanh, "arctanh", P.Atanh, [-0.9, -0.2, 0.0, 0.5, 0.99]),
]
DERIVATIVES = {
    "tan": lambda x: 1 / np.cos(x) ** 2, "asin": lambda x: 1 / np.sqrt(1 - x * x),
    "acos": lambda x: -1 / np.sqrt(1 - x * x), "atan": lambda x: 1 / (1 + x * x),
    "sinh": np.cosh, "cosh": np.sinh, "asinh": lambda x: 1 / np.sqrt(1 + x * x),
    "acosh": lambda x: 1 / np.sqrt(x * x - 1), "atanh": lambda x: 1 / (1 - x * x),
}


@pytest.mark.parametrize("name, ref, mnp_name, prim, values", CASES)
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_every_spelling_in_both_modes(name, ref, mnp_name, prim, values, mode):
    ms.set_context(mode=mode)
    try:
        x = ms.Tensor(np.array(values, np.float32))
        want = ref(np.array(values, np.float32))
        spellings = [getattr(ops, name), lambda t: getattr(t, name)(),
                     getattr(mnp, mnp_name), prim()]
        if name.startswith("a") and name != "atan2":
            spellings.append(getattr(ops, "arc" + name[1:]))
        for fn in spellings:
            got = ms.jit(fn)(x) if mode == ms.GRAPH_MODE else fn(x)
            assert got.dtype == ms.float32
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


@pytest.mark.parametrize("name", list(DERIVATIVES))
def test_gradients(name):
    values = {"acosh": [1.2, 2.0, 7.5]}.get(name, [-0.5, 0.1, 0.6])
    x = ms.Tensor(np.array(values, np.float64))
    g = ms.grad(lambda t: getattr(ops, name)(t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), DERIVATIVES[name](np.array(values)), rtol=1e-9)


def test_integers_become_float32_and_outside_the_domain_is_nan():
    assert mnp.tan(ms.Tensor(np.array([1, 2], np.int32))).dtype == ms.float32
    out = ops.asin(ms.Tensor(np.array([2.0], np.float32))).asnumpy()
    assert np.isnan(out).all()
