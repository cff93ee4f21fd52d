"""nn.Cell, its containers and the common layers (Dense, activations, Flatten, Dropout):
models whose `construct` runs eagerly or as a graph."""
from __future__ import annotations

import math
import operator
import os as _os
from collections import OrderedDict

from . import initializer as init
from . import ops
from .context import GRAPH_MODE, _context, compiler as _compiler
from .ir.dtypes import float32
from .parameter import Parameter
from .tensor import Tensor
from .tracebacks import user_facing as _user_facing

# MindSpore's module spellings (mindspore.nn.layer, mindspore.nn.loss.loss,
# mindspore.nn.optim.optimizer, mindspore.nn.cell, ...) are modules in nn_modules/ that
# re-export this module: graphjit.nn searches there for its submodules.
__path__ = [_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "nn_modules")]

__all__ = ["Cell", "CellList", "SequentialCell", "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU",
           "LeakyReLU", "ELU", "GELU", "Softplus", "Softmax", "LogSoftmax", "Flatten",
           "Identity", "Dropout", "Dense", "get_activation"]


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
    for k in list(container._cells):
        container.__dict__.pop(k, None)
    container._cells.clear()
    for name, (_, c) in zip(names, items):
        setattr(container, name, c)


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


class _Activation(Cell):
    """An activation: construct applies `_fn`, an ops function (called directly)."""

    _fn = None

    def construct(self, x):
        return self._fn(x)


class ReLU(_Activation):
    _fn = staticmethod(ops.relu)


class ReLU6(_Activation):
    _fn = staticmethod(ops.relu6)


class Sigmoid(_Activation):
    _fn = staticmethod(ops.sigmoid)


class Tanh(_Activation):
    _fn = staticmethod(ops.tanh)


class SiLU(_Activation):
    _fn = staticmethod(ops.silu)


class LeakyReLU(Cell):
    """x where x >= 0, else alpha * x."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class ELU(Cell):
    """x where x > 0, else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(x, self.alpha)


class GELU(Cell):
    """x * Phi(x); approximate=True uses the tanh form (MindSpore's default)."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return ops.gelu(x, self.approximate)


class Softplus(Cell):
    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class Flatten(Cell):
    """Merge every dim after the first (works with an unknown batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    def construct(self, x):
        return x


class Dropout(Cell):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) while the
    Cell is training (set_train()); the identity otherwise. The masks come from the
    generator `ms.set_seed` seeds, drawn when the program runs, in both modes."""

    def __init__(self, keep_prob=None, p=None, dtype=None):
        super().__init__()
        if p is None:
            p = 0.5 if keep_prob is None else 1.0 - keep_prob
        if not 0.0 <= p < 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return ops.dropout(x, self.p, True)


# Activation names (nn.get_activation, Dense's `activation=`) and their Cells.
_ACTIVATIONS = {"relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh,
                "silu": SiLU, "leakyrelu": LeakyReLU, "elu": ELU, "gelu": GELU,
                "softplus": Softplus, "softmax": Softmax, "logsoftmax": LogSoftmax}


def get_activation(name):
    """The activation Cell of this name ('relu', 'gelu', ...); None gives None."""
    if name is None:
        return None
    cls = _ACTIVATIONS.get(str(name).lower())
    if cls is None:
        raise KeyError(f"unknown activation '{name}'; use one of {', '.join(_ACTIVATIONS)}")
    return cls()


class Dense(Cell):
    """Fully connected layer: activation(x @ weight.T + bias), weight of shape
    (out_channels, in_channels).

    weight_init and bias_init take a Tensor or numpy array, a number, an initializer
    name ('normal', 'uniform', 'zeros', 'ones', 'he_uniform', 'xavier_uniform') or an
    Initializer; by default weight is HeUniform(sqrt(5)) and bias U(-1/sqrt(in),
    1/sqrt(in)), as MindSpore, drawn from the generator `ms.set_seed` seeds. Both are
    Parameters named "weight" and "bias".
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=float32):
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise TypeError(f"Dense: {name} must be a positive int, got {v!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        if weight_init is None:
            weight_init = init.HeUniform(math.sqrt(5))
        self.weight = Parameter(init.initializer(weight_init, (out_channels, in_channels),
                                                 dtype), name="weight")
        self.has_bias = bool(has_bias)
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                bias_init = init.Uniform(1.0 / math.sqrt(in_channels))
            self.bias = Parameter(init.initializer(bias_init, (out_channels,), dtype),
                                  name="bias")
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, x):
        out = self.matmul(x, self.weight)
        if self.has_bias:
            out = out + self.bias
        if self.activation is not None:
            out = self.activation(out)
        return out


from .nn_layers import *  # noqa: F401,F403,E402  (layers built on Cell, defined above)
from . import nn_layers as _nn_layers  # noqa: E402
from .nn_losses import *  # noqa: F401,F403,E402  (losses, optimizers and training wrappers)
from .nn_optim import *  # noqa: F401,F403,E402
from .nn_wrap import *  # noqa: F401,F403,E402
from . import nn_losses as _nn_losses, nn_optim as _nn_optim, nn_wrap as _nn_wrap  # noqa: E402
from .nn_extra import *  # noqa: F401,F403,E402  (Conv1d, GroupNorm, Upsample, KLDivLoss, ...)
from .nn_attention import *  # noqa: F401,F403,E402  (MultiheadAttention, Transformer...)
from . import nn_extra as _nn_extra, nn_attention as _nn_attention  # noqa: E402

from .metrics import MAE, MSE, Accuracy, Loss, Metric  # noqa: E402  (MindSpore 1.x's nn names)

__all__ += list(_nn_layers.__all__) + list(_nn_losses.__all__) + list(_nn_optim.__all__) + \
    list(_nn_wrap.__all__) + list(_nn_extra.__all__) + list(_nn_attention.__all__) + \
    ["Accuracy", "Loss", "MAE", "MSE", "Metric"]
