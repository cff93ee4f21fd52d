"""Conv2D's kernel (im2col straight into NCHW, the depthwise tap sum) and its adjoints
against a direct float64 computation over the padded windows, for strides, dilations,
pad modes, groups and depthwise convolutions."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numpy.lib.stride_tricks import sliding_window_view

from graphjit.ir.defs import conv as conv_defs
from graphjit.ir.defs.conv import conv2d_nchw, window_pads
from graphjit.ir.defs.conv_grad import _conv_grads


def reference(x, w, s, d, mode, p, group):
    """Cross-correlation in float64 from the definition: pad, take every dilated window,
    multiply by the weight of its group and sum."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    (kh, kw), (h, wd) = w.shape[2:], x.shape[2:]
    t, b, ob = window_pads(h, kh, s[0], d[0], mode, p[0], p[1])
    lft, r, orr = window_pads(wd, kw, s[1], d[1], mode, p[2], p[3])
    xp = np.pad(x, ((0, 0), (0, 0), (t, b + ob), (lft, r + orr)))
    win = sliding_window_view(xp, ((kh - 1) * d[0] + 1, (kw - 1) * d[1] + 1), axis=(2, 3))
    win = win[:, :, ::s[0], ::s[1], ::d[0], ::d[1]]
    cg, og = x.shape[1] // group, w.shape[0] // group
    outs = [np.einsum("nchwij,ocij->nohw", win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og])
            for g in range(group)]
    return np.concatenate(outs, axis=1)


@st.composite
def convolutions(draw):
    group = draw(st.sampled_from([1, 1, 2, 3]))
    depthwise = draw(st.booleans())
    cg = 1 if depthwise else draw(st.integers(1, 3))
    c = cg * group
    o = group if depthwise else group * draw(st.integers(1, 3))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    mode = draw(st.sampled_from(["valid", "same", "pad"]))
    p = tuple(draw(st.integers(0, 2)) for _ in range(4)) if mode == "pad" else (0, 0, 0, 0)
    n = draw(st.integers(1, 3))
    h, wd = draw(st.integers(5, 8)), draw(st.integers(5, 8))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    x = rng.standard_normal((n, c, h, wd)).astype(dtype)
    w = rng.standard_normal((o, cg, *k)).astype(dtype)
    return x, w, s, d, mode, p, group


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


@settings(max_examples=150, deadline=None)
@given(convolutions())
def test_conv2d_matches_the_definition(case):
    x, w, s, d, mode, p, group = case
    out = conv2d_nchw(x, w, s, d, mode, p, group)
    ref = reference(x, w, s, d, mode, p, group)
    assert out.shape == ref.shape and out.dtype == x.dtype and out.flags.c_contiguous
    np.testing.assert_allclose(out, ref, **_tol(x.dtype))


@settings(max_examples=100, deadline=None)
@given(convolutions())
def test_conv2d_adjoints_satisfy_the_adjoint_identity(case):
    # conv is linear in x and in w: <conv(x, w), g> = <x, dx(g)> = <w, dw(g)>
    x, w, s, d, mode, p, group = (case[0].astype(np.float64), case[1].astype(np.float64),
                                  *case[2:])
    out = conv2d_nchw(x, w, s, d, mode, p, group)
    g = np.random.default_rng(1).standard_normal(out.shape)
    attrs = {"stride": s, "dilation": d, "pad_mode": mode, "pad": p, "group": group}
    dx, dw = _conv_grads(g, x, w, attrs, True, True)
    assert dx.shape == x.shape and dw.shape == w.shape
    inner = float((out * g).sum())
    assert np.isclose(inner, float((x * dx).sum()), rtol=1e-9, atol=1e-9)
    assert np.isclose(inner, float((w * dw).sum()), rtol=1e-9, atol=1e-9)


def test_depthwise_sums_the_same_in_chunks_of_images(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    whole = conv2d_nchw(x, w, (1, 1), (1, 1), "pad", (1, 1, 1, 1), 4)
    monkeypatch.setattr(conv_defs, "DEPTHWISE_CHUNK", 2 * 4 * 36)      # two images a chunk
    chunked = conv2d_nchw(x, w, (1, 1), (1, 1), "pad", (1, 1, 1, 1), 4)
    assert np.array_equal(whole, chunked)
    np.testing.assert_allclose(whole, reference(x, w, (1, 1), (1, 1), "pad", (1, 1, 1, 1), 4),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 3, 1, 1), (2, 3, 4, 4)])
