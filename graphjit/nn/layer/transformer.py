"""MindSpore's `mindspore.nn.layer.transformer`: MultiheadAttention and the Transformer
encoder/decoder layers."""
from __future__ import annotations

import copy
import math

from ... import ops
from ...common import initializer as init
from ...ir.dtypes import float32
from ..cell import Cell
from .basic import Dense, Dropout
from .container import CellList
from .normalization import LayerNorm
from ...common.parameter import Parameter
from ...common.tensor import TensorLike

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _mask_as_bias(mask, dtype):
    """A bool mask (True: not attended) as -inf where set, 0 elsewhere; a float mask is
    added as it is."""
    if mask.dtype.is_bool:
        zeros = ops.zeros_like(ops.cast(mask, dtype))
        return ops.masked_fill(zeros, mask, float("-inf"))
    return ops.cast(mask, dtype)


def _activation(activation, layer):
    """('relu' or 'gelu', None) for those names (ops.relu and the exact ops.gelu, as
    MindSpore's transformer layers use), or (None, the Cell or function)."""
    if isinstance(activation, str):
        name = activation.lower()
        if name not in ("relu", "gelu"):
            raise ValueError(f"{layer}: activation must be 'relu', 'gelu' or a Cell, got "
                             f"{activation!r}")
        return name, None
    if not callable(activation) or isinstance(activation, TensorLike):
        raise TypeError(f"{layer}: activation must be 'relu', 'gelu' or a Cell, got "
                        f"{activation!r}")
    return None, activation


def _clones(layer, n, what):
    if not isinstance(layer, Cell):
        raise TypeError(f"{what}: the layer must be a Cell, got {type(layer).__name__}")
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise TypeError(f"{what}: num_layers must be a positive int, got {n!r}")
    return CellList([copy.deepcopy(layer) for _ in range(n)])


class MultiheadAttention(Cell):
    """Multi-head attention (Attention Is All You Need): query (L, N, E) (or (N, L, E)
    with batch_first, or (L, E) unbatched), key and value (S, N, kdim / vdim). The
    projections are in_proj_weight (3E, E) and in_proj_bias (3E,) (q_proj_weight,
    k_proj_weight and v_proj_weight when kdim or vdim differ from E) and out_proj, a
    Dense(E, E). construct returns (attn_output, attn_weights): the weights are averaged
    over the heads unless average_attn_weights is False; without need_weights the
    result is (attn_output,), as MindSpore returns.
    key_padding_mask (N, S) and attn_mask (L, S) or (N * num_heads, L, S) are bool
    (True: not attended) or float (added to the scores). dropout applies to the
    attention weights while training."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=float32):
        super().__init__()
        for name, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise TypeError(f"MultiheadAttention: {name} must be a positive int, got {v!r}")
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim {embed_dim} must be divisible by "
                             f"num_heads {num_heads}")
        if add_bias_kv or add_zero_attn:
            raise ValueError("MultiheadAttention: add_bias_kv and add_zero_attn are not "
                             "supported by graphjit; leave them False")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self.same_dims = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first = bool(batch_first)
        self.dropout = float(dropout)
        self.has_bias = bool(has_bias)
        xavier = init.XavierUniform()
        if self.same_dims:
            self.in_proj_weight = Parameter(init.initializer(xavier, (3 * embed_dim, embed_dim),
                                                             dtype), name="in_proj_weight")
        else:
            self.q_proj_weight = Parameter(init.initializer(xavier, (embed_dim, embed_dim),
                                                            dtype), name="q_proj_weight")
            self.k_proj_weight = Parameter(init.initializer(xavier, (embed_dim, self.kdim),
                                                            dtype), name="k_proj_weight")
            self.v_proj_weight = Parameter(init.initializer(xavier, (embed_dim, self.vdim),
                                                            dtype), name="v_proj_weight")
        self.in_proj_bias = None
        if self.has_bias:
            self.in_proj_bias = Parameter(init.initializer("zeros", (3 * embed_dim,), dtype),
                                          name="in_proj_bias")
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=self.has_bias, dtype=dtype)
        self.attn_dropout = Dropout(p=self.dropout)

    def _project(self, x, k):
        e = self.embed_dim
        if self.same_dims:
            w = self.in_proj_weight[k * e:(k + 1) * e]
        elif k == 0:
            w = self.q_proj_weight
        elif k == 1:
            w = self.k_proj_weight
        else:
            w = self.v_proj_weight
        y = ops.matmul(x, ops.transpose(w, (1, 0)))
        if self.has_bias:
            y = y + self.in_proj_bias[k * e:(k + 1) * e]
        return y

    def _heads(self, x):
        """(N, L, E) as (N, H, L, D)."""
        n_len = x.shape[1]
        return ops.transpose(ops.reshape(x, (-1, n_len, self.num_heads, self.head_dim)),
                             (0, 2, 1, 3))

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = (ops.expand_dims(query, 0), ops.expand_dims(key, 0),
                                 ops.expand_dims(value, 0))
            if key_padding_mask is not None:
                key_padding_mask = ops.expand_dims(key_padding_mask, 0)
        elif not self.batch_first:
            query, key, value = (ops.transpose(query, (1, 0, 2)), ops.transpose(key, (1, 0, 2)),
                                 ops.transpose(value, (1, 0, 2)))
        q = self._heads(self._project(query, 0)) * (1.0 / math.sqrt(self.head_dim))
        k = self._heads(self._project(key, 1))
        v = self._heads(self._project(value, 2))
        scores = ops.matmul(q, ops.transpose(k, (0, 1, 3, 2)))          # (N, H, L, S)
        if attn_mask is not None:
            bias = _mask_as_bias(attn_mask, scores.dtype)
            if bias.ndim == 3:
                bias = ops.reshape(bias, (-1, self.num_heads, bias.shape[1], bias.shape[2]))
            scores = scores + bias
        if key_padding_mask is not None:
            pad = _mask_as_bias(key_padding_mask, scores.dtype)
            scores = scores + ops.expand_dims(ops.expand_dims(pad, 1), 1)
        weights = ops.softmax(scores, -1)
        out = ops.matmul(self.attn_dropout(weights), v)                  # (N, H, L, D)
        n_len = out.shape[2]
        out = ops.reshape(ops.transpose(out, (0, 2, 1, 3)), (-1, n_len, self.embed_dim))
        out = self.out_proj(out)
        if unbatched:
            out = ops.squeeze(out, 0)
        elif not self.batch_first:
            out = ops.transpose(out, (1, 0, 2))
        if not need_weights:
            return (out,)
        if average_attn_weights:
            weights = ops.mean(weights, 1)
        if unbatched:
            weights = ops.squeeze(weights, 0)
        return out, weights


class TransformerEncoderLayer(Cell):
    """Self-attention and a feed-forward block (Dense(d_model, dim_feedforward),
    activation, Dense back), each with dropout and a residual connection and LayerNorm:
    after each block (the default) or, with norm_first, before it. src is (S, N, E), or
    (N, S, E) with batch_first."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=float(dropout))
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=float(dropout))
        self.dropout2 = Dropout(p=float(dropout))
        self.activation_name, self.activation = _activation(activation, type(self).__name__)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        # the blocks are written out here: a helper method of a graphjit module runs as
        # plain Python, and could not call the sub-Cells in graph mode
        x = src
        h = x
        if self.norm_first:
            h = self.norm1(x)
        h = self.self_attn(h, h, h, src_key_padding_mask, False, src_mask)[0]
        x = x + self.dropout1(h)
        if not self.norm_first:
            x = self.norm1(x)
        h = x
        if self.norm_first:
            h = self.norm2(x)
        h = self.dense1(h)
        if self.activation_name == "relu":
            h = ops.relu(h)
        elif self.activation_name == "gelu":
            h = ops.gelu(h, "none")
        else:
            h = self.activation(h)
        x = x + self.dropout2(self.dense2(self.dropout(h)))
        if not self.norm_first:
            x = self.norm2(x)
        return x


