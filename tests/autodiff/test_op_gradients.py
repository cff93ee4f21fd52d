"""Every differentiable op of the registry: gradients on random shapes (broadcasting
included) in float64, graph mode equal to PYNATIVE mode and close to central finite
differences. More examples by hand: `python tests/autodiff/test_op_gradients.py 50`."""
from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import graphjit as ms
from graphjit import ops
from graphjit.ir.registry import NOT_DIFFERENTIABLE, all_ops

from gradcheck import assert_grads_agree

EXAMPLES = 3
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
ND_SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)


def _vals(rng, shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape)


def _binary(low=-2.0, high=2.0, low_y=None, high_y=None):
    def make(data, rng):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3,
                                                             max_side=3)).input_shapes
        y_lo, y_hi = (low, high) if low_y is None else (low_y, high_y)
        return [_vals(rng, shapes[0], low, high), _vals(rng, shapes[1], y_lo, y_hi)], {}
    return make


def _unary(low=-2.0, high=2.0, shapes=SHAPES):
    def make(data, rng):
        return [_vals(rng, data.draw(shapes), low, high)], {}
    return make


def _axis(data, rank):
    return data.draw(st.integers(-rank, rank - 1))


def _reduce(data, rng):
    shape = data.draw(ND_SHAPES)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1),
                               st.lists(st.integers(0, len(shape) - 1), min_size=1,
                                        unique=True).map(tuple)))
    return [_vals(rng, shape)], {"axis": axis, "keep_dims": data.draw(st.booleans())}


def _reshape(data, rng):
    shape = data.draw(SHAPES)
    n = int(np.prod(shape))
    return [_vals(rng, shape)], {"shape": data.draw(st.sampled_from([(n,), (1, n), (n, 1)]))}


def _reshape_to(data, rng):
    shape = data.draw(SHAPES)
    n = int(np.prod(shape))
    target = data.draw(st.sampled_from([(n,), (1, n), (n, 1), (-1, 1)]))
    hint = tuple(None if i == 0 else (n if d == -1 else d) for i, d in enumerate(target))
    return [_vals(rng, shape), np.array(target, np.int64)], {"shape_hint": hint}


def _transpose(data, rng):
    shape = data.draw(ND_SHAPES)
    perm = data.draw(st.one_of(st.none(), st.permutations(range(len(shape))).map(tuple)))
    return [_vals(rng, shape)], {"perm": perm}


def _expand(data, rng):
    shape = data.draw(SHAPES)
    return [_vals(rng, shape)], {"axis": _axis(data, len(shape) + 1)}


def _squeeze(data, rng):
    shape = data.draw(ND_SHAPES)
    ones = [i for i, d in enumerate(shape) if d == 1]
    axis = data.draw(st.sampled_from([None] + ones)) if ones else None
    return [_vals(rng, shape)], {"axis": axis}


def _flatten(data, rng):
    shape = data.draw(ND_SHAPES)
    return [_vals(rng, shape)], {"start_dim": 0, "end_dim": -1}


def _concat(data, rng):
    shape = list(data.draw(ND_SHAPES))
    axis = _axis(data, len(shape))
    arrays = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[axis] = data.draw(st.integers(1, 3))
        arrays.append(_vals(rng, tuple(s)))
    return arrays, {"axis": axis}


def _stack(data, rng):
    shape = data.draw(SHAPES)
    n = data.draw(st.integers(1, 3))
    return [_vals(rng, shape) for _ in range(n)], {"axis": _axis(data, len(shape) + 1)}


def _index(data, rng):
    shape = data.draw(ND_SHAPES)
    key = []
    for d in shape:
        key.append(data.draw(st.one_of(st.integers(-d, d - 1),
                                       st.builds(lambda a, b, s: ("slice", a, b, s),
                                                 st.sampled_from([None, 0, 1]),
                                                 st.sampled_from([None, -1, 2]),
                                                 st.sampled_from([None, 1, 2, -1]))) ))
    if data.draw(st.booleans()):
        key.insert(data.draw(st.integers(0, len(key))), None)
    return [_vals(rng, shape)], {"index": tuple(key)}


