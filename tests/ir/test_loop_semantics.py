"""Loop: every point of the seed (OpenVINO's Loop), each against a numpy reference."""
import numpy as np
import pytest

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.builders import if_, loop
from graphjit.ir.errors import GraphRuntimeError

F32, I32, I64, BOOL = dt.float32, dt.int32, dt.int64, dt.bool_


def T(dtype, *shape):
    return TensorType(dtype, shape)


def run(g, *args):
    verify(g)
    return compile_graph(g)(*args)


def _loop_node(g):
    return next(n for n in g.nodes if n.op == "Loop")


# -- trip count and execution condition ------------------------------------------------------
def _doubling(trip_count=-1, trip_type=I64):
    """x = x * 2 while the new x < limit (a while loop: trip count -1 by default)."""
    g = Graph("doubling")
    x0 = g.add_param(T(F32), "x0")
    limit = g.add_param(T(F32), "limit")
    n = g.add_param(TensorType(trip_type, ()), "n") if trip_count is None else trip_count

    def step(b, i, carried, sliced, invariant):
        (x,), (lim,) = carried, invariant
        x2 = b.apply("Mul", x, b.const(2.0))
        return b.apply("Less", x2, lim), [x2], [b.apply("ExpandDims", x2, axis=0)]

    g.set_results(loop(g, step, trip_count=n, carried=[x0], invariant=[limit]))
    return g


def _doubling_ref(x, limit, n=-1):
    xs, go, i = [], True, 0
    while go and (n == -1 or i < n):
        x = np.float32(x * 2)
        xs.append(x)
        go = x < limit
        i += 1
    return x, np.asarray(xs, np.float32)


def test_trip_count_minus_one_runs_until_the_condition_is_false():
    g = _doubling()
    last, all_x = run(g, np.float32(1.0), np.float32(100.0))
    want_last, want_all = _doubling_ref(1.0, 100.0)
    assert last == want_last == 128.0
    np.testing.assert_array_equal(all_x, want_all)
    assert all_x.dtype == np.float32 and all_x.shape == (7,)
    assert g.results[1].type == T(F32, None)   # the condition may stop early


@pytest.mark.parametrize("trip_type", [I32, I64])
@pytest.mark.parametrize("n", [0, 1, 3, 50])
def test_trip_count_and_condition_whichever_stops_first(trip_type, n):
    g = _doubling(trip_count=None, trip_type=trip_type)
    last, all_x = run(g, np.float32(1.0), np.float32(100.0), np.asarray(n, trip_type.np))
    want_last, want_all = _doubling_ref(1.0, 100.0, n)
    assert last == want_last
    np.testing.assert_array_equal(all_x, want_all.reshape(-1))
    assert all_x.shape == (min(n, 7),)


def test_one_element_1d_trip_count_and_condition():
    g = Graph("f")
    n = g.add_param(T(I32, 1), "n")
    c = g.add_param(T(BOOL, 1), "c")
    s0 = g.add_param(T(I64), "s0")

    def step(b, i, carried, sliced, invariant):
        return True, [b.apply("Add", carried[0], i)], []

    g.set_results(loop(g, step, trip_count=n, condition=c, carried=[s0]))
    (s,) = run(g, np.array([5], np.int32), np.array([True]), np.int64(0))
    assert s == sum(range(5))
    (s,) = run(g, np.array([5], np.int32), np.array([False]), np.int64(7))
    assert s == 7


def test_condition_false_at_entry_runs_the_body_zero_times():
    g = Graph("f")
    go = g.add_param(T(BOOL), "go")
    h0 = g.add_param(T(F32, 3), "h0")

    def step(b, i, carried, sliced, invariant):
        h = b.apply("Add", carried[0], b.const(np.ones(3, np.float32)))
        return True, [h], [(b.apply("ExpandDims", h, axis=0), 0)]

    g.set_results(loop(g, step, trip_count=4, condition=go, carried=[h0]))
    h0v = np.arange(3, dtype=np.float32)
    h, hs = run(g, np.bool_(False), h0v)
    np.testing.assert_array_equal(h, h0v)                  # back edge: the initial input
    assert hs.shape == (0, 3) and hs.dtype == np.float32   # concat: empty, other dims kept
    h, hs = run(g, np.bool_(True), h0v)
    np.testing.assert_array_equal(h, h0v + 4)
    np.testing.assert_array_equal(hs, h0v + np.arange(1, 5, dtype=np.float32)[:, None])


