"""Fused kernels give every element the bits the unfused kernels give it: random
elementwise chains over every dtype, broadcasting, special values, sizes on both sides
of the blocking threshold; run-time errors inside a fused kernel name the user's line."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from graphjit.backend import fusion
from graphjit.backend.executor import compile_graph, make_node_kernel
from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.errors import GraphRuntimeError, ShapeInferenceError

F16, F32, F64 = dt.float16, dt.float32, dt.float64
DTYPES = [dt.bool_, dt.int8, dt.uint8, dt.int32, dt.int64, F16, F32, F64]
UNARY = ["Neg", "Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Reciprocal", "Sin", "Tanh", "Sigmoid",
         "ReLU", "Square", "Floor", "Round", "Sign", "LogicalNot", "IsNan", "Invert", "Expm1"]
BINARY = ["Add", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "Mod", "Pow", "Maximum",
          "Minimum", "TruncateDiv", "Less", "Equal", "LogicalAnd", "BitwiseXor"]


def reference(g: Graph, args):
    """Each node's own kernel, one after another, as eager mode runs them."""
    env = {id(p): np.asarray(a) for p, a in zip(g.params, args)}
    with np.errstate(all="ignore"):
        for node in g.nodes:
            if node.op == "Const":
                env[id(node.outputs[0])] = node.attrs["value"]
                continue
            out = make_node_kernel(node)(*[env[id(v)] for v in node.inputs])
            outs = out if len(node.outputs) > 1 else (out,)
            for o, v in zip(node.outputs, outs):
                env[id(o)] = np.asarray(v)
    return [env[id(r)] for r in g.results]


def assert_same_bits(got, want):
    for a, b in zip(got, want):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), (a, b)


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, 1e-30, 65504.0,
           1e300, -7.0]


def sample(rng, dtype, shape):
    if dtype.is_bool:
        return rng.random(shape) < 0.5
    if dtype.is_integer:
        info = np.iinfo(dtype.np)
        edge = np.array([0, 1, -1 if info.min < 0 else 2, info.max, info.min, 7, -3 if
                         info.min < 0 else 3], dtype=np.int64)
        v = rng.integers(max(info.min, -100), min(info.max, 100), size=shape)
        pick = rng.random(shape) < 0.3
        return np.where(pick, rng.choice(edge, size=shape), v).astype(dtype.np)
    with np.errstate(all="ignore"):
        v = rng.standard_normal(shape) * 3
        pick = rng.random(shape) < 0.3
        return np.where(pick, rng.choice(np.array(SPECIAL), size=shape), v).astype(dtype.np)