def _index_update(data, rng):
    (x,), attrs = _index(data, rng)
    from graphjit.ir.defs.shape import decode_index
    sub = np.asarray(x)[decode_index(attrs["index"])].shape
    v_shape = tuple(data.draw(st.sampled_from([1, d])) for d in sub)
    v_shape = v_shape[data.draw(st.integers(0, len(v_shape))):]   # broadcasts to sub
    return [x, _vals(rng, v_shape)], attrs


def _gather(data, rng):
    shape = data.draw(ND_SHAPES)
    axis = _axis(data, len(shape))
    d = shape[axis]
    idx = rng.integers(-d, d, size=data.draw(hnp.array_shapes(min_dims=0, max_dims=2,
                                                               max_side=4)))
    return [_vals(rng, shape), idx.astype(np.int64)], {"axis": axis}


def _broadcast_to(data, rng):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3,
                                                         max_side=3))
    return [_vals(rng, shapes.input_shapes[0])], {"shape": shapes.result_shape}


def _tile(data, rng):
    shape = data.draw(SHAPES)
    reps = tuple(data.draw(st.lists(st.integers(1, 3), min_size=len(shape),
                                    max_size=len(shape) + 1)))
    return [_vals(rng, shape)], {"multiples": reps}


def _boolean_mask(data, rng):
    shape = data.draw(ND_SHAPES)
    mask = rng.random(shape[0]) < 0.6
    return [_vals(rng, shape), mask], {}


def _select(data, rng):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3,
                                                         max_side=3)).input_shapes
    return [rng.random(shapes[0]) < 0.5, _vals(rng, shapes[1]), _vals(rng, shapes[2])], {}


def _matmul(data, rng):
    k, m, n = (data.draw(st.integers(1, 3)) for _ in range(3))
    batch = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2,
                                                        max_side=2)).input_shapes
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    a_vec, b_vec = data.draw(st.booleans()), data.draw(st.booleans())
    a = (k,) if a_vec else batch[0] + ((k, m) if ta else (m, k))
    b = (k,) if b_vec else batch[1] + ((n, k) if tb else (k, n))
    return [_vals(rng, a), _vals(rng, b)], {"transpose_a": ta, "transpose_b": tb}


def _softmax(data, rng):
    shape = data.draw(ND_SHAPES)
    return [_vals(rng, shape)], {"axis": _axis(data, len(shape))}


def _scan(data, rng):
    shape = data.draw(ND_SHAPES)
    return [_vals(rng, shape, 0.5, 2.0)], {"axis": _axis(data, len(shape)),
                                           "exclusive": data.draw(st.booleans()),
                                           "reverse": data.draw(st.booleans())}


def _cast(data, rng):
    return [_vals(rng, data.draw(SHAPES))], {
        "dtype": data.draw(st.sampled_from([ms.float32, ms.float64, ms.float16]))}


def _conv(data, rng):
    group = data.draw(st.sampled_from([1, 1, 2]))
    c, o = group * data.draw(st.integers(1, 2)), group * data.draw(st.integers(1, 2))
    k = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    mode = data.draw(st.sampled_from(["valid", "same", "pad"]))
    pad = tuple(data.draw(st.integers(0, 1)) for _ in range(4)) if mode == "pad" else (0,) * 4
    stride = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    dil = (data.draw(st.integers(1, 2)), 1)
    h = (k[0] - 1) * dil[0] + 1 + data.draw(st.integers(0, 2))
    w = k[1] + data.draw(st.integers(0, 2))
    x = _vals(rng, (data.draw(st.integers(1, 2)), c, h, w))
    wt = _vals(rng, (o, c // group) + k)
    return [x, wt], {"out_channel": o, "kernel_size": k, "pad_mode": mode, "pad": pad,
                     "stride": stride, "dilation": dil, "group": group}


def _pool(avg):
    def make(data, rng):
        k = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2)))
        mode = data.draw(st.sampled_from(["valid", "same", "pad"]))
        pad = (tuple(data.draw(st.integers(0, k[0] // 2)) for _ in
                     range(2)) + (0, 0)) if mode == "pad" else (0,) * 4
        x = _vals(rng, (1, 2, k[0] + data.draw(st.integers(0, 2)), k[1] + 2))
        attrs = {"kernel_size": k, "strides": (data.draw(st.integers(1, 2)), 1),
                 "pad_mode": mode, "pad": pad, "ceil_mode": data.draw(st.booleans())}
        if avg:
            attrs["count_include_pad"] = data.draw(st.booleans())
        return [x], attrs
    return make


def _batch_norm(data, rng):
    c = data.draw(st.integers(1, 3))
    x = _vals(rng, (data.draw(st.integers(2, 3)), c, 2))
    params = [_vals(rng, c, 0.5, 2.0), _vals(rng, c), _vals(rng, c), _vals(rng, c, 0.5, 2.0)]
    return [x] + params, {"is_training": data.draw(st.booleans()), "epsilon": 1e-5}


def _layer_norm(data, rng):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=2, max_side=3))
    a = data.draw(st.integers(1, len(shape) - 1))
    p = data.draw(st.integers(a, len(shape) - 1))
    return [_vals(rng, shape), _vals(rng, shape[p:]), _vals(rng, shape[p:])], {
        "begin_norm_axis": a, "begin_params_axis": p, "epsilon": 1e-5}


