"""MindSpore's `mindspore.nn.cell`: Cell, the base of every layer, loss, optimizer and
wrapper of graphjit.nn."""
from __future__ import annotations

from collections import OrderedDict

from .. import ops
from ..context import _context, compiler as _compiler, GRAPH_MODE
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..tracebacks import user_facing as _user_facing

__all__ = ["Cell"]


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
        elif isinstance(value, Tensor) and not isinstance(value, Parameter) and \
                isinstance(self.__dict__.get(name), Parameter):
            # a Tensor given to a Parameter attribute updates the Parameter (MindSpore's
            # set_data), as `self.p = v` in a compiled construct does
            ops.assign(self.__dict__[name], value)
            return
        object.__setattr__(self, name, value)

    def __deepcopy__(self, memo):
        """A copy with its own Parameters (same values) and no compiled graphs (as
        TransformerEncoder makes its layers)."""
        import copy
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            if k == "_graphjit_caches":     # compiled graphs (with locks): built anew
                continue
            object.__setattr__(new, k, None if k == "_compiled" else copy.deepcopy(v, memo))
        return new

    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct(self, ...)")

    def __call__(self, *args, **kwargs):
        if type(self)._force_jit or _context["mode"] == GRAPH_MODE:
            try:
                return _compiler.call_cell(self, args, kwargs)
            except Exception as e:   # raised from here: the one graphjit frame users see
                raise _user_facing(e)
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

    def parameters_and_names(self, name_prefix="", expand=True):
        """(name, Parameter) for the Parameters of this Cell and, if expand, of its
        sub-Cells: its own first (in the order they were set), each once."""
        seen = set()
        for prefix, cell in (self.cells_and_names(name_prefix) if expand else
                             [(name_prefix, self)]):
            for attr, value in vars(cell).items():
                if isinstance(value, Parameter) and id(value) not in seen:
                    seen.add(id(value))
                    yield (f"{prefix}.{attr}" if prefix else attr), value

    def get_parameters(self, expand=True):
        """The Parameters of this Cell (and of its sub-Cells if expand)."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        """The Parameters with requires_grad, as a list (MindSpore's weights)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def set_train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for c in self._cells.values():
            c.set_train(mode)
        return self

    def set_grad(self, requires_grad=True):
        return self

    def insert_child_to_cell(self, child_name, child_cell):
        """Add child_cell as the sub-Cell child_name (as setattr)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"child name must be a non-empty str without '.', got "
                           f"{child_name!r}")
        if hasattr(self, child_name) and child_name not in self._cells:
            raise KeyError(f"{type(self).__name__} already has an attribute {child_name!r}")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"child_cell must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def parameters_dict(self, recurse=True):
        """OrderedDict name -> Parameter (of the sub-Cells too if recurse)."""
        return OrderedDict(self.parameters_and_names(expand=recurse))

    def apply(self, fn):
        """fn(cell) for every sub-Cell (recursively) and then this Cell; returns self."""
        for c in self._cells.values():
            c.apply(fn)
        fn(self)
        return self

    def compile_cache(self):
        """The compiled graphs of this Cell, one per input signature (see explain)."""
        return _compiler.cell_cache(self)

    def __repr__(self):
        inner = ", ".join(f"{k}={type(v).__name__}" for k, v in self._cells.items())
        return f"{type(self).__name__}<{inner}>"