@st.composite
def chains(draw):
    """A graph of random elementwise nodes over a few params (and constants)."""
    n = draw(st.sampled_from([1, 5, 37, 64, 100, 257]))
    out_shape = draw(st.sampled_from([(n,), (3, n), (n, 4)]))
    rank = len(out_shape)
    shapes = [out_shape, (), out_shape[-1:]]
    if rank == 2:
        shapes += [(1, out_shape[1]), (out_shape[0], 1)]
    main = draw(st.sampled_from(DTYPES))
    unknown = draw(st.booleans())         # the types leave the dims unknown (None)
    g = Graph("chain")
    params, g.runtime_shapes = [], []
    for k in range(draw(st.integers(1, 3))):
        d = main if k == 0 or draw(st.booleans()) else draw(st.sampled_from(DTYPES))
        shape = out_shape if k == 0 else draw(st.sampled_from(shapes))
        typed = tuple(None for _ in shape) if unknown else shape
        params.append(g.add_param(TensorType(d, typed), f"p{k}"))
        g.runtime_shapes.append(shape)
    values = list(params)
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "const", "cast", "select"]))
        try:
            if kind == "unary":
                values.append(g.apply(draw(st.sampled_from(UNARY)),
                                      draw(st.sampled_from(values[-3:]))))
            elif kind == "binary":
                a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values[-3:]))
                values.append(g.apply(draw(st.sampled_from(BINARY)), a, b))
            elif kind == "const":
                v = draw(st.sampled_from(values[-3:]))
                value = np.asarray(draw(st.sampled_from([0.5, 2, -1, 0, 3.0])))
                cshape = draw(st.sampled_from(shapes))    # an array constant broadcasts
                c = g.const((np.broadcast_to(value, cshape) + np.arange(
                    int(np.prod(cshape))).reshape(cshape) % 3).astype(v.type.dtype.np))
                values.append(g.apply(draw(st.sampled_from(["Add", "Mul", "Sub", "Maximum",
                                                            "Pow"])), v, c))
            elif kind == "cast":
                values.append(g.apply("Cast", draw(st.sampled_from(values[-3:])),
                                      dtype=draw(st.sampled_from(DTYPES))))
            else:
                x = draw(st.sampled_from(values))
                c = g.apply("Less", x, g.const(np.zeros((), x.type.dtype.np)))
                y = draw(st.sampled_from([v for v in values if v.type.dtype is x.type.dtype]))
                values.append(g.apply("Select", c, x, y))
        except ShapeInferenceError:
            continue
    results = [values[-1]]
    if len(values) > 3 and draw(st.booleans()):
        results.append(values[len(values) // 2])      # a result read by later nodes too
    g.set_results(results)
    verify(g)
    return g


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few elements, so small arrays take the blocked path."""
    monkeypatch.setattr(fusion, "MIN_BLOCKED_BYTES", 16)
    monkeypatch.setattr(fusion, "BLOCK_BYTES", 96)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(g=chains(), seed=st.integers(0, 2 ** 16), layout=st.sampled_from(["C", "F", "C"]),
       blocked=st.booleans(), row_buffers=st.booleans())
def test_fused_chains_give_the_bits_of_the_unfused_kernels(g, seed, layout, blocked,
                                                           row_buffers):
    rng = np.random.default_rng(seed)
    args = [sample(rng, p.type.dtype, shape) for p, shape in zip(g.params, g.runtime_shapes)]
    if layout == "F":
        args = [np.asfortranarray(a) if a.ndim > 1 else a for a in args]
    old = fusion.MIN_BLOCKED_BYTES, fusion.BLOCK_BYTES, fusion.ROW_BUFFER_MIN
    if blocked:
        fusion.MIN_BLOCKED_BYTES, fusion.BLOCK_BYTES = 16, 96
    if row_buffers:               # rows of 16 and more run with a one-row ufunc buffer
        fusion.ROW_BUFFER_MIN = 16
    try:
        cg = compile_graph(g)
    finally:
        fusion.MIN_BLOCKED_BYTES, fusion.BLOCK_BYTES, fusion.ROW_BUFFER_MIN = old
    want = reference(g, args)
    kept = [a.copy() for a in args]
    assert_same_bits(cg(*args), want)
    assert_same_bits(args, kept)              # the inputs are never written


def test_the_default_blocks_on_a_large_chain_with_broadcasting():
    g = Graph("f")
    x = g.add_param(TensorType(F32, (1024, 1024)), "x")
    mu = g.add_param(TensorType(F32, (1024, 1)), "mu")
    gain = g.add_param(TensorType(F32, (1024,)), "gain")
    t = g.apply("Exp", g.apply("Neg", g.apply("Abs", g.apply("Sub", x, mu))))
    y = g.apply("Add", g.apply("Mul", t, gain), g.apply("Sin", x))
    g.set_results([g.apply("Sub", y, g.const(np.float32(1)))])
    cg = compile_graph(g)
    assert cg.program.summary() == ["fused(Sub, Abs, Neg, Exp, Mul, Sin, Add, Sub)"]
    assert "def fused" in cg.source and "for b in range(0, n, st)" in cg.source
    rng = np.random.default_rng(1)
    args = [sample(rng, p.type.dtype, p.type.shape) for p in g.params]
    assert_same_bits(cg(*args), reference(g, args))


def test_blocks_are_taken_only_for_contiguous_operands(small_blocks):
    g = Graph("f")
    x = g.add_param(TensorType(F32, (40, 40)), "x")
    g.set_results([g.apply("Mul", g.apply("Exp", x), g.apply("Cos", x))])
    cg = compile_graph(g)
    a = np.random.default_rng(2).standard_normal((40, 40)).astype(np.float32)
    assert fusion.blocking((a,), ((),), 64, 16) is not None
    assert fusion.blocking((a.T,), ((),), 64, 16) is None
    for arg in (a, a.T, a[::2].repeat(2, axis=0)):
        assert_same_bits(cg(arg), reference(g, [arg]))


@pytest.mark.parametrize("op,axis,keep", [("ReduceMax", None, False), ("ReduceMin", 1, True),
                                          ("ReduceSum", (0, 1), False), ("ReduceSum", 0, True)])
@pytest.mark.parametrize("dtype", [F16, F32, F64, dt.int32, dt.bool_])
def test_reductions_written_as_ufunc_reduce_match_their_kernels(op, axis, keep, dtype):
    g = Graph("f")
    x = g.add_param(TensorType(dtype, (6, 5)), "x")
    g.set_results([g.apply(op, x, axis=axis, keep_dims=keep)])
    cg = compile_graph(g)
    assert "_reduce(" in cg.source or dtype.is_bool
    arg = sample(np.random.default_rng(3), dtype, (6, 5))
    assert_same_bits(cg(arg), reference(g, [arg]))


# -- errors inside fused kernels ------------------------------------------------------------------
@pytest.mark.parametrize("size", [5, 300])
def test_a_broadcast_failing_inside_a_fused_kernel_is_reported_at_its_node(size, small_blocks):
    loc = SourceLoc("/src/model.py", 12, 8, function="construct",
                    text="        y = ops.exp(a) * b + 1\n")
    g = Graph("f")
    a = g.add_param(TensorType(F32, (None,)), "a")
    b = g.add_param(TensorType(F32, (None,)), "b")
    y = g.apply("Add", g.apply("Mul", g.apply("Exp", a), b, loc=loc), g.const(np.float32(1)))
    g.set_results([y])
    cg = compile_graph(g)
    assert cg.program.summary() == ["fused(Exp, Mul, Add)"]
    ok = cg(np.ones(size, np.float32), np.ones(size, np.float32))[0]
    assert ok.shape == (size,)
    with pytest.raises(GraphRuntimeError) as info:
        cg(np.ones(size, np.float32), np.ones(size + 1, np.float32))
    assert "Mul failed while the graph ran" in str(info.value)
    assert info.value.loc is loc and isinstance(info.value, ValueError)


def test_an_unknown_dim_that_broadcasts_at_run_time_gives_the_unfused_bits(small_blocks):
    g = Graph("f")
    a = g.add_param(TensorType(F32, (None,)), "a")
    b = g.add_param(TensorType(F32, (None,)), "b")
    g.set_results([g.apply("Mul", g.apply("Exp", a), g.apply("Sin", b))])
    cg = compile_graph(g)
    rng = np.random.default_rng(4)
    for na, nb in [(1, 200), (200, 1), (200, 200)]:
        args = [sample(rng, F32, (na,)), sample(rng, F32, (nb,))]
        assert_same_bits(cg(*args), reference(g, args))


@pytest.mark.parametrize("cshape", [(8,), (1, 8), (5, 8), (5, 1), ()])
@pytest.mark.parametrize("known", [True, False])
def test_array_constants_in_a_blocked_kernel_give_the_unfused_bits(cshape, known, small_blocks):
    """A constant is read whole by every block (a bias of a Dense over a large batch
    of unknown size: the flattened blocks could not broadcast it)."""
    g = Graph("f")
    x = g.add_param(TensorType(F32, (5, 8) if known else (None, 8)), "x")
    rng = np.random.default_rng(7)
    c = g.const(rng.standard_normal(cshape).astype(np.float32))
    y = g.apply("Mul", g.apply("Add", g.apply("Exp", x), c), g.const(np.float32(0.5)))
    g.set_results([g.apply("Tanh", y)])
    cg = compile_graph(g)
    assert "def fused" in cg.source
    a = rng.standard_normal((5, 8)).astype(np.float32)
    assert_same_bits(cg(a), reference(g, [a]))


def test_a_small_constant_is_broadcast_once_to_its_use_shape():
    g = Graph("f")
    x = g.add_param(TensorType(F32, (16, 64)), "x")
    rng = np.random.default_rng(3)
    bias = rng.standard_normal(64).astype(np.float32)
    g.set_results([g.apply("Tanh", g.apply("Add", x, g.const(bias)))])
    cg = compile_graph(g)
    full = [v for v in cg.fn.__globals__.values()
            if isinstance(v, np.ndarray) and v.shape == (16, 64)]
    assert len(full) == 1 and np.array_equal(full[0], np.broadcast_to(bias, (16, 64)))
    a = rng.standard_normal((16, 64)).astype(np.float32)
    assert_same_bits(cg(a), reference(g, [a]))