def _sort(topk):
    def make(data, rng):
        shape = data.draw(ND_SHAPES)
        axis = _axis(data, len(shape))
        attrs = {"axis": axis}
        if topk:
            attrs["k"] = data.draw(st.integers(1, shape[axis]))
            attrs["largest"] = data.draw(st.booleans())
        else:
            attrs["descending"] = data.draw(st.booleans())
        return [_vals(rng, shape)], attrs
    return make


def _gather_d(data, rng):
    shape = data.draw(ND_SHAPES)
    dim = _axis(data, len(shape))
    ishape = tuple(data.draw(st.integers(1, d)) if i != dim % len(shape) else
                   data.draw(st.integers(1, 4)) for i, d in enumerate(shape))
    n = shape[dim]
    return [_vals(rng, shape), rng.integers(-n, n, size=ishape)], {"dim": dim}


def _batch_dot(data, rng):
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    fa = tuple(data.draw(st.lists(st.integers(1, 2), max_size=1)))
    fb = tuple(data.draw(st.lists(st.integers(1, 2), max_size=1)))
    ia = data.draw(st.integers(1, len(fa) + 1))
    jb = data.draw(st.integers(1, len(fb) + 1))
    a = list((n,) + fa)
    a.insert(ia, c)
    b = list((n,) + fb)
    b.insert(jb, c)
    return [_vals(rng, tuple(a)), _vals(rng, tuple(b))], {"axes": (ia, jb)}


def _advanced_key(data, rng, shape):
    n = shape[0]
    if data.draw(st.booleans()):
        return (rng.random(n) < 0.5,)
    return (rng.permutation(n)[:data.draw(st.integers(1, n))],)


def _index_take(data, rng):
    shape = data.draw(ND_SHAPES)
    return [_vals(rng, shape)], {"key": _advanced_key(data, rng, shape)}


def _index_put(data, rng):
    shape = data.draw(ND_SHAPES)
    key = _advanced_key(data, rng, shape)
    sub = np.empty(shape)[key].shape
    return [_vals(rng, shape), _vals(rng, sub)], {"key": key}


