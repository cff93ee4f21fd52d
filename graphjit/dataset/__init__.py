"""A small `mindspore.dataset`: in-memory datasets of numpy rows, batched and shuffled,
read as tuples of Tensors (what Model.train and training loops take).

    import graphjit.dataset as ds
    data = ds.NumpySlicesDataset((x, y), column_names=["data", "label"], shuffle=False)
    data = data.batch(32)
    for x, y in data.create_tuple_iterator():
        loss = train_step(x, y)

Only what training scripts commonly use: NumpySlicesDataset, GeneratorDataset (a
generator function, or a source with __getitem__ and __len__), batch, shuffle, map
(Python callables on a column), create_tuple_iterator, create_dict_iterator,
get_dataset_size, get_col_names. Shuffling draws from config.set_seed's generator.

Sharding for data-parallel training, as MindSpore's DistributedSampler:
`NumpySlicesDataset(data, num_shards=get_group_size(), shard_id=get_rank())` gives
shard k the rows k, k + num_shards, k + 2 * num_shards, ... of the (shuffled) order,
ceil(rows / num_shards) of them (wrapping around to the first rows, so that every
shard has as many). Every process shuffles with the same seed, so the shards split
one permutation.
"""
from __future__ import annotations

from typing import Callable, Iterator, List, Optional, Sequence

import numpy as np

from ..common.tensor import Tensor

__all__ = ["NumpySlicesDataset", "GeneratorDataset", "Dataset", "config"]


class _Config:
    """ds.config: the seed shuffling draws from."""

    def __init__(self):
        self._seed = 0
        self.rng = np.random.default_rng(0)

    def set_seed(self, seed: int) -> None:
        self._seed = int(seed)
        self.rng = np.random.default_rng(int(seed))

    def get_seed(self) -> int:
        return self._seed


config = _Config()


def _row(x) -> tuple:
    if isinstance(x, dict):
        return tuple(np.asarray(v) for v in x.values())
    if isinstance(x, (tuple, list)):
        return tuple(np.asarray(v) for v in x)
    return (np.asarray(x),)


class Dataset:
    """Rows (tuples of numpy arrays, one per column) made by `_rows()` afresh at each
    pass; the operations return new datasets."""

    def __init__(self, column_names: Optional[Sequence[str]] = None):
        self._names = list(column_names) if column_names is not None else None

    def _rows(self) -> Iterator[tuple]:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- operations ------------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
        return _Derived(self, lambda rows: _batches(rows, batch_size, drop_remainder))

    def shuffle(self, buffer_size):
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or \
                buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        return _Derived(self, lambda rows: _shuffled(list(rows)))

    def map(self, operations, input_columns=None, output_columns=None, **kwargs):
        ops_ = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        names = self.get_col_names()
        cols = [input_columns] if isinstance(input_columns, str) else \
            list(input_columns or names[:1])
        idx = [names.index(c) for c in cols]

        def apply(rows):
            for r in rows:
                r = list(r)
                vals = [r[i] for i in idx]
                for op in ops_:
                    out = op(*vals)
                    vals = list(out) if isinstance(out, tuple) else [out]
                for i, v in zip(idx, vals):
                    r[i] = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)
                yield tuple(r)
        return _Derived(self, apply)

    # -- reading ---------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        for r in self._rows():
            yield [x if output_numpy else Tensor(x) for x in r]

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        names = self.get_col_names()
        for r in self._rows():
            yield {n: (x if output_numpy else Tensor(x)) for n, x in zip(names, r)}

    def __iter__(self):
        return self.create_tuple_iterator()

    def get_dataset_size(self) -> int:
        return sum(1 for _ in self._rows())

    def get_col_names(self) -> List[str]:
        if self._names is not None:
            return list(self._names)
        first = next(iter(self._rows()), ())
        return [f"column_{i}" for i in range(len(first))]


class _Derived(Dataset):
    def __init__(self, parent: Dataset, op: Callable):
        super().__init__(parent._names)
        self.parent, self.op = parent, op

    def _rows(self):
        return iter(self.op(self.parent._rows()))


