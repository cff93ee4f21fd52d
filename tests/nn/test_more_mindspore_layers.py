"""MindSpore 2.x layers and functions model code uses that graphjit lacked: nn.Conv1d,
nn.Conv2dTranspose, nn.GroupNorm, nn.InstanceNorm2d, nn.Upsample / ops.interpolate,
ops.einsum, ops.masked_select, ops.nonzero, ops.gather_nd, ops.tensor_scatter_*,
nn.KLDivLoss, nn.CosineEmbeddingLoss, ops.cosine_similarity, ops.cdist,
nn.MultiheadAttention and nn.TransformerEncoder(Layer): against hand-written numpy, the
same in PYNATIVE and GRAPH mode (one Cell for both), inside tensor control flow, and
with gradients."""
from __future__ import annotations

import copy
import math
import pathlib
import sys

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops
from graphjit.jit.api import compare_results
from optional import require

# the autodiff tests' helpers, imported as CI's plain pytest finds modules (no tests package)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "autodiff"))
from gradcheck import assert_grads_agree  # noqa: E402

R = np.random.default_rng(11)


def _both(fn, *args):
    """fn (a Cell, or a function) eagerly and as a graph on the same Tensors; checks they
    agree and returns the eager result as numpy."""
    ts = [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*ts)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = (fn if isinstance(fn, nn.Cell) else ms.jit(fn))(*ts)
    problem = compare_results(graph, eager)
    assert not problem, problem
    if isinstance(eager, tuple):
        return tuple(None if e is None else e.asnumpy() for e in eager)
    return eager.asnumpy()


def _close(got, want, tol=2e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=tol, atol=tol)


# -- numpy references ----------------------------------------------------------------------
def np_conv2d(x, w, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1):
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + dil[0] * (kh - 1) + 1:dil[0],
                          j * stride[1]:j * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum((1, 2, 3))
    return out


def np_conv_transpose2d(x, w, stride, crop, extra, dil=(1, 1), groups=1):
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    fh = (h - 1) * stride[0] + dil[0] * (kh - 1) + 1
    fw = (wd - 1) * stride[1] + dil[1] * (kw - 1) + 1
    full = np.zeros((n, cog * groups, fh + extra[0], fw + extra[1]))
    cig = cin // groups
    for c in range(cin):
        g = c // cig
        for i in range(h):
            for j in range(wd):
                for a in range(kh):
                    for b in range(kw):
                        full[:, g * cog:(g + 1) * cog, i * stride[0] + a * dil[0],
                             j * stride[1] + b * dil[1]] += x[:, c, i, j][:, None] * w[c, :, a, b]
    top, bottom, left, right = crop
    return full[:, :, top:full.shape[2] - bottom, left:full.shape[3] - right]


