"""fold_constants and simplify_algebra: golden IR, and the rewrites are exact (the Pow
kernel agrees with Mul and Sqrt bit for bit, in both modes)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit.jit.cache import cache_of
from graphjit.ir import Graph
from graphjit.passes import eliminate_dead_values, fold_constants, simplify_algebra
from pass_helpers import F16, F32, F64, I32, T, check_pass, same_bits


def _folds():
    g = Graph("folds")
    x = g.add_param(T(F32, 3), "x")
    s = g.apply("Sqrt", g.const(np.array([1.0, 4.0, 9.0], np.float32)))
    big = g.apply("Fill", shape=(300, 300), dtype=F32, value=1.0)
    n = g.apply("ReduceSum", big)
    i = g.apply("Cast", g.const(np.array([1, 2, 3], np.int32)), dtype=F32)
    g.add_node("Print", [g.apply("Neg", g.const(np.float32(5)))], {"template": (0,)})
    g.set_results([g.apply("Add", g.apply("Mul", x, s), i), n])
    return g


FOLDS = """\
graph folds(%x: f32[3]) {
  %0: f32[3] = Const([1.,2.,3.]:float32)
  %1: f32[300,300] = Fill() shape=(300,300) dtype=float32 value=1.0
  %2: f32[] = ReduceSum(%1) axis=None keep_dims=False
  %3: f32[3] = Const([1.,2.,3.]:float32)
  %4: f32[] = Const(-5.0:float32)
  Print(%4) template=(0,) sep=' ' end='\\n'
  %5: f32[3] = Mul(%x, %0)
  %6: f32[3] = Add(%5, %3)
  return %6, %2
}"""


def test_fold_constants(capsys):
    """Small results fold (a 90,000-element Fill does not); Print keeps its input."""
    x = np.array([0.5, -1.0, 2.0], np.float32)
    check_pass(lambda g: eliminate_dead_values(fold_constants(g)), _folds(), FOLDS, (x,))


def test_folding_gives_the_kernels_bits_and_keeps_failures():
    g = Graph("f")
    a = g.const(np.array([0.1, 1e30, -0.0, np.nan], np.float32))
    r = g.apply("Exp", g.apply("Mul", a, a))
    bad = g.apply("Gather", g.const(np.arange(3.0)), g.const(np.array([5])))
    g.set_results([r, bad])
    fold_constants(g)
    assert g.nodes[-1].op == "Gather" and r.producer.op == "Const"
    with np.errstate(all="ignore"):
        want = np.exp(np.multiply(a.producer.attrs["value"], a.producer.attrs["value"]))
    assert same_bits(r.producer.attrs["value"], want)


def _algebra():
    g = Graph("algebra")
    x = g.add_param(T(F32, 3), "x")
    k = g.add_param(T(I32, 3), "k")
    exprs = [
        g.apply("Mul", x, g.const(np.float32(1))),
        g.apply("Add", x, g.const(np.float32(-0.0))),
        g.apply("Add", x, g.const(np.float32(0.0))),      # stays: -0.0 + 0.0 is +0.0
        g.apply("Sub", x, g.const(np.float32(0.0))),
        g.apply("RealDiv", x, g.const(np.float32(1))),
        g.apply("Pow", x, g.const(np.float32(2))),
        g.apply("Pow", x, g.const(np.float32(0.5))),
        g.apply("Pow", x, g.const(np.float32(3))),        # stays: pow rounds once
        g.apply("Neg", g.apply("Neg", x)),
        g.apply("Cast", x, dtype=F32),
        g.apply("Mul", x, g.const(np.ones((2, 3), np.float32))),   # stays: broadcasts
    ]
    ints = [
        g.apply("Pow", k, g.const(np.int32(3))),
        g.apply("Add", k, g.const(np.int32(0))),
        g.apply("Mul", k, g.const(np.float32(1))),        # stays: int32 * f32 is f32
    ]
    # each read by an Exp; a result itself is not made an alias of x
    g.set_results([g.apply("Exp", e) for e in exprs] + [g.apply("Abs", e) for e in ints] +
                  [g.apply("Mul", x, g.const(np.float32(1)))])
    return g


ALGEBRA = """\
graph algebra(%x: f32[3], %k: i32[3]) {
  %0: f32[] = Const(0.0:float32)
  %1: f32[3] = Add(%x, %0)
  %2: f32[3] = Mul(%x, %x)
  %3: f32[3] = Sqrt(%x)
  %4: f32[] = Const(3.0:float32)
  %5: f32[3] = Pow(%x, %4)
  %6: f32[2,3] = Const([[1.,1.,1.], [1.,1.,1.]]:float32)
  %7: f32[2,3] = Mul(%x, %6)
  %8: i32[3] = Mul(%k, %k)
  %9: i32[3] = Mul(%8, %k)
  %10: f32[] = Const(1.0:float32)
  %11: f32[3] = Mul(%k, %10)
  %12: f32[3] = Exp(%x)
  %13: f32[3] = Exp(%x)
  %14: f32[3] = Exp(%1)
  %15: f32[3] = Exp(%x)
  %16: f32[3] = Exp(%x)
  %17: f32[3] = Exp(%2)
  %18: f32[3] = Exp(%3)
  %19: f32[3] = Exp(%5)
  %20: f32[3] = Exp(%x)
  %21: f32[3] = Exp(%x)
  %22: f32[2,3] = Exp(%7)
  %23: i32[3] = Abs(%9)
  %24: i32[3] = Abs(%k)
  %25: f32[3] = Abs(%11)
  %26: f32[] = Const(1.0:float32)
  %27: f32[3] = Mul(%x, %26)
  return %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %27
}"""


def test_simplify_algebra():
    x = np.array([-0.0, 2.5, np.inf], np.float32)
    k = np.array([3, -7, 1 << 20], np.int32)     # the cube wraps around, as np.power does
    check_pass(lambda g: eliminate_dead_values(simplify_algebra(g)), _algebra(), ALGEBRA,
               (x, k), (np.array([np.nan, -1.0, 1e-45], np.float32), k))


def _special_and_random(dtype, n):
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, info.tiny, -info.tiny,
                        info.tiny / 4, info.max, -info.max, 1.0, -1.0, 0.5, 1 + info.eps],
                       dtype=dtype)
    if dtype == np.float16:      # every float16
        return np.concatenate([special, np.arange(1 << 16, dtype=np.uint16).view(dtype)])
    bits = {np.float32: np.uint32, np.float64: np.uint64}[dtype]
    rng = np.random.default_rng(0)
    random = rng.integers(0, np.iinfo(bits).max, size=n, dtype=bits, endpoint=True)
    return np.concatenate([special, random.view(dtype)])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2.0, 0.5])
def test_pow_rewrites_are_bit_identical_in_both_modes(dtype, exponent):
    """Eager x ** e runs the Pow kernel; graph mode runs Mul(x, x) or Sqrt(x) after the
    pass. Both give numpy's x ** e bit for bit, denormals, infinities and NaN included."""
    x = _special_and_random(dtype, 200_000)

    def f(v):
        return v ** exponent
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = f(ms.Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    jf = ms.jit(f)
    graph = jf(ms.Tensor(x)).asnumpy()
    assert [n.op for n in cache_of(jf)[0].graph.nodes] == (
        ["Mul"] if exponent == 2.0 else ["Sqrt"])
    with np.errstate(all="ignore"):
        numpy_operator = x ** exponent          # numpy's own fast path: square, sqrt
        rewritten = x * x if exponent == 2.0 else np.sqrt(x)
    assert same_bits(eager, graph)
    assert same_bits(eager, numpy_operator)
    assert same_bits(eager, rewritten)
