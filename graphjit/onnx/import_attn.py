"""ONNX node -> graphjit nodes: the transformer ops (Attention, RotaryEmbedding,
RMSNormalization, SwiGLU), composed of MatMul, Softmax and elementwise ops as the
ONNX reference computes them. Shapes must be known while building."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_nn import _norm, _rank
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_ALL = ("slice", None, None, None)


def _heads(cx: NodeCx, x, heads: int):
    """(batch, seq, heads * size) -> (batch, heads, seq, size)."""
    b, s, h = _static(cx, x)
    if heads <= 0 or h % heads:
        raise cx.where.damaged(f"hidden size {h} does not split into {heads} heads")
    x = cx.emit("Reshape", x, shape=(b, s, heads, h // heads))
    return cx.emit("Transpose", x, perm=(0, 2, 1, 3))


def _minus_inf_where_not(cx, allowed, like):
    """0 where allowed, -inf elsewhere, in like's dtype."""
    return cx.emit("Select", allowed, cx.scalar(0, like), cx.scalar(-np.inf, like))


def _frontier(cx, q_len, kv_len, offset, window=None):
    """Where query i may read key j: j <= i + offset (window: (left, right) bounds of
    (i + offset) - j instead); offset an int or a run-time (batch,) tensor, giving a
    (q, kv) or (batch, 1, q, kv) bool tensor."""
    i = np.arange(q_len, dtype=np.int64).reshape(q_len, 1)
    j = np.arange(kv_len, dtype=np.int64).reshape(1, kv_len)
    if isinstance(offset, int):
        diff = cx.array(i + offset - j)
    else:
        off = cx.emit("Reshape", cx.keep(offset, D.int64), shape=(-1, 1, 1))
        diff = cx.emit("Sub", cx.emit("Add", cx.array(i), off), cx.array(j))
        diff = cx.emit("ExpandDims", diff, axis=1)
    zero = cx.array(np.int64(0))
    if window is None:
        return cx.emit("GreaterEqual", diff, zero)
    left, right = window
    ok = cx.emit("OnesLike", diff, dtype=D.bool_)
    if left >= 0:
        ok = cx.emit("LogicalAnd", ok, cx.emit("LessEqual", diff, cx.array(np.int64(left))))
    if right >= 0:
        ok = cx.emit("LogicalAnd", ok, cx.emit("LessEqual", cx.emit("Neg", diff),
                                               cx.array(np.int64(right))))
    return ok