def np_norm(x, axes, eps):
    m = x.mean(axes, keepdims=True)
    v = ((x - m) ** 2).mean(axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_layer_norm(x, g, b, eps):
    return np_norm(x, (-1,), eps) * g + b


def np_mha(q, k, v, m, mask=None, kpm=None):
    """(L, N, E) inputs; m the MultiheadAttention Cell (for its weights)."""
    e, h = m.embed_dim, m.num_heads
    d = e // h
    w = m.in_proj_weight.asnumpy()
    bias = m.in_proj_bias.asnumpy()
    qp = q @ w[:e].T + bias[:e]
    kp = k @ w[e:2 * e].T + bias[e:2 * e]
    vp = v @ w[2 * e:].T + bias[2 * e:]

    def heads(t):   # (L, N, E) -> (N, H, L, D)
        return t.reshape(t.shape[0], t.shape[1], h, d).transpose(1, 2, 0, 3)
    s = heads(qp) / math.sqrt(d) @ heads(kp).transpose(0, 1, 3, 2)
    if mask is not None:
        s = s + np.where(mask, -np.inf, 0.0)
    if kpm is not None:
        s = s + np.where(kpm, -np.inf, 0.0)[:, None, None, :]
    p = np_softmax(s)
    o = (p @ heads(vp)).transpose(2, 0, 1, 3).reshape(q.shape[0], q.shape[1], e)
    o = o @ m.out_proj.weight.asnumpy().T + m.out_proj.bias.asnumpy()
    return o, p.mean(1)


X1 = R.standard_normal((2, 4, 9)).astype(np.float32)
X2 = R.standard_normal((2, 4, 5, 6)).astype(np.float32)


# -- convolutions --------------------------------------------------------------------------
@pytest.mark.parametrize("kw, pad", [
    (dict(pad_mode="valid"), (0, 0)),
    (dict(pad_mode="pad", padding=2, stride=2, has_bias=True), (2, 2)),
    (dict(pad_mode="pad", padding=(1, 0), dilation=2, group=2), (1, 0)),
])
def test_conv1d_against_numpy(kw, pad):
    ms.set_seed(1)
    net = nn.Conv1d(4, 6, 3, **kw)
    got = _both(net, X1)
    w = net.weight.asnumpy()
    ref = np_conv2d(X1[:, :, None], w[:, :, None], (1, kw.get("stride", 1)),
                    (0, 0) + pad, (1, kw.get("dilation", 1)), kw.get("group", 1))[:, :, 0]
    if net.has_bias:
        ref = ref + net.bias.asnumpy()[:, None]
    _close(got, ref)


def test_conv1d_same_keeps_the_length_over_the_stride():
    net = nn.Conv1d(4, 3, 4, stride=2)
    assert _both(net, X1).shape == (2, 3, 5)


@pytest.mark.parametrize("kw", [
    dict(pad_mode="valid", stride=2),
    dict(pad_mode="pad", padding=1, stride=2, output_padding=1, has_bias=True),
    dict(pad_mode="pad", padding=(0, 1, 1, 0), stride=(1, 2), dilation=2, group=2),
    dict(pad_mode="same", stride=2),
    dict(pad_mode="same", stride=3, kernel_size=2),
    dict(pad_mode="valid", stride=(3, 1), kernel_size=2),
])
def test_conv2d_transpose_against_numpy(kw):
    ms.set_seed(2)
    kw = dict(kw)
    net = nn.Conv2dTranspose(4, 6, kw.pop("kernel_size", 3), **kw)
    got = _both(net, X2)
    w = net.weight.asnumpy()
    crop = net._crop(5, 6)
    ref = np_conv_transpose2d(X2, w, net.stride, crop, net._extra(), net.dilation,
                              net.group)
    if kw["pad_mode"] != "pad":     # MindSpore's length: at least H * stride
        assert got.shape[2] >= 5 * net.stride[0] and got.shape[3] >= 6 * net.stride[1]
    if net.has_bias:
        ref = ref + net.bias.asnumpy()[:, None, None]
    if kw["pad_mode"] == "same":
        assert got.shape == (2, 6, 5 * net.stride[0], 6 * net.stride[1])
    _close(got, ref, 1e-4)


def test_conv_transpose2d_is_the_gradient_of_conv2d():
    x = R.standard_normal((1, 3, 7, 7)).astype(np.float32)
    w = R.standard_normal((3, 2, 3, 3)).astype(np.float32)   # conv2d weight (out 3, in 2)
    g = R.standard_normal((1, 3, 3, 3)).astype(np.float32)
    gx = ms.grad(lambda inp: (ops.conv2d(inp, ms.Tensor(w), stride=2) * ms.Tensor(g)).sum())(
        ms.Tensor(R.standard_normal((1, 2, 7, 7)).astype(np.float32)))
    tr = ops.conv_transpose2d(ms.Tensor(g), ms.Tensor(w), stride=2)
    _close(tr.asnumpy(), gx.asnumpy(), 1e-4)
    assert x.shape[1] == 3


# -- normalization -------------------------------------------------------------------------
def test_group_norm_and_instance_norm_against_numpy():
    net = nn.GroupNorm(2, 4, gamma_init=ms.Tensor(np.arange(1, 5, dtype=np.float32)),
                       beta_init=0.5)
    ref = np_norm(X2.reshape(2, 2, -1), (-1,), 1e-5).reshape(X2.shape)
    _close(_both(net, X2), ref * np.arange(1, 5)[:, None, None] + 0.5)
    _close(_both(lambda x: ops.group_norm(x, 4), X1), np_norm(X1, (2,), 1e-5))
    inst = nn.InstanceNorm2d(4)
    _close(_both(inst, X2), np_norm(X2, (2, 3), 1e-5))


def test_instance_norm_training_updates_the_moving_statistics_in_both_modes():
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = nn.InstanceNorm2d(4, momentum=0.25)
        net.set_train()
        y = net(ms.Tensor(X2))
        outs.append((y.asnumpy(), net.moving_mean.asnumpy(), net.moving_variance.asnumpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    _close(outs[0][0], np_norm(X2, (2, 3), 1e-5))
    _close(outs[0][1], 0.25 * X2.mean((2, 3)).mean(0))
    _close(outs[0][2], 0.75 + 0.25 * X2.var((2, 3), ddof=1).mean(0))


# -- einsum --------------------------------------------------------------------------------
A3 = R.standard_normal((2, 3, 4)).astype(np.float32)
B3 = R.standard_normal((2, 4, 5)).astype(np.float32)
SQ = R.standard_normal((4, 4)).astype(np.float32)
V = R.standard_normal(3).astype(np.float32)
Q4 = R.standard_normal((2, 3, 5, 4)).astype(np.float32)


@pytest.mark.parametrize("eq, arrays", [
    ("bij,bjk->bik", (A3, B3)), ("ij,jk", (A3[0], B3[0])), ("i,j->ij", (V, V)),
    ("ii->", (SQ,)), ("ii->i", (SQ,)), ("bij->bji", (A3,)), ("ij->", (SQ,)),
    ("...ij,...jk->...ik", (A3, B3)), ("bhqd,bhkd->bhqk", (Q4, Q4)),
    ("bij,bij->bi", (A3, A3)), ("ij,j->i", (SQ, SQ[0])), ("i,i->", (V, V)),
    ("bij,ik->bjk", (A3, R.standard_normal((3, 2)).astype(np.float32))),
    ("ii,ij->j", (SQ, SQ)),
])
def test_einsum_against_numpy(eq, arrays):
    _close(_both(lambda *xs: ops.einsum(eq, *xs), *arrays), np.einsum(eq, *arrays), 1e-4)


class _EinsumInIf(nn.Cell):
    def construct(self, a, b):
        out = ops.einsum("bij,bjk->bik", a, b)
        if out.sum() > 0:
            out = ops.einsum("bik->bki", out)
        else:
            out = ops.einsum("bik->bki", out) * 2
        return out


def test_einsum_inside_a_tensor_if_and_its_gradient():
    ref = np.einsum("bij,bjk->bki", A3, B3)
    got = _both(_EinsumInIf(), A3, B3)
    _close(got, ref if ref.sum() > 0 else 2 * ref, 1e-4)
    assert_grads_agree(lambda a, b: ops.einsum("bij,bjk->bik", a, b),
                       [ms.Tensor(A3.astype(np.float64)), ms.Tensor(B3.astype(np.float64))],
                       (0, 1))


def test_einsum_refuses_what_it_does_not_do():
    with pytest.raises(ValueError, match="one or two operands"):
        ops.einsum("i,i,i->", *[ms.Tensor(V)] * 3)
    with pytest.raises(ValueError, match="names 2 operands"):
        ops.einsum("i,i->", ms.Tensor(V))
    with pytest.raises(ValueError, match="labels"):
        ops.einsum("ij->", ms.Tensor(V))


# -- interpolate ---------------------------------------------------------------------------
def np_resize(x, size, mode, align, ratios):
    out = x.astype(np.float64)
    for k, n_out in enumerate(size):
        axis = 2 + k
        n_in = x.shape[axis]
        res = []
        for d in range(n_out):
            if mode == "nearest":
                i = min(int(np.floor(np.float32(d) * np.float32(ratios[k]))), n_in - 1)
                res.append(np.take(out, i, axis))
                continue
            if align:
                s = d * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            else:
                s = max((d + 0.5) * ratios[k] - 0.5, 0.0)
            i0 = min(int(np.floor(s)), n_in - 1)
            i1 = min(i0 + 1, n_in - 1)
            t = s - i0
            res.append(np.take(out, i0, axis) * (1 - t) + np.take(out, i1, axis) * t)
        out = np.stack(res, axis)
    return out


@pytest.mark.parametrize("kw, size, ratios", [
    (dict(scale_factor=2.0), (10, 12), (0.5, 0.5)),
    (dict(size=(7, 4)), (7, 4), (5 / 7, 6 / 4)),
    (dict(size=(8, 9), mode="bilinear", align_corners=True), (8, 9), None),
    (dict(size=(3, 11), mode="bilinear"), (3, 11), (5 / 3, 6 / 11)),
    (dict(scale_factor=(1.5, 2.0), mode="bilinear"), (7, 12), (1 / 1.5, 0.5)),
])
def test_interpolate_and_upsample_against_numpy(kw, size, ratios):
    ref = np_resize(X2, size, kw.get("mode", "nearest"), kw.get("align_corners"), ratios)
    _close(_both(nn.Upsample(**kw), X2), ref, 1e-5)
    _close(_both(lambda x: ops.interpolate(x, **kw), X2), ref, 1e-5)


def test_interpolate_linear_and_its_gradient():
    ref = np_resize(X1, (13,), "linear", False, (9 / 13,))
    _close(_both(lambda x: ops.interpolate(x, size=13, mode="linear"), X1), ref)
    assert_grads_agree(lambda x: ops.interpolate(x, size=(7, 9), mode="bilinear") ** 2,
                       [ms.Tensor(X2.astype(np.float64))], (0,))


def test_interpolate_refuses_bad_arguments():
    x = ms.Tensor(X2)
    with pytest.raises(ValueError, match="exactly one"):
        ops.interpolate(x)
    with pytest.raises(ValueError, match="not supported"):
        ops.interpolate(x, size=(2, 2), mode="bicubic")
    with pytest.raises(ValueError, match="align_corners"):
        ops.interpolate(x, size=(2, 2), align_corners=True)


# -- run-time length selections and index tuples ------------------------------------------
class _SelectInWhile(nn.Cell):
    def construct(self, x):
        total = ops.zeros((), ms.float32)
        while total < 10:
            picked = ops.masked_select(x, x > 0)
            total = total + picked.sum() + 1
        return total, ops.masked_select(x, x > 0), ops.nonzero(x > 0)


def test_masked_select_and_nonzero_have_a_run_time_length():
    x = A3
    total, picked, idx = _both(_SelectInWhile(), x)
    _close(picked, x[x > 0])
    np.testing.assert_array_equal(idx, np.argwhere(x > 0))
    assert idx.dtype == np.int64
    t, s = 0.0, x[x > 0].sum()
    while t < 10:
        t = t + s + 1
    _close(total, t, 1e-4)
    got = _both(lambda a, m: ops.masked_select(a, m), A3, A3[0, 0] > 0)   # broadcast mask
    _close(got, A3[np.broadcast_to(A3[0, 0] > 0, A3.shape)])
    rows = _both(lambda a: ops.nonzero(a, as_tuple=True), SQ > 0)
    for r, w in zip(rows, np.nonzero(SQ > 0)):
        np.testing.assert_array_equal(r, w)
    assert_grads_agree(lambda a: ops.masked_select(a, ms.Tensor(A3 > 0)) * 3,
                       [ms.Tensor(A3.astype(np.float64))], (0,))


IDX = np.array([[0, 2], [1, 0], [0, 2], [1, -1]], np.int32)


def test_gather_nd_and_scatters_against_numpy():
    got = _both(lambda x, i: ops.gather_nd(x, i), A3, IDX)
    _close(got, np.stack([A3[tuple(i)] for i in IDX]))
    upd = R.standard_normal((4, 4)).astype(np.float32)
    ref = A3.copy()
    np.add.at(ref, (IDX[:, 0], IDX[:, 1]), upd)
    _close(_both(lambda x, i, u: ops.tensor_scatter_add(x, i, u), A3, IDX, upd), ref)
    ref = A3.copy()
    for i, u in zip(IDX, upd):
        ref[tuple(i)] = u      # an index given twice: the last update
    _close(_both(lambda x, i, u: ops.tensor_scatter_update(x, i, u), A3, IDX, upd), ref)
    ref = np.zeros((2, 3, 4), np.float32)
    np.add.at(ref, (IDX[:, 0], IDX[:, 1]), upd)
    _close(_both(lambda i, u: ops.scatter_nd(i, u, (2, 3, 4)), IDX, upd), ref)
    full = np.array([[0, 1, 2], [1, 2, 3]], np.int64)
    _close(_both(lambda x, i: ops.gather_nd(x, i), A3, full), A3[[0, 1], [1, 2], [2, 3]])
    assert_grads_agree(lambda x, u: ops.tensor_scatter_update(x, ms.Tensor(IDX), u) ** 2,
                       [ms.Tensor(A3.astype(np.float64)), ms.Tensor(upd.astype(np.float64))],
                       (0, 1))
    assert_grads_agree(lambda x, u: ops.gather_nd(ops.tensor_scatter_add(
        x, ms.Tensor(IDX), u), ms.Tensor(IDX)) ** 2,
        [ms.Tensor(A3.astype(np.float64)), ms.Tensor(upd.astype(np.float64))], (0, 1))


# -- losses and distances ------------------------------------------------------------------
LOGP = np.log(np_softmax(R.standard_normal((3, 5)))).astype(np.float32)
TGT = np_softmax(R.standard_normal((3, 5))).astype(np.float32)
TGT[0, 1] = 0.0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
def test_kl_div_against_numpy(reduction):
    per = np.where(TGT > 0, TGT * (np.log(np.where(TGT > 0, TGT, 1)) - LOGP), 0)
    want = {"mean": per.mean(), "sum": per.sum(), "none": per,
            "batchmean": per.sum() / 3}[reduction]
    _close(_both(nn.KLDivLoss(reduction), LOGP, TGT), want)
    _close(_both(lambda a, b: ops.kl_div(a, b, reduction), LOGP, TGT), want)
    lt = np.log(TGT + 0.1).astype(np.float32)
    per = np.exp(lt) * (lt - LOGP)
    got = _both(lambda a, b: ops.kl_div(a, b, "sum", log_target=True), LOGP, lt)
    _close(got, per.sum())


def test_cosine_losses_and_distances_against_numpy():
    a = R.standard_normal((4, 6)).astype(np.float32)
    b = R.standard_normal((4, 6)).astype(np.float32)
    y = np.array([1, -1, 1, -1], np.int32)
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    _close(_both(lambda u, v: ops.cosine_similarity(u, v), a, b), cos)
    _close(_both(lambda u, v: ops.cosine_similarity(u, v, dim=0), a, b),
           (a * b).sum(0) / np.sqrt((a * a).sum(0) * (b * b).sum(0)))
    per = np.where(y == 1, 1 - cos, np.maximum(cos - 0.1, 0))
    _close(_both(nn.CosineEmbeddingLoss(margin=0.1), a, b, y), per.mean())
    _close(_both(nn.CosineEmbeddingLoss(reduction="none"), a, b, y),
           np.where(y == 1, 1 - cos, np.maximum(cos, 0)))
    d = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    _close(_both(lambda u, v: ops.cdist(u, v), a, b), d)
    _close(_both(lambda u, v: ops.cdist(u, v, 1.0), a[None], b[None]),
           np.abs(a[:, None] - b[None]).sum(-1)[None])
    _close(_both(lambda u, v: ops.cdist(u, v, 3.0), a, b),
           (np.abs(a[:, None] - b[None]) ** 3).sum(-1) ** (1 / 3))
    assert_grads_agree(lambda u, v: ops.cosine_similarity(u, v) + ops.cdist(u, v).sum(),
                       [ms.Tensor(a.astype(np.float64)), ms.Tensor(b.astype(np.float64))],
                       (0, 1))
    assert_grads_agree(lambda u, v: ops.kl_div(u, v, "batchmean"),
                       [ms.Tensor(LOGP.astype(np.float64)), ms.Tensor(TGT.astype(np.float64))],
                       (0,))


# -- attention -----------------------------------------------------------------------------
SEQ = R.standard_normal((5, 2, 8)).astype(np.float32)    # (L, N, E)
MEM = R.standard_normal((7, 2, 8)).astype(np.float32)


def test_multihead_attention_against_numpy():
    ms.set_seed(4)
    m = nn.MultiheadAttention(8, 2)
    out, w = _both(m, SEQ, MEM, MEM)
    ro, rw = np_mha(SEQ, MEM, MEM, m)
    _close(out, ro, 1e-5)
    _close(w, rw, 1e-5)
    mask = np.triu(np.ones((5, 7), bool), 3)
    kpm = np.zeros((2, 7), bool)
    kpm[1, -2:] = True
    out, w = _both(lambda q, k, p, a: m(q, k, k, key_padding_mask=p, attn_mask=a),
                   SEQ, MEM, kpm, mask)
    ro, rw = np_mha(SEQ, MEM, MEM, m, mask, kpm)
    _close(out, ro, 1e-5)
    _close(w, rw, 1e-5)
    bf = nn.MultiheadAttention(8, 4, batch_first=True)
    res = _both(lambda q: bf(q, q, q, need_weights=False), SEQ.transpose(1, 0, 2))
    assert len(res) == 1 and res[0].shape == (2, 5, 8)     # (attn_output,), as MindSpore
    pm = np.array([False, True, False, False, True])
    one = _both(lambda q, p: m(q, q, q, p), SEQ[:, 0], pm)   # unbatched (L, E), mask (S,)
    ro, rw = np_mha(SEQ[:, :1], SEQ[:, :1], SEQ[:, :1], m, None, pm[None])
    _close(one[0], ro[:, 0], 1e-5)
    _close(one[1], rw[0], 1e-5)


def test_transformer_encoder_against_numpy():
    ms.set_seed(5)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm((8,)))
    got = _both(enc, SEQ)
    x = SEQ.astype(np.float64)
    for l in enc.layers:
        a, _ = np_mha(x, x, x, l.self_attn)
        x = np_layer_norm(x + a, l.norm1.gamma.asnumpy(), l.norm1.beta.asnumpy(), 1e-5)
        f = np.maximum(x @ l.dense1.weight.asnumpy().T + l.dense1.bias.asnumpy(), 0)
        f = f @ l.dense2.weight.asnumpy().T + l.dense2.bias.asnumpy()
        x = np_layer_norm(x + f, l.norm2.gamma.asnumpy(), l.norm2.beta.asnumpy(), 1e-5)
    x = np_layer_norm(x, 1.0, 0.0, 1e-7)
    _close(got, x, 1e-4)
    # the copies start from the layer's weights and are separate Parameters
    w0, w1 = enc.layers[0].dense1.weight, enc.layers[1].dense1.weight
    np.testing.assert_array_equal(w0.asnumpy(), layer.dense1.weight.asnumpy())
    assert w0 is not w1
    causal = np.triu(np.ones((5, 5), bool), 1)
    a = _both(lambda s, c: enc(s, c), SEQ, causal)
    b = _both(lambda s, c: enc(s, src_mask=c), SEQ, causal)    # the later 2.x spelling
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, got)
    first = nn.TransformerEncoderLayer(8, 2, 16, 0.0, "gelu", batch_first=True, norm_first=True)
    assert _both(first, SEQ.transpose(1, 0, 2)).shape == (2, 5, 8)


class _Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3)
        self.gn = nn.GroupNorm(2, 8)
        self.enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1)
        self.up = nn.Upsample(scale_factor=2.0, mode="linear")
        self.fc = nn.Dense(8, 3)

    def construct(self, x):                       # x (N, L, E)
        h = self.gn(self.conv(ops.transpose(x, (0, 2, 1))))
        h = self.enc(ops.transpose(h, (0, 2, 1)))
        if h.mean() > 0:
            h = h * 0.5
        h = self.up(ops.transpose(h, (0, 2, 1)))
        return self.fc(ops.mean(h, 2))


