"""ONNX node -> graphjit nodes: TfIdfVectorizer of integer tokens. Each n-gram of the
pool is counted by comparing shifted slices of each row (one comparison per token per
skip distance), as the ONNX reference walks them: n-grams of 2 or more tokens at every
skip distance 1..max_skip_count + 1, unigrams once; then TF, IDF or TFIDF weighting.
String pools are refused (graphjit has no string dtype)."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_MAX_COMPARISONS = 1 << 14


def _pool(cx: NodeCx, lo: int, hi: int):
    """[(tokens, output index)] of the pool's n-grams of lengths lo..hi."""
    counts = cx.attrs.ints("ngram_counts")
    indexes = cx.attrs.ints("ngram_indexes")
    pool = cx.attrs.ints("pool_int64s")
    grams, k = [], 0
    for size, start in enumerate(counts, start=1):
        stop = counts[size] if size < len(counts) else len(pool)
        if (stop - start) % size:
            raise cx.where.damaged(f"the pool's {size}-grams do not split into {size}s")
        for at in range(start, stop, size):
            if k >= len(indexes):
                raise cx.where.damaged("ngram_indexes has fewer entries than the pool n-grams")
            if lo <= size <= hi:
                grams.append((tuple(pool[at:at + size]), indexes[k]))
            k += 1
    return grams


@op("TfIdfVectorizer")
def _tfidf(cx):
    x = cx.x(0)
    if cx.attrs.has("pool_strings"):
        raise cx.refuse("TfIdfVectorizer with a string pool: graphjit has no string dtype")
    if not x.dtype.is_integer:
        raise cx.where.damaged(f"the input must be integer tokens, got {x.type}")
    shape = _static(cx, x)
    if len(shape) not in (1, 2):
        raise cx.where.damaged(f"the input must be [C] or [B, C], got {x.type}")
    rows = x if len(shape) == 2 else cx.emit("ExpandDims", x, axis=0)
    b, c = _static(cx, rows)
    lo, hi = cx.attrs.int("min_gram_length"), cx.attrs.int("max_gram_length")
    skips = cx.attrs.int("max_skip_count")
    mode = cx.attrs.string("mode")
    if mode not in ("TF", "IDF", "TFIDF"):
        raise cx.where.damaged(f"unknown mode {mode!r}")
    grams = _pool(cx, lo, hi)
    size = max(cx.attrs.ints("ngram_indexes")) + 1
    if sum(len(g) * (skips + 1) for g, _ in grams) > _MAX_COMPARISONS:
        raise cx.refuse("the TfIdfVectorizer pool is too large for graphjit's comparisons")
    columns = {}
    tok = rows if rows.dtype is D.int64 else cx.emit("Cast", rows, dtype=D.int64)
    for gram, j in grams:
        n = len(gram)
        for d in (range(1, skips + 2) if n > 1 else (1,)):
            span = c - (n - 1) * d
            if span <= 0:
                continue
            hit = None
            for k, t in enumerate(gram):
                piece = cx.emit("Index", tok, index=(("slice", None, None, None),
                                                     ("slice", k * d, k * d + span, None)))
                eq = cx.emit("Equal", piece, cx.array(np.int64(t)))
                hit = eq if hit is None else cx.emit("LogicalAnd", hit, eq)
            count = cx.emit("ReduceSum", cx.emit("Cast", hit, dtype=D.float32), axis=1,
                            keep_dims=False)
            columns[j] = count if j not in columns else cx.emit("Add", columns[j], count)
    zero = cx.emit("Fill", shape=(b,), dtype=D.float32, value=0)
    y = cx.emit("Stack", *[columns.get(j, zero) for j in range(size)], axis=1)
    weights = cx.attrs.floats("weights", ())
    w = cx.array(np.asarray(weights, np.float32)) if weights else None
    if mode == "IDF":
        hit = cx.emit("Greater", y, cx.array(np.float32(0)))
        y = cx.emit("Select", hit, w if w is not None else cx.array(np.float32(1)),
                    cx.array(np.float32(0)))
    elif mode == "TFIDF" and w is not None:
        y = cx.emit("Mul", y, w)
    return [y if len(shape) == 2 else cx.emit("Squeeze", y, axis=0)]
