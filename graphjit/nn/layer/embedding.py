"""MindSpore's `mindspore.nn.layer.embedding`: Embedding."""
from __future__ import annotations

from ... import ops
from ...common import initializer as init
from ..._checkparam import _positive_int
from ...ir.dtypes import float32, int32
from ..cell import Cell
from ...common.parameter import Parameter

__all__ = ["Embedding", "EmbeddingLookup"]


# -- embedding -----------------------------------------------------------------------------------
class Embedding(Cell):
    """Rows of the table (vocab_size, embedding_size) picked by integer ids: the output is
    the ids' shape plus embedding_size. The table starts as N(0, 0.01) ('normal') with
    row padding_idx zero; use_one_hot computes one_hot(ids) @ table instead of a gather
    (the same values)."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=int32, padding_idx=None):
        super().__init__()
        self.vocab_size = _positive_int(vocab_size, "vocab_size", "Embedding")
        self.embedding_size = _positive_int(embedding_size, "embedding_size", "Embedding")
        self.use_one_hot = bool(use_one_hot)
        table = init.initializer(embedding_table, (vocab_size, embedding_size), float32)
        if padding_idx is not None:
            if not isinstance(padding_idx, int) or not -vocab_size <= padding_idx < vocab_size:
                raise ValueError(f"Embedding: padding_idx must be an int in [-{vocab_size}, "
                                 f"{vocab_size}), got {padding_idx!r}")
            data = table.asnumpy().copy()
            data[padding_idx] = 0
            table = data
        self.padding_idx = padding_idx
        self.dtype = dtype
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if self.use_one_hot:
            hot = ops.one_hot(ids, self.vocab_size, 1.0, 0.0)
            return ops.matmul(hot, self.embedding_table)
        return ops.gather(self.embedding_table, ids, 0)


class EmbeddingLookup(Cell):
    """Rows of the table (vocab_size, embedding_size) picked by integer ids, as
    MindSpore's EmbeddingLookup: with target 'CPU' (its default) an id outside [0,
    vocab_size) gives a row of zeros (the EmbeddingLookup kernel); with 'DEVICE' the rows
    are gathered. `max_norm` clips each looked-up row to that L2-norm. The slice modes,
    `sparse` and `vocab_cache_size` are MindSpore's parallel and storage settings: kept,
    and the values are the same for each (one process here).

    Raises:
        ValueError: target is not 'CPU' or 'DEVICE'; sparse is False with target 'CPU'; an
            unknown slice_mode.
    """

    BATCH_SLICE = "batch_slice"
    FIELD_SLICE = "field_slice"
    TABLE_ROW_SLICE = "table_row_slice"
    TABLE_COLUMN_SLICE = "table_column_slice"

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 vocab_cache_size=0, dtype=float32):
        super().__init__()
        cls = "EmbeddingLookup"
        self.vocab_size = _positive_int(vocab_size, "vocab_size", cls)
        self.embedding_size = _positive_int(embedding_size, "embedding_size", cls)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{cls}', the 'target' must be one of values in ('CPU', "
                             f"'DEVICE'), but got {target!r}.")
        if not sparse and target == "CPU":
            raise ValueError(f"For '{cls}', 'sparse' must be True when 'target' is \"CPU\", "
                             f"but got 'sparse': {sparse} and 'target': {target}")
        if slice_mode not in (self.BATCH_SLICE, self.FIELD_SLICE, self.TABLE_ROW_SLICE,
                              self.TABLE_COLUMN_SLICE):
            raise ValueError(f"For '{cls}', the 'slice_mode' must be one of values in "
                             f"('field_slice', 'table_row_slice', 'table_column_slice', "
                             f"'batch_slice'), but got {slice_mode!r}.")
        if max_norm is not None and (isinstance(max_norm, bool) or
                                     not isinstance(max_norm, (int, float)) or max_norm <= 0):
            raise ValueError(f"For '{cls}', the 'max_norm' must be a positive float, but got "
                             f"{max_norm!r}.")
        self.target, self.sparse, self.slice_mode = target, bool(sparse), slice_mode
        self.manual_shapes, self.vocab_cache_size = manual_shapes, vocab_cache_size
        self.max_norm = None if max_norm is None else float(max_norm)
        self.embedding_table = Parameter(
            init.initializer(param_init, (self.vocab_size, self.embedding_size), dtype),
            name="embedding_table")

    def construct(self, indices):
        if self.target == "CPU":
            inside = ops.logical_and(indices >= 0, indices < self.vocab_size)
            rows = ops.gather(self.embedding_table, ops.where(inside, indices, 0), 0)
            out = rows * ops.cast(ops.expand_dims(inside, -1), rows.dtype)
        else:
            out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.ReduceSum(keep_dims=True)(ops.square(out), -1))
            out = out * self.max_norm / ops.maximum(norm, self.max_norm)
        return out