@op("Attention")
def _attention(cx):
    """Scaled dot-product attention of ONNX (opset 23+): 3-D inputs split into heads,
    the key/value cache appended, causal / sliding-window / padding masks and
    attn_mask as an additive bias, grouped-query heads repeated, softcap, and the
    four qk_matmul_output modes; a row every key of which is masked gives 0."""
    q, k, v = cx.x(0), cx.x(1), cx.x(2)
    mask, past_k, past_v, nonpad = cx.opt(3), cx.opt(4), cx.opt(5), cx.opt(6)
    a = cx.attrs
    dt = q.dtype
    if not dt.is_floating or k.dtype is not dt or v.dtype is not dt:
        raise cx.where.damaged(f"Q, K and V must share a float dtype, got {q.type}, {k.type}, "
                               f"{v.type}")
    if (past_k is None) != (past_v is None):
        raise cx.where.damaged("past_key and past_value must be given together")
    if nonpad is not None and past_k is not None:
        raise cx.where.damaged("nonpad_kv_seqlen cannot be combined with a past cache")
    rank = _rank(cx, q)
    if rank == 3:
        if not (a.has("q_num_heads") and a.has("kv_num_heads")):
            raise cx.where.damaged("3-D inputs need q_num_heads and kv_num_heads")
        q = _heads(cx, q, a.int("q_num_heads"))
        k = _heads(cx, k, a.int("kv_num_heads"))
        v = _heads(cx, v, a.int("kv_num_heads"))
    elif rank != 4:
        raise cx.where.damaged(f"Q must be 3-D or 4-D, got {q.type}")
    batch, q_heads, q_len, head = _static(cx, q, "query")
    scale = a.float("scale", None)
    scale = 1 / np.sqrt(head) if scale is None else scale
    s = cx.scalar(dt.np.type(np.sqrt(scale)), q)
    if past_k is not None:
        k = cx.emit("Concat", past_k, k, axis=2)
        v = cx.emit("Concat", past_v, v, axis=2)
    present_k, present_v = k, v
    kv_heads, kv_len = _static(cx, k, "key")[1:3]
    left, right = a.int("left_window_size", -1), a.int("right_window_size", -1)
    if left < -1 or right < -1:
        raise cx.where.damaged("window sizes must be -1 or non-negative")
    windowed = left >= 0 or right >= 0
    zeros = cx.array(np.zeros((q_len, kv_len), dt.np))
    if mask is not None:
        ms = _static(cx, mask, "attention mask")
        if ms[-1] < kv_len:
            fill = (False if mask.dtype.is_bool else -np.inf)
            pad = cx.emit("Fill", shape=ms[:-1] + (kv_len - ms[-1],), dtype=mask.dtype,
                          value=fill)
            mask = cx.emit("Concat", mask, pad, axis=-1)
        if mask.dtype.is_bool:
            mask = _minus_inf_where_not(cx, mask, q)
        elif mask.dtype is not dt:
            mask = cx.emit("Cast", mask, dtype=dt)
    if past_k is None and nonpad is not None:
        offset = cx.emit("Sub", cx.keep(nonpad, D.int64), cx.array(np.int64(q_len)))
    else:
        offset = _static(cx, past_k)[2] if past_k is not None else 0
    if a.int("is_causal", 0):
        base = zeros if mask is None else mask
        if windowed:
            base = cx.emit("Add", zeros, base)
        bias = cx.emit("Add", base, _minus_inf_where_not(
            cx, _frontier(cx, q_len, kv_len, offset), q))
    elif mask is not None:
        bias = cx.emit("Add", zeros, mask)
    else:
        bias = zeros
    if windowed:
        bias = cx.emit("Add", cx.emit("Add", zeros, bias), _minus_inf_where_not(
            cx, _frontier(cx, q_len, kv_len, offset, (left, right)), q))
    if nonpad is not None:
        keep = cx.emit("Less", cx.array(np.arange(kv_len, dtype=np.int64)),
                       cx.emit("Reshape", cx.keep(nonpad, D.int64), shape=(-1, 1)))
        keep = cx.emit("Reshape", keep, shape=(batch, 1, 1, kv_len))
        bias = cx.emit("Add", bias, _minus_inf_where_not(cx, keep, q))
    if q_heads != kv_heads:
        if q_heads % kv_heads:
            raise cx.where.damaged(f"{q_heads} query heads for {kv_heads} key/value heads")
        reps = q_heads // kv_heads
        k, v = (_repeat_heads(cx, t, reps) for t in (k, v))
    kt = cx.emit("Transpose", cx.emit("Mul", k, s), perm=(0, 1, 3, 2))
    qk = cx.emit("MatMul", cx.emit("Mul", q, s), kt)
    softcap = a.float("softcap", 0.0)
    if softcap > 0:
        c = cx.scalar(softcap, qk)
        qk = cx.emit("Mul", cx.emit("Tanh", cx.emit("RealDiv", qk, c)), c)
    with_bias = cx.emit("Add", qk, bias)
    mode = a.int("qk_matmul_output_mode", 0)
    if mode not in (0, 1, 2, 3):
        raise cx.where.damaged(f"qk_matmul_output_mode must be 0 to 3, got {mode}")
    qk_out = with_bias if mode == 2 else qk
    logits = with_bias
    if a.has("softmax_precision"):
        logits = cx.emit("Cast", logits, dtype=cx.dtype_attr("softmax_precision"))
    p = cx.emit("Softmax", logits, axis=-1)
    dead = cx.emit("Equal", cx.emit("ReduceMax", bias, axis=-1, keep_dims=True),
                   cx.scalar(-np.inf, bias))
    p = cx.emit("Select", dead, cx.scalar(0, p), p)
    if mode == 3:
        qk_out = p
    p = cx.keep(p, dt)
    y = cx.emit("MatMul", p, v)
    if rank == 3:
        y = cx.emit("Transpose", y, perm=(0, 2, 1, 3))
        y = cx.emit("Reshape", y, shape=(batch, q_len, -1))
    return [y, present_k, present_v, cx.keep(qk_out, dt)]


def _repeat_heads(cx, t, reps):
    """(b, h, s, d) -> (b, h * reps, s, d), each head repeated in place."""
    b, h, s, d = _static(cx, t)
    t = cx.emit("ExpandDims", t, axis=2)
    t = cx.emit("BroadcastTo", t, shape=(b, h, reps, s, d))
    return cx.emit("Reshape", t, shape=(b, h * reps, s, d))