def test_a_model_of_the_new_layers_trains_the_same_in_both_modes():
    x = ms.Tensor(SEQ.transpose(1, 0, 2).copy())
    y = ms.Tensor(np.array([0, 2], np.int32))
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(7)
        net = _Model()
        loss = nn.WithLossCell(net, nn.CrossEntropyLoss())
        step = nn.TrainOneStepCell(loss, nn.Adam(net.trainable_params(), 0.01))
        runs.append([float(step(x, y)) for _ in range(3)] + [net.fc.weight.asnumpy()])
    np.testing.assert_allclose(runs[0][:3], runs[1][:3], rtol=1e-5)
    np.testing.assert_allclose(runs[0][3], runs[1][3], rtol=1e-5, atol=1e-6)
    assert runs[0][2] < runs[0][0]


def test_layer_gradients_agree_with_finite_differences():
    ms.set_seed(8)
    conv = nn.Conv1d(4, 2, 3, pad_mode="pad", padding=1, dtype=ms.float64)
    tconv = nn.Conv2dTranspose(4, 2, 2, stride=2, dtype=ms.float64)
    gn = nn.GroupNorm(2, 4, dtype=ms.float64)
    assert_grads_agree(lambda x: conv(x) ** 2, [ms.Tensor(X1[:1].astype(np.float64))], (0,))
    assert_grads_agree(lambda x: tconv(x) ** 2, [ms.Tensor(X2[:1, :, :3, :3].astype(np.float64))],
                       (0,))
    assert_grads_agree(lambda x: gn(x) * ms.Tensor(X2[:1].astype(np.float64)),
                       [ms.Tensor(X2[:1].astype(np.float64) * 2)], (0,), rtol=1e-4, atol=1e-5)
    assert copy.deepcopy(conv).weight is not conv.weight