def _batches(rows, n, drop):
    buf = []
    for r in rows:
        buf.append(r)
        if len(buf) == n:
            yield tuple(np.stack(col) for col in zip(*buf))
            buf = []
    if buf and not drop:
        yield tuple(np.stack(col) for col in zip(*buf))


def _check_shards(cls: str, num_shards, shard_id):
    """(num_shards, shard_id), both None when not sharding."""
    if num_shards is None and shard_id is None:
        return None, None
    if num_shards is None or shard_id is None:
        raise ValueError(f"{cls}: num_shards and shard_id must be given together, got "
                         f"num_shards={num_shards!r}, shard_id={shard_id!r}")
    for name, v in (("num_shards", num_shards), ("shard_id", shard_id)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{cls}: {name} must be an int, got {v!r}")
    if num_shards < 1:
        raise ValueError(f"{cls}: num_shards must be positive, got {num_shards}")
    if not 0 <= shard_id < num_shards:
        raise ValueError(f"{cls}: shard_id must be in [0, {num_shards - 1}], got {shard_id}")
    return int(num_shards), int(shard_id)


def _shard(order, num_shards, shard_id):
    """The indices of shard `shard_id` of `order` (MindSpore's DistributedSampler)."""
    order = list(order)
    if num_shards is None or not order:
        return order
    n = len(order)
    per = -(-n // num_shards)
    return [order[(num_shards * k + shard_id) % n] for k in range(per)]


def _shuffled(rows):
    order = config.rng.permutation(len(rows))
    return [rows[i] for i in order]


class NumpySlicesDataset(Dataset):
    """Rows sliced along axis 0 of each column: data is an array, a tuple or list of
    arrays (one per column) or a dict of column name to array."""

    def __init__(self, data, column_names=None, num_samples=None, shuffle=None,
                 num_shards=None, shard_id=None, **kwargs):
        if isinstance(data, dict):
            column_names = column_names or list(data)
            cols = [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            cols = [np.asarray(v) for v in data]
        else:
            cols = [np.asarray(data)]
        n = {len(c) for c in cols}
        if len(n) != 1:
            raise ValueError(f"NumpySlicesDataset: the columns have different lengths "
                             f"{sorted(n)}")
        super().__init__(column_names)
        self.cols, self.n = cols, n.pop()
        self.num_samples, self.shuffle_rows = num_samples, bool(shuffle)
        self.shards = _check_shards("NumpySlicesDataset", num_shards, shard_id)

    def _rows(self):
        order = config.rng.permutation(self.n) if self.shuffle_rows else range(self.n)
        order = _shard(order, *self.shards)
        count = 0
        for i in order:
            if self.num_samples is not None and count >= self.num_samples:
                return
            count += 1
            yield tuple(c[i] for c in self.cols)


class GeneratorDataset(Dataset):
    """Rows from `source`: a function returning an iterator of rows, an iterable, or an
    object with __getitem__ and __len__ (then shuffled unless shuffle=False)."""

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, num_shards=None,
                 shard_id=None, **kwargs):
        super().__init__(column_names)
        self.source, self.num_samples = source, num_samples
        random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        self.shuffle_rows = random_access and (shuffle is None or bool(shuffle))
        self.shards = _check_shards("GeneratorDataset", num_shards, shard_id)
        if self.shards[0] is not None and not random_access:
            raise ValueError("GeneratorDataset: num_shards and shard_id need a source with "
                             "__getitem__ and __len__ (a generator cannot be split into "
                             "shards)")

    def _rows(self):
        src = self.source
        if hasattr(src, "__getitem__") and hasattr(src, "__len__"):
            order = config.rng.permutation(len(src)) if self.shuffle_rows else \
                range(len(src))
            order = _shard(order, *self.shards)
            it = (src[int(i)] for i in order)
        else:
            it = iter(src() if callable(src) else src)
        for k, r in enumerate(it):
            if self.num_samples is not None and k >= self.num_samples:
                return
            yield _row(r)