def test_negative_trip_count_other_than_minus_one_is_a_runtime_error():
    g = _doubling(trip_count=None)
    with pytest.raises(GraphRuntimeError, match=r"trip count must be -1 \(no limit\) or at "
                                                r"least 0, got -3"):
        run(g, np.float32(1.0), np.float32(100.0), np.int64(-3))


# -- current iteration --------------------------------------------------------------------
@pytest.mark.parametrize("itype", [T(I64), T(I32), T(I64, 1), T(I32, 1)])
def test_current_iteration_counts_from_zero(itype):
    g = Graph("f")
    n = g.add_param(T(I64), "n")
    s0 = g.add_param(itype, "s0")

    def step(b, i, carried, sliced, invariant):
        assert i.type == itype
        sq = b.apply("Mul", i, i)
        return True, [b.apply("Add", carried[0], sq)], [(i, 0) if itype.shape else
                                                        b.apply("ExpandDims", i, axis=0)]

    g.set_results(loop(g, step, trip_count=n, carried=[s0], iteration_type=itype))
    s, its = run(g, np.int64(6), np.zeros(itype.shape, itype.dtype.np))
    assert int(np.asarray(s).reshape(-1)[0]) == sum(k * k for k in range(6))
    np.testing.assert_array_equal(its, np.arange(6))
    assert its.dtype == itype.dtype.np and np.asarray(s).dtype == itype.dtype.np