def test_bad_layer_arguments_are_refused():
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(8, 3)
    with pytest.raises(ValueError, match="add_bias_kv"):
        nn.MultiheadAttention(8, 2, add_bias_kv=True)
    with pytest.raises(ValueError, match="pad_mode='pad'"):
        nn.Conv1d(2, 2, 3, padding=1)
    with pytest.raises(ValueError, match="reduction"):
        nn.KLDivLoss("avg")
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, activation="swish")


# -- mindspore.nn.<submodule> spellings ----------------------------------------------------
def test_nn_submodule_spellings_import_the_same_classes(monkeypatch):
    import importlib
    import sys
    from graphjit.nn.cell import Cell
    from graphjit.nn.layer import Conv1d, Dense
    from graphjit.nn.layer.conv import Conv2d
    from graphjit.nn.loss.loss import LossBase
    from graphjit.nn.optim.optimizer import Optimizer
    from graphjit.nn.wrap.cell_wrapper import TrainOneStepCell
    from graphjit.nn.dynamic_lr import exponential_decay_lr
    assert (Cell, Dense, Conv1d, Conv2d, LossBase, Optimizer, TrainOneStepCell) == (
        nn.Cell, nn.Dense, nn.Conv1d, nn.Conv2d, nn.LossBase, nn.Optimizer, nn.TrainOneStepCell)
    assert exponential_decay_lr is nn.exponential_decay_lr
    # under the aliases MindSpore programs are run with
    monkeypatch.setitem(sys.modules, "mindspore", ms)
    monkeypatch.setitem(sys.modules, "mindspore.nn", nn)
    try:
        loss_mod = importlib.import_module("mindspore.nn.loss.loss")
        act = importlib.import_module("mindspore.nn.layer.activation")
        assert loss_mod.LossBase is nn.LossBase and act.ReLU is nn.ReLU
    finally:
        for name in [n for n in sys.modules if n.startswith("mindspore.nn.")]:
            del sys.modules[name]

    class MyLoss(LossBase):
        def construct(self, logits, labels):
            return self.get_loss(ops.abs(logits - labels))
    _close(_both(MyLoss(), A3, B3[:, :3, :4]), np.abs(A3 - B3[:, :3, :4]).mean())


