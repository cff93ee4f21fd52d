"""The built-in layers check their input in their own words, before they run.

    nn.Dense(4, 3) called on a (2, 5) input:
      before: MatMul: shapes f32[2,5] and f32[3,4] do not fit ... (at graphjit's line)
      now:    Dense(in_channels=4) got an input with 5 features (the last dim of
              f32[2,5]) ... (at the user's line that called the layer)

A check runs when a Cell whose construct is a built-in layer's is called: in eager
mode from Cell.__call__, in graph mode from the front end, before the layer's
construct is built (so the error is at the statement that called it). Shapes unknown
while building are not checked then (the ops check them when the graph runs). An
index a layer takes (nn.Embedding's) is checked when the layer runs: in graph mode a
Check node at the user's line. CHECKS is the table, by the layer's class name.
"""
from __future__ import annotations

import numpy as np

from .common.tensor import Tensor, current_recorder
from .ir.errors import GraphJitError, ShapeInferenceError
from .tracebacks import user_loc

__all__ = ["check_layer_input", "CHECKS", "LayerIndexError"]


class LayerIndexError(GraphJitError, IndexError):
    """An index out of the range a built-in layer takes (an nn.Embedding id past its
    vocab_size), found in eager mode; in graph mode the run-time check raises
    GraphRuntimeError, which is an IndexError too."""


def _shape(x):
    """The static shape of a tensor argument (None dims unknown), or None when it is
    no tensor or its rank is unknown."""
    t = getattr(x, "type", None)
    if t is not None and hasattr(t, "shape"):
        return t.shape
    if isinstance(x, Tensor) and getattr(x, "_data", None) is not None:
        return tuple(x.shape)
    return None


def _dtype(x):
    t = getattr(x, "type", None)
    if t is not None and hasattr(t, "dtype"):
        return t.dtype
    return getattr(x, "dtype", None)


def _type_text(x) -> str:
    shape = _shape(x)
    d = _dtype(x)
    short = getattr(d, "short", str(d))
    dims = ",".join("?" if s is None else str(s) for s in shape) if shape is not None else "*"
    return f"{short}[{dims}]"


def _fail(message: str, hint: str = "", cls=ShapeInferenceError):
    """The layer's error: at the user's line in eager mode (graph mode: the front end
    puts the statement that called the layer)."""
    loc = user_loc(skip=3) if current_recorder() is None else None
    raise cls(message, loc=loc, hint=hint)


def _dim(cell_text, what, x, axis, want, param, ranks=None, unit="channels"):
    """Check that dim `axis` of x is `want` (skipped while unknown)."""
    shape = _shape(x)
    if shape is None:
        return
    if ranks is not None and len(shape) not in ranks:
        _fail(f"{cell_text} needs a {' or '.join(f'{r}-D' for r in ranks)} input{what}, got "
              f"{_type_text(x)}")
    if not shape or not -len(shape) <= axis < len(shape):
        return
    got = shape[axis]
    if got is not None and got != want:
        where = "the last dim" if axis == -1 else f"axis {axis % len(shape)}"
        _fail(f"{cell_text} got an input with {got} {unit} ({where} of {_type_text(x)}); "
              f"it takes {want}",
              hint=f"build the layer with {param}={got}, or give it an input with {want} "
                   f"{unit}")


def _arg(args, kwargs, i, name):
    if len(args) > i:
        return args[i]
    return kwargs.get(name)


# -- the layers ------------------------------------------------------------------------------------
def _dense(cell, args, kwargs):
    _dim(f"Dense(in_channels={cell.in_channels})", "", _arg(args, kwargs, 0, "x"), -1,
         cell.in_channels, "in_channels", unit="features")


def _conv(rank_of_one, name):
    """A convolution over rank_of_one spatial dims: (N, C, ...) or unbatched (C, ...)."""
    ranks = (rank_of_one + 1, rank_of_one + 2)

    def check(cell, args, kwargs):
        x = _arg(args, kwargs, 0, "x")
        _dim(f"{name}(in_channels={cell.in_channels})", " (N, C, " +
             ", ".join("HW"[i] if rank_of_one == 2 else "L" for i in range(rank_of_one)) +
             ")", x, -(rank_of_one + 1), cell.in_channels, "in_channels", ranks)
    return check


def _channels(name, attr, ranks=None, axis=1):
    def check(cell, args, kwargs):
        want = getattr(cell, attr)
        _dim(f"{name}({attr}={want})", " (N, C, ...)" if ranks else "",
             _arg(args, kwargs, 0, "x"), axis, want, attr, ranks)
    return check


def _layer_norm(cell, args, kwargs):
    x = _arg(args, kwargs, 0, "input_x")
    shape, ns = _shape(x), tuple(cell.normalized_shape)
    if shape is None or not ns:
        return
    text = f"LayerNorm(normalized_shape={ns})"
    if len(shape) < len(ns):
        _fail(f"{text} got an input of rank {len(shape)} ({_type_text(x)}): its last "
              f"{len(ns)} dims must be {ns}")
    tail = shape[len(shape) - len(ns):]
    if any(a is not None and a != b for a, b in zip(tail, ns)):
        got = tuple("?" if a is None else a for a in tail)
        _fail(f"{text} got an input whose last {len(ns)} dim(s) are {got} "
              f"({_type_text(x)}); they must be {ns}",
              hint=f"build the layer with normalized_shape={got}, or give it an input "
                   f"ending in {ns}")