@op("RotaryEmbedding")
def _rotary(cx):
    x, cos, sin, pos = cx.x(0), cx.x(1), cx.x(2), cx.opt(3)
    shape = _static(cx, x)
    heads = cx.attrs.int("num_heads", 0)
    if len(shape) == 4:
        t = cx.emit("Transpose", x, perm=(0, 2, 1, 3))
    elif len(shape) == 3:
        b, s, hidden = shape
        if heads <= 0 or hidden % heads:
            raise cx.where.damaged(f"3-D input {x.type} needs num_heads dividing {hidden}")
        t = cx.emit("Reshape", x, shape=(b, s, heads, hidden // heads))
    else:
        raise cx.where.damaged(f"the input must be 3-D or 4-D, got {x.type}")
    size = _static(cx, t)[3]
    dim = cx.attrs.int("rotary_embedding_dim", 0) or size
    half = dim // 2
    if pos is not None:
        cos = cx.emit("Gather", cos, pos, axis=0)
        sin = cx.emit("Gather", sin, pos, axis=0)
    for c in (cos, sin):
        if c.shape is None or c.shape[-1] != half:
            raise cx.where.damaged(f"the cos/sin caches' last dim must be {half}, got {c.type}")
    cos, sin = cx.emit("ExpandDims", cos, axis=2), cx.emit("ExpandDims", sin, axis=2)
    rot = _last(cx, t, 0, dim)
    interleaved = cx.attrs.int("interleaved", 0)
    if interleaved:
        x1, x2 = _last(cx, rot, 0, None, 2), _last(cx, rot, 1, None, 2)
    else:
        x1, x2 = _last(cx, rot, 0, half), _last(cx, rot, half, dim)
    real = cx.emit("Sub", cx.emit("Mul", cos, x1), cx.emit("Mul", sin, x2))
    imag = cx.emit("Add", cx.emit("Mul", sin, x1), cx.emit("Mul", cos, x2))
    if interleaved:
        both = cx.emit("Stack", real, imag, axis=-1)
        rot = cx.emit("Reshape", both, shape=_static(cx, rot))
    else:
        rot = cx.emit("Concat", real, imag, axis=-1)
    if dim < size:
        rot = cx.emit("Concat", rot, _last(cx, t, dim, None), axis=-1)
    if len(shape) == 3:
        return [cx.keep(cx.emit("Reshape", rot, shape=shape), x.dtype)]
    return [cx.keep(cx.emit("Transpose", rot, perm=(0, 2, 1, 3)), x.dtype)]


def _last(cx, x, start, stop, step=None):
    r = len(x.shape)
    return cx.emit("Index", x, index=tuple(_ALL for _ in range(r - 1)) +
                   (("slice", start, stop, step),))


@op("RMSNormalization")
def _rms_norm(cx):
    x, scale = cx.x(0), cx.x(1)
    r = _rank(cx, x)
    axis = _norm(cx, cx.attrs.int("axis", -1), r)
    eps = cx.attrs.float("epsilon", 1e-5)
    stash = cx.dtype_attr("stash_type", 1)
    xs = cx.keep(x, stash)
    ms = cx.emit("ReduceMean", cx.emit("Mul", xs, xs), axis=tuple(range(axis, r)),
                 keep_dims=True)
    inv = cx.emit("Reciprocal", cx.emit("Sqrt", cx.emit("Add", ms, cx.scalar(eps, ms))))
    y = cx.emit("Mul", cx.emit("Mul", xs, inv), cx.keep(scale, stash))
    return [cx.keep(y, x.dtype)]


@op("SwiGLU")
def _swiglu(cx):
    a, b = cx.x(0), cx.x(1)
    if a.dtype is not b.dtype or a.shape != b.shape:
        raise cx.where.damaged(f"SwiGLU takes two tensors of one shape and dtype, got "
                               f"{a.type} and {b.type}")
    alpha = cx.attrs.float("alpha", 1.0)
    g = cx.emit("Sigmoid", cx.emit("Mul", a, cx.scalar(alpha, a)))
    return [cx.emit("Mul", cx.emit("Mul", a, g), b)]


@op("LinearAttention")
def _linear_attention(cx):
    """The recurrent form of ONNX's LinearAttention, unrolled over the (static)
    sequence in float32: per step the state (B, Hkv, dk, dv) decays by exp(decay)
    (gated rules), the value is corrected by what the state retrieves for the key,
    times beta (delta rules), the key-value outer product is added, and the query reads
    the state (repeated over grouped query heads)."""
    q, k, v = cx.x(0), cx.x(1), cx.x(2)
    past, decay, beta = cx.opt(3), cx.opt(4), cx.opt(5)
    a = cx.attrs
    rule = a.string("update_rule", "gated_delta")
    if rule not in ("linear", "gated", "delta", "gated_delta"):
        raise cx.where.damaged(f"unknown update_rule {rule!r}")
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if gating != (decay is not None) or delta != (beta is not None):
        raise cx.where.damaged(f"update_rule '{rule}' needs decay {'given' if gating else 'absent'}"
                               f" and beta {'given' if delta else 'absent'}")
    hq, hkv = a.int("q_num_heads"), a.int("kv_num_heads")
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise cx.where.damaged(f"q_num_heads {hq} must be a positive multiple of "
                               f"kv_num_heads {hkv}")
    f32 = D.float32
    b, t, _ = _static(cx, q, "query")
    q4, k4, v4 = (cx.keep(_heads(cx, x, n), f32) for x, n in ((q, hq), (k, hkv), (v, hkv)))
    dk, dv = _static(cx, q4)[3], _static(cx, v4)[3]
    if decay is not None:
        last = _static(cx, decay, "decay")[-1]
        if last == hkv:
            decay = cx.emit("Transpose", cx.emit("Reshape", decay, shape=(b, t, hkv, 1)),
                            perm=(0, 2, 1, 3))
        elif last == hkv * dk:
            decay = _heads(cx, decay, hkv)
        else:
            raise cx.where.damaged(f"decay's last dim {last} must be {hkv} or {hkv * dk}")
        decay = cx.emit("Exp", cx.keep(decay, f32))
    if beta is not None:
        last = _static(cx, beta, "beta")[-1]
        if last not in (hkv, 1):
            raise cx.where.damaged(f"beta's last dim {last} must be {hkv} or 1")
        beta = cx.keep(cx.emit("Transpose", cx.emit("Reshape", beta, shape=(b, t, last, 1)),
                               perm=(0, 2, 1, 3)), f32)
    state = cx.emit("Fill", shape=(b, hkv, dk, dv), dtype=f32, value=0) if past is None \
        else cx.keep(past, f32)
    scale = a.float("scale", 0.0) or 1.0 / np.sqrt(dk)
    step = lambda x, i: cx.emit("Index", x, index=(_ALL, _ALL, ("slice", i, i + 1, None)))  # noqa
    outs = []
    for i in range(t):
        kt, vt = step(k4, i), step(v4, i)                 # (B, H, 1, d)
        if decay is not None:
            state = cx.emit("Mul", state, cx.emit("Transpose", step(decay, i),
                                                  perm=(0, 1, 3, 2)))
        if delta:
            got = cx.emit("MatMul", kt, state)
            vt = cx.emit("Mul", step(beta, i), cx.emit("Sub", vt, got))
        state = cx.emit("Add", state, cx.emit("MatMul", kt, vt, transpose_a=True))
        read = state if hq == hkv else _repeat_heads(cx, state, hq // hkv)
        outs.append(cx.emit("MatMul", step(q4, i), read))
    y = cx.emit("Mul", cx.emit("Concat", *outs, axis=2), cx.scalar(scale, outs[0]))
    y = cx.emit("Reshape", cx.emit("Transpose", y, perm=(0, 2, 1, 3)), shape=(b, t, hq * dv))
    return [cx.keep(y, q.dtype), cx.keep(state, q.dtype if past is None else past.dtype)]


@op("ai.onnx.preview.FlexAttention")
def _flex_attention(cx):
    """Attention whose scores and probabilities pass through the node's score_mod and
    prob_mod graphs (inlined), computed in float32 for 16-bit inputs (or
    softmax_precision), heads repeated for grouped queries."""
    q, k, v = cx.x(0), cx.x(1), cx.x(2)
    for t in (q, k, v):
        if _rank(cx, t) != 4 or not t.dtype.is_floating:
            raise cx.where.damaged(f"Q, K and V must be 4-D floats, got {t.type}")
    hq, e = _static(cx, q)[1], _static(cx, q)[3]
    hkv = _static(cx, k)[1]
    if hq != hkv:
        if hq % hkv:
            raise cx.where.damaged(f"{hq} query heads for {hkv} key/value heads")
        k, v = _repeat_heads(cx, k, hq // hkv), _repeat_heads(cx, v, hq // hkv)
    scale = cx.attrs.float("scale", None)
    scale = 1.0 / np.sqrt(e) if scale is None else scale
    s = cx.scalar(np.sqrt(np.float32(scale)), q)
    scores = cx.emit("MatMul", cx.emit("Mul", q, s),
                     cx.emit("Transpose", cx.emit("Mul", k, s), perm=(0, 1, 3, 2)))
    if cx.attrs.has("softmax_precision"):
        work = cx.dtype_attr("softmax_precision")
    else:
        work = D.float32 if q.dtype.np.itemsize < 4 else q.dtype
    scores = cx.keep(scores, work)
    if cx.attrs.has("score_mod"):
        scores = cx.keep(cx.inline("score_mod", [scores])[0], work)
    probs = cx.emit("Softmax", scores, axis=-1)
    if cx.attrs.has("prob_mod"):
        probs = cx.keep(cx.inline("prob_mod", [probs])[0], work)
    return [cx.keep(cx.emit("MatMul", probs, cx.keep(v, work)), v.dtype)]