class _Dyn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, has_bias=True)
        self.tconv = nn.Conv2dTranspose(8, 2, 2, stride=2)
        self.inorm = nn.InstanceNorm1d(8)
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def construct(self, x):                       # x (N, L, E), N known only at run time
        h = self.inorm(self.conv(ops.transpose(x, (0, 2, 1))))
        a, w = self.mha(x, x, x)
        t = self.tconv(ops.expand_dims(h, 3))
        picked = ops.gather_nd(x, ops.nonzero(x > 1.0))
        return a, w, t, picked, ops.interpolate(h, scale_factor=2.0, mode="linear")


def test_the_new_layers_build_with_a_batch_size_known_only_at_run_time():
    net = _Dyn()
    for n in (2, 3):
        x = R.standard_normal((n, 5, 8)).astype(np.float32)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = net(ms.Tensor(x))
        ms.set_context(mode=ms.GRAPH_MODE)
        net.set_inputs(ms.Tensor(shape=[None, 5, 8], dtype=ms.float32)) if n == 2 else None
        graph = net(ms.Tensor(x))
        assert not compare_results(graph, eager)
        _close(graph[3].asnumpy(), x[x > 1.0])
    with pytest.raises(ValueError, match="rank 3"):
        nn.InstanceNorm1d(8)(ms.Tensor(X2))


