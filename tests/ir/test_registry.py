"""The op registry (ir/registry.py): what every built-in op declares, user ops, and
the errors for missing inference functions, unknown ops, attributes and arity."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import ops
from graphjit.ir import Graph, TensorType, dtypes as D
from graphjit.ir import registry
from graphjit.ir.registry import FAMILIES, REQUIRED, all_ops, get_op, has_op, register_op
from helpers import run_both

F32x3 = TensorType(D.float32, (None, 3))


@pytest.fixture(autouse=True)
def restore_registry():
    """The ops a test registers are removed after it (other tests see the built-ins)."""
    saved = dict(registry._REGISTRY)
    yield
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)


def _builtin(op) -> bool:
    """Declared by graphjit itself (not by a user or a test that left an op behind)."""
    return any((getattr(f, "__module__", "") or "").startswith("graphjit.")
               for f in (op.infer, op.kernel, op.kernel_factory) if f is not None)


def test_every_builtin_op_is_complete():
    builtins = {name: op for name, op in all_ops().items() if _builtin(op)}
    assert len(builtins) > 60
    for name, op in builtins.items():
        assert op.name == name
        assert op.family in FAMILIES, name
        assert op.infer is not None, f"{name} has no inference function"
        assert op.doc, f"{name} has no docstring"
        if op.family != "control":      # If and Loop are run by the executor itself
            assert op.kernel is not None or op.kernel_factory is not None, name


def test_builtin_ops_cover_the_catalog():
    catalog = ["Add", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "Pow", "Neg", "Abs",
               "Exp", "Log", "Sqrt", "Sin", "Cos", "Tanh", "Sigmoid", "ReLU", "Maximum",
               "Minimum", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
               "LogicalAnd", "LogicalOr", "LogicalNot", "Select", "Cast", "MatMul",
               "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ArgMax",
               "Reshape", "Transpose", "ExpandDims", "Squeeze", "Concat", "Stack", "Index",
               "Fill", "ZerosLike", "OnesLike", "Softmax"]
    missing = [n for n in catalog if not has_op(n)]
    assert not missing


def test_op_is_declared_once():
    with pytest.raises(ValueError, match="'Add' is already registered"):
        register_op("Add", ("x", "y"), infer=lambda ts, a: ts[0])
    assert get_op("Add").infer is not None      # the original stays


def test_missing_inference_function_graph():
    register_op("TestNoInfer", ("x",), kernel=lambda x: x, replace=True)
    g = Graph("g")
    x = g.add_param(F32x3, "x")
    with pytest.raises(ms.MissingInferenceError) as info:
        g.apply("TestNoInfer", x)
    assert str(info.value).startswith("No shape inference function exists for op "
                                      "'TestNoInfer'")
    assert info.value.message.startswith(
        "No shape inference function exists for op 'TestNoInfer'")
    assert not g.nodes      # nothing was added


def test_missing_inference_function_both_modes():
    op = ops.register_op("TestNoInferUser", ("x",), kernel=lambda x: x, replace=True)

    def f(x):
        return op(x)

    x = ms.Tensor(np.ones(3, np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(NotImplementedError,
                       match="No shape inference function exists for op 'TestNoInferUser'"):
        f(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(NotImplementedError,
                       match="No shape inference function exists for op 'TestNoInferUser'"):
        ms.jit(f)(x)


def test_unknown_op_name():
    with pytest.raises(ms.OpNotFoundError, match="no operator named 'Addd'") as info:
        get_op("Addd")
    assert "'Add'" in info.value.hint
    assert isinstance(info.value, LookupError)
    g = Graph("g")
    x = g.add_param(F32x3)
    with pytest.raises(ms.OpNotFoundError, match="'NoSuchOpAtAll'"):
        g.apply("NoSuchOpAtAll", x)
    with pytest.raises(ms.OpNotFoundError):
        ops.call_op("NoSuchOpAtAll", ms.Tensor(1.0))


@pytest.mark.parametrize("kwargs,message", [
    (dict(name="not an identifier"), "identifier"),
    (dict(name="TestBadFamily", family="magic"), "unknown op family 'magic'"),
    (dict(name="TestBadVariadic", inputs=("*xs", "y")), "only the last input"),
])
def test_register_op_rejects(kwargs, message):
    with pytest.raises(ValueError, match=message):
        register_op(**kwargs)


def test_attribute_errors():
    g = Graph("g")
    x = g.add_param(F32x3)
    with pytest.raises(ms.ShapeInferenceError, match=r"has no attribute\(s\) \['axes'\]"):
        g.apply("ReduceSum", x, axes=1)
    with pytest.raises(ms.ShapeInferenceError, match="needs the attribute 'shape'"):
        g.apply("Reshape", x)
    with pytest.raises(ms.ShapeInferenceError, match=r"takes 2 input\(s\) \(x, y\), got 1"):
        g.apply("Add", x)
    with pytest.raises(ms.ShapeInferenceError, match="takes at least 0"):
        get_op("Concat").check_arity(-1)


def test_attrs_get_their_defaults():
    g = Graph("g")
    x = g.add_param(F32x3)
    g.apply("ReduceSum", x)
    assert g.nodes[-1].attrs == {"axis": None, "keep_dims": False}
    assert get_op("Reshape").attrs["shape"] is REQUIRED


def test_user_op_runs_one_kernel_in_both_modes():
    made = []

    def infer(ts, attrs):
        (x,) = ts
        return TensorType(x.dtype, x.shape)

    def factory(in_types, out_types, attrs):
        made.append(tuple(in_types))
        k = attrs["k"]
        return lambda x: x * np.asarray(k, x.dtype)

    scale = ops.register_op("TestScale", ("x",), {"k": 2}, infer=infer,
                            kernel_factory=factory, family="elementwise",
                            doc="x * k", replace=True)

    def f(x):
        return scale(x, k=3) + 1

    x = ms.Tensor(np.arange(4, dtype=np.float32))
    graph, eager = run_both(lambda: f, x)
    np.testing.assert_array_equal(eager.asnumpy(), np.arange(4) * 3 + 1)
    assert len(made) == 2       # one kernel made eagerly, one for the compiled graph
    assert made[0] == made[1] == (TensorType(D.float32, (4,)),)


def test_user_op_inference_is_used_for_unknown_dims():
    def infer(ts, attrs):
        (x,) = ts
        return TensorType(D.int64, x.shape[:-1] if x.shape else x.shape)

    register_op("TestDropLast", ("x",), infer=infer, kernel=lambda x: x.sum(-1),
                replace=True)
    g = Graph("g")
    out = g.apply("TestDropLast", g.add_param(F32x3))
    assert out.type == TensorType(D.int64, (None,))
