"""MindSpore's `mindspore.nn.layer.container`: CellList and SequentialCell."""
from __future__ import annotations

import operator
from collections import OrderedDict

from ..cell import Cell

__all__ = ["CellList", "SequentialCell"]


class CellList(Cell):
    """A list of sub-Cells; iterating it in construct unrolls."""

    def __init__(self, args=None, auto_prefix=True):
        super().__init__(auto_prefix=auto_prefix)
        for c in args or ():
            self.append(c)

    def append(self, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"CellList holds Cells, got {type(cell).__name__}")
        prefix = _prefix_of(self)
        key = str(len(self._cells))
        setattr(self, key, cell)
        if prefix and self._auto_prefix:
            cell.update_parameters_name(f"{prefix}{key}.")
        return self

    def extend(self, cells):
        for c in cells:
            self.append(c)
        return self

    def insert(self, index, cell):
        """Insert cell before position index (as list.insert)."""
        cells = list(self._cells.values())
        cells.insert(index, cell)
        _reset_cells(self, [(None, c) for c in cells])

    def __getitem__(self, i):
        cells = list(self._cells.values())
        if isinstance(i, slice):
            return CellList(cells[i])
        return cells[_index(i, len(cells), "CellList")]

    def __setitem__(self, i, cell):
        cells = list(self._cells.values())
        cells[_index(i, len(cells), "CellList")] = cell
        _reset_cells(self, [(None, c) for c in cells])

    def __delitem__(self, i):
        cells = list(self._cells.values())
        del cells[i if isinstance(i, slice) else _index(i, len(cells), "CellList")]
        _reset_cells(self, [(None, c) for c in cells])

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def construct(self, *args):
        raise TypeError("CellList is a container; call its items, not the list")


def _index(i, n, what):
    if isinstance(i, bool):
        raise TypeError(f"{what} indices must be ints or slices, got bool")
    try:
        i = operator.index(i)    # an int, or an integer Tensor holding one (eagerly)
    except TypeError:
        raise TypeError(f"{what} indices must be ints or slices, got "
                        f"{type(i).__name__}") from None
    if not -n <= i < n:
        raise IndexError(f"{what} index {i} out of range for {n} cells")
    return i % n


def _reset_cells(container, items):
    """Refill a container Cell with (name or None, cell) pairs; unnamed ones, and all of
    them if every old name was a position, are numbered by position."""
    for c in (c for _, c in items):
        if not isinstance(c, Cell):
            raise TypeError(f"{type(container).__name__} holds Cells, got "
                            f"{type(c).__name__}")
    numbered = all(k.isdigit() for k in container._cells)
    names = [str(i) if numbered or name is None else name for i, (name, _) in
             enumerate(items)]
    taken = {n for n, (name, _) in zip(names, items) if not numbered and name is not None}
    for i, (name, _) in enumerate(items):
        if not numbered and name is None and names[i] in taken:   # a position-like name
            k = 0                                                 # already given
            while f"{i}_{k}" in taken:
                k += 1
            names[i] = f"{i}_{k}"
        taken.add(names[i])
    prefix = _prefix_of(container)
    for k in list(container._cells):
        container.__dict__.pop(k, None)
    container._cells.clear()
    for name, (_, c) in zip(names, items):
        setattr(container, name, c)
        if prefix and container._auto_prefix:
            c.update_parameters_name(f"{prefix}{name}.")


def _prefix_of(container) -> str:
    """The path the container's Parameters were named under ('blocks.' when it is the
    attribute 'blocks' of a Cell with auto_prefix): the part of the first Parameter's
    name before its item's key, as MindSpore's _get_prefix_and_index finds it."""
    for key, cell in container._cells.items():
        for _, p in cell.parameters_and_names():
            parts = (p.name or "").split(".")
            if key in parts:
                k = parts.index(key)
                return ".".join(parts[:k]) + "." if k else ""
            return ""
    return ""


class SequentialCell(Cell):
    """Sub-Cells applied in order."""

    def __init__(self, *args):
        super().__init__()
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple, dict,
                                                                     OrderedDict)) else args
        if isinstance(cells, (dict, OrderedDict)):
            for k, c in cells.items():
                setattr(self, k, c)
        else:
            for i, c in enumerate(cells):
                setattr(self, str(i), c)

    def __getitem__(self, i):
        cells = list(self._cells.values())
        if isinstance(i, slice):
            return SequentialCell(cells[i])
        return cells[_index(i, len(cells), "SequentialCell")]

    def __setitem__(self, i, cell):
        items = list(self._cells.items())
        k = _index(i, len(items), "SequentialCell")
        items[k] = (items[k][0], cell)
        _reset_cells(self, items)

    def __delitem__(self, i):
        items = list(self._cells.items())
        del items[i if isinstance(i, slice) else _index(i, len(items), "SequentialCell")]
        _reset_cells(self, items)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def append(self, cell):
        _reset_cells(self, list(self._cells.items()) + [(str(len(self._cells)), cell)])
        return self

    def extend(self, cells):
        for c in cells:
            self.append(c)
        return self

    def insert(self, index, cell):
        """Insert cell before position index (as list.insert)."""
        items = list(self._cells.items())
        items.insert(index, (None, cell))
        _reset_cells(self, items)

    def construct(self, x):
        for cell in self.cells():
            x = cell(x)
        return x