class _Prims(nn.Cell):
    def __init__(self):
        super().__init__()
        self.gather_nd = ops.GatherNd()
        self.scatter_nd = ops.ScatterNd()
        self.update = ops.TensorScatterUpdate()
        self.add = ops.TensorScatterAdd()
        self.select = ops.MaskedSelect()
        self.nonzero = ops.NonZero()
        self.einsum = ops.Einsum("bij,bjk->bik")
        self.kl = ops.KLDivLoss("sum")
        self.resize = ops.ResizeNearestNeighbor((7, 9))
        self.resize_ac = ops.ResizeNearestNeighbor((7, 9), align_corners=True)

    def construct(self, x, i, u, img):
        return (self.gather_nd(x, i), self.scatter_nd(i, u, (2, 3, 4)), self.update(x, i, u),
                self.add(x, i, u), self.select(x, x > 0), self.nonzero(x > 0),
                self.einsum((x, ops.transpose(x, (0, 2, 1)))), self.kl(x, ops.abs(x)),
                self.resize(img), self.resize_ac(img))


def test_primitive_forms_match_the_functions():
    upd = R.standard_normal((4, 4)).astype(np.float32)
    got = _both(_Prims(), A3, IDX, upd, X2)
    t = [ms.Tensor(a) for a in (A3, IDX, upd, X2)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = (ops.gather_nd(t[0], t[1]), ops.scatter_nd(t[1], t[2], (2, 3, 4)),
            ops.tensor_scatter_update(*t[:3]), ops.tensor_scatter_add(*t[:3]),
            ops.masked_select(t[0], t[0] > 0), ops.nonzero(t[0] > 0),
            ops.einsum("bij,bkj->bik", t[0], t[0]), ops.kl_div(t[0], ops.abs(t[0]), "sum"),
            ops.interpolate(t[3], size=(7, 9)))
    ms.set_context(mode=ms.GRAPH_MODE)
    for g, w in zip(got, want):
        _close(g, w.asnumpy(), 1e-5)
    rows = np.floor(np.arange(7) * np.float32(4 / 6) + 0.5).astype(int)
    cols = np.floor(np.arange(9) * np.float32(5 / 8) + 0.5).astype(int)
    _close(got[-1], X2[:, :, rows][:, :, :, cols])
    from graphjit.ops import operations as P
    assert P.GatherNd is ops.GatherNd and P.Einsum is ops.Einsum


def _np_ff(l, x, act):
    f = act(x @ l.dense1.weight.asnumpy().T + l.dense1.bias.asnumpy())
    return f @ l.dense2.weight.asnumpy().T + l.dense2.bias.asnumpy()


def _ln(norm, x):
    return np_layer_norm(x, norm.gamma.asnumpy(), norm.beta.asnumpy(), 1e-5)


def _np_gelu(x):
    from math import erf
    return x * 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def test_transformer_decoder_and_transformer_against_numpy():
    ms.set_seed(6)
    tgt = R.standard_normal((4, 2, 8)).astype(np.float32)
    causal = np.triu(np.ones((4, 4), bool), 1)
    dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation="gelu")
    got = _both(lambda t, m, c: dec(t, m, tgt_mask=c), tgt, MEM, causal)
    x = tgt.astype(np.float64)
    x = _ln(dec.norm1, x + np_mha(x, x, x, dec.self_attn, causal)[0])
    x = _ln(dec.norm2, x + np_mha(x, MEM, MEM, dec.multihead_attn)[0])
    x = _ln(dec.norm3, x + _np_ff(dec, x, _np_gelu))
    _close(got, x, 1e-4)
    pre = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                     activation=nn.ReLU())
    got = _both(pre, tgt, MEM)
    x = tgt.astype(np.float64)
    h = _ln(pre.norm1, x)
    x = x + np_mha(h, h, h, pre.self_attn)[0]
    x = x + np_mha(_ln(pre.norm2, x), MEM, MEM, pre.multihead_attn)[0]
    x = x + _np_ff(pre, _ln(pre.norm3, x), lambda v: np.maximum(v, 0))
    _close(got, x, 1e-4)
    model = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0)
    out = _both(lambda s, t, c: model(s, t, tgt_mask=c), SEQ, tgt, causal)
    enc, dl = model.encoder.layers[0], model.decoder.layers
    m = SEQ.astype(np.float64)
    m = _ln(enc.norm1, m + np_mha(m, m, m, enc.self_attn)[0])
    m = _ln(enc.norm2, m + _np_ff(enc, m, lambda v: np.maximum(v, 0)))
    m = _ln(model.encoder.norm, m)
    x = tgt.astype(np.float64)
    for l in dl:
        x = _ln(l.norm1, x + np_mha(x, x, x, l.self_attn, causal)[0])
        x = _ln(l.norm2, x + np_mha(x, m, m, l.multihead_attn)[0])
        x = _ln(l.norm3, x + _np_ff(l, x, lambda v: np.maximum(v, 0)))
    _close(out, _ln(model.decoder.norm, x), 1e-4)


