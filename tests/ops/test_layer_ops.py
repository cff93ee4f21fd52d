"""Convolution, pooling, normalization, dropout, batch_dot and the sorting operators, as
functions, primitives and layers: each in both modes (run_both) against a hand-written
numpy reference."""
import itertools

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.ir import dtypes as D
from graphjit.ir.registry import get_op
from helpers import run_both

RNG = np.random.default_rng(11)


def R(*shape, dtype=np.float32):
    return ms.Tensor(RNG.standard_normal(shape).astype(dtype))


def both(fn, *args):
    """Run fn in both modes (run_both checks they agree); the eager result."""
    return run_both(lambda: fn, *args)[1]


def close(t, ref, dtype=D.float32, tol=1e-5):
    a = t.asnumpy()
    ref = np.asarray(ref)
    assert a.shape == ref.shape, (a.shape, ref.shape)
    assert t.dtype is dtype, t.dtype
    np.testing.assert_allclose(a.astype(np.float64), ref.astype(np.float64), rtol=tol,
                               atol=tol)


# -- numpy references (loops, no shared code with the kernels) ---------------------------------
def same_pads(n, k, s, d=1):
    out = -(-n // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - n, 0)
    return total // 2, total - total // 2


def conv_ref(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), group=1):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (s0, s1), (d0, d1) = stride, dilation
    oh, ow = (h - d0 * (kh - 1) - 1) // s0 + 1, (wd - d1 * (kw - 1) - 1) // s1 + 1
    out = np.zeros((n, o, oh, ow))
    per = o // group
    for b, f, i, j in itertools.product(range(n), range(o), range(oh), range(ow)):
        g = f // per
        patch = x[b, g * cg:(g + 1) * cg, i * s0:i * s0 + d0 * (kh - 1) + 1:d0,
                  j * s1:j * s1 + d1 * (kw - 1) + 1:d1]
        out[b, f, i, j] = np.sum(patch * w[f])
    return out