# -- sliced inputs and concatenated outputs ---------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_slicing_and_concatenation_along_an_axis(axis):
    """A running sum over slices of x along `axis`, concatenated along the same axis,
    is np.cumsum; the slice keeps the axis with size 1."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5
    g = Graph("cumsum")
    xs = g.add_param(T(F32, *x.shape), "xs")
    slice_shape = list(x.shape)
    slice_shape[axis] = 1
    acc0 = g.add_param(T(F32, *slice_shape), "acc0")

    def step(b, i, carried, sliced, invariant):
        assert sliced[0].type == T(F32, *slice_shape)
        acc = b.apply("Add", carried[0], sliced[0])
        return True, [acc], [(acc, axis)]

    g.set_results(loop(g, step, carried=[acc0], sliced=[(xs, axis)], iteration_type=None))
    assert g.results[1].type == T(F32, *x.shape)   # trip -1, const-true condition: n = dim
    total, sums = run(g, x, np.zeros(slice_shape, np.float32))
    np.testing.assert_allclose(sums, np.cumsum(x, axis=axis))
    np.testing.assert_allclose(total, x.sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_concatenation_of_a_rank_3_result_on_each_axis(axis):
    g = Graph("f")
    v = g.add_param(T(F32, 2, 3, 4), "v")

    def step(b, i, carried, sliced, invariant):
        scaled = b.apply("Mul", invariant[0], b.apply("Cast", i, dtype=F32))
        return True, [], [(scaled, axis)]

    g.set_results(loop(g, step, trip_count=3, invariant=[v]))
    shape = [2, 3, 4]
    shape[axis] *= 3
    assert g.results[0].type == T(F32, *shape)
    vv = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (out,) = run(g, vv)
    np.testing.assert_array_equal(out, np.concatenate([vv * k for k in range(3)], axis=axis))


def test_slicing_stops_at_the_shortest_sliced_input_and_the_trip_count():
    g = Graph("zip")
    a = g.add_param(T(F32, None), "a")
    b_ = g.add_param(T(F32, 5), "b")
    n = g.add_param(T(I64), "n")

    def step(b, i, carried, sliced, invariant):
        return True, [], [b.apply("Mul", sliced[0], sliced[1])]

    g.set_results(loop(g, step, trip_count=n, sliced=[a, b_]))
    assert g.results[0].type == T(F32, None)
    av, bv = np.arange(7, dtype=np.float32), np.arange(5, dtype=np.float32) + 1
    (out,) = run(g, av, bv, np.int64(-1))
    np.testing.assert_array_equal(out, av[:5] * bv)
    (out,) = run(g, av, bv, np.int64(2))
    np.testing.assert_array_equal(out, av[:2] * bv[:2])
    (out,) = run(g, av[:0], bv, np.int64(-1))
    assert out.shape == (0,) and out.dtype == np.float32


def test_sliced_input_of_unknown_rank():
    g = Graph("f")
    x = g.add_param(TensorType(F32, None), "x")

    def step(b, i, carried, sliced, invariant):
        return True, [], [(b.apply("Neg", sliced[0]), -1)]

    g.set_results(loop(g, step, sliced=[(x, -1)]))
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = run(g, xv)
    np.testing.assert_array_equal(out, -xv)


# -- invariant inputs, back edges, last values ------------------------------------------------
def test_invariant_inputs_are_the_same_every_iteration():
    g = Graph("poly")
    n = g.add_param(T(I64), "n")
    coef = g.add_param(T(F32, 3), "coef")
    x = g.add_param(T(F32, 3), "x")
    y0 = g.add_param(T(F32, 3), "y0")

    def step(b, i, carried, sliced, invariant):
        c, xx = invariant
        return True, [b.apply("Add", b.apply("Mul", carried[0], xx), c)], []

    g.set_results(loop(g, step, trip_count=n, carried=[y0], invariant=[coef, x]))
    cv, xv = np.array([1, 2, 3], np.float32), np.array([0.5, -1, 2], np.float32)
    y = np.zeros(3, np.float32)
    for _ in range(4):
        y = y * xv + cv
    (out,) = run(g, np.int64(4), cv, xv, np.zeros(3, np.float32))
    np.testing.assert_allclose(out, y)


def test_back_edges_swap_values_all_at_once():
    """Fibonacci with the pair (a, b) -> (b, a + b): the back edges are simultaneous."""
    g = Graph("fib")
    n = g.add_param(T(I64), "n")
    a0 = g.add_param(T(I64), "a0")
    b0 = g.add_param(T(I64), "b0")

    def step(b, i, carried, sliced, invariant):
        a, bb = carried
        return True, [bb, b.apply("Add", a, bb)], []

    g.set_results(loop(g, step, trip_count=n, carried=[a0, b0]))
    a, b = 0, 1
    for _ in range(30):
        a, b = b, a + b
    assert [int(v) for v in run(g, np.int64(30), np.int64(0), np.int64(1))] == [a, b]


def test_back_edge_into_a_parameter_other_than_its_own_position():
    """Result 2 feeds parameter 1 and result 1 feeds parameter 2 (a rotation)."""
    g = Graph("rot")
    n = g.add_param(T(I64), "n")
    xs = [g.add_param(T(I64), f"x{k}") for k in range(3)]
    body = Graph("body")
    p = [body.add_param(T(I64), f"p{k}") for k in range(3)]
    body.set_results([body.const(True), p[1], p[2], p[0]])
    node = g.add_node("Loop", [n, g.const(True)] + xs, {
        "body": body, "input_map": ((2, 0, None), (3, 1, None), (4, 2, None)),
        "output_map": ((1, None), (2, None), (3, None)),
        "back_edges": ((1, 0), (2, 1), (3, 2)), "condition_result": 0})
    g.set_results(node.outputs)
    for k in range(5):
        vals = [10, 20, 30]
        for _ in range(k):
            vals = vals[1:] + vals[:1]
        assert [int(v) for v in run(g, np.int64(k), *map(np.int64, (10, 20, 30)))] == vals


def test_last_value_output_without_a_back_edge():
    """An output without axis and without back edge is the last iteration's value, even
    when that value is a parameter the back edges overwrite; zero iterations leave it
    without a value, a runtime error."""
    g = Graph("prev")
    n = g.add_param(T(I64), "n")
    x0 = g.add_param(T(I64), "x0")
    body = Graph("body")
    x = body.add_param(T(I64), "x")
    nxt = body.apply("Add", x, body.const(np.int64(1)))
    body.set_results([body.const(True), nxt, x])
    node = g.add_node("Loop", [n, g.const(True), x0], {
        "body": body, "input_map": ((2, 0, None),), "output_map": ((1, None), (2, None)),
        "back_edges": ((1, 0),), "condition_result": 0}, names=["last", "before_last"])
    g.set_results(node.outputs)
    last, before = run(g, np.int64(5), np.int64(0))
    assert (int(last), int(before)) == (5, 4)
    with pytest.raises(GraphRuntimeError, match="ran zero times, so output 1"):
        run(g, np.int64(0), np.int64(0))


def test_carried_type_is_joined_with_the_exit_type_and_rebuilt():
    """The body's If returns h or an f32[?] value, so the carried value is f32[?]: the
    builder rebuilds the body with the joined type, as the front-end does."""
    g = Graph("f")
    n = g.add_param(T(I64), "n")
    h0 = g.add_param(T(F32, 3), "h0")
    other = g.add_param(T(F32, None), "other")

    def step(b, i, carried, sliced, invariant):
        h, o = carried[0], invariant[0]
        odd = b.apply("Equal", b.apply("FloorMod", i, b.const(np.int64(2))),
                      b.const(np.int64(1)))
        (h2,) = if_(b, odd, lambda t, hh, oo: oo, lambda e, hh, oo: e.apply("Add", hh, hh),
                    [h, o])
        return True, [h2], []

    g.set_results(loop(g, step, trip_count=n, carried=[h0], invariant=[other]))
    body = _loop_node(g).attrs["body"]
    assert body.params[1].type == T(F32, None)
    assert g.results[0].type == T(F32, None)
    (h,) = run(g, np.int64(3), np.ones(3, np.float32), np.full(3, 5.0, np.float32))
    np.testing.assert_array_equal(h, np.full(3, 10.0))   # 1 -> 2 -> 5 -> 10


# -- zero iterations --------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["trip count 0", "condition false", "empty sliced input"])
def test_zero_iterations(how):
    g = Graph("f")
    n = g.add_param(T(I64), "n")
    go = g.add_param(T(BOOL), "go")
    xs = g.add_param(T(I32, None, 2), "xs")
    h0 = g.add_param(T(I32, 2), "h0")

    def step(b, i, carried, sliced, invariant):
        row = b.apply("Squeeze", sliced[0], axis=0)
        h = b.apply("Add", carried[0], row)
        return True, [h], [(sliced[0], 0), (b.apply("Cast", row, dtype=F32), -1)]

    g.set_results(loop(g, step, trip_count=n, condition=go, carried=[h0], sliced=[xs]))
    assert [r.type for r in g.results] == [T(I32, 2), T(I32, None, 2), T(F32, None)]
    h0v = np.array([7, 8], np.int32)
    xv = np.arange(6, dtype=np.int32).reshape(3, 2)
    args = {"trip count 0": (0, True, xv), "condition false": (-1, False, xv),
            "empty sliced input": (-1, True, xv[:0])}[how]
    h, rows, flat = run(g, np.int64(args[0]), np.bool_(args[1]), args[2], h0v)
    np.testing.assert_array_equal(h, h0v)
    assert rows.shape == (0, 2) and rows.dtype == np.int32
    assert flat.shape == (0,) and flat.dtype == np.float32


def test_zero_iterations_known_at_build_time():
    g = Graph("f")
    h0 = g.add_param(T(F32, 2), "h0")

    def step(b, i, carried, sliced, invariant):
        return True, [carried[0]], [(b.apply("ExpandDims", carried[0], axis=0), 0)]

    g.set_results(loop(g, step, trip_count=5, condition=False, carried=[h0]))
    assert [r.type for r in g.results] == [T(F32, 2), T(F32, 0, 2)]
    h, hs = run(g, np.ones(2, np.float32))
    assert hs.shape == (0, 2)


# -- inference of concatenated dims ------------------------------------------------------------
@pytest.mark.parametrize("trip,cond,body_cond,want", [
    (4, True, True, 4),          # constant trip count, cannot stop early
    (4, True, "data", None),     # the body's condition may stop it
    ("param", True, True, None),  # trip count not a constant
    (4, "param", True, None),    # initial condition not a constant
    (0, "param", "data", 0),     # zero iterations whatever happens
    (-1, False, "data", 0),
])
def test_concatenated_dim_is_known_only_when_the_iteration_count_is(trip, cond, body_cond,
                                                                   want):
    g = Graph("f")
    x = g.add_param(T(F32, 3), "x")
    trip_v = g.add_param(T(I64), "n") if trip == "param" else trip
    cond_v = g.add_param(T(BOOL), "c") if cond == "param" else cond

    def step(b, i, carried, sliced, invariant):
        c = True if body_cond is True else b.apply("Less", i, b.const(np.int64(2)))
        return c, [], [(invariant[0], 0)]

    (out,) = loop(g, step, trip_count=trip_v, condition=cond_v, invariant=[x])
    assert out.type == T(F32, None if want is None else 3 * want)


# -- nesting ---------------------------------------------------------------------------------
def test_nested_loops():
    """out[r, c] = sum over k < c of m[r, k] * (r + 1), by a loop over rows (sliced) around
    a loop over columns with a trip count from the outer one."""
    g = Graph("nested")
    m = g.add_param(T(F32, 3, 4), "m")

    def outer(b, r, carried, sliced, invariant):
        row = b.apply("Squeeze", sliced[0], axis=0)
        scale = b.apply("Cast", b.apply("Add", r, b.const(np.int64(1))), dtype=F32)

        def inner(bb, c, inner_carried, inner_sliced, inner_inv):
            rw, sc = inner_inv
            v = bb.apply("Mul", bb.apply("Squeeze", inner_sliced[0], axis=0), sc)
            s = bb.apply("Add", inner_carried[0], v)
            return True, [s], [bb.apply("ExpandDims", inner_carried[0], axis=0)]

        _, prefix = loop(b, inner, trip_count=4, carried=[b.const(np.float32(0))],
                         sliced=[row], invariant=[row, scale], name="inner")
        return True, [], [b.apply("ExpandDims", prefix, axis=0)]

    g.set_results(loop(g, outer, sliced=[m], name="outer"))
    assert g.results[0].type == T(F32, 3, 4)
    mv = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = np.zeros((3, 4), np.float32)
    for r in range(3):
        for c in range(4):
            want[r, c] = sum(mv[r, k] * (r + 1) for k in range(c))
    (out,) = run(g, mv)
    np.testing.assert_allclose(out, want)


def test_loop_inside_an_if_branch():
    g = Graph("f")
    flag = g.add_param(T(BOOL), "flag")
    n = g.add_param(T(I64), "n")
    x = g.add_param(T(F32), "x")

    def then(b, nn, xx):
        def step(bb, i, carried, sliced, invariant):
            return True, [bb.apply("Mul", carried[0], bb.const(3.0))], []
        return loop(b, step, trip_count=nn, carried=[xx])

    g.set_results(if_(g, flag, then, lambda b, nn, xx: b.apply("Neg", xx), [n, x]))
    assert run(g, np.bool_(True), np.int64(4), np.float32(2.0))[0] == 2.0 * 3 ** 4
    assert run(g, np.bool_(False), np.int64(4), np.float32(2.0))[0] == -2.0
    assert run(g, np.bool_(True), np.int64(0), np.float32(2.0))[0] == 2.0


def test_if_inside_a_loop_body():
    """Collatz: n -> n / 2 if even else 3n + 1, until n == 1; counts the steps."""
    g = Graph("collatz")
    n0 = g.add_param(T(I64), "n0")
    steps0 = g.add_param(T(I64), "steps0")

    def step(b, i, carried, sliced, invariant):
        n, steps = carried
        even = b.apply("Equal", b.apply("FloorMod", n, b.const(np.int64(2))),
                       b.const(np.int64(0)))
        (n2,) = if_(b, even, lambda t, v: t.apply("FloorDiv", v, t.const(np.int64(2))),
                    lambda e, v: e.apply("Add", e.apply("Mul", v, e.const(np.int64(3))),
                                         e.const(np.int64(1))), [n])
        more = b.apply("NotEqual", n2, b.const(np.int64(1)))
        return more, [n2, b.apply("Add", steps, b.const(np.int64(1)))], [
            b.apply("ExpandDims", n2, axis=0)]

    g.set_results(loop(g, step, carried=[n0, steps0]))

    def ref(n):
        seq = []
        while True:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            seq.append(n)
            if n == 1:
                return seq
    for start in (6, 7, 27):
        n, steps, seq = run(g, np.int64(start), np.int64(0))
        want = ref(start)
        assert (int(n), int(steps)) == (1, len(want))
        np.testing.assert_array_equal(seq, want)


def test_loop_in_if_in_loop():
    g = Graph("deep")
    n = g.add_param(T(I64), "n")

    def outer(b, i, carried, sliced, invariant):
        odd = b.apply("Equal", b.apply("FloorMod", i, b.const(np.int64(2))),
                      b.const(np.int64(1)))

        def then(t, ii, acc):
            def inner(bb, j, c, s, inv):
                return True, [bb.apply("Add", c[0], j)], []
            return loop(t, inner, trip_count=ii, carried=[acc])

        (acc2,) = if_(b, odd, then, lambda e, ii, acc: acc, [i, carried[0]])
        return True, [acc2], []

    g.set_results(loop(g, outer, trip_count=n, carried=[g.const(np.int64(0))]))
    want = sum(sum(range(i)) for i in range(7) if i % 2 == 1)
    assert int(run(g, np.int64(7))[0]) == want


# -- golden printed IR -----------------------------------------------------------------------
GOLDEN_LOOP = """\
graph rnn(%xs: f32[5,2,3], %h0: f32[2,3], %w: f32[3,3]) {
  %0: i64[] = Const(-1:int64)
  %1: bool[] = Const(True:bool)
  %h: f32[2,3], %hs: f32[5,2,3] = Loop(%0, %1, %h0, %xs, %w) body=@step  # rnn.py:7
    subgraph step(%i: i64[], %h0_1: f32[2,3], %xs_t: f32[1,2,3], %w_1: f32[3,3]) {
      %2: f32[2,3] = Squeeze(%xs_t) axis=0
      %3: f32[2,3] = MatMul(%h0_1, %w_1) transpose_a=False transpose_b=False
      %4: f32[2,3] = Add(%2, %3)
      %h_next: f32[2,3] = Tanh(%4)
      %5: f32[1,2,3] = ExpandDims(%h_next) axis=0
      %6: bool[] = Const(True:bool)
      return %6, %h_next, %5
    }
    port_map {
      current_iteration %i
      execution_condition %6
      input %h0 -> %h0_1
      input %xs -> %xs_t slice axis=0
      input %w -> %w_1
      back_edge %h_next -> %h0_1
      output %h <- %h_next
      output %hs <- %5 concat axis=0
    }
  return %h, %hs
}"""


def test_golden_printed_loop():
    g = Graph("rnn")
    xs = g.add_param(T(F32, 5, 2, 3), "xs")
    h0 = g.add_param(T(F32, 2, 3), "h0")
    w = g.add_param(T(F32, 3, 3), "w")

    def step(b, i, carried, sliced, invariant):
        x = b.apply("Squeeze", sliced[0], axis=0)
        h = b.apply("Tanh", b.apply("Add", x, b.apply("MatMul", carried[0], invariant[0])),
                    name="h_next")
        return True, [h], [b.apply("ExpandDims", h, axis=0)]

    loc = SourceLoc("/src/rnn.py", 7, 4, function="construct")
    g.set_results(loop(g, step, carried=[h0], sliced=[xs], invariant=[w], name="step",
                       names=["h", "hs"], loc=loc))
    verify(g)
    assert str(g) == GOLDEN_LOOP