class _Export(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3)
        self.gn = nn.GroupNorm(2, 8)
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)
        self.tconv = nn.Conv2dTranspose(8, 2, 2, stride=2)
        self.inorm = nn.InstanceNorm2d(2)

    def construct(self, x):
        h = self.gn(self.conv(ops.transpose(x, (0, 2, 1))))
        a, w = self.mha(x, x, x)
        t = self.inorm(self.tconv(ops.expand_dims(h, 3)))
        return (a, w, t, ops.interpolate(h, scale_factor=2.0, mode="linear"),
                ops.einsum("bij,bkj->bik", a, a), ops.cdist(a, a), ops.masked_select(x, x > 1.0))


@pytest.mark.extra("onnx")
def test_the_new_layers_export_to_onnx_with_a_dynamic_batch(tmp_path):
    ort = require("onnxruntime", "onnx")
    gx = require("graphjit.onnx", "onnx")
    net = _Export()
    path = str(tmp_path / "m.onnx")
    gx.export(net, path, ms.TensorSpec((None, 5, 8), ms.float32))
    sess = ort.InferenceSession(path)
    for n in (2, 3):
        x = R.standard_normal((n, 5, 8)).astype(np.float32)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = net(ms.Tensor(x))
        ms.set_context(mode=ms.GRAPH_MODE)
        got = sess.run(None, {sess.get_inputs()[0].name: x})
        for g, w in zip(got, want):
            _close(g, w.asnumpy(), 1e-5)