def _embedding(cell, args, kwargs):
    ids = _arg(args, kwargs, 0, "input_ids")
    d = _dtype(ids)
    n = cell.vocab_size
    text = f"Embedding(vocab_size={n})"
    if d is not None and getattr(d, "is_integer", True) is False:
        _fail(f"{text} takes integer indices, got {_type_text(ids)}", cls=ShapeInferenceError,
              hint="cast the indices to int32 (ops.cast(ids, ms.int32))")
    if _shape(ids) is None and getattr(ids, "type", None) is None:
        return
    message = f"{text} got an index out of [0, {n}): every index must be below vocab_size"
    if current_recorder() is None:              # eager: look now
        a = np.asarray(ids.asnumpy() if hasattr(ids, "asnumpy") else ids)
        if a.size and (a.min() < 0 or a.max() >= n):
            bad = int(a.max() if a.max() >= n else a.min())
            _fail(f"{text} got the index {bad}: every index must be in [0, {n})",
                  hint=f"build the layer with vocab_size={max(int(a.max()) + 1, n)}, or map "
                       f"the indices into [0, {n})", cls=LayerIndexError)
        return
    from . import ops
    from .ops.function.debug_func import runtime_check
    ok = ops.logical_and(ids >= 0, ids < n)     # checked when the graph runs, at this line
    runtime_check(ok, IndexError, message)


def _last(name, attr, arg="x", param=None, unit="features"):
    def check(cell, args, kwargs):
        want = getattr(cell, attr)
        _dim(f"{name}({param or attr}={want})", "", _arg(args, kwargs, 0, arg), -1, want,
             param or attr, unit=unit)
    return check


def _attention(cell, args, kwargs):
    _dim(f"MultiheadAttention(embed_dim={cell.embed_dim})", "", _arg(args, kwargs, 0, "query"),
         -1, cell.embed_dim, "embed_dim", unit="features")


def _transformer_layer(name, arg):
    def check(cell, args, kwargs):
        d = cell.self_attn.embed_dim
        _dim(f"{name}(d_model={d})", "", _arg(args, kwargs, 0, arg), -1, d, "d_model",
             unit="features")
    return check


def _transformer(cell, args, kwargs):
    d = cell.d_model
    for i, name in ((0, "src"), (1, "tgt")):
        _dim(f"Transformer(d_model={d})", "", _arg(args, kwargs, i, name), -1, d, "d_model",
             unit="features")


def _prelu(cell, args, kwargs):
    c = int(cell.w.shape[0])
    if c > 1:
        _dim(f"PReLU(channel={c})", "", _arg(args, kwargs, 0, "x"), 1, c, "channel")


def _pool(name):
    def check(cell, args, kwargs):
        x = _arg(args, kwargs, 0, "x")
        shape = _shape(x)
        if shape is not None and len(shape) not in (3, 4):
            ks = getattr(cell, "kernel_size", None) or getattr(
                getattr(cell, "pool", None), "attrs", {}).get("kernel_size")
            text = f"{name}(kernel_size={ks})" if ks is not None else name
            _fail(f"{text} needs a 3-D or 4-D input (N, C, H, W), got {_type_text(x)}",
                  hint="add the batch and channel axes (ops.expand_dims)")
    return check


CHECKS = {
    "Dense": _dense,
    "Conv1d": _conv(1, "Conv1d"), "Conv2d": _conv(2, "Conv2d"),
    "Conv1dTranspose": _conv(1, "Conv1dTranspose"),
    "Conv2dTranspose": _conv(2, "Conv2dTranspose"),
    "BatchNorm1d": _channels("BatchNorm1d", "num_features", (2, 3)),
    "BatchNorm2d": _channels("BatchNorm2d", "num_features", (4,)),
    "GroupNorm": _channels("GroupNorm", "num_channels"),
    "InstanceNorm1d": _channels("InstanceNorm1d", "num_features", (3,)),
    "InstanceNorm2d": _channels("InstanceNorm2d", "num_features", (4,)),
    "InstanceNorm3d": _channels("InstanceNorm3d", "num_features", (5,)),
    "LayerNorm": _layer_norm,
    "Embedding": _embedding,
    "RNNCell": _last("RNNCell", "input_size"), "GRUCell": _last("GRUCell", "input_size"),
    "LSTMCell": _last("LSTMCell", "input_size"),
    "RNN": _last("RNN", "input_size"), "GRU": _last("GRU", "input_size"),
    "LSTM": _last("LSTM", "input_size"),
    "MultiheadAttention": _attention,
    "TransformerEncoderLayer": _transformer_layer("TransformerEncoderLayer", "src"),
    "TransformerDecoderLayer": _transformer_layer("TransformerDecoderLayer", "tgt"),
    "Transformer": _transformer,
    "PReLU": _prelu,
    "MaxPool2d": _pool("MaxPool2d"), "AvgPool2d": _pool("AvgPool2d"),
}

_BY_TYPE: dict = {}


def _check_of(cls):
    """The check of a Cell class: its built-in layer's, when it runs that layer's
    construct (a user's subclass that overrides construct is checked by nobody)."""
    try:
        return _BY_TYPE[cls]
    except KeyError:
        pass
    found = None
    for base in cls.__mro__:
        fn = CHECKS.get(base.__name__)
        # graphjit.nn's layers (mint.nn's layers of the same names take other arguments)
        if fn is not None and (base.__module__ or "").startswith("graphjit.nn.") and \
                getattr(cls, "construct", None) is getattr(base, "construct", None):
            found = fn
            break
    _BY_TYPE[cls] = found
    return found


def check_layer_input(cell, args, kwargs) -> None:
    """Run the input check of a built-in layer's call, if it has one.

    Raises:
        ShapeInferenceError: a shape or dtype the layer does not take.
        LayerIndexError: (eager mode) an index out of the layer's range.
    """
    fn = _check_of(type(cell))
    if fn is not None:
        fn(cell, args, kwargs or {})
