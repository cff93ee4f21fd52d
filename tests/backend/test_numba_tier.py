"""The numba tier (backend.numba_groups, backend.numba_tier), extra 'numba': fused
groups of exactly rounded ops run as one compiled loop with the bits of numpy's
op-by-op kernels, so graph mode (tier on or off) and eager mode agree bit for bit."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from optional import require

import graphjit as ms
from graphjit import ops
from graphjit.backend.executor import compile_graph
from graphjit.jit.cache import cache_of
from test_fusion import assert_same_bits, chains, reference, sample
from helpers import newton_sqrt

numba = require("numba", "numba")
pytestmark = [pytest.mark.extra("numba"),
              pytest.mark.filterwarnings("ignore:.*exceeds max_unroll:RuntimeWarning"),
              # a group the planner took must compile: a failure here is a planner bug
              pytest.mark.filterwarnings("error:graphjit. numba could not compile")]

ROOT = pathlib.Path(__file__).parents[2]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("numba_cache")


@pytest.fixture(autouse=True)
def tier(cache_dir):
    ms.set_context(numba_kernels=True, numba_cache_dir=str(cache_dir))
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def run(fn, *arrays, tier_on=True):
    """(eager results, graph results, graph results with the tier off, the generated
    source with the tier on) as lists of numpy arrays."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*[ms.Tensor(a) for a in arrays])
    ms.set_context(mode=ms.GRAPH_MODE, numba_kernels=tier_on)
    jf = ms.jit(fn)
    graph = jf(*[ms.Tensor(a) for a in arrays])
    again = jf(*[ms.Tensor(a) for a in arrays])
    source = cache_of(jf)[0].plan.source
    ms.set_context(numba_kernels=False)
    plain = ms.jit(fn)(*[ms.Tensor(a) for a in arrays])
    ms.set_context(mode=ms.PYNATIVE_MODE, numba_kernels=True)
    return _flat(eager), _flat(graph), _flat(again), _flat(plain), source


def _flat(o):
    return [x.asnumpy() for x in o] if isinstance(o, (tuple, list)) else [o.asnumpy()]


def assert_bits(*results):
    first = results[0]
    for other in results[1:]:
        assert len(other) == len(first)
        for a, b in zip(first, other):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tobytes() == b.tobytes(), f"{a!r}\n!=\n{b!r}"


def check(fn, *arrays, fused=True):
    e, g, g2, plain, src = run(fn, *arrays)
    assert_bits(e, g, g2, plain)
    assert ("_nb" in src) == fused, src
    return src


# -- programs built from op codes (a constant tuple: the loop over it unrolls) ------------
N_CODES = 16


def program(codes, reduce):
    def f(x, y):
        for c in codes:
            if c == 0:
                x = x + y
            elif c == 1:
                x = x - y
            elif c == 2:
                x = x * y
            elif c == 3:
                x = x / y
            elif c == 4:
                x = -x
            elif c == 5:
                x = ops.abs(x)
            elif c == 6:
                x = ops.sqrt(x)
            elif c == 7:
                x = ops.square(x)
            elif c == 8:
                x = ops.maximum(x, y)
            elif c == 9:
                x = ops.minimum(y, x)
            elif c == 10:
                x = ops.where(x > y, x, y)
            elif c == 11:
                x = x ** 3
            elif c == 12:
                x = x * 0.75 - 2.5
            elif c == 13:
                x = ops.where(x <= 0, y, x * 2)
            elif c == 14:
                x = x ** -2
            else:
                x = 1 / x
        if reduce == 1:
            return x, x.max()
        if reduce == 2:
            return x.min()
        return x
    return f


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, -5e-324, 1e-310,
           1.401298464324817e-45, 1e-40, 3.4028235e38, -3.4028235e38, 1e308, -1e308,
           1e-30, 1e30, 0.5, 3.0]


def _values(dtype):
    with np.errstate(over="ignore"):
        special = [np.asarray(v).astype(dtype)[()] for v in SPECIAL]
    return st.one_of(st.sampled_from(special),
                     st.floats(width=np.dtype(dtype).itemsize * 8, allow_nan=True,
                               allow_infinity=True, allow_subnormal=True))