class _Refine(nn.Cell):
    """A tensor `while` whose body is the new layers: refine until the mean is small."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, has_bias=True)
        self.gn = nn.GroupNorm(2, 4)
        self.up = nn.Upsample(size=9, mode="linear", align_corners=True)

    def construct(self, x):
        h = x
        i = ops.zeros((), ms.int32)
        while i < 3 and ops.abs(h).mean() > 0.1:
            h = self.up(self.gn(self.conv(h))) * 0.5 + h * 0.25
            i = i + 1
        return h, i


def test_the_new_layers_inside_a_tensor_while_with_gradients():
    ms.set_seed(12)
    net = _Refine()
    h, i = _both(net, X1)
    ref = X1.astype(np.float64)
    w, b = net.conv.weight.asnumpy(), net.conv.bias.asnumpy()
    k = 0
    while k < 3 and np.abs(ref).mean() > 0.1:
        c = np_conv2d(ref[:, :, None], w[:, :, None], pad=(0, 0, 1, 1))[:, :, 0] + b[:, None]
        g = np_norm(c.reshape(2, 2, -1), (-1,), 1e-5).reshape(c.shape)
        ref = np_resize(g, (9,), "linear", True, None) * 0.5 + ref * 0.25
        k += 1
    assert int(i) == k
    _close(h, ref, 1e-4)
    wts = net.trainable_params()
    grads = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        g = ms.grad(lambda x: net(x)[0].sum() ** 2, None, wts)(ms.Tensor(X1))
        grads.append([t.asnumpy() for t in g])
    ms.set_context(mode=ms.GRAPH_MODE)
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert any(np.abs(a).max() > 0 for a in grads[0])


@pytest.mark.parametrize("kw", [dict(stride=2), dict(pad_mode="pad", padding=1, stride=3),
                                dict(pad_mode="valid", stride=2, dilation=2, has_bias=True)])
def test_conv1d_transpose_against_numpy(kw):
    ms.set_seed(3)
    net = nn.Conv1dTranspose(4, 6, 3, **kw)
    got = _both(net, X1)
    assert net.weight.shape == (4, 6, 3)
    ref = np_conv_transpose2d(X1[:, :, None], net.weight.asnumpy()[:, :, None], net.stride,
                              net._crop(1, 9), net._extra(), net.dilation)[:, :, 0]
    if net.has_bias:
        ref = ref + net.bias.asnumpy()[:, None]
    _close(got, ref, 1e-4)