CASES = {
    "IndexTake": _index_take, "IndexPut": _index_put,
    "Conv2D": _conv, "MaxPool": _pool(False), "AvgPool": _pool(True),
    "BatchNorm": _batch_norm, "LayerNorm": _layer_norm, "Sort": _sort(False),
    "TopK": _sort(True), "GatherD": _gather_d, "BatchDot": _batch_dot,
    "Add": _binary(), "Sub": _binary(), "Mul": _binary(),
    "RealDiv": _binary(low_y=0.5, high_y=2.0), "Pow": _binary(0.5, 2.0, -2.0, 2.0),
    "Maximum": _binary(), "Minimum": _binary(), "FloorMod": _binary(-3, 3, 0.7, 2.0),
    "Mod": _binary(-3, 3, 0.7, 2.0),
    "Neg": _unary(), "Abs": _unary(), "Exp": _unary(), "Log": _unary(0.2, 3.0),
    "Log1p": _unary(-0.5, 3.0), "Expm1": _unary(), "Sqrt": _unary(0.2, 3.0),
    "Rsqrt": _unary(0.2, 3.0), "Reciprocal": _unary(0.3, 3.0), "Sin": _unary(),
    "Cos": _unary(), "Tanh": _unary(), "Sigmoid": _unary(), "Erf": _unary(), "ReLU": _unary(),
    "Tan": _unary(-1.2, 1.2), "Asin": _unary(-0.9, 0.9), "Acos": _unary(-0.9, 0.9),
    "Atan": _unary(), "Sinh": _unary(), "Cosh": _unary(), "Asinh": _unary(),
    "Acosh": _unary(1.2, 3.0), "Atanh": _unary(-0.9, 0.9),
    "Square": _unary(), "Identity": _unary(), "CheckNonZero": _unary(0.5, 2.0),
    "Cast": _cast, "Select": _select,
    "ReduceSum": _reduce, "ReduceMean": _reduce, "ReduceMax": _reduce, "ReduceMin": _reduce,
    "ReduceProd": _reduce, "CumSum": _scan, "CumProd": _scan,
    "Reshape": _reshape, "ReshapeTo": _reshape_to, "Flatten": _flatten,
    "Transpose": _transpose,
    "ExpandDims": _expand, "Squeeze": _squeeze, "Concat": _concat, "Stack": _stack,
    "Index": _index, "IndexUpdate": _index_update, "Gather": _gather,
    "BroadcastTo": _broadcast_to, "Tile": _tile, "BooleanMask": _boolean_mask,
    "MatMul": _matmul, "Softmax": _softmax, "LogSoftmax": _softmax,
}
# ops whose gradients are zero or that take no differentiable input, checked below
_WITHOUT = {"If", "Loop", "Dropout"}    # Dropout: a test of its own (it draws)
# the collectives' gradients need a group of processes: tests/communication checks them
# over a faked two-process world and under mpirun
# CellBprop: a Cell's own bprop (tests/common/test_cell_bprop.py)
_ELSEWHERE = {"AllReduce", "AllGather", "Broadcast", "ReduceScatter", "CellBprop"}


def _builtin(op) -> bool:
    return (getattr(op.infer, "__module__", "") or "").startswith("graphjit.")


def test_every_op_declares_a_gradient():
    # backward-only ops without a second-order rule: a gradient of a gradient through
    # one is MissingGradientError (tests/autodiff/test_higher_order.py)
    from graphjit.ir.defs.grad_ops_grad import NO_SECOND_ORDER
    missing = [n for n, op in all_ops().items()
               if op.grad is None and n not in _WITHOUT and n not in NO_SECOND_ORDER and
               _builtin(op)]
    assert not missing, f"ops without a gradient rule: {missing}"


def test_every_differentiable_op_is_checked_here():
    from graphjit.ir.defs import grad_ops  # noqa: F401  (helpers: no second order)
    helpers = {"SumToLike", "ReshapeLike", "BroadcastLike", "GatherGrad", "BooleanMaskGrad",
               "TileGrad", "ConcatGrad", "ReduceProdGrad", "PadLike", "SliceRows",
               "ReshapeDynamic", "Conv2DBackpropInput", "Conv2DBackpropFilter",
               "MaxPoolGrad", "AvgPoolGrad", "BatchNormGrad", "LayerNormGrad",
               "ScatterAddAlongAxis", "BatchDotGrad", "IndexAddAt",
               # its gradient goes to an input its value ignores on purpose: tested by
               # tests/api/test_ms_control_flow_grads.py (weights a program updates)
               "WeightRead"}
    rules = {n for n, op in all_ops().items() if callable(op.grad) and _builtin(op)}
    missing = rules - helpers - set(CASES) - _WITHOUT - _ELSEWHERE
    assert not missing, f"differentiable ops without a gradient test: {sorted(missing)}"