class TransformerEncoder(Cell):
    """num_layers copies of encoder_layer (starting from its weights) applied in turn,
    then norm if given."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, mask=None, src_key_padding_mask=None, src_mask=None):
        # `mask` (MindSpore 2.0) and `src_mask` (later 2.x) name the same argument
        if mask is None:
            mask = src_mask
        out = src
        for layer in self.layers:
            out = layer(out, mask, src_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoderLayer(Cell):
    """Self-attention over tgt, attention over memory and a feed-forward block, each
    with dropout, a residual connection and LayerNorm (after each block, or before it
    with norm_first). tgt is (T, N, E) and memory (S, N, E), or batch first."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=float(dropout))
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=float(dropout))
        self.dropout2 = Dropout(p=float(dropout))
        self.dropout3 = Dropout(p=float(dropout))
        self.activation_name, self.activation = _activation(activation, type(self).__name__)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        x = tgt
        h = x
        if self.norm_first:
            h = self.norm1(x)
        h = self.self_attn(h, h, h, tgt_key_padding_mask, False, tgt_mask)[0]
        x = x + self.dropout1(h)
        if not self.norm_first:
            x = self.norm1(x)
        h = x
        if self.norm_first:
            h = self.norm2(x)
        h = self.multihead_attn(h, memory, memory, memory_key_padding_mask, False,
                                memory_mask)[0]
        x = x + self.dropout2(h)
        if not self.norm_first:
            x = self.norm2(x)
        h = x
        if self.norm_first:
            h = self.norm3(x)
        h = self.dense1(h)
        if self.activation_name == "relu":
            h = ops.relu(h)
        elif self.activation_name == "gelu":
            h = ops.gelu(h, "none")
        else:
            h = self.activation(h)
        x = x + self.dropout3(self.dense2(self.dropout(h)))
        if not self.norm_first:
            x = self.norm3(x)
        return x


class TransformerDecoder(Cell):
    """num_layers copies of decoder_layer applied in turn to tgt (each attending to
    memory), then norm if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                        memory_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Cell):
    """An encoder (num_encoder_layers TransformerEncoderLayers and a LayerNorm) and a
    decoder (num_decoder_layers TransformerDecoderLayers and a LayerNorm), or
    custom_encoder / custom_decoder. construct(src, tgt, ...) encodes src and decodes
    tgt against it."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, dtype=float32):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, dtype)
            self.encoder = TransformerEncoder(
                layer, num_encoder_layers,
                LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, dtype)
            self.decoder = TransformerDecoder(
                layer, num_decoder_layers,
                LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for _, p in self.parameters_and_names():    # as MindSpore: Xavier for matrices
            if len(p.shape) > 1:
                p.set_data(init.initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, bool(batch_first)

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask)