def test_a_pointwise_convolution_reads_x_without_a_copy_and_writes_nchw(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((5, 3, 1, 1)).astype(np.float32)
    cols, _ = conv_defs.im2col(x, (1, 1), (1, 1), (1, 1), "valid", (0, 0, 0, 0))
    assert np.shares_memory(cols, x)
    out = conv2d_nchw(x, w, (1, 1), (1, 1), "valid", (0, 0, 0, 0), 1)
    np.testing.assert_allclose(out, reference(x, w, (1, 1), (1, 1), "valid", (0, 0, 0, 0), 1),
                               rtol=1e-5, atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.booleans(), st.booleans())
def test_pooling_tap_by_tap_equals_numpys_window_reduction(kh, kw, s, big, nans):
    # big: an output of >= 2048 elements, which _window_reduce folds tap by tap
    rng = np.random.default_rng(kh * 100 + kw * 10 + s)
    x = rng.standard_normal((2, 16, 40, 40) if big else (1, 2, 7, 7)).astype(np.float32)
    if nans:
        x[0, 1, 3, 4] = np.nan
    win = sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::s, ::s]
    assert (win[..., 0, 0].size >= 2048) == big
    got = conv_defs._window_reduce(np.maximum, win)
    np.testing.assert_array_equal(got, win.max(axis=(-2, -1)))        # NaN where numpy's
    np.testing.assert_allclose(conv_defs._window_reduce(np.add, win),
                               win.sum(axis=(-2, -1)), rtol=1e-5, atol=1e-5)


def argmax_pool_grad(x, g, k, s, pad):
    """MaxPool's adjoint from its definition: each window's g goes to the first maximum
    (np.argmax over the window in row-major order, padding included, NaN first)."""
    floating = np.issubdtype(x.dtype, np.floating)
    lowest = -np.inf if floating else np.iinfo(x.dtype).min
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=lowest)
    win = sliding_window_view(xp, k, axis=(2, 3))[:, :, ::s, ::s]
    out = np.zeros(xp.shape, g.dtype)
    n, c, oh, ow = win.shape[:4]
    for idx in np.ndindex(n, c, oh, ow):
        a = int(np.argmax(win[idx].reshape(-1)))
        out[idx[0], idx[1], idx[2] * s + a // k[1], idx[3] * s + a % k[1]] += g[idx]
    return out[:, :, pad:pad + x.shape[2], pad:pad + x.shape[3]]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(0, 1),
       st.sampled_from([np.float32, np.float64, np.int32]), st.booleans(), st.integers(0, 99))
def test_max_pool_grad_routes_g_to_the_first_maximum(kh, kw, s, pad, dtype, special, seed):
    from graphjit.ir.defs.conv_grad import _max_pool_grad
    pad = min(pad, kh // 2, kw // 2)
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 3, (2, 2, 6, 7)).astype(dtype)        # many ties
    if special and dtype != np.int32:
        x[0, 0, 1, 2], x[1, 1, 3, 3], x[0, 1, 4, 4] = np.nan, -np.inf, np.inf
    attrs = {"kernel_size": (kh, kw), "strides": (s, s), "pad_mode": "pad",
             "pad": (pad,) * 4, "ceil_mode": False, "dilation": (1, 1)}
    oh, ow = (6 + 2 * pad - kh) // s + 1, (7 + 2 * pad - kw) // s + 1
    g = rng.standard_normal((2, 2, oh, ow)).astype(np.float32)
    if special:
        g[0, 0, 0, 0] = np.nan                     # reaches only its own maximum
    got = _max_pool_grad(x, g, **attrs)
    # overlapping windows add in another order: equal up to float32 rounding, NaN where
    # the definition has it
    np.testing.assert_allclose(got, argmax_pool_grad(x, g, (kh, kw), s, pad), rtol=1e-6,
                               atol=1e-6)