def check_op(name, data):
    seed = data.draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    arrays, attrs = CASES[name](data, rng)
    out = ms.Tensor(arrays[0]) if len(arrays) == 1 else None
    tensors = [ms.Tensor(a) for a in arrays]
    positions = [i for i, a in enumerate(arrays) if a.dtype == np.float64]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        y = ops.call_op(name, *tensors, **attrs)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    ys = y if isinstance(y, tuple) else (y,)
    ws = [ms.Tensor(rng.uniform(0.5, 1.5, size=t.shape)) if t.dtype.is_floating else None
          for t in ys]

    def f(*xs):
        out = ops.call_op(name, *xs, **attrs)
        if isinstance(out, tuple):
            total = 0.0
            for o, wk in zip(out, ws):
                if wk is not None:
                    total = total + (o * wk).sum()
            return total
        return (out * ws[0]).sum()

    del out
    # a cast to a narrower float rounds: its gradient is checked exactly instead
    fd = name != "Cast"
    g = assert_grads_agree(f, tensors, positions, fd=fd, rtol=1e-4, atol=1e-5)
    if not fd:
        want = ws[0].asnumpy().astype(attrs["dtype"].np).astype(np.float64)
        np.testing.assert_array_equal(g[0], np.broadcast_to(want, arrays[0].shape))


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_op_gradient(name, data):
    check_op(name, data)


def test_integer_inputs_differentiate_like_reals_and_bool_inputs_get_zeros():
    # MindSpore 2.10: an int input goes through the same rules, its gradient cast to
    # its dtype (here d/di = x + 1); a bool input gets zeros
    def f(x, i, b):
        return (x * i + ops.cast(b, ms.float64) * x).sum() + ops.cast(i, ms.float64).sum()
    args = (ms.Tensor(np.array([1.0, 2.0])), ms.Tensor(np.array([3, 4], np.int32)),
            ms.Tensor(np.array([True, False])))
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        dx, di, db = ms.grad(f, (0, 1, 2))(*args)
        np.testing.assert_array_equal(dx.asnumpy(), [4.0, 4.0])
        assert di.dtype == ms.int32 and di.asnumpy().tolist() == [2, 3]
        assert db.dtype == ms.bool_ and db.asnumpy().tolist() == [False, False]


def test_dropout_scales_the_gradient_by_the_mask_it_drew():
    x = T(np.linspace(0.5, 2.0, 12).reshape(3, 4))
    res = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(7)
        y, g = ms.value_and_grad(lambda v: ops.call_op("Dropout", v, keep_prob=0.6))(x)
        np.testing.assert_allclose(g.asnumpy(), y[0].asnumpy() / x.asnumpy(), rtol=1e-12)
        res.append(g.asnumpy())
    np.testing.assert_array_equal(*res)


def T(x, dtype=np.float64):
    return ms.Tensor(np.asarray(x, dtype=dtype))


def test_max_min_tie_rules_follow_mindspore():
    x = ms.Tensor(np.array([1.0, 3.0, 3.0, 2.0]))
    y = ms.Tensor(np.array([1.0, 0.0, 5.0, 2.0]))
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        # a reduction splits the gradient among tied elements
        np.testing.assert_array_equal(ms.grad(lambda v: v.max())(x).asnumpy(),
                                      [0.0, 0.5, 0.5, 0.0])
        # maximum/minimum give a tie to the second operand, as MindSpore's kernels
        dx, dy = ms.grad(lambda a, b: ops.maximum(a, b).sum(), (0, 1))(x, y)
        np.testing.assert_array_equal(dx.asnumpy(), [0.0, 1.0, 0.0, 0.0])
        np.testing.assert_array_equal(dy.asnumpy(), [1.0, 0.0, 1.0, 1.0])
        dx, dy = ms.grad(lambda a, b: ops.minimum(a, b).sum(), (0, 1))(x, y)
        np.testing.assert_array_equal(dx.asnumpy(), [0.0, 0.0, 1.0, 0.0])
        np.testing.assert_array_equal(dy.asnumpy(), [1.0, 1.0, 0.0, 1.0])


def _many(name, n):
    @settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data):
        check_op(name, data)
    return run


if __name__ == "__main__":      # more examples by hand
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    for name in sorted(CASES):
        _many(name, n)()
        print(name, n, "examples ok", flush=True)