def pool_ref(x, k, s, pads, kind, dilation=(1, 1), ceil=False, include_pad=True, divisor=0,
             same=False):
    """Max or mean over windows; a window's cells past the padding (ceil_mode) and, for
    the mean without include_pad, padding cells are not counted."""
    *lead, h, w = x.shape
    t, b, lft, r = pads
    eh, ew = dilation[0] * (k[0] - 1) + 1, dilation[1] * (k[1] - 1) + 1

    def n_out(n, p0, p1, e, st):
        span = n + p0 + p1 - e
        o = (-(-span // st) if ceil else span // st) + 1
        if ceil and (o - 1) * st >= n + p0:
            o -= 1
        return o
    oh, ow = n_out(h, t, b, eh, s[0]), n_out(w, lft, r, ew, s[1])
    out = np.zeros(tuple(lead) + (oh, ow))
    for idx in itertools.product(*[range(n) for n in lead]):
        for i, j in itertools.product(range(oh), range(ow)):
            vals, count = [], 0
            for a, c in itertools.product(range(k[0]), range(k[1])):
                row, col = i * s[0] - t + a * dilation[0], j * s[1] - lft + c * dilation[1]
                inside = 0 <= row < h and 0 <= col < w
                in_pad = -t <= row < h + b and -lft <= col < w + r
                if inside:
                    vals.append(x[idx + (row, col)])
                    count += 1
                elif in_pad:
                    vals.append(0.0 if kind == "avg" else -np.inf)
                    count += 1 if (include_pad and not same) else 0
            if kind == "max":
                out[idx + (i, j)] = max(vals)
            else:
                out[idx + (i, j)] = sum(vals) / (divisor or count)
    return out


# -- conv2d ----------------------------------------------------------------------------------------
CONV_CASES = [
    # x shape, w shape, stride, pad_mode, padding, dilation, groups
    ((2, 3, 7, 6), (4, 3, 3, 3), 1, "valid", 0, 1, 1),
    ((1, 3, 7, 8), (4, 3, 3, 3), 2, "same", 0, 1, 1),
    ((2, 4, 6, 6), (6, 2, 3, 2), (2, 1), "pad", (1, 2, 0, 1), 1, 2),
    ((1, 4, 9, 9), (4, 1, 3, 3), 1, "pad", 1, 2, 4),
    ((1, 2, 5, 5), (3, 2, 1, 1), 1, "same", 0, 1, 1),
]


@pytest.mark.parametrize("xs,ws,stride,mode,padding,dil,groups", CONV_CASES, ids=str)
def test_conv2d_matches_numpy(xs, ws, stride, mode, padding, dil, groups):
    def f_conv(x, w, b):
        return ops.conv2d(x, w, b, stride, mode, padding, dil, groups)

    x, w, b = R(*xs), R(*ws), R(ws[0])
    st = stride if isinstance(stride, tuple) else (stride, stride)
    dl = (dil, dil)
    if mode == "same":
        ph = same_pads(xs[2], ws[2], st[0], dil)
        pw = same_pads(xs[3], ws[3], st[1], dil)
        pads = ph + pw
    elif mode == "pad":
        pads = padding if isinstance(padding, tuple) else (padding,) * 4
    else:
        pads = (0, 0, 0, 0)
    ref = conv_ref(x.asnumpy(), w.asnumpy(), st, pads, dl, groups) + \
        b.asnumpy().reshape(1, -1, 1, 1)
    close(both(f_conv, x, w, b), ref, tol=1e-4)


def f_conv_prim(x, w):
    return ops.Conv2D(4, 3, pad_mode="same", stride=2)(x, w), ops.Conv2D(4, (3, 3))(x, w)


def test_conv2d_primitive_and_float16():
    x, w = R(1, 3, 6, 5), R(4, 3, 3, 3)
    same, valid = both(f_conv_prim, x, w)
    close(same, conv_ref(x.asnumpy(), w.asnumpy(), (2, 2), same_pads(6, 3, 2) + same_pads(5, 3, 2)),
          tol=1e-4)
    close(valid, conv_ref(x.asnumpy(), w.asnumpy()), tol=1e-4)
    h = both(f_conv_prim, x.astype(ms.float16), w.astype(ms.float16))[1]
    close(h, conv_ref(x.asnumpy().astype(np.float16), w.asnumpy().astype(np.float16)),
          D.float16, tol=2e-2)


class ConvAbsExpConv(nn.Cell):
    """The lowering seed's example graph: Conv -> Abs -> Exp -> Conv."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1)
        self.conv2 = nn.Conv2d(4, 2, 3, stride=2)

    def construct(self, x):
        return self.conv2(ops.exp(ops.abs(self.conv1(x))))


def test_conv_abs_exp_conv_cell_matches_eager_and_numpy():
    ms.set_seed(5)
    net = ConvAbsExpConv()
    x = R(2, 3, 8, 8)
    graph, eager = run_both(lambda: net, x)
    w1, w2 = net.conv1.weight.asnumpy(), net.conv2.weight.asnumpy()
    mid = np.exp(np.abs(conv_ref(x.asnumpy(), w1, pads=(1, 1, 1, 1))))
    close(eager, conv_ref(mid, w2, (2, 2), same_pads(8, 3, 2) * 2), tol=1e-4)
    # the weights are Parameters: state the graph reads (Load) when it runs
    ops_in_graph = [n.op for n in net.compile_cache()[0].graph.nodes
                    if n.op not in ("Const", "Load")]
    assert ops_in_graph == ["Conv2D", "Abs", "Exp", "Conv2D"]
    assert get_op("Conv2D").family == "extern"


def test_conv_with_unknown_batch_and_spatial_dims():
    ms.set_seed(1)
    net = ConvAbsExpConv()
    net.set_inputs(ms.Tensor(shape=[None, 3, None, None], dtype=ms.float32))
    for shape in [(1, 3, 8, 8), (3, 3, 5, 7)]:
        x = R(*shape)
        graph, eager = run_both(lambda: net, x)
        assert graph.shape == eager.shape == (shape[0], 2, -(-shape[2] // 2), -(-shape[3] // 2))
    text = str(net.compile_cache()[0].graph)
    assert "f32[?,4,?,?] = Conv2D" in text


def test_conv2d_layer_defaults():
    conv = nn.Conv2d(6, 4, (3, 5), group=2)
    assert conv.weight.shape == (4, 3, 3, 5) and conv.bias is None
    assert conv.pad_mode == "same" and conv.weight.name == "weight"
    bound = np.sqrt(2.0 / (1 + 5)) * np.sqrt(3.0 / (3 * 15))     # HeUniform(sqrt(5))
    assert np.abs(conv.weight.asnumpy()).max() <= bound + 1e-7
    biased = nn.Conv2d(6, 4, 3, has_bias=True, bias_init="zeros")
    assert biased.bias.asnumpy().tolist() == [0.0] * 4 and biased.bias.name == "bias"
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv2d(5, 4, 3, group=2)
    with pytest.raises(ValueError, match="needs pad_mode='pad'"):
        nn.Conv2d(3, 4, 3, padding=1)


def test_conv2d_refuses_what_does_not_fit():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="has 3 channels but the weight"):
        ops.conv2d(R(1, 3, 5, 5), R(4, 2, 3, 3))
    with pytest.raises(ValueError, match="larger than the padded input"):
        ops.conv2d(R(1, 3, 2, 2), R(4, 3, 3, 3))
    with pytest.raises(ValueError, match="needs floating inputs"):
        ops.conv2d(ms.Tensor(np.ones((1, 1, 3, 3), np.int32)),
                   ms.Tensor(np.ones((1, 1, 1, 1), np.int32)))


# -- pooling ---------------------------------------------------------------------------------------
POOL_CASES = [
    # kernel, stride, pad_mode, padding, dilation, ceil_mode
    ((2, 2), (2, 2), "valid", 0, 1, False),
    ((3, 3), (2, 2), "same", 0, 1, False),
    ((3, 2), (2, 1), "pad", (1, 0), 1, False),
    ((3, 3), (2, 2), "pad", 1, 1, True),
    ((2, 2), (2, 2), "valid", 0, 2, False),
]


def _pool_pads(mode, padding, k, s, shape, dil=1):
    if mode == "same":
        return same_pads(shape[-2], k[0], s[0], dil) + same_pads(shape[-1], k[1], s[1], dil)
    if mode == "pad":
        p = padding if isinstance(padding, tuple) else (padding, padding)
        return (p[0], p[0], p[1], p[1])
    return (0, 0, 0, 0)


@pytest.mark.parametrize("k,s,mode,padding,dil,ceil", POOL_CASES, ids=str)
def test_max_pool2d_layer_matches_numpy(k, s, mode, padding, dil, ceil):
    x = R(2, 3, 7, 6)
    make = lambda: nn.MaxPool2d(k, s, mode, padding, dil, ceil_mode=ceil)    # noqa: E731
    out = run_both(make, x)[1]
    pads = _pool_pads(mode, padding, k, s, x.shape, dil)
    close(out, pool_ref(x.asnumpy(), k, s, pads, "max", (dil, dil), ceil))


@pytest.mark.parametrize("k,s,mode,padding,dil,ceil", [c for c in POOL_CASES if c[4] == 1],
                         ids=str)
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool2d_layer_matches_numpy(k, s, mode, padding, dil, ceil, include_pad):
    x = R(2, 3, 7, 6)
    make = lambda: nn.AvgPool2d(k, s, mode, padding, ceil, include_pad)     # noqa: E731
    out = run_both(make, x)[1]
    pads = _pool_pads(mode, padding, k, s, x.shape)
    close(out, pool_ref(x.asnumpy(), k, s, pads, "avg", ceil=ceil, include_pad=include_pad,
                        same=mode == "same"))


def f_pool_functions(x):
    return (ops.max_pool2d(x, 3, 2, 1, return_indices=True), ops.max_pool2d(x, 2),
            ops.avg_pool2d(x, 2, 1, (1, 0, 0, 1)), ops.avg_pool2d(x, 3, 2, divisor_override=4),
            ops.MaxPool(2, 1, "same")(x), ops.AvgPool(3, 2, "same")(x))


def test_pool_functions_and_primitives():
    x = R(1, 2, 5, 6)
    a = x.asnumpy()
    (mx, idx), m2, av, avd, mp, ap = both(f_pool_functions, x)
    close(mx, pool_ref(a, (3, 3), (2, 2), (1, 1, 1, 1), "max"))
    assert idx.dtype is D.int64 and idx.shape == mx.shape
    flat = a.reshape(1, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.asnumpy().reshape(1, 2, -1), 2),
                                  mx.asnumpy().reshape(1, 2, -1))
    close(m2, pool_ref(a, (2, 2), (2, 2), (0, 0, 0, 0), "max"))
    close(av, pool_ref(a, (2, 2), (1, 1), (1, 0, 0, 1), "avg"))
    close(avd, pool_ref(a, (3, 3), (2, 2), (0, 0, 0, 0), "avg", divisor=4))
    close(mp, pool_ref(a, (2, 2), (1, 1), (0, 1, 0, 1), "max"))
    close(ap, pool_ref(a, (3, 3), (2, 2), same_pads(5, 3, 2) + same_pads(6, 3, 2), "avg",
                      same=True))


def test_pool_of_integers_and_3d_inputs():
    x = ms.Tensor(RNG.integers(-9, 9, (3, 4, 4)).astype(np.int32))
    out = run_both(lambda: nn.MaxPool2d(2, 2), x)[1]
    assert out.dtype is D.int32
    np.testing.assert_array_equal(out.asnumpy(), pool_ref(x.asnumpy(), (2, 2), (2, 2),
                                                          (0, 0, 0, 0), "max"))
    with pytest.raises(ValueError, match="not defined for int32"):
        ms.set_context(mode=ms.PYNATIVE_MODE)
        nn.AvgPool2d(2)(x)


# -- normalization ---------------------------------------------------------------------------------
def bn_ref(x, mean, var, gamma, beta, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * \
        gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize("cls,shape", [(nn.BatchNorm2d, (2, 3, 4, 5)), (nn.BatchNorm1d, (4, 3)),
                                       (nn.BatchNorm1d, (4, 3, 5))])
def test_batch_norm_inference_uses_moving_statistics(cls, shape):
    bn = cls(3, eps=1e-3)
    for p, v in ((bn.gamma, [1.0, 2.0, 0.5]), (bn.beta, [0.0, 1.0, -1.0]),
                 (bn.moving_mean, [0.1, -0.2, 0.3]), (bn.moving_variance, [1.0, 0.5, 2.0])):
        p.set_data(ms.Tensor(np.array(v, np.float32)))
    x = R(*shape)
    out = run_both(lambda: bn, x)[1]
    close(out, bn_ref(x.asnumpy(), *(p.asnumpy() for p in (
        bn.moving_mean, bn.moving_variance, bn.gamma, bn.beta)), 1e-3))
    assert [p.name for p in (bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance)] == \
        ["gamma", "beta", "mean", "variance"]


def test_batch_norm_training_uses_batch_statistics_and_updates_moving_ones():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    bn = nn.BatchNorm2d(3, momentum=0.8).set_train()
    x = R(4, 3, 2, 2)
    a = x.asnumpy().astype(np.float64)
    mean, var = a.mean(axis=(0, 2, 3)), a.var(axis=(0, 2, 3))
    close(bn(x), bn_ref(a, mean, var, np.ones(3), np.zeros(3), 1e-5), tol=1e-4)
    close(bn.moving_mean, 0.2 * mean, tol=1e-6)
    # MindSpore: the moving variance takes the unbiased batch variance (16 values)
    close(bn.moving_variance, 0.8 + 0.2 * var * 16 / 15, tol=1e-6)
    frozen = nn.BatchNorm2d(3, use_batch_statistics=False).set_train()
    close(frozen(x), bn_ref(a, np.zeros(3), np.ones(3), np.ones(3), np.zeros(3), 1e-5))


def test_batch_norm_training_in_graph_mode_updates_moving_statistics_as_eager():
    # the moving statistics are Parameters the graph updates (Assign) when it runs
    xs = [R(2, 3, 2, 2) for _ in range(3)]
    runs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        bn = nn.BatchNorm2d(3, momentum=0.7).set_train()
        runs[mode] = [(bn(x).asnumpy(), bn.moving_mean.asnumpy(),
                       bn.moving_variance.asnumpy()) for x in xs]
    for eager, graph in zip(runs[ms.PYNATIVE_MODE], runs[ms.GRAPH_MODE]):
        for a, b in zip(eager, graph):
            np.testing.assert_array_equal(a, b)
    assert len(bn.compile_cache()) == 1
    assert [n.op for n in bn.compile_cache()[0].graph.nodes].count("Assign") == 2


def test_batch_norm_refuses_wrong_ranks_and_channels():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match=r"BatchNorm2d\(num_features=3\) needs a 4-D input"):
        nn.BatchNorm2d(3)(R(2, 3))
    with pytest.raises(ValueError, match=r"BatchNorm2d\(num_features=3\) got an input with 4 "
                                         r"channels"):
        nn.BatchNorm2d(3)(R(2, 4, 2, 2))


def f_batch_norm(x, m, v, g, b):
    return ops.batch_norm(x, m, v, g, b, eps=1e-4), ops.BatchNorm()(x, g, b, m, v)[0]


def test_batch_norm_function_and_primitive():
    x, m, g, b = R(3, 2, 4), R(2), R(2), R(2)
    v = ms.Tensor(np.array([0.5, 1.5], np.float32))
    f, p = both(f_batch_norm, x, m, v, g, b)
    args = [t.asnumpy() for t in (m, v, g, b)]
    close(f, bn_ref(x.asnumpy(), *args, 1e-4))
    close(p, bn_ref(x.asnumpy(), *args, 1e-5))


def ln_ref(x, axis, gamma, beta, eps):
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta, mean, var


def f_layer_norm(x, g, b):
    return (ops.layer_norm(x, (4,)), ops.layer_norm(x, (3, 4), ops.ones((3, 4)) * 2, None, 1e-3),
            ops.LayerNorm(1, 2, 1e-6)(x, g, b))


def test_layer_norm_function_primitive_and_layer():
    x, g, b = R(2, 3, 4), R(4), R(4)
    a = x.asnumpy().astype(np.float64)
    f1, f2, (y, mean, var) = both(f_layer_norm, x, g, b)
    close(f1, ln_ref(a, -1, 1, 0, 1e-5)[0], tol=1e-4)
    close(f2, ln_ref(a, -2, 2, 0, 1e-3)[0], tol=1e-4)
    ry, rm, rv = ln_ref(a, 1, g.asnumpy(), b.asnumpy(), 1e-6)
    close(y, ry, tol=1e-4)
    close(mean, rm, tol=1e-5)
    close(var, rv, tol=1e-5)
    layer = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1)
    close(run_both(lambda: layer, x)[1], ln_ref(a, 1, 1, 0, 1e-7)[0], tol=1e-4)
    assert layer.gamma.shape == (3, 4) and layer.beta.name == "beta"
    with pytest.raises(TypeError, match="tuple or list"):
        nn.LayerNorm(4)


# -- dropout ---------------------------------------------------------------------------------------
class TwoDropouts(nn.Cell):
    def __init__(self, p):
        super().__init__()
        self.drop = nn.Dropout(p=p)

    def construct(self, x):
        return self.drop(x), self.drop(x * 2)


def _seeded(net, mode, x, seed=7):
    ms.set_context(mode=mode)
    ms.set_seed(seed)
    return net(x)


def test_dropout_in_training_draws_the_same_masks_in_both_modes():
    net = TwoDropouts(0.25).set_train()
    x = ms.Tensor(np.ones((50, 40), np.float32))
    eager = _seeded(net, ms.PYNATIVE_MODE, x)
    graph = _seeded(net, ms.GRAPH_MODE, x)
    for e, g in zip(eager, graph):
        np.testing.assert_array_equal(e.asnumpy(), g.asnumpy())
        assert set(np.unique(e.asnumpy())) == {0.0, np.float32(1 / 0.75)} or \
            set(np.unique(e.asnumpy())) == {0.0, np.float32(2 / 0.75)}
    kept = (eager[0].asnumpy() != 0).mean()
    assert 0.65 < kept < 0.85                             # about 1 - p of 2000 draws
    assert not np.array_equal(eager[0].asnumpy() != 0, eager[1].asnumpy() != 0)
    again = _seeded(net, ms.GRAPH_MODE, x, seed=8)        # a new seed: other masks, no rebuild
    assert not np.array_equal(again[0].asnumpy(), graph[0].asnumpy())
    assert len(net.compile_cache()) == 1


def test_dropout_is_the_identity_in_inference():
    x = R(3, 4)
    e, g = run_both(lambda: TwoDropouts(0.5), x)
    np.testing.assert_array_equal(e[0].asnumpy(), x.asnumpy())
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        nn.Dropout(p=1.0)


def f_dropout_const(x):
    return ops.dropout(ops.ones((4, 5)), 0.5) + x


def test_dropout_of_a_constant_is_drawn_when_the_graph_runs():
    ms.set_context(mode=ms.GRAPH_MODE)
    f = ms.jit(f_dropout_const)
    x = ms.Tensor(np.zeros((4, 5), np.float32))
    ms.set_seed(1)
    first = f(x).asnumpy()
    second = f(x).asnumpy()
    assert not np.array_equal(first, second)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(1)
    np.testing.assert_array_equal(f_dropout_const(x).asnumpy(), first)


def f_dropout_prim(x):
    return ops.Dropout(keep_prob=0.6)(x), ops.dropout(x, 0.3, training=False)


def test_dropout_primitive_returns_the_mask():
    x = R(6, 7)
    (y, mask), same = _seeded(lambda v: f_dropout_prim(v), ms.PYNATIVE_MODE, x)
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() * mask.asnumpy() / 0.6, rtol=1e-6)
    assert set(np.unique(mask.asnumpy())) <= {0.0, 1.0}
    assert same is x
    g = _seeded(ms.jit(f_dropout_prim), ms.GRAPH_MODE, x)
    np.testing.assert_array_equal(g[0][1].asnumpy(), mask.asnumpy())


# -- embedding -------------------------------------------------------------------------------------
def test_embedding_gathers_rows():
    emb = nn.Embedding(10, 4, padding_idx=2)
    ids = ms.Tensor(np.array([[1, 2], [9, 0]], np.int32))
    out = run_both(lambda: emb, ids)[1]
    table = emb.embedding_table.asnumpy()
    close(out, table[ids.asnumpy()])
    assert not table[2].any() and np.abs(table).max() < 0.1        # N(0, 0.01), row 2 zero
    hot = nn.Embedding(10, 4, use_one_hot=True, embedding_table=emb.embedding_table.asnumpy())
    close(run_both(lambda: hot, ids)[1], table[ids.asnumpy()])


# -- batch_dot -------------------------------------------------------------------------------------
BATCH_DOT = [((2, 2, 3), (2, 3, 2), (-1, -2), (2, 2, 2)), ((2, 2), (2, 3, 2), (1, 2), (2, 3)),
             ((6, 2, 3, 4), (6, 5, 4, 8), None, (6, 2, 3, 5, 8)),
             ((2, 2, 4), (2, 5, 4, 5), 2, (2, 2, 5, 5)), ((3, 4), (3, 4), None, (3, 1)),
             ((3, 2, 4), (3, 4), None, (3, 2))]


def batch_dot_ref(a, b, i, j):
    out = []
    for n in range(a.shape[0]):
        out.append(np.tensordot(a[n], b[n], axes=([i - 1], [j - 1])))
    return np.stack(out)


@pytest.mark.parametrize("sa,sb,axes,shape", BATCH_DOT, ids=str)
def test_batch_dot(sa, sb, axes, shape):
    def f(x, y):
        return ops.batch_dot(x, y, axes)

    a, b = R(*sa), R(*sb)
    out = both(f, a, b)
    assert out.shape == shape
    ra, rb = len(sa), len(sb)
    if axes is None:
        i, j = ra - 1, (rb - 1 if rb == 2 else rb - 2)
    elif isinstance(axes, int):
        i, j = axes, axes
    else:
        i, j = axes[0] % ra, axes[1] % rb
    close(out, batch_dot_ref(a.asnumpy(), b.asnumpy(), i, j).reshape(shape), tol=1e-5)


# -- topk, sort, unique, gather_elements -----------------------------------------------------------
def f_sorting(x):
    return (ops.topk(x, 2), ops.topk(x, 3, 0, largest=False), ops.TopK()(x, 1),
            ops.sort(x), ops.sort(x, 0, True), ops.Sort(descending=True)(x))


def stable_ref(x, axis, descending):
    """Python's stable sort along an axis: (values, indices), ties in input order."""
    moved = np.moveaxis(x, axis, -1)
    vals, idx = np.empty_like(moved), np.empty(moved.shape, np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        row = list(moved[pos])
        order = sorted(range(len(row)), key=lambda k: float(row[k]), reverse=descending)
        idx[pos] = order
        vals[pos] = [row[k] for k in order]
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16, np.uint8])
def test_topk_and_sort_with_ties(dtype):
    x = ms.Tensor(RNG.integers(0, 4, (3, 5)).astype(dtype))       # many equal values
    a = x.asnumpy()
    out = both(f_sorting, x)
    refs = [(2, -1, True), (3, 0, False), (1, -1, True)]
    for (v, i), (k, axis, largest) in zip(out[:3], refs):
        rv, ri = stable_ref(a, axis, largest)
        sl = [slice(None)] * 2
        sl[axis] = slice(0, k)
        np.testing.assert_array_equal(v.asnumpy(), rv[tuple(sl)])
        np.testing.assert_array_equal(i.asnumpy(), ri[tuple(sl)])
        assert i.dtype is D.int32 and v.dtype is x.dtype
    for (v, i), (axis, desc) in zip(out[3:], [(-1, False), (0, True), (-1, True)]):
        rv, ri = stable_ref(a, axis, desc)
        np.testing.assert_array_equal(v.asnumpy(), rv)
        np.testing.assert_array_equal(i.asnumpy(), ri)


def f_unique(x):
    y, idx = ops.unique(x)
    return y, idx, ops.Unique()(x)[0] * 2


@pytest.mark.parametrize("data,dtype", [([5, 1, 5, 2, 1, 7], np.int32),
                                        ([[3.0, -1.0], [3.0, 0.5]], np.float32),
                                        ([4, 4, 4], np.int64)])
def test_unique_in_first_occurrence_order(data, dtype):
    x = ms.Tensor(np.array(data, dtype))
    y, idx, twice = both(f_unique, x)
    seen = []
    for v in np.asarray(data).reshape(-1):
        if v not in seen:
            seen.append(v)
    np.testing.assert_array_equal(y.asnumpy(), np.array(seen, dtype))
    np.testing.assert_array_equal(idx.asnumpy().reshape(-1), [seen.index(v) for v in
                                                              np.asarray(data).reshape(-1)])
    assert idx.shape == x.shape and y.dtype is x.dtype
    assert idx.dtype is (D.int64 if dtype == np.int64 else D.int32)
    np.testing.assert_array_equal(twice.asnumpy(), 2 * np.array(seen, dtype))


def test_unique_length_is_unknown_in_the_graph():
    ms.jit(f_unique)(ms.Tensor(np.array([1, 1, 2], np.int32)))
    g = ms.compile(f_unique, ms.TensorSpec((3,), ms.int32)).graph
    text = str(g)
    assert "%0: i32[?], %1: i32[3] = Unique(%x)" in text and "i32[?] = Mul" in text


def f_gather_elements(x, i, j):
    return ops.gather_elements(x, 1, i), ops.GatherD()(x, 0, j)


def test_gather_elements():
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    i = ms.Tensor(np.array([[0, 3], [-1, 1]], np.int64))
    j = ms.Tensor(np.array([[2, 0, 1, 1]], np.int32))
    a, b = both(f_gather_elements, x, i, j)
    xa = x.asnumpy()
    np.testing.assert_array_equal(a.asnumpy(), [[xa[0, 0], xa[0, 3]], [xa[1, 3], xa[1, 1]]])
    np.testing.assert_array_equal(b.asnumpy(), [[xa[2, 0], xa[0, 1], xa[1, 2], xa[1, 3]]])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(IndexError, match="out of range"):
        ops.gather_elements(x, 1, ms.Tensor(np.array([[4]], np.int32)))
    with pytest.raises(ValueError, match="same rank"):
        ops.gather_elements(x, 1, ms.Tensor(np.array([4], np.int32)))


# -- MindSpore signatures of the layers and primitives ---------------------------------------------
LAYER_SIGNATURES = {
    nn.Conv2d: "(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, "
               "dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, "
               "data_format='NCHW', dtype=graphjit.float32)",
    nn.MaxPool2d: "(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, "
                  "return_indices=False, ceil_mode=False, data_format='NCHW')",
    nn.AvgPool2d: "(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False, "
                  "count_include_pad=True, divisor_override=None, data_format='NCHW')",
    nn.BatchNorm2d: "(num_features, eps=1e-05, momentum=0.9, affine=True, gamma_init='ones', "
                    "beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones', "
                    "use_batch_statistics=None, data_format='NCHW', dtype=graphjit.float32)",
    nn.LayerNorm: "(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, "
                  "gamma_init='ones', beta_init='zeros', epsilon=1e-07, dtype=graphjit.float32)",
    nn.Embedding: "(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal', "
                  "dtype=graphjit.int32, padding_idx=None)",
    ops.Conv2D: "(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, "
                "dilation=1, group=1, data_format='NCHW')",
    ops.MaxPool: "(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')",
    ops.BatchNorm: "(is_training=False, epsilon=1e-05, momentum=0.1, data_format='NCHW')",
    ops.LayerNorm: "(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-07)",
    ops.Dropout: "(keep_prob=0.5, Seed0=0, Seed1=0)",
    ops.TopK: "(sorted=True)",
    ops.Sort: "(axis=-1, descending=False)",
}


@pytest.mark.parametrize("cls,signature", list(LAYER_SIGNATURES.items()),
                         ids=[c.__name__ for c in LAYER_SIGNATURES])
def test_layer_and_primitive_signatures(cls, signature):
    import inspect
    assert str(inspect.signature(cls)) == signature


def test_a_window_larger_than_an_unknown_input_fails_when_the_graph_runs():
    net = nn.MaxPool2d(3, 1)
    net.set_inputs(ms.Tensor(shape=[1, 1, None, None], dtype=ms.float32))
    assert net(R(1, 1, 4, 4)).shape == (1, 1, 2, 2)
    with pytest.raises(ValueError, match="larger than the padded input"):
        net(R(1, 1, 2, 5))


# -- the layers inside control flow that depends on a tensor ------------------------------------
def _layers_4d():
    return [nn.Conv2d(3, 3, 3, pad_mode="same"), nn.BatchNorm2d(3), nn.MaxPool2d(3, 1, "same"),
            nn.AvgPool2d(3, 1, "same"), nn.Dropout(p=0.5), nn.GELU(), nn.ReLU()]


class LayersUnderIf(nn.Cell):
    """Each layer is called in one branch of a tensor if (a layer's construct that asks
    type(self) for its name made the branch snapshot a class: an AttributeError)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList(_layers_4d())
        self.norm = nn.LayerNorm((8,))
        self.flat = nn.Flatten()
        self.bn1 = nn.BatchNorm1d(3 * 8 * 8)

    def construct(self, x):
        for layer in self.layers:
            if x.sum() > 0:
                x = layer(x)
            else:
                x = self.norm(x) - 1
        return self.bn1(self.flat(x))


class LayersInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList(_layers_4d())
        self.emb = nn.Embedding(10, 8)

    def construct(self, x, n):
        i = 0
        while i < n:
            for layer in self.layers:
                x = layer(x)
            x = x * 0.5 + self.emb(ops.cast(abs(x[0, 0, 0, 0]) * 3, ms.int32) % 10)
            i += 1
        return x


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_layers_under_a_tensor_if(sign):
    x = ms.Tensor(sign * np.abs(RNG.standard_normal((2, 3, 8, 8))).astype(np.float32))

    net = LayersUnderIf()     # one net: its weights are random
    net.set_train(False)
    run_both(lambda: net, x)


def test_layers_in_a_tensor_while():
    x = R(2, 3, 8, 8)

    net = LayersInWhile()
    net.set_train(False)
    run_both(lambda: net, x, ms.Tensor(3))
