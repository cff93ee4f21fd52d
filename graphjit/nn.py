"""nn.Cell and its containers: models whose `construct` runs eagerly or as a graph."""
from __future__ import annotations

from collections import OrderedDict

from .context import GRAPH_MODE, get_context

__all__ = ["Cell", "CellList", "SequentialCell", "ReLU", "Sigmoid", "Tanh", "Softmax",
           "Flatten", "Identity"]


class Cell:
    """Base class of models. Subclass it, set attributes in `__init__`, define
    `construct(self, ...)`. Calling the Cell runs `construct` in the current mode:
    compiled to a graph (GRAPH_MODE, the default) or eagerly (PYNATIVE_MODE)."""

    _force_jit = False

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_compiled", None)
        object.__setattr__(self, "_input_specs", None)
        object.__setattr__(self, "training", False)

    def __setattr__(self, name, value):
        cells = self.__dict__.get("_cells")
        if cells is None:
            if isinstance(value, Cell):
                raise AttributeError(f"assign sub-Cell '{name}' after super().__init__() in "
                                     f"{type(self).__name__}.__init__")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Cell):
            cells[name] = value
        elif name in cells:
            del cells[name]
        object.__setattr__(self, name, value)

    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct(self, ...)")

    def __call__(self, *args, **kwargs):
        if type(self)._force_jit or get_context("mode") == GRAPH_MODE:
            from .frontend.api import call_compiled
            return call_compiled(self, args, kwargs)
        return self.construct(*args, **kwargs)

    # -- MindSpore-compatible helpers -------------------------------------------------------
    def set_inputs(self, *inputs):
        """Describe the inputs (Tensors without data or TensorSpecs); None dims become
        unknown dims for every compilation of this Cell."""
        object.__setattr__(self, "_input_specs", tuple(inputs))
        object.__setattr__(self, "_compiled", None)

    def get_inputs(self):
        return self._input_specs

    def cells(self):
        return list(self._cells.values())

    def name_cells(self):
        return OrderedDict(self._cells)

    def cells_and_names(self, cell_name=""):
        yield cell_name, self
        for name, cell in self._cells.items():
            yield from cell.cells_and_names(f"{cell_name}.{name}" if cell_name else name)

    def set_train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for c in self._cells.values():
            c.set_train(mode)
        return self

    def set_grad(self, requires_grad=True):
        return self

    def compile_cache(self):
        """The compiled graphs of this Cell, one per input signature (see explain)."""
        from .frontend.api import cache_of
        return cache_of(self)

    def __repr__(self):
        inner = ", ".join(f"{k}={type(v).__name__}" for k, v in self._cells.items())
        return f"{type(self).__name__}<{inner}>"


class CellList(Cell):
    """A list of sub-Cells; iterating it in construct unrolls."""

    def __init__(self, args=None, auto_prefix=True):
        super().__init__()
        for c in args or ():
            self.append(c)

    def append(self, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"CellList holds Cells, got {type(cell).__name__}")
        setattr(self, str(len(self._cells)), cell)
        return self

    def extend(self, cells):
        for c in cells:
            self.append(c)
        return self

    def __getitem__(self, i):
        cells = list(self._cells.values())
        if isinstance(i, slice):
            return CellList(cells[i])
        return cells[i]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def construct(self, *args):
        raise TypeError("CellList is a container; call its items, not the list")


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
        return list(self._cells.values())[i]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def append(self, cell):
        setattr(self, str(len(self._cells)), cell)
        return self

    def construct(self, x):
        for cell in self.cells():
            x = cell(x)
        return x


class _Activation(Cell):
    _fn_name = ""

    def construct(self, x):
        from . import ops
        return getattr(ops, self._fn_name)(x)


class ReLU(_Activation):
    _fn_name = "relu"


class Sigmoid(_Activation):
    _fn_name = "sigmoid"


class Tanh(_Activation):
    _fn_name = "tanh"


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        from . import ops
        return ops.softmax(x, self.axis)


class Flatten(Cell):
    def construct(self, x):
        from . import ops
        return ops.reshape(x, (x.shape[0], -1))


class Identity(Cell):
    def construct(self, x):
        return x