@st.composite
def _case(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    shape = draw(st.sampled_from([(1,), (7,), (33,), (3, 5)]))
    x = draw(hnp.arrays(dtype, shape, elements=_values(dtype)))
    y = draw(hnp.arrays(dtype, shape, elements=_values(dtype)))
    codes = tuple(draw(st.lists(st.integers(0, N_CODES - 1), min_size=2, max_size=5)))
    return x, y, codes, draw(st.sampled_from([0, 1, 2]))


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(_case())
# LLVM folds -x + y into y - x, which keeps y's NaN sign: a NaN sends the group to numpy
@example((np.array([np.nan], np.float32), np.array([0.0], np.float32), (4, 0), 0))
@example((np.array([np.nan, 1.0]), np.array([0.0, -np.nan]), (4, 0, 8), 1))
def test_a_fused_group_gives_the_bits_of_numpys_kernels_and_of_eager_mode(case):
    x, y, codes, reduce = case
    with np.errstate(all="ignore"):
        e, g, g2, plain, src = run(program(codes, reduce), x, y)
    assert_bits(e, g, g2, plain)
    if x.dtype == np.float32 or not {11, 14} & set(codes):
        assert "_nb" in src, src       # float64 powers need long double: numpy keeps them


def test_newtons_while_body_is_one_loop_with_its_max():
    a = np.random.default_rng(1).uniform(1, 100, 1024)
    src = check(newton_sqrt, a)
    body = src[src.index("while"):]
    assert body.count("_nb") == 1
    # numpy's passes run only where the loop says a NaN came out
    lines = [t.strip() for t in body.splitlines()]
    call = next(i for i, t in enumerate(lines) if "_nb" in t)
    m = lines[call].split(" = ")[0]
    assert lines[call + 1] == f"if {m} != {m}:"
    assert all("_divide" not in t for t in lines[:call + 1])
    # zeros and NaNs: the max is NaN in the first step (0 / 0); numpy's reduction then
    check(newton_sqrt, np.array([4.0, 0.0, 9.0, 2.0]))
    check(newton_sqrt, np.array([4.0, np.nan, 9.0, -1.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_max_or_min_of_signed_zeros_or_nans_is_numpys(dtype):
    def f(x, y):
        p = x * y
        return p.max(), p.min(), (p + y).max()
    cases = [([0.0, -0.0, 0.0], [1.0, 1.0, -1.0]), ([-0.0, 0.0], [1.0, 1.0]),
             ([0.0] * 20 + [-0.0] * 20, [1.0] * 40), ([-0.0] * 20 + [0.0] * 20, [1.0] * 40),
             ([np.nan, 1.0, -np.nan], [1.0, 2.0, 1.0]), ([-np.inf, -np.inf], [1.0, 1.0])]
    for x, y in cases:
        e, g, g2, plain, src = run(f, np.array(x, dtype), np.array(y, dtype))
        assert_bits(e, g, g2, plain)
        assert "_nb" in src


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_maximum_and_minimum_keep_numpys_signed_zero_and_nan_rules(dtype):
    def f(x, y):
        return ops.maximum(x, y) * 1.0, ops.minimum(x, y) * 1.0, ops.maximum(y, x) + 0.0
    x = np.array([-0.0, 0.0, np.nan, 1.0, np.nan, -np.nan, 2.0], dtype)
    y = np.array([0.0, -0.0, 1.0, np.nan, -np.nan, np.nan, 2.0], dtype)
    check(f, x, y)


def test_no_fma_contraction():
    """a * b + c with a * b = 1 - 2**-60 exactly: rounded first it is 1.0, so the sum is
    0.0; an FMA would give -2**-60."""
    def f(a, b, c):
        return a * b + c
    a = np.full(8, 1 + 2.0 ** -30)
    b = np.full(8, 1 - 2.0 ** -30)
    c = np.full(8, -1.0)
    check(f, a, b, c)
    e = run(f, a, b, c)[1][0]
    assert (e == 0.0).all()
    a32, b32 = np.full(8, 1 + 2.0 ** -13, np.float32), np.full(8, 1 - 2.0 ** -13, np.float32)
    check(f, a32, b32, np.full(8, -1.0, np.float32))
    assert (run(f, a32, b32, np.full(8, -1.0, np.float32))[1][0] == 0).all()


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32])
def test_integer_arithmetic_wraps_as_numpy(dtype):
    def f(x, y):
        p = x * y + x
        # a wrapped intermediate compared, cast and maximised: each must see the wrap
        return (p * x - y, -(x * 3), ops.abs(x) + y, (p > 0) & (x > 0),
                ops.cast(p, ms.float64) * 1.0, ops.maximum(p, y) + x)
    info = np.iinfo(dtype)
    x = np.array([info.max, info.min, 7, info.max // 3, 0, 1], dtype)
    y = np.array([info.max, 2, info.min, 5, info.max, info.min], dtype)
    with np.errstate(all="ignore"):
        check(f, x, y)


def test_comparisons_select_and_casts():
    def f(x, y, i):
        m = (x > y) & (x == x)
        z = ops.where(m, x, y * 2) + ops.cast(i, ms.float32)
        return z, ops.cast(ops.cast(x * y, ms.float64) + 1, ms.float32) * z, m
    x = np.array([1.0, np.nan, -0.0, 3.0, np.inf], np.float32)
    y = np.array([0.5, 1.0, 0.0, np.nan, np.inf], np.float32)
    i = np.array([2 ** 24 + 1, -3, 0, 7, 2 ** 30 + 1], np.int32)
    check(f, x, y, i)


def test_integer_powers_of_float32_are_fused_float64_ones_kept():
    def poly(x):
        return x ** 3 - 2 * x ** 2 + x ** 4 * 0.25
    x = np.random.default_rng(2).standard_normal(1000).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    check(poly, x)
    long_wider = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant
    check(poly, x.astype(np.float64), fused=not long_wider)


def test_transcendentals_and_sums_stay_numpy():
    x = np.linspace(-3, 3, 50).astype(np.float32)
    check(lambda x: ops.exp(x) * 2.0 + ops.tanh(x), x, fused=False)
    src = check(lambda x: (x * 2.0 + 1.0).sum(), x)     # the sum: numpy's pairwise order
    assert "_add_reduce" in src


def test_the_unrolled_chain_is_one_loop_and_a_view_input_works():
    def f(x):
        for i in range(40):
            x = x * 0.9 + i
        return x
    x = np.random.default_rng(3).standard_normal(300).astype(np.float32)
    src = check(f, x)
    assert src.count("_nb") == 1

    def g(x, y):
        return (x.T * 2.0 + y) * y
    m = np.arange(12.0).reshape(3, 4)
    check(g, m, np.ones((4, 3)))            # x.T is a view: not C-contiguous


def _kernel_files(folder):
    return sorted(p.name for p in pathlib.Path(folder).glob("gj_*.py"))


def test_kernels_are_cached_on_disk_for_other_processes(tmp_path):
    cache = tmp_path / "cache"
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np, graphjit as ms
        ms.set_context(mode=ms.GRAPH_MODE, numba_kernels=True, numba_cache_dir={str(cache)!r})

        @ms.jit
        def f(x):
            return (x * 3.0 - 1.0) * x

        print(f(ms.Tensor(np.arange(5.0))).asnumpy().tolist())
        from graphjit.backend import numba_tier
        print(sum(sum(d.stats.cache_hits.values()) for d in numba_tier._loaded.values()))
    """))

    def child():
        out = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                             text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert out.returncode == 0, out.stderr
        return out.stdout.split("\n")
    first = child()
    assert first[0].startswith("[-0.0,") and first[1] == "0"
    files = _kernel_files(cache)
    assert len(files) >= 2 and (cache / "__pycache__").is_dir()   # warm-up + the kernel
    second = child()
    assert second[0] == first[0] and int(second[1]) >= 2      # loaded, not compiled
    assert _kernel_files(cache) == files


def test_an_unusable_cache_folder_compiles_in_memory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    ms.set_context(numba_cache_dir=str(blocker / "cache"))

    def f(x):
        return (x + 1.5) * x - 0.25
    check(f, np.linspace(-2, 2, 17))


def test_a_corrupt_cache_is_recompiled(tmp_path):
    ms.set_context(numba_cache_dir=str(tmp_path))

    def f(x):
        return (x - 0.5) * x / 3.0
    x = np.linspace(-2, 2, 9)
    check(f, x)
    for p in (tmp_path / "__pycache__").iterdir():
        p.write_bytes(b"garbage")
    from graphjit.backend import numba_tier
    numba_tier._loaded.clear()             # as a new process would start
    check(f, x)


def test_groups_inside_if_branches_and_their_nan_fallback():
    def f(x, y):
        if x.sum() > 0:
            z = (x * 2.0 + y) * y
        else:
            z = -x + y
        return z, z * 0.5
    x = np.array([1.0, 2.0, -0.5, 4.0])
    y = np.array([0.5, -1.0, 3.0, 2.0])
    for a, b in ((x, y), (-x, y), (np.array([np.nan, 1.0, 2.0, 3.0]), -y),
                 (np.array([-np.nan, -1.0, -2.0, -3.0]), y)):
        e, g, g2, plain, src = run(f, a, b)
        assert_bits(e, g, g2, plain)
        assert src.count("_nb") >= 2


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(g=chains(), seed=st.integers(0, 2 ** 16), fortran=st.booleans())
def test_random_chains_of_every_dtype_give_the_unfused_kernels_bits(g, seed, fortran):
    """test_fusion's random graphs (bool, int8, uint8, int32, int64, float16, float32,
    float64; casts, selects, constants that broadcast, powers) with the tier on."""
    rng = np.random.default_rng(seed)
    args = [sample(rng, p.type.dtype, shape) for p, shape in zip(g.params, g.runtime_shapes)]
    if fortran:
        args = [np.asfortranarray(a) if a.ndim > 1 else a for a in args]
    cg = compile_graph(g)
    kept = [a.copy() for a in args]
    with np.errstate(all="ignore"):
        assert_same_bits(cg(*args), reference(g, args))
    assert_same_bits(args, kept)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64])
def test_an_integer_max_or_min_in_the_loop(dtype):
    def f(x, y):
        return (x * y + x).max(), (x - y * 3).min()
    info = np.iinfo(dtype)
    x = np.array([info.max, 5, info.min, 0, 9, 3], dtype)
    y = np.array([2, info.max, 1, info.min, 0, 7], dtype)
    with np.errstate(all="ignore"):
        src = check(f, x, y)
    assert src.count("_nb") == 2 and "_maximum_reduce" not in src
