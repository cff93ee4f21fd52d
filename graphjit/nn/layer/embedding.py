"""MindSpore's `mindspore.nn.layer.embedding`: Embedding."""
from __future__ import annotations

from ... import ops
from ...common import initializer as init
from ..._checkparam import _positive_int
from ...ir.dtypes import float32, int32
from ..cell import Cell
from ...common.parameter import Parameter

__all__ = ["Embedding"]


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
